/* src/train/trainer.h — live training inside a run (gradients.source "train").
 *
 * Data-parallel SGD as the simulated workers run it: at iteration i every
 * worker w computes the gradient of its own mini-batch (tshards_batch with
 * (seed, w, i) from its shard of the training split) at the CURRENT
 * parameters theta_i; the memory, compressor and collective then turn the
 * workers' gradients into the aggregate a_i the collective really produced,
 * and every worker applies a_i with the same optimizer:
 *
 *   v    <- momentum v + (a_i + weight_decay theta)     (PyTorch's SGD, dampening 0)
 *   theta <- theta - lr v
 *
 * in fp32, element by element, in exactly this order (the weight-decay term
 * is left out when weight_decay is 0), so a plain loop written the same way
 * reproduces a 1-worker uncompressed run bit for bit.  The aggregate is
 * whatever the compressor's finish() produced: the mean for most
 * compressors, +-1 for signSGD's majority vote and for Marsit (the mean of
 * +-1 bits), a scaled sign for EF-signSGD.  Sign aggregates are not in
 * gradient units, so they want a smaller lr, and usually no momentum
 * (signum keeps its own); Marsit's global compensation makes the +-1 steps
 * track the gradient sum (compressors/mem_marsit.c), so there lr keeps its
 * meaning but sets the per-step jitter too.
 *
 * All workers apply the same aggregate, so the model is ONE theta and one
 * optimizer state shared by all workers (not N copies): iteration i's update
 * is applied lazily, exactly once, when the first worker begins iteration
 * i + 1, before it computes its gradient.  Nothing else is needed to make
 * that safe: the data executor runs the actors one at a time on its thread,
 * iterations are separated by a barrier (every worker's gradient of
 * iteration i, which may be computed on another thread (comm_work), is done
 * before iteration i + 1 starts), and the update is applied on the
 * run loop's thread (trainer_prepare_iteration) before any worker of i + 1
 * starts, so while any worker still computes at theta_i nobody can have
 * applied update i.  The workers of an iteration run on several threads
 * (the data executor's lanes), each thread with its own scratch; each
 * worker's loss is kept apart and the losses are summed in rank order
 * afterwards (trainer_settle_iteration), whatever thread computed them.
 *
 * The aggregate of iteration i is taken from worker 0, the first to be
 * given to trainer_end_iteration (the run loop does so in rank order once
 * every worker has ended),
 * from its OWN output buffer (the caller gives each worker a private output:
 * with one shared buffer a worker may return before another worker has
 * written its part, e.g. all-gather fills the shared buffer from rank 0
 * alone).  Every other worker's aggregate is compared with it.  All-reduce
 * collectives forward the reduced payload byte for byte, so theirs are
 * identical; all-gather and parameter-server collectives sum the decoded
 * payloads in each worker's own receive order, so theirs may differ by fp32
 * summation order (a relative L2 difference around 1e-7).  Applying one of
 * them to the one shared model is what a real system that sums the gathered
 * payloads in rank order does; trainer_spread reports the largest
 * difference seen, and one above TRAINER_MAX_SPREAD (more than summation
 * order can explain: the workers received different data) fails the run.
 *
 * Communication delay (Sattler et al., "Sparse Binary Compression",
 * arXiv 1805.08768, Sec. IV-B): when the compressor has a parameter `delay`
 * m > 1 (sbc), training runs in rounds of m iterations.  At a round's first
 * iteration every worker copies the global model; at each of the round's
 * first m - 1 iterations it computes its gradient at its local copy and
 * takes a plain SGD step on it (local <- local - lr g); the compressor
 * sends nothing on those iterations, so the residual memory accumulates the
 * gradients; at the m-th the compressor sends (the m local gradients + the
 * older residual), and the aggregate is applied to the global model with
 * the optimizer above (momentum and weight decay act once per round).  On
 * the delayed iterations the aggregate is zero and the global model and its
 * momentum are left alone.  The sent quantity is the local model's change
 * divided by lr, so lr keeps its meaning.  The delay is the compressor's
 * parameter rather than a training one because the compressor decides which
 * iterations carry bits (and the time model charges them): one knob cannot
 * disagree with itself.  m = 1 takes exactly the code path of no delay.  A
 * delay needs the residual memory (refused otherwise); a run whose last
 * round is incomplete leaves that round's steps in the residual.
 *
 * Seeds: the split, the shards, the batches, the initialisation and the
 * teacher task all take the experiment's seed; the library functions tag
 * their own streams (train/data.h, train/model.h).
 *
 * Ownership: trainer_new returns a new trainer, trainer_free accepts NULL;
 * pointers are borrowed. */
#ifndef CCSIM_TRAINER_H
#define CCSIM_TRAINER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "experiment.h"
#include "train/model.h"

typedef struct trainer trainer;

#define TRAINER_MAX_SPREAD 1e-3

/* One iteration's training figures; NAN where there is none. */
typedef struct trainer_row {
  double train_loss;    /* mean of the workers' batch losses at theta_i */
  double test_loss;     /* on the test split, after update i (when evaluated) */
  double test_accuracy; /* likewise */
} trainer_row;

/* Load the data, split it, shard it across the workers, build the model and
 * initialise theta.  NULL with err set (CCSIM_ERR_INPUT naming the
 * experiment file and the JSON path when the data or the shape is bad). */
trainer *trainer_new(const experiment *e, ccsim_error *err);
void trainer_free(trainer *t);

size_t trainer_nparams(const trainer *t);
const tmodel_tensor *trainer_layers(const trainer *t, size_t *count);

/* Before iteration `it`'s workers start (one thread): the pending update
 * (it - 1) applied, scratch for `threads` threads.  0, or -1 with the
 * status set: this preparation failed, or an earlier failure is kept (a
 * diverged loss, aggregates that differ); the run stops at `it`. */
int trainer_prepare_iteration(trainer *t, uint32_t it, int threads);
/* Worker w begins iteration `it` (any thread, one per worker at a time):
 * w's gradient at the current theta.  Returns the simulated compute time
 * of that gradient in seconds (0 until a device time model provides it). */
double trainer_begin_iteration(trainer *t, uint32_t w, uint32_t it);
/* After every worker of `it` has begun (one thread): the losses summed in
 * rank order; the lowest worker whose loss or gradient is not finite fails
 * the run. */
void trainer_settle_iteration(trainer *t, uint32_t it);

/* out[0 .. hi-lo) = elements [lo, hi) of w's gradient of its current
 * iteration. */
void trainer_gradient(const trainer *t, uint32_t w, size_t lo, size_t hi, float *out);

/* Worker w has the aggregate agg[nparams] of iteration `it` (one thread,
 * workers in rank order). */
void trainer_end_iteration(trainer *t, uint32_t w, uint32_t it, const float *agg);

/* After the last iteration: apply its update and evaluate. */
void trainer_finish(trainer *t);

/* rows[iterations]; valid after trainer_finish. */
const trainer_row *trainer_metrics(const trainer *t);

/* The largest relative L2 difference between a worker's aggregate and the
 * one applied, over all workers and iterations (0: all identical). */
double trainer_spread(const trainer *t);

/* The current parameters [nparams]. */
const float *trainer_theta(const trainer *t);

/* 0, or the first runtime failure (a non-finite loss or gradient: the
 * training diverged) with its message in err. */
int trainer_status(const trainer *t, ccsim_error *err);

#endif
