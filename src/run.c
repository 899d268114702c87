/* src/run.c — one experiment, start to finish:
 *   platform -> engine -> one actor per worker -> iterations of
 *   (gradient -> memory -> collective -> aggregate) -> result files. */
#include "run.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "engine/engine.h"
#include "sim/comm.h"
#include "sim/exec.h"
#include "sim/memo.h"
#include "feed.h"
#include "gradients.h"
#include "platform.h"
#include "platforms/guard.h"
#include "results.h"
#include "outputs/outdir.h"
#include "device.h"
#include "measured.h"
#include "profile.h"
#include "progress.h"
#include "rng.h"
#include "schedule.h"
#include "sim/numcheck.h"
#include "sim/resources.h"

/* A stretch of one actor's iteration between two of its marks, whose times
 * are known once the iteration's timing is: a timeline row, or a worker's
 * time inside a collective. */
typedef struct span {
  const char *what; /* timeline activity, or NULL: time inside the collective */
  int rank, bucket;
  uint32_t actor, m0, m1;
} span;

typedef struct shared {
  const experiment *e;
  feed *feed;             /* the gradient source (synthetic, trace, training) */
  grad_source grads;      /* synthetic, for coordinate sampling */
  float *agg;             /* the aggregate, identical on every worker: one copy */
  double *exact_sum;      /* COLL_NEEDS_EXACT_SUM collectives: [elements] */
  /* Multi-phase compressors (PowerSGD): each round's fp32 payloads are
   * summed by the collective through a plain-sum instance; the exact sums
   * of the inputs alternate between two buffers by iteration parity, so a
   * worker that starts the next iteration early cannot disturb the one
   * being measured. */
  double *phase_exact[2];
  float *phase_y; /* [elements] scratch for phase_decode (no yield while in use) */
  coll_metrics *metrics;  /* [iterations] */
  double *ends;           /* [iterations * workers]: when each worker finished */
  scheduler *sched;       /* bucket plan, and MergeComp's search */
  sim_exec *exec;         /* the data executor */
  span *spans;            /* this iteration's, in the order they were made */
  size_t nspans, spancap;
  /* time breakdown per iteration, as worker 0 saw it */
  double *t_compute, *t_compress, *t_comm, *t_exposed;
  FILE *timeline;         /* output.timeline: one row per activity, or NULL */
  int simulated, memo_hits; /* iterations timed in SimGrid, and from the memo */
  /* Coordinate sampling, layer by layer: layer l (forward order) keeps
   * ceil(params_l K / elements) >= 1 evenly spaced coordinates, at data-plane
   * offsets soff[l] .. soff[l + 1]; the layer's full offsets are foff[l]. */
  size_t *soff, *foff;
  /* device seconds of forward, and of each tensor's backward in backward
   * order (compute_times) */
  double fwd_s, *bwd_s;
  int quiet, tty;
  numcheck nc;             /* the first non-finite number, which stopped the run */
  struct worker *workers;  /* [e->workers], for the checks at the end of an iteration */
} shared;

typedef struct worker {
  shared *sh;
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
  size_t base;                /* element offset of the bucket being aggregated */
  size_t bucket_n, bucket_full; /* the bucket's data-plane and full element counts */
  const sched_plan *plan;     /* this iteration's buckets */
  comm_sem *ready, *done;     /* compute -> communication: a bucket's gradient is
                                 ready; communication -> compute: all aggregated */
  double compress_s, busy;    /* this iteration, worker's own device time */
  uint32_t m_bwd_end, m_end;  /* the compute actor's marks: backward done, iteration done */
} worker;

/* Data-plane elements [lo, hi) of worker w's gradient into out: the
 * generator's elements themselves, or, under coordinate sampling, each
 * layer's evenly spaced sample. */
static void fill(worker *w, size_t lo, size_t hi, float *out) {
  const shared *sh = w->sh;
  const experiment *e = sh->e;
  if (!e->model.sample) { /* synthetic, trace or training */
    feed_fill(sh->feed, (uint32_t)w->rank, w->iteration, lo, hi, out);
    return;
  }
  const size_t L = e->model.layers->nlayers;
  size_t l = 0;
  while (l + 1 < L && sh->soff[l + 1] <= lo) l++;
  for (size_t j = lo; j < hi; l++) {
    const size_t end = hi < sh->soff[l + 1] ? hi : sh->soff[l + 1];
    grad_fill_sampled(&sh->grads, (uint32_t)w->rank, w->iteration, j - sh->soff[l], end - sh->soff[l],
                      sh->foff[l], sh->foff[l + 1] - sh->foff[l], sh->soff[l + 1] - sh->soff[l],
                      out + (j - lo));
    j = end;
  }
}

static size_t data_elements(const shared *sh);

/* numbers: a non-finite value in x stops the simulation (sim/numcheck.h) */
static void check_floats(worker *w, const float *x, size_t lo, size_t hi, const char *what) {
  if (numcheck_floats(&w->sh->nc, x, hi - lo, w->iteration, w->rank, what, lo)) comm_abort();
}

/* worker_input's work (comm_work): the gradient on [lo, hi), error
 * feedback into p, and where each first holds a non-finite number (the
 * executor's thread reports it: the first failure is the simulation's). */
typedef struct input_work {
  worker *w;
  size_t lo, hi;
  float *p;
  size_t bad_g, bad_p; /* index of the first non-finite element, or hi - lo */
} input_work;

static void input_work_run(void *arg, int thread) {
  (void)thread;
  input_work *k = arg;
  worker *w = k->w;
  const size_t n = k->hi - k->lo;
  k->bad_p = n;
  float *g = w->mem ? w->g : k->p;
  fill(w, k->lo, k->hi, g);
  k->bad_g = numcheck_first_bad(g, n);
  if (!w->mem || k->bad_g < n) return; /* a bad gradient stops the run before error feedback */
  w->mem->type->compensate(w->mem->state, w->g, n, k->lo, k->p);
  k->bad_p = numcheck_first_bad(k->p, n);
}

