/* src/suggest.h — "did you mean": the known name closest to a misspelt one.
 *
 * Closeness is the Damerau-Levenshtein distance (optimal string alignment:
 * insertions, deletions, substitutions and swaps of two neighbours, each
 * 1), case-insensitive; a name of the form "family/leaf" is also compared by
 * its leaf ("rign" finds "allreduce/ring").  A name is suggested only when
 * it is close: a distance of at most 2, and at most a third of the longer
 * of the two (so "lr" suggests nothing for "k"); ties go to the first. */
#ifndef CCSIM_SUGGEST_H
#define CCSIM_SUGGEST_H

#include <stddef.h>

/* The edit distance between a and b (case-insensitive), capped at 255. */
int suggest_distance(const char *a, const char *b);

/* The closest name to word in names[] (NULL-terminated), or NULL when none
 * is close or word is one of them. */
const char *suggest_closest(const char *word, const char *const *names);

/* The same over a list written "a, b, c" (the lists in messages); the name
 * goes to out (len bytes) and out is returned, or NULL. */
const char *suggest_in_list(const char *word, const char *list, char *out, size_t len);

/* "did you mean \"NAME\"? " into out, to open the parenthesis of a message
 * ("unknown key \"X\" (%sknown here: ...)"), or "" when no name is close;
 * from names or list (either may be NULL).  Returns out. */
const char *suggest_hint(const char *word, const char *const *names, const char *list, char *out,
                         size_t len);

#endif
