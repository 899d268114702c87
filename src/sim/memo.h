/* src/sim/memo.h — the timing of iterations already simulated, by the hash
 * of their trace.
 *
 * Iterations are separated by a barrier, so each starts on an idle network
 * and its timing (the times of its actors' marks, from its start) is a pure
 * function of (platform, trace).  An iteration whose trace hashes like an
 * earlier one's takes that one's marks instead of running SimGrid.  The
 * hash is 128 bits (itrace.h): a collision between two different traces of
 * one run is not a practical concern; equal mark counts are checked too. */
#ifndef CCSIM_MEMO_H
#define CCSIM_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct sim_memo sim_memo;

/* A memo keeping at most `entries` timings (the oldest goes first). */
sim_memo *sim_memo_new(size_t entries);
void sim_memo_free(sim_memo *m);
/* The nmarks marks stored for hash h, or NULL. */
const double *sim_memo_find(const sim_memo *m, const uint64_t h[2], size_t nmarks);
/* Store a copy of marks[nmarks] for hash h: 0, or CCSIM_ERR_RUNTIME when
 * out of memory (the memo unchanged).  A timing the memo cannot keep would
 * be simulated again and the run's memo_hits would depend on the memory
 * left, so the caller stops the run. */
int sim_memo_put(sim_memo *m, const uint64_t h[2], const double *marks, size_t nmarks, ccsim_error *err);

#endif
