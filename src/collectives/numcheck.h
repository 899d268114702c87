/* src/collectives/numcheck.h — numbers that go bad stop the run.
 *
 * A NaN or an infinity in a gradient, a partial aggregate at a hop, the
 * aggregate or a metric is an error (exit 1) naming the iteration, the
 * worker and the tensor or hop, never a dropped key or a 0 in a table.  The
 * checks are cheap (one vectorized pass over a buffer just written, still in
 * cache; a measured payload's is its sum of squares, collectives/common.c),
 * and a generated gradient, finite by construction, is not checked
 * (sim/worker.c).  Workers run on several threads, and each goes on until it ends
 * or fails, so several may fail in one iteration: the failure reported is
 * the lowest worker's (then the first message in byte order), the same
 * whatever the threads did first (an earlier iteration's first of all).
 * The run loop stops the simulation once an iteration has failed. */
#ifndef CCSIM_NUMCHECK_H
#define CCSIM_NUMCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "collectives/collective.h"

typedef struct numcheck {
  int failed;     /* a check failed: msg says which */
  uint32_t it;    /* the iteration msg names */
  int worker;     /* the worker msg names (-1: all workers) */
  char msg[512];
} numcheck;

/* Record a failure in iteration it of `worker` (-1: all workers, one
 * shared buffer) with message msg, unless one of an earlier iteration, a
 * lower worker, or the same worker's smaller message is already recorded;
 * safe from any thread. */
void numcheck_fail(numcheck *nc, uint32_t it, int worker, const char *msg);

/* Index of the first element of x[0..n) that is NaN or infinite, or n. */
size_t numcheck_first_bad(const float *x, size_t n);

/* 0 when x[0..n) is finite.  Else records (numcheck_fail) "iteration IT,
 * worker W: WHAT holds VALUE at element OFFSET+k" (worker < 0: all workers,
 * one shared buffer) and returns -1. */
int numcheck_floats(numcheck *nc, const float *x, size_t n, uint32_t it, int worker, const char *what,
                    size_t offset);

/* 0 when every error accumulator of iteration it is finite (a hop's
 * partial aggregates, the aggregate against the exact mean); else sets
 * nc->msg naming the iteration and the hop, and returns -1. */
int numcheck_metrics(numcheck *nc, const coll_metrics *m, uint32_t it);

#endif