static void worker_input(void *arg, size_t lo, size_t hi, float *p) {
  worker *w = arg;
  lo += w->base, hi += w->base;
  if (w->mem && hi - lo > w->gcap) {
    free(w->g);
    w->gcap = hi - lo;
    w->g = malloc(w->gcap * sizeof *w->g);
    if (!w->g) { /* a runtime error naming what, never a NULL dereference */
      if (!w->sh->nc.failed)
        snprintf(w->sh->nc.msg, sizeof w->sh->nc.msg, "iteration %u, worker %d: out of memory for a %zu-element gradient buffer",
                 w->iteration, w->rank, hi - lo);
      w->sh->nc.failed = 1;
      comm_abort();
    }
  }
  input_work k = {.w = w, .lo = lo, .hi = hi, .p = p};
  /* a replayed trace reads its files through one reader: on this thread */
  comm_work(input_work_run, &k, feed_threadsafe(w->sh->feed) ? hi - lo : 0);
  if (k.bad_g < hi - lo) check_floats(w, w->mem ? w->g : p, lo, hi, "the gradient");
  if (k.bad_p < hi - lo) check_floats(w, p, lo, hi, "the gradient after error feedback");
}

/* coll_io.hop_payload: a payload decoded at hop h must be finite. */
static void worker_hop_payload(void *arg, size_t h, const float *y, size_t lo, size_t n) {
  worker *w = arg;
  char what[64];
  snprintf(what, sizeof what, "the payload decoded at hop %zu", h);
  check_floats(w, y, w->base + lo, w->base + lo + n, what);
}

/* coll_io.out_of_memory: an allocation of the collective failed; like a
 * number gone bad, it stops the run (exit 1) with msg, which names the
 * iteration and the worker. */
static void worker_out_of_memory(void *arg, const char *msg) {
  worker *w = arg;
  if (!w->sh->nc.failed) snprintf(w->sh->nc.msg, sizeof w->sh->nc.msg, "%s", msg);
  w->sh->nc.failed = 1;
  comm_abort();
}

/* numbers: at the end of iteration it (every worker done, outside the
 * actors), the hops' partial aggregates, then the aggregate(s); a failure
 * sets sh->nc.failed, which stops the run (run_iterations). */
static void check_iteration(shared *sh, int it) {
  const size_t n = data_elements(sh);
  int bad = 0;
  for (int r = 0; r < sh->e->workers && !bad; r++)
    if (sh->workers[r].out) bad = numcheck_floats(&sh->nc, sh->workers[r].out, n, (uint32_t)it, r, "the aggregate", 0);
  if (!bad && !sh->workers[0].out) bad = numcheck_floats(&sh->nc, sh->agg, n, (uint32_t)it, -1, "the aggregate", 0);
  if (!bad) numcheck_metrics(&sh->nc, &sh->metrics[it], (uint32_t)it);
}

static void worker_encoded(void *arg, size_t lo, size_t hi, const float *p, const float *own) {
  worker *w = arg;
  if (w->mem->type->encoded) w->mem->type->encoded(w->mem->state, p, own, hi - lo, lo + w->base);
}

/* Actor numbers in the data executor: a worker's compute actor, then its
 * communication actor. */
static uint32_t compute_actor(const worker *w) { return 2 * (uint32_t)w->rank; }
static uint32_t comm_actor(const worker *w) { return 2 * (uint32_t)w->rank + 1; }

/* Remember the stretch between marks m0 and m1 of an actor of w. */
static void span_add(worker *w, uint32_t actor, const char *what, int bucket, uint32_t m0, uint32_t m1) {
  shared *sh = w->sh;
  if (sh->nspans == sh->spancap) {
    sh->spancap = sh->spancap ? 2 * sh->spancap : 1024;
    sh->spans = realloc(sh->spans, sh->spancap * sizeof *sh->spans);
    if (!sh->spans) abort(); /* out of memory inside an actor: nothing to recover */
  }
  sh->spans[sh->nspans++] = (span){what, w->rank, bucket, actor, m0, m1};
}

/* A timeline mark: only taken when the timeline is written. */
static uint32_t tl_mark(const worker *w) { return w->sh->timeline ? comm_mark() : 0; }
static void timeline_row(worker *w, uint32_t actor, const char *what, int bucket, uint32_t m0) {
  if (w->sh->timeline) span_add(w, actor, what, bucket, m0, comm_mark());
}

/* Device time of one compression operation on n elements (0 without a
 * device): the measured device's table where it has one for this
 * compressor, else docs/design.md, launches x overhead + bytes / bandwidth
 * + flops / peak. */
static double compress_seconds(const worker *w, enum ccomp_op op, size_t n) {
  const experiment *e = w->sh->e;
  if (!e->device || n == 0) return 0;
  if (e->measured_comp && e->measured_comp->has[op])
    return measured_curve_seconds(&e->measured_comp->op[op][e->timing], (double)n);
  ccomp_cost c;
  ccomp_cost_of(w->comp, n, op, &c);
  return device_cost_seconds(e->device, &c);
}

/* The elements of the real tensor that n data-plane elements of the current
 * bucket stand for: under model.sample the data plane holds a sample, but the
 * device encodes, decodes and combines the whole tensor, so n sampled
 * elements cost what n x full / sampled elements do.  n itself otherwise. */
static size_t full_elements(const worker *w, size_t n) {
  if (w->bucket_full <= w->bucket_n || w->bucket_n == 0) return n;
  return (size_t)llround((double)n * (double)w->bucket_full / (double)w->bucket_n);
}

/* Run a compression operation on n data-plane elements on the device
 * (sharing it with backward), charged for the full tensor they stand for;
 * count it, and record it in the timeline as `what`. */
static void device_run(worker *w, enum ccomp_op op, size_t n, const char *what, int bucket) {
  const double d = compress_seconds(w, op, full_elements(w, n));
  if (d <= 0) return;
  const uint32_t m0 = tl_mark(w);
  comm_execute(d);
  w->compress_s += d;
  timeline_row(w, comm_actor(w), what, bucket, m0);
}

/* coll_io.device: a compression operation inside the collective. */
static void worker_device(void *arg, enum ccomp_op op, size_t n) {
  device_run(arg, op, n, "compress", -1);
}

/* The messages an iteration sends, where the collective's count is known
 * (0 otherwise: progress.h then uses the previous iteration's count). */
