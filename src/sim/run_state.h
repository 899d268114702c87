/* src/sim/run_state.h — the state of one run, shared by the files that
 * carry it out: run_state.c sets it up and frees it, worker.c holds the two
 * actors of each worker (compute, communication) that the data executor
 * runs every iteration, run_loop.c drives the iterations (data, timing,
 * memo, figures).  Nothing outside src/sim/run.c and these files sees it. */
#ifndef CCSIM_SIM_RUN_STATE_H
#define CCSIM_SIM_RUN_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collectives/collective.h"
#include "collectives/numcheck.h"
#include "comm/comm.h"
#include "data/feed.h"
#include "data/gradients.h"
#include "error.h"
#include "experiment.h"
#include "sim/exec.h"
#include "sim/run.h"
#include "sim/run_results.h"
#include "timemodel/profile.h"
#include "timemodel/schedule.h"

/* The longest iteration, in simulated seconds, a run may take: past it a
 * double no longer resolves SimGrid's 1 ns steps (run_loop.c, run_state.c). */
#define SIM_MAX_ITERATION_S 1e7

/* A stretch of one actor's iteration between two of its marks, whose times
 * are known once the iteration's timing is: a timeline row, or a worker's
 * time inside a collective. */
typedef struct span {
  const char *what; /* timeline activity, or NULL: time inside the collective */
  int rank, bucket;
  uint32_t actor, m0, m1;
} span;

typedef struct run_worker run_worker;

typedef struct run_state {
  const experiment *e;
  feed *feed;             /* the gradient source (synthetic, trace, training) */
  grad_source grads;      /* synthetic, for coordinate sampling */
  int generated;          /* the gradients are generated (source.h GSRC_GENERATED): finite */
  /* [data elements]: the part of this iteration's correlated synthetic
   * gradients every worker shares (grad_has_shared), drawn once at the
   * iteration's start by run_state_shared; NULL for other sources */
  double *shared;
  /* [data elements], under model.sample: each layer's carries
   * (grad_sample_carries) at its offset soff[l], else NULL */
  uint32_t *carry;
  float *agg;             /* the aggregate, identical on every worker: one copy */
  double *exact_sum;      /* COLL_NEEDS_EXACT_SUM collectives: [elements] */
  struct coll_phases *phases; /* multi-phase compressors (PowerSGD): the rounds' state, else NULL */
  run_figures fig;        /* what the run measured, iteration by iteration */
  err_acc *hops;          /* storage of fig.metrics' hops and cascades */
  scheduler *sched;       /* bucket plan, and MergeComp's search */
  sim_exec *exec;         /* the data executor */
  coll_xmetrics *xm;      /* the exact sums of the iteration's metrics (coll_metrics_begin) */
  FILE *timeline;         /* output.timeline: one row per activity, or NULL */
  /* Coordinate sampling, layer by layer: layer l (forward order) keeps
   * ceil(params_l K / elements) >= 1 evenly spaced coordinates, at data-plane
   * offsets soff[l] .. soff[l + 1]; the layer's full offsets are foff[l]. */
  size_t *soff, *foff;
  /* device seconds of forward, and of each tensor's backward in backward
   * order (run_state.c: compute_times) */
  double fwd_s, *bwd_s;
  numcheck nc;             /* the first non-finite number, which stopped the run */
  int private_outputs;     /* every worker has its own aggregate (run_worker.out) */
  run_worker *workers;     /* [e->workers] */
} run_state;

struct run_worker {
  run_state *sh;
  int rank;
  uint32_t iteration;
  ccomp *comp;
  ccomp_memory *mem;
  float *out; /* private aggregate (run_opts.private_outputs), else NULL */
  ccomp *sum;  /* multi-phase compressors: plain fp32 sums of the rounds */
  coll_metrics phase_metrics; /* what the rounds' collectives record */
  float *x, *round_in, *round_out; /* phase buffers */
  size_t round_n;
  float *g; /* scratch for a gradient chunk */
  size_t gcap;
  size_t in_lo, in_hi;        /* the last input's elements: where the next is guessed to be */
  size_t layer;               /* the layer the last input began in: where the next one looks first */
  /* the gradient window (worker.c, fill_window): elements [win_lo, win_hi)
   * of iteration win_it's gradient, drawn ahead of a ring's walk; win_hi
   * == win_lo: none */
  float *win;
  size_t win_lo, win_hi;
  uint32_t win_it;
  size_t base;                /* element offset of the bucket being aggregated */
  size_t bucket_n, bucket_full; /* the bucket's data-plane and full element counts */
  const sched_plan *plan;     /* this iteration's buckets */
  comm_sem *ready, *done;     /* compute -> communication: a bucket's gradient is
                                 ready; communication -> compute: all aggregated */
  double compress_s, busy;    /* this iteration, worker's own device time */
  /* device_price's last two prices of each operation (worker.c): a ring
   * prices the same chunk sizes, one or two of them, over and over */
  struct dev_price {
    size_t n, bucket_n, bucket_full;
    double s;
  } dev_memo[3][2]; /* by enum ccomp_op; the next to replace: dev_next */
  unsigned char dev_next[3];
  uint32_t m_bwd_end, m_end;  /* the compute actor's marks: backward done, iteration done */
  /* this iteration's spans of the compute actor [0] and the communication
   * actor [1], each in the order its actor made them: an actor's own
   * list, so the order does not depend on the executor's threads */
  span *spans[2];
  size_t nspans[2], spancap[2];
};

/* Elements the data plane runs on: all, or the coordinate sample. */
static inline size_t data_elements(const run_state *sh) { return sh->soff[sh->e->model.layers->nlayers]; }

/* Actor numbers in the data executor: a worker's compute actor, then its
 * communication actor (the order run_loop.c spawns them in). */
static inline uint32_t compute_actor(const run_worker *w) { return 2 * (uint32_t)w->rank; }
static inline uint32_t comm_actor(const run_worker *w) { return 2 * (uint32_t)w->rank + 1; }

/* run_state.c: everything e's run needs before its first iteration (data
 * layout, aggregate and figures, bucket plan, compute times, the data
 * executor on `threads` threads, every worker's compressor, memory and
 * buffers).  sh is cleared first; on failure err says why, and
 * run_state_clear() still frees what was made. */
int run_state_init(run_state *sh, const experiment *e, feed *fd, int private_outputs, int threads,
                   ccsim_error *err);
/* sh->shared for iteration it (nothing when it is NULL): called before
 * the iteration's actors start, so the workers only read it. */
void run_state_shared(run_state *sh, uint32_t it);

/* Free everything run_state_init() made (the timeline, if still open, is
 * abandoned); sh may be partly set up. */
void run_state_clear(run_state *sh);

/* worker.c: the actors of worker arg (a run_worker) in one iteration.  The
 * compute actor runs forward and backward and releases each bucket to the
 * communication actor, which encodes, aggregates through the collective
 * and decodes it. */
void worker_compute_iter(void *arg);
void worker_comm_iter(void *arg);

/* run_loop.c: every iteration of the run (progress on stderr unless
 * quiet), filling sh->fig; stops at the first failure with err set. */
int run_iterations(run_state *sh, int memo_on, int quiet, ccsim_error *err);
/* Whether the data of later iterations runs while an iteration is replayed
 * (1, the default; 0: each iteration settled before the next begins; the
 * results are the same). */
extern int run_ahead;

#endif
