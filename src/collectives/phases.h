/* src/collectives/phases.h — the rounds of a multi-phase compressor
 * (PowerSGD's P and Q: compressor.h, phases > 1), summed by a collective.
 *
 * Each round's fp32 payload is summed over all workers by the experiment's
 * collective through a plain-sum compressor ("none" whose finish leaves
 * the sum a sum); the exact sums of the workers' inputs alternate between
 * two buffers by iteration parity, so a worker that starts the next
 * iteration early cannot disturb the one being measured; the decoded sum
 * is written to one scratch buffer, the same on every worker (no yield
 * while in use: the rounds run on one lane).  One coll_phases per run,
 * shared by its workers; nothing of it is global. */
#ifndef CCSIM_PHASES_H
#define CCSIM_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "ccomp/compressor.h"

typedef struct coll_phases {
  ccomp_type sum_type; /* "none" with an identity finish: the rounds' arithmetic */
  double *exact[2];    /* [n] each: the exact sums of the inputs, by iteration parity */
  float *y;            /* [n]: the decoded sum of the current round */
  size_t n;
} coll_phases;

/* The rounds' state for n elements; NULL when out of memory. */
coll_phases *coll_phases_new(size_t n);
void coll_phases_free(coll_phases *ph);
/* The exact sums of iteration `iteration`'s inputs (zeroed by whoever
 * measured them). */
static inline double *coll_phases_exact(coll_phases *ph, uint32_t iteration) { return ph->exact[iteration % 2]; }

#endif