static uint64_t expected_messages(const shared *sh) {
  const experiment *e = sh->e;
  const uint64_t n = (uint64_t)e->workers, nb = sched_plan_now(sh->sched)->nb;
  const uint64_t rounds = e->compressor->phases > 1 ? (uint64_t)e->compressor->phases : 1;
  const char *c = e->collective->name;
  if (!strcmp(c, "allreduce/ring") || !strcmp(c, "allreduce/ring-recompress")) return 2 * n * (n - 1) * nb * rounds;
  if (!strcmp(c, "allgather/ring")) return n * (n - 1) * nb * rounds;
  return 0;
}

static void progress(shared *sh, int it, double now) {
  progress_iteration_done(it, now);
  if (it + 1 < sh->e->iterations) progress_expect(it + 1, expected_messages(sh));
}

/* Elements the data plane runs on: all, or the coordinate sample. */
static size_t data_elements(const shared *sh) { return sh->soff[sh->e->model.layers->nlayers]; }

/* coll_io.input of a round: the round's fp32 payload. */
static void round_input(void *arg, size_t lo, size_t hi, float *p) {
  worker *w = arg;
  memcpy(p, w->round_in + lo, (hi - lo) * sizeof *p);
}

/* One iteration of a multi-phase compressor: every round is encoded, summed
 * over all workers by the experiment's all-reduce on fp32 payloads, and
 * decoded, in order; the last round yields the aggregate. */
static void run_phased(worker *w, coll_ctx *base) {
  shared *sh = w->sh;
  const experiment *e = sh->e;
  const size_t n = data_elements(sh);
  const int N = e->workers;
  worker_input(w, 0, n, w->x);
  double *exact = sh->phase_exact[w->iteration % 2];
  for (size_t i = 0; i < n; i++) exact[i] += w->x[i];
  ccomp_call call = {.key = ccr_key(base->key, 0x9A5E),
                     .shared_key = base->shared_key,
                     .iteration = w->iteration};
  const unsigned P = ccomp_phases(w->comp);
  for (unsigned ph = 0; ph < P; ph++) {
    const size_t bytes = ccomp_phase_bytes(w->comp, n, ph), m = bytes / 4;
    ccomp_phase_encode(w->comp, w->x, n, ph, &call, (uint8_t *)w->round_in);
    coll_ctx ctx = *base;
    ctx.comp = w->sum;
    ctx.n = m;
    ctx.io = (coll_io){.arg = w, .input = round_input, .out_of_memory = worker_out_of_memory};
    ctx.out = w->round_out;
    ctx.out_shared = 0;
    ctx.measure_cascade = 0;
    for (size_t h = 0; h < w->phase_metrics.nhops; h++)
      w->phase_metrics.hops[h] = w->phase_metrics.cascade[h] = (err_acc){0};
    w->phase_metrics.final = (err_acc){0};
    w->phase_metrics.bytes = 0;
    ctx.metrics = &w->phase_metrics;
    ctx.shared_key = ccr_key(base->shared_key, 0x9A5E + ph);
    e->collective->run(&ctx);
    base->metrics->bytes += w->phase_metrics.bytes;
    ccomp_phase_decode(w->comp, w->x, (const uint8_t *)w->round_out, n, ph, (uint32_t)N, &call,
                       sh->phase_y);
  }
  /* sh->phase_y: the decoded sum over all N (the same on every worker) */
  ccomp_finish(w->comp, sh->phase_y, n, (uint32_t)N);
  if (w->out || w->rank == 0) memcpy(w->out ? w->out : sh->agg, sh->phase_y, n * sizeof(float));
  if (w->rank == 0) {
    err_acc_add(&base->metrics->final, sh->phase_y, exact, n, 1.0 / N);
    base->metrics->final.workers = (uint32_t)N;
    memset(exact, 0, n * sizeof *exact);
  }
}

/* The communication actor of a worker, one iteration: for every bucket, as
 * soon as backward has produced it, encode on the device, aggregate through
 * the collective, decode on the device. */
static void comm_iter(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  const experiment *e = sh->e;
  const int it = (int)w->iteration;
  coll_ctx ctx = {
      .rank = w->rank,
      .nworkers = e->workers,
      .params = e->coll_params,
      .comp = w->comp,
      .io = {.arg = w,
             .input = worker_input,
             .encoded = w->mem ? worker_encoded : NULL,
             .wants_own = w->mem && (w->mem->type->flags & CCOMP_MEM_OWN_DECODE),
             .device = e->device ? worker_device : NULL,
             .hop_payload = worker_hop_payload,
             .out_of_memory = worker_out_of_memory},
      .out_shared = w->out == NULL,
      /* lossless: the ideal is the exact sum, nothing to add */
      .measure_cascade = !(e->compressor->flags & (CCOMP_STATEFUL | CCOMP_LOSSLESS)),
      .iteration = (uint32_t)it,
      .metrics = &sh->metrics[it],
  };
  float *out = w->out ? w->out : sh->agg;
  const uint64_t it_key = ccr_key(ccr_key(e->seed, 0x636f6c6c /* "coll" */), (uint64_t)it);
  const sched_plan *plan = w->plan;
  for (size_t k = 0; k < plan->nb; k++) {
    comm_sem_acquire(w->ready);
    const sched_bucket *b = &plan->b[k];
    const size_t L = e->model.layers->nlayers;
    /* the bucket's data-plane range: forward layers [L - l1, L - l0) */
    const size_t lo = sh->soff[L - b->l1], hi = sh->soff[L - b->l0];
    w->base = lo;
    ctx.offset = lo;
    ctx.n = hi - lo;
    ctx.n_full = b->hi - b->lo;
    w->bucket_n = ctx.n, w->bucket_full = ctx.n_full;
    ctx.out = out + lo;
    ctx.exact_sum = sh->exact_sum ? sh->exact_sum + lo : NULL;
    /* one bucket: the keys of a plain run (and its golden files) */
    ctx.shared_key = plan->nb > 1 ? ccr_key(it_key, 1 + (uint64_t)k) : it_key;
    ctx.key = ccr_key(ctx.shared_key, 1 + (uint64_t)w->rank);
    device_run(w, CCOMP_ENCODE, ctx.n, "compress", (int)k);
    const uint32_t c0 = comm_mark();
    if (w->sum) run_phased(w, &ctx);
    else e->collective->run(&ctx);
    span_add(w, comm_actor(w), NULL, (int)k, c0, comm_mark());
    timeline_row(w, comm_actor(w), "communicate", (int)k, c0);
    device_run(w, CCOMP_DECODE, ctx.n, "decompress", (int)k);
  }
  w->base = 0;
  comm_sem_release(w->done);
}

