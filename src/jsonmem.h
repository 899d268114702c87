/* src/jsonmem.h — jansson's allocations, counted, and a refusal that
 * jansson never sees.
 *
 * jansson 2.14 does not survive every failed allocation: its lexer ignores
 * a failed append to the text it saved (load.c, lex_save), so a string can
 * lose its closing quote and lex_scan_string then copies past both buffers
 * (heap corruption, found by fault injection: glibc's "free(): invalid next
 * size", once a SIGSEGV).  Elsewhere it drops a byte of a string ("ring"
 * read as "rng"), json_object_set_new can fail unseen, a json_pack can come
 * back NULL deep in a builder.  So every allocation jansson makes goes
 * through a counter of the ones refused (a document parsed or built while
 * the count grew is not trusted, and no JSON file is written once any was
 * refused), and a process that sets jsonmem_on_refusal (ccsim's: the
 * out-of-memory exit, src/cli/process.c) never lets jansson see a NULL. */
#ifndef CCSIM_JSONMEM_H
#define CCSIM_JSONMEM_H

#include <stddef.h>

/* How many allocations jansson was refused so far.  The first call makes
 * jansson allocate through the counter (safe at any time: the same free). */
unsigned long jsonmem_denied(void);

/* Called, after the count, with the size jansson asked for when malloc
 * refused it; it must not return (NULL, the default: jansson gets NULL). */
void jsonmem_on_refusal(void (*fn)(size_t));

#endif
