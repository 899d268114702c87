/* src/data/feed.h — where a worker's gradient comes from during a run, and where
 * it is recorded.
 *
 * The source is the experiment's gradients.source, a descriptor of the
 * registry (source.h): generated ("synthetic", "sparse"), replayed from a
 * trace, or computed by live training.  With a record directory every
 * (worker, iteration) gradient is also written as a trace, before error
 * feedback touches it, so a run can be replayed later with source "trace".
 *
 * Per worker and iteration the run calls, in order: feed_begin (the
 * gradient is computed and recorded), feed_fill any number of times for any
 * ranges (the collective's input callback), feed_end with the aggregate the
 * worker received.  After the simulation: feed_finish.
 *
 * Failures inside the simulation (an I/O error while recording, a trace
 * that changed under the reader, a diverged training) cannot stop the
 * actors: they are kept, the iteration finishes on zeros, and the next
 * feed_iteration_begin (or feed_finish, after the last iteration) reports
 * the first one, which stops the run there.
 *
 * Ownership: feed_new returns a new feed, feed_free accepts NULL. */
#ifndef CCSIM_FEED_H
#define CCSIM_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "experiment.h"
#include "train/trainer.h"

typedef struct feed feed;

/* The experiment's gradient source, checked before anything runs (a trace is
 * trace_check'ed, training data loaded), and a recorder writing a trace to
 * record_dir when it is not NULL.  NULL with err set. */
feed *feed_new(const experiment *e, const char *record_dir, ccsim_error *err);
void feed_free(feed *f);

/* Worker w begins iteration it; returns the simulated seconds its gradient
 * took to compute (0 until a device time model provides them). */
double feed_begin(feed *f, uint32_t w, uint32_t it);
/* out[0 .. hi-lo) = elements [lo, hi) of w's gradient at iteration it. */
void feed_fill(feed *f, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out);
/* Whether feed_begin and feed_fill may run on several threads at once for
 * different workers (not for a source marked GSRC_SERIAL, such as a
 * replayed trace read through one reader, nor while recording, one file). */
int feed_threadsafe(const feed *f);
/* Worker w received the aggregate agg[elements] of iteration it (after the
 * iteration's workers have all ended, on one thread, in rank order). */
void feed_end(feed *f, uint32_t w, uint32_t it, const float *agg);
/* Before iteration it's workers start, and after they have all ended, on
 * one thread: what the workers share is made ready for `threads` threads,
 * then settled (live training: the last update applied; the losses summed
 * in rank order).  feed_iteration_begin returns 0, or the first failure so
 * far (the source's, then the feed's own) as an error code with err: the
 * run stops at iteration it. */
int feed_iteration_begin(feed *f, uint32_t it, int threads, ccsim_error *err);
void feed_iteration_end(feed *f, uint32_t it);
/* After the simulation: finish training, close the recorded trace, report
 * the first failure.  0 or an error code with err. */
int feed_finish(feed *f, ccsim_error *err);

/* Each worker must deliver its aggregate into its own buffer (training
 * reads it as soon as the worker is done). */
int feed_private_outputs(const feed *f);
/* The trainer of a "train" run, else NULL. */
const trainer *feed_trainer(const feed *f);

#endif