/* Seconds of the device for flops of work (0 without a device). */
static double compute_seconds(const experiment *e, double flops) {
  return e->device && flops > 0 ? flops / (e->device->peak_flops * e->efficiency) : 0;
}

/* sh->fwd_s and sh->bwd_s[L] (backward order) for the experiment's batch:
 * from the measured device's table of this model and precision, else from
 * the profile's flops on the roofline.  0 on success, -1 out of memory. */
static int compute_times(shared *sh) {
  const experiment *e = sh->e;
  const model_profile *m = e->model.layers;
  const size_t L = m->nlayers;
  const double B = e->model.batch;
  if (!(sh->bwd_s = calloc(L, sizeof *sh->bwd_s))) return -1;
  if (e->measured_model) {
    measured_compute(e->measured_model, B, &sh->fwd_s, sh->bwd_s);
    return 0;
  }
  sh->fwd_s = compute_seconds(e, B * m->total_fwd_flops);
  for (size_t j = 0; j < L; j++) sh->bwd_s[j] = compute_seconds(e, B * m->layers[L - 1 - j].bwd_flops);
  return 0;
}

/* The compute actor of a worker, one iteration: forward, then backward layer
 * by layer in reverse order, releasing each bucket to the communication
 * actor when its last layer is done; then it waits for the aggregate.
 * Iterations are separated by a barrier (simulate()). */
static void worker_iter(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  const uint32_t it = w->iteration;
  /* the gradient (computed on the host when training; the device's
   * compute time is the profile's, below) */
  const double host_compute = feed_begin(sh->feed, (uint32_t)w->rank, it);
  if (host_compute > 0) comm_sleep(host_compute);
  uint32_t t0 = tl_mark(w);
  const double fwd = sh->fwd_s;
  double busy = fwd;
  comm_execute(fwd);
  timeline_row(w, compute_actor(w), "forward", -1, t0);
  for (size_t k = 0; k < w->plan->nb; k++) {
    const sched_bucket *b = &w->plan->b[k];
    t0 = tl_mark(w);
    for (size_t j = b->l0; j < b->l1; j++) {
      const double d = sh->bwd_s[j];
      comm_execute(d);
      busy += d;
    }
    timeline_row(w, compute_actor(w), "backward", (int)k, t0);
    comm_sem_release(w->ready);
  }
  w->m_bwd_end = comm_mark();
  comm_sem_acquire(w->done);
  if (w->mem && w->mem->type->aggregated)
    w->mem->type->aggregated(w->mem->state, w->out ? w->out : sh->agg, data_elements(sh), 0);
  feed_end(sh->feed, (uint32_t)w->rank, it, w->out ? w->out : sh->agg);
  w->m_end = comm_mark();
  w->busy = busy;
}

/* A timeline row, resolved to simulated times. */
typedef struct tl_row {
  int rank, bucket;
  uint32_t seq; /* order made: breaks ties */
  const char *what;
  double t0, t1;
} tl_row;

/* Rows in the order activities end (then worker, then the order made): the
 * order a clock-driven run would write them in. */
