/* src/jsonmem.h — jansson's allocations, counted.
 *
 * jansson does not always report a failed allocation: its parser can drop
 * a byte of a string ("ring" read as "rng"), json_object_set_new can fail
 * unseen, a json_pack can come back NULL deep in a builder.  So every
 * allocation jansson makes goes through a counter of the ones refused: a
 * JSON document parsed or built while the count grew is not trusted (the
 * reader reports out of memory, exit 1), and no JSON file is written once
 * any was refused. */
#ifndef CCSIM_JSONMEM_H
#define CCSIM_JSONMEM_H

/* How many allocations jansson was refused so far.  The first call makes
 * jansson allocate through the counter (safe at any time: the same free). */
unsigned long jsonmem_denied(void);

#endif
