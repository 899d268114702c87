/* src/sim/numcheck.h — numbers that go bad stop the run.
 *
 * A NaN or an infinity in a gradient, a partial aggregate at a hop, the
 * aggregate or a metric is an error (exit 1) naming the iteration, the
 * worker and the tensor or hop, never a dropped key or a 0 in a table.  The
 * checks are cheap (one vectorized pass over a buffer just written, still in
 * cache) and deterministic (the simulation's order decides which is first).
 * The run loop calls them and stops the simulation on the first failure. */
#ifndef CCSIM_NUMCHECK_H
#define CCSIM_NUMCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/collective.h"

typedef struct numcheck {
  int failed;     /* a check failed: msg says which */
  char msg[512];
} numcheck;

/* Index of the first element of x[0..n) that is NaN or infinite, or n. */
size_t numcheck_first_bad(const float *x, size_t n);

/* 0 when x[0..n) is finite.  Else (once) sets nc->msg to "iteration IT,
 * worker W: WHAT holds VALUE at element OFFSET+k" (worker < 0: all workers,
 * one shared buffer) and returns -1. */
int numcheck_floats(numcheck *nc, const float *x, size_t n, uint32_t it, int worker, const char *what,
                    size_t offset);

/* 0 when every error accumulator of iteration it is finite (a hop's
 * partial aggregates, the aggregate against the exact mean); else sets
 * nc->msg naming the iteration and the hop, and returns -1. */
int numcheck_metrics(numcheck *nc, const coll_metrics *m, uint32_t it);

#endif