static int tl_cmp(const void *pa, const void *pb) {
  const tl_row *a = pa, *b = pb;
  if (a->t1 != b->t1) return a->t1 < b->t1 ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Iteration it's figures from its timing: marks[mark0[a] + k] is when actor
 * a reached its mark k, the iteration starting at simulated time `start`.
 * Returns the end of the iteration (the last worker's). */
static double settle_iteration(shared *sh, worker *workers, int it, double start, const double *marks,
                               const size_t *mark0) {
  const int N = sh->e->workers;
  double last = start;
  for (int r = 0; r < N; r++) {
    const worker *w = &workers[r];
    const double *wm = marks + mark0[compute_actor(w)];
    const double end = start + wm[w->m_end];
    sh->ends[(size_t)it * N + r] = end;
    last = fmax(last, end);
    if (r == 0) {
      sh->t_compute[it] = w->busy;
      sh->t_compress[it] = w->compress_s;
      sh->t_exposed[it] = end - (start + wm[w->m_bwd_end]);
    }
  }
  double comm0 = 0;
  size_t nrows = 0;
  tl_row *rows = sh->timeline ? malloc((sh->nspans + 1) * sizeof *rows) : NULL;
  for (size_t i = 0; i < sh->nspans; i++) {
    const span *p = &sh->spans[i];
    const double t0 = start + marks[mark0[p->actor] + p->m0], t1 = start + marks[mark0[p->actor] + p->m1];
    if (!p->what && p->rank == 0) comm0 += t1 - t0;
    if (p->what && rows && t1 > t0) rows[nrows++] = (tl_row){p->rank, p->bucket, (uint32_t)i, p->what, t0, t1};
  }
  sh->t_comm[it] = comm0;
  if (rows) {
    qsort(rows, nrows, sizeof *rows, tl_cmp);
    for (size_t i = 0; i < nrows; i++)
      fprintf(sh->timeline, "%d,%d,%s,%d,%.12g,%.12g\n", rows[i].rank, it, rows[i].what, rows[i].bucket,
              rows[i].t0, rows[i].t1);
    free(rows);
  }
  return last;
}

/* fp32 payloads summed, not averaged: 'none' with an identity finish, the
 * collective's arithmetic for the rounds of multi-phase compressors. */
static void identity_finish(const void *state, float *y, size_t n, uint32_t workers) {
  (void)state, (void)y, (void)n, (void)workers;
}
static ccomp_type run_sum_type;

/* The larger of this process's peak and its children's (the timing
 * executor replays in forked children, which share the parent's pages). */
static double peak_rss_mb(void) {
  struct rusage ru, rc;
  getrusage(RUSAGE_SELF, &ru);
  getrusage(RUSAGE_CHILDREN, &rc);
  return (ru.ru_maxrss > rc.ru_maxrss ? ru.ru_maxrss : rc.ru_maxrss) / 1024.0;
}

static double host_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The training columns of iterations.csv: empty cells where there is no
 * figure (synthetic and trace runs, iterations not evaluated). */
static void train_cells(FILE *f, const trainer_row *r) {
  const double v[3] = {r ? r->train_loss : NAN, r ? r->test_loss : NAN, r ? r->test_accuracy : NAN};
  for (int k = 0; k < 3; k++) {
    if (!isnan(v[k])) fprintf(f, "%.10g", v[k]);
    fputc(k < 2 ? ',' : '\n', f);
  }
}

/* summary.json's training figures: the last evaluation, and when (simulated
 * time at the end of the iteration, and iterations done) the test accuracy
 * first reached train.target_accuracy; null if never. */
static void train_summary(const experiment *e, const trainer *tr, const double *iter_end,
                          json_t *s, run_report *rep) {
  const trainer_row *r = trainer_metrics(tr);
  const int T = e->iterations;
  int hit = -1;
  for (int it = 0; it < T && hit < 0; it++)
    if (!isnan(r[it].test_accuracy) && r[it].test_accuracy >= e->train.target_accuracy) hit = it;
  rep->trained = 1;
  rep->final_loss = r[T - 1].test_loss;
  rep->final_accuracy = r[T - 1].test_accuracy;
  rep->time_to_accuracy_s = hit >= 0 ? iter_end[hit] : NAN;
  rep->iterations_to_accuracy = hit >= 0 ? hit + 1 : -1;
  json_object_set_new(s, "final_loss", json_real(rep->final_loss));
  json_object_set_new(s, "final_accuracy", json_real(rep->final_accuracy));
  json_object_set_new(s, "final_train_loss", json_real(r[T - 1].train_loss));
  json_object_set_new(s, "target_accuracy", json_real(e->train.target_accuracy));
  json_object_set_new(s, "agg_worker_spread", json_real(trainer_spread(tr)));
  json_object_set_new(s, "time_to_accuracy_s", hit >= 0 ? json_real(iter_end[hit]) : json_null());
  json_object_set_new(s, "iterations_to_accuracy", hit >= 0 ? json_integer(hit + 1) : json_null());
}

/* Per-iteration figures, derived from the workers' finish times and metrics. */
typedef struct iter_row {
  double time, bytes, ratio, rel, cos;
} iter_row;

static int write_results(const experiment *e, shared *sh, const char *dir, double host0,
                         run_report *rep, ccsim_error *err) {
  const int N = e->workers, T = e->iterations;
  iter_row *rows = calloc((size_t)T, sizeof *rows);
  double *iter_end = calloc((size_t)T, sizeof *iter_end);
  double prev = 0, sum_rel = 0, sum_cos = 0, bytes = 0, last = 0;
  const double dense = e->collective->dense_bytes(e->model.elements, N, e->coll_params);
  for (int it = 0; it < T; it++) {
    double end = 0;
    for (int r = 0; r < N; r++) end = fmax(end, sh->ends[(size_t)it * N + r]);
    rows[it].time = end - prev;
    iter_end[it] = end;
    prev = end;
    last = end;
    rows[it].bytes = sh->metrics[it].bytes;
    rows[it].ratio = rows[it].bytes > 0 ? dense / rows[it].bytes : 1.0;
    rows[it].rel = err_acc_rel(&sh->metrics[it].final);
    rows[it].cos = err_acc_cos(&sh->metrics[it].final);
    sum_rel += rows[it].rel;
    sum_cos += rows[it].cos;
    bytes += rows[it].bytes;
  }

  FILE *f = results_open(dir, "iterations.csv", err);
  if (!f) return free(rows), free(iter_end), CCSIM_ERR_RUNTIME;
  fprintf(f, "iteration,time_s,compute_s,compress_s,communicate_s,exposed_communicate_s,"
             "bytes_on_wire,compression_ratio,agg_rel_error,agg_cosine,"
             "train_loss,test_loss,test_accuracy\n");
  const trainer *tr = feed_trainer(sh->feed);
  const trainer_row *trows = tr ? trainer_metrics(tr) : NULL;
  for (int it = 0; it < T; it++) {
    fprintf(f, "%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.0f,%.10g,%.10g,%.12g,", it, rows[it].time,
            sh->t_compute[it], sh->t_compress[it], sh->t_comm[it], sh->t_exposed[it], rows[it].bytes,
            rows[it].ratio, rows[it].rel, rows[it].cos);
    train_cells(f, trows ? &trows[it] : NULL);
  }
  if (results_commit(f, dir, "iterations.csv", err)) return free(rows), free(iter_end), CCSIM_ERR_RUNTIME;

  f = results_open(dir, "hops.csv", err);
  if (!f) return free(rows), free(iter_end), CCSIM_ERR_RUNTIME;
  fprintf(f, "iteration,hop,workers,rel_error,cosine,cascade_rel_error,cascade_gain\n");
  const size_t H = T ? sh->metrics[0].nhops : 0; /* none for multi-phase compressors */
  for (int it = 0; it < T; it++)
    for (size_t h = 0; h < H; h++) {
      const err_acc *a = &sh->metrics[it].hops[h];
      const err_acc *c = &sh->metrics[it].cascade[h];
      fprintf(f, "%d,%zu,%u,%.10g,%.12g,", it, h + 1, a->workers, err_acc_rel(a), err_acc_cos(a));
      if (c->count > 0) fprintf(f, "%.10g,%.10g\n", err_acc_rel(c), err_acc_gain(c));
      else fprintf(f, ",\n");
    }
  if (results_commit(f, dir, "hops.csv", err)) return free(rows), free(iter_end), CCSIM_ERR_RUNTIME;

  rep->sim_time_s = last;
  rep->iteration_time_s = last / T;
  rep->bytes_on_wire = bytes;
  rep->compression_ratio = bytes > 0 ? dense * T / bytes : 1.0;
  rep->agg_rel_error = sum_rel / T;
  rep->agg_cosine = sum_cos / T;
  rep->host_time_s = host_seconds() - host0;
  rep->peak_rss_mb = peak_rss_mb();

  json_t *s = json_object();
  json_object_set_new(s, "name", json_string(e->name));
  json_object_set_new(s, "ccsim_version", json_string(CCSIM_VERSION));
  json_object_set_new(s, "workers", json_integer(N));
  json_object_set_new(s, "compressor", json_string(e->compressor->name));
  json_object_set_new(s, "memory", json_string(e->memory ? e->memory->name : "none"));
  json_object_set_new(s, "collective", json_string(e->collective->name));
  json_object_set_new(s, "iterations", json_integer(T));
  json_object_set_new(s, "elements", json_integer((json_int_t)e->model.elements));
  json_object_set_new(s, "sim_time_s", json_real(rep->sim_time_s));
  json_object_set_new(s, "iteration_time_s", json_real(rep->iteration_time_s));
  double tc = 0, tz = 0, tm = 0, tx = 0;
  for (int it = 0; it < T; it++)
    tc += sh->t_compute[it], tz += sh->t_compress[it], tm += sh->t_comm[it], tx += sh->t_exposed[it];
  /* totals over all iterations, as worker 0 saw them: compute = forward +
   * backward device time, compress = device time of compression,
   * communicate = time inside collectives, exposed = time from the end of
   * backward until the aggregate is complete */
  json_object_set_new(s, "time_breakdown_s",
                      json_pack("{s:f,s:f,s:f,s:f}", "compute", tc, "compress", tz, "communicate", tm,
                                "exposed_communicate", tx));
  json_object_set_new(s, "device", json_string(e->measured ? e->measured->name : e->device ? e->device->name : "none"));
  if (e->measured)
    json_object_set_new(s, "time_model", measured_report(e->measured, e->measured_model, e->measured_comp,
                                                         e->precision, e->timing, e->model.batch, e->time_note));
  json_object_set_new(s, "schedule", sched_report(sh->sched));
  json_object_set_new(s, "bytes_on_wire", json_integer((json_int_t)llround(bytes))); /* a count: an integer */
  json_object_set_new(s, "compression_ratio", json_real(rep->compression_ratio));
  json_object_set_new(s, "agg_rel_error", json_real(rep->agg_rel_error));
  json_object_set_new(s, "agg_cosine", json_real(rep->agg_cosine));
  {
    err_acc fc = {0};
    for (int it = 0; it < T; it++) {
      const err_acc *a = &sh->metrics[it].final_cascade;
      fc.err2 += a->err2, fc.ref2 += a->ref2, fc.out2 += a->out2, fc.dot += a->dot, fc.count += a->count;
    }
    /* the aggregate against the mean of the workers' own decoded payloads:
     * the error hop-by-hop aggregation adds (null where not measured) */
    json_object_set_new(s, "agg_cascade_rel_error", fc.count > 0 ? json_real(err_acc_rel(&fc)) : json_null());
    json_object_set_new(s, "agg_cascade_gain", fc.count > 0 ? json_real(err_acc_gain(&fc)) : json_null());
  }
  if (tr) train_summary(e, tr, iter_end, s, rep);
  /* numbers: a figure that is not finite would be dropped from the JSON */
  if (tr && !(isfinite(rep->final_loss) && isfinite(rep->final_accuracy))) {
    json_decref(s);
    free(rows), free(iter_end);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: iteration %d, worker 0: the test loss or accuracy is not finite (%g, %g)",
                      e->file, T - 1, rep->final_loss, rep->final_accuracy);
  }
  if (H) {
    err_acc last_hop = {0};
    for (int it = 0; it < T; it++) {
      const err_acc *a = &sh->metrics[it].hops[H - 1];
      last_hop.err2 += a->err2, last_hop.ref2 += a->ref2, last_hop.out2 += a->out2, last_hop.dot += a->dot;
    }
    json_object_set_new(s, "last_hop_rel_error", json_real(err_acc_rel(&last_hop)));
    err_acc lc = {0};
    for (int it = 0; it < T; it++) {
      const err_acc *a = &sh->metrics[it].cascade[H - 1];
      lc.err2 += a->err2, lc.ref2 += a->ref2, lc.out2 += a->out2, lc.dot += a->dot, lc.count += a->count;
    }
    if (lc.count > 0) {
      json_object_set_new(s, "last_hop_cascade_rel_error", json_real(err_acc_rel(&lc)));
      json_object_set_new(s, "last_hop_cascade_gain", json_real(err_acc_gain(&lc)));
    }
  }
  json_object_set_new(s, "data_mode", json_string(e->model.sample ? "sampled" : "full"));
  if (e->model.sample) json_object_set_new(s, "sampled_elements", json_integer((json_int_t)data_elements(sh)));
  json_object_set_new(s, "network_model", json_string(engine_network_model()));
  json_object_set_new(s, "simulated_iterations", json_integer(sh->simulated));
  json_object_set_new(s, "memo_hits", json_integer(sh->memo_hits));
  json_object_set_new(s, "host_time_s", json_real(rep->host_time_s));
  json_object_set_new(s, "peak_rss_mb", json_real(rep->peak_rss_mb));
  json_object_set(s, "experiment", e->resolved);
  /* written last: a directory is finished when summary.json holds this hash */
  char hash[17];
  int rc = outdir_hash(e, hash, err);
  if (!rc) json_object_set_new(s, "experiment_hash", json_string(hash));
  if (!rc) rc = results_write_json(dir, "summary.json", s, err);
  json_decref(s);
  free(rows);
  free(iter_end);
  return rc;
}

static int simulate(const experiment *e, const run_opts *o, feed *fd, double host0, run_report *rep,
                    ccsim_error *err);

/* The gradient source is set up (and checked: a trace is read once, the
 * training data loaded) before anything else, so `validate` checks it too. */
int run_experiment(const experiment *e, const run_opts *o, run_report *rep, ccsim_error *err) {
  const double host0 = host_seconds();
  memset(rep, 0, sizeof *rep);
  feed *fd = feed_new(e, o->validate_only ? NULL : o->record_trace, err);
  if (!fd) return err->code;
  int rc = simulate(e, o, fd, host0, rep, err);
  feed_free(fd);
  return rc;
}

/* Every iteration: its data (the data executor runs every worker's two
 * actors on real payloads and records the trace), then its timing (from
 * the memo when the same trace was timed before, else replayed in
 * SimGrid), then its figures.  Iterations are separated by a barrier: the
 * next starts when the last worker is done, on an idle network. */
static int run_iterations(shared *sh, worker *workers, int memo_on, ccsim_error *err) {
  const experiment *e = sh->e;
  const int N = e->workers;
  sim_memo *memo = memo_on ? sim_memo_new(64) : NULL;
  double *marks = NULL, start = 0;
  size_t *mark0 = calloc(2 * (size_t)N + 1, sizeof *mark0), markcap = 0;
  int rc = CCSIM_OK;
  if (!mark0 || (memo_on && !memo)) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the iterations' timing");
    goto out;
  }
  for (int it = 0; it < e->iterations; it++) {
    const sched_plan *plan = sched_plan_now(sh->sched);
    sim_exec_reset(sh->exec);
    sh->nspans = 0;
    for (int r = 0; r < N; r++) {
      worker *w = &workers[r];
      w->iteration = (uint32_t)it;
      w->plan = plan;
      w->compress_s = w->busy = 0;
      sim_exec_spawn(sh->exec, r, worker_iter, w);
      sim_exec_spawn(sh->exec, r, comm_iter, w);
    }
    if ((rc = sim_exec_run(sh->exec, err))) {
      if (sh->nc.failed) { /* numbers went bad: an actor stopped the iteration */
        rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", e->file, sh->nc.msg);
        goto out;
      }
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: %s", it, msg);
      goto out;
    }
    const sim_trace *t = sim_exec_trace(sh->exec);
    for (size_t a = 0; a < t->nactors; a++) mark0[a + 1] = mark0[a] + t->actors[a].nmarks;
    const size_t nmarks = mark0[t->nactors];
    if (nmarks > markcap) {
      free(marks);
      markcap = nmarks;
      if (!(marks = malloc(markcap * sizeof *marks))) {
        rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for %zu marks", it, nmarks);
        goto out;
      }
    }
    uint64_t h[2];
    const double *known = NULL;
    if (memo) {
      sim_trace_hash(t, h);
      known = sim_memo_find(memo, h, nmarks);
    }
    if (known) {
      memcpy(marks, known, nmarks * sizeof *marks);
      sh->memo_hits++;
    } else {
      if ((rc = engine_replay(t, marks, err))) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: %s", it, msg);
        goto out;
      }
      sh->simulated++;
      if (memo) sim_memo_put(memo, h, marks, nmarks);
    }
    check_iteration(sh, it);
    if (sh->nc.failed) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", e->file, sh->nc.msg);
      goto out;
    }
    const double last = settle_iteration(sh, workers, it, start, marks, mark0);
    sched_observe(sh->sched, last - start);
    progress(sh, it, last);
    start = last;
  }
out:
  sim_memo_free(memo);
  free(marks);
  free(mark0);
  return rc;
}

static int simulate(const experiment *e, const run_opts *o, feed *fd, double host0, run_report *rep,
                    ccsim_error *err) {
  run_sum_type = *ccomp_find("none");
  run_sum_type.name = "sum";
  run_sum_type.finish = identity_finish;
  const char *dir = o->out_dir ? o->out_dir : e->out_dir;
  snprintf(rep->out_dir, sizeof rep->out_dir, "%s", dir);
  char platform_path[PATH_MAX];
  int rc;
  /* platforms: checked before this process's SimGrid sees them (a generated
   * one from memory), and before anything is written */
  /* resources: will it fit in this machine (or --max-memory)?  Before the
   * probe, which would start the actors */
  resource_estimate est;
  if ((rc = resources_check(e, o->max_memory, &est, err))) return rc;
  rep->memory_estimate = est.total;
  if ((rc = platform_guard(e, o->cfg, o->ncfg, e->platform.file, err))) return rc;
  if (o->validate_only && !e->platform.file) {
    rep->hosts = (size_t)e->platform.hosts;
    return 0;
  }
  /* outputs: a directory that already holds this very experiment's finished
   * results (summary.json with its hash) is left alone when asked */
  if (!o->validate_only && o->skip_finished) {
    char want[17], have[17];
    if ((rc = outdir_hash(e, want, err))) return rc;
    if (outdir_finished_hash(dir, have) && !strcmp(have, want)) {
      rep->skipped = 1;
      return 0;
    }
  }
  /* outputs: claim the directory before anything is written to it */
  if (!o->validate_only && (rc = outdir_claim(dir, e, o->force, err))) return rc;
  if (e->platform.file) {
    snprintf(platform_path, sizeof platform_path, "%s", e->platform.file);
  } else {
    if ((rc = platform_write(e, dir, "platform.xml", err))) return rc;
    snprintf(platform_path, sizeof platform_path, "%s/platform.xml", dir); /* fits: claimed above */
  }
  if ((rc = engine_init(e->platform.network_model, e->platform.crosstraffic, o->cfg, o->ncfg,
                        o->quiet || o->validate_only, err)))
    return rc;
  if ((rc = engine_load_platform(platform_path, err))) return rc;
  size_t nhosts;
  engine_hosts(&nhosts);
  rep->hosts = nhosts;
  if (nhosts < (size_t)e->workers)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: workers: %d workers but platform %s has %zu hosts",
                      e->file, e->workers, platform_path, nhosts);
  if (o->validate_only) return 0;

  shared sh = {.e = e, .feed = fd, .quiet = o->quiet, .tty = isatty(2)};
  const int private_outputs = o->private_outputs || feed_private_outputs(fd);
  {
    const model_profile *m = e->model.layers;
    sh.soff = calloc(m->nlayers + 1, sizeof *sh.soff);
    sh.foff = calloc(m->nlayers + 1, sizeof *sh.foff);
    for (size_t l = 0; l < m->nlayers; l++) {
      const size_t p = m->layers[l].params;
      size_t k = p;
      if (e->model.sample) {
        k = (size_t)(((unsigned __int128)p * e->model.sample + e->model.elements - 1) / e->model.elements);
        if (k < 1) k = 1;
        if (k > p) k = p;
      }
      sh.foff[l + 1] = sh.foff[l] + p;
      sh.soff[l + 1] = sh.soff[l] + k;
    }
  }
  grad_source_init(&sh.grads, e);
  const size_t n = data_elements(&sh), H = e->collective->hops(e->workers, e->coll_params);
  sh.agg = calloc(n, sizeof *sh.agg);
  if (e->collective->requires & COLL_NEEDS_EXACT_SUM) sh.exact_sum = calloc(n, sizeof *sh.exact_sum);
  sh.metrics = calloc((size_t)e->iterations, sizeof *sh.metrics);
  sh.ends = calloc((size_t)e->iterations * e->workers, sizeof *sh.ends);
  sh.t_compute = calloc(4 * (size_t)e->iterations, sizeof(double));
  sh.t_compress = sh.t_compute + e->iterations;
  sh.t_comm = sh.t_compress + e->iterations;
  sh.t_exposed = sh.t_comm + e->iterations;
  sh.sched = sched_new(e);
  err_acc *hops = calloc(2 * (size_t)e->iterations * (H ? H : 1), sizeof *hops);
  worker *workers = calloc((size_t)e->workers, sizeof *workers);
  sh.workers = workers;
  if (!sh.agg || !sh.metrics || !sh.ends || !hops || !workers || compute_times(&sh)) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements x %d workers", n, e->workers);
    goto out;
  }
  int threads = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (!(sh.exec = sim_exec_new(2 * (size_t)e->workers, threads, err))) {
    rc = err->code;
    goto out;
  }
  const int phased = e->compressor->phases > 1;
  for (int it = 0; it < e->iterations; it++) {
    sh.metrics[it].hops = hops + (size_t)it * H;
    sh.metrics[it].cascade = hops + (size_t)(e->iterations + it) * H;
    sh.metrics[it].nhops = phased ? 0 : H; /* rounds' fp32 sums: no hop errors to report */
  }
  if (phased) {
    sh.phase_exact[0] = calloc(n ? n : 1, sizeof(double));
    sh.phase_exact[1] = calloc(n ? n : 1, sizeof(double));
    sh.phase_y = calloc(n ? n : 1, sizeof(float));
    if (!sh.phase_exact[0] || !sh.phase_exact[1] || !sh.phase_y) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements", n);
      goto out;
    }
  }
  for (int r = 0; r < e->workers; r++) {
    char cerr[CCOMP_ERRLEN];
    ccomp_setup su = {.n = n, .workers = (uint32_t)e->workers, .rank = (uint32_t)r, .seed = e->seed};
    workers[r].sh = &sh;
    workers[r].rank = r;
    if (private_outputs && !(workers[r].out = calloc(n ? n : 1, sizeof(float)))) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for private outputs");
      goto out;
    }
    workers[r].comp = ccomp_new(e->compressor, e->comp_params, &su, cerr, sizeof cerr);
    if (!workers[r].comp) {
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: compressor: %s", e->file, cerr);
      goto out;
    }
    if (phased) {
      size_t m = 0;
      for (unsigned ph = 0; ph < ccomp_phases(workers[r].comp); ph++) {
        size_t b = ccomp_phase_bytes(workers[r].comp, n, ph) / 4;
        if (b > m) m = b;
      }
      ccomp_setup ss = su;
      ss.n = m;
      workers[r].sum = ccomp_new(&run_sum_type, NULL, &ss, cerr, sizeof cerr);
      workers[r].x = malloc((n + 1) * sizeof(float));
      workers[r].round_in = malloc((m + 1) * sizeof(float));
      workers[r].round_out = malloc((m + 1) * sizeof(float));
      workers[r].round_n = m;
      workers[r].phase_metrics.hops = calloc(2 * (H + 1), sizeof(err_acc));
      workers[r].phase_metrics.cascade = workers[r].phase_metrics.hops + H + 1;
      workers[r].phase_metrics.nhops = H;
      if (!workers[r].sum || !workers[r].x || !workers[r].round_in || !workers[r].round_out) {
        rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot set up the rounds of %s: %s",
                        e->compressor->name, workers[r].sum ? "out of memory" : cerr);
        goto out;
      }
    }
    if (e->memory) {
      workers[r].mem = ccomp_memory_new(e->memory, e->mem_params, n, cerr, sizeof cerr);
      if (!workers[r].mem) {
        rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: compressor.memory: %s", e->file, cerr);
        goto out;
      }
    }
  }
  if (e->timeline && !(sh.timeline = results_open(dir, "timeline.csv", err))) {
    rc = CCSIM_ERR_RUNTIME;
    goto out;
  }
  if (sh.timeline) fprintf(sh.timeline, "worker,iteration,activity,bucket,start_s,end_s\n");
  for (int r = 0; r < e->workers; r++) {
    workers[r].ready = comm_sem_new();
    workers[r].done = comm_sem_new();
  }
  progress_begin(e->iterations, o->quiet);
  progress_expect(0, expected_messages(&sh));
  rc = run_iterations(&sh, workers, !o->no_memo, err);
  progress_end();
  if (rc) goto out;
  if (sh.timeline) {
    rc = results_commit(sh.timeline, dir, "timeline.csv", err);
    sh.timeline = NULL;
    if (rc) goto out;
  }
  if ((rc = feed_finish(fd, err))) goto out;
  if (private_outputs) {
    memcpy(sh.agg, workers[0].out, n * sizeof *sh.agg);
    for (int r = 1; r < e->workers; r++)
      for (size_t i = 0; i < n; i++)
        rep->worker_spread = fmax(rep->worker_spread, fabs((double)workers[r].out[i] - workers[0].out[i]));
  }
  rc = write_results(e, &sh, dir, host0, rep, err);
  if (!rc && o->keep_aggregate) {
    rep->aggregate = sh.agg;
    sh.agg = NULL;
  }
out:
  for (int r = 0; workers && r < e->workers; r++) {
    ccomp_free(workers[r].comp);
    ccomp_memory_free(workers[r].mem);
    free(workers[r].g);
    free(workers[r].out);
    ccomp_free(workers[r].sum);
    free(workers[r].x);
    free(workers[r].round_in);
    free(workers[r].round_out);
    free(workers[r].phase_metrics.hops);
    if (workers[r].ready) comm_sem_free(workers[r].ready);
    if (workers[r].done) comm_sem_free(workers[r].done);
  }
  free(workers);
  free(hops);
  free(sh.ends);
  free(sh.t_compute);
  free(sh.soff);
  free(sh.foff);
  free(sh.bwd_s);
  results_abandon(sh.timeline);
  sim_exec_free(sh.exec);
  free(sh.spans);
  sched_free(sh.sched);
  free(sh.metrics);
  free(sh.agg);
  free(sh.exact_sum);
  free(sh.phase_exact[0]);
  free(sh.phase_exact[1]);
  free(sh.phase_y);
  return rc;
}
