/* src/sim/worker.c — what one worker does in one iteration, as two actors
 * of the data executor: the compute actor (forward, then backward bucket by
 * bucket) and the communication actor (encode, the collective, decode, for
 * each bucket as soon as backward has produced it).  Around the collective
 * sit the hooks it calls back (coll_io): the gradient and error feedback,
 * device time of compression, the checks that stop a run on a non-finite
 * number or a failed allocation; and the marks whose simulated times the
 * timeline and the time breakdown need. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "collectives/phases.h"
#include "engine/engine.h"
#include "sim/run_state.h"
#include "timemodel/device.h"
#include "timemodel/measured.h"

/* Data-plane elements [lo, hi) of worker w's gradient into out: the
 * generator's elements themselves, or, under coordinate sampling, each
 * layer's evenly spaced sample. */
static void fill(run_worker *w, size_t lo, size_t hi, float *out) {
  const run_state *sh = w->sh;
  const experiment *e = sh->e;
  if (!e->model.sample && !sh->shared) { /* a trace, training, or uncorrelated synthetic data */
    feed_fill(sh->feed, (uint32_t)w->rank, w->iteration, lo, hi, out);
    return;
  }
  /* the layer holding lo: the first l < L - 1 with soff[l + 1] > lo, else
   * L - 1 (soff does not decrease).  A ring asks for one chunk a step, next
   * to the last one: the layer of the last call's end, or its neighbour,
   * is checked first, then bisection. */
  const size_t L = e->model.layers->nlayers;
  size_t l = w->layer < L ? w->layer : 0;
  if (l > 0 && sh->soff[l] > lo) l--;
  else if (l + 1 < L && sh->soff[l + 1] <= lo) l++;
  if ((l > 0 && sh->soff[l] > lo) || (l + 1 < L && sh->soff[l + 1] <= lo)) {
    size_t r = L - 1;
    l = 0;
    while (l < r) {
      const size_t mid = l + (r - l) / 2;
      if (sh->soff[mid + 1] > lo) r = mid;
      else l = mid + 1;
    }
  }
  w->layer = l;
  for (size_t j = lo; j < hi; l++) {
    const size_t end = hi < sh->soff[l + 1] ? hi : sh->soff[l + 1];
    const size_t jl = j - sh->soff[l], el = end - sh->soff[l], full = sh->foff[l + 1] - sh->foff[l],
                 k = sh->soff[l + 1] - sh->soff[l];
    const uint32_t *carry = sh->carry ? sh->carry + sh->soff[l] : NULL;
    if (sh->shared) /* the shared part drawn once this iteration (run_state_shared) */
      grad_fill_sampled_shared(&sh->grads, (uint32_t)w->rank, w->iteration, jl, el, sh->foff[l], full, k, carry,
                               sh->shared + j, out + (j - lo));
    else
      grad_fill_sampled(&sh->grads, (uint32_t)w->rank, w->iteration, jl, el, sh->foff[l], full, k, carry,
                        out + (j - lo));
    j = end;
  }
}

/* Worker w's actor found no memory for `what`: the run stops (exit 1)
 * naming the iteration and the worker (collectives/numcheck.h decides which
 * worker's failure is reported when several fail). */
static _Noreturn void out_of_memory_for(run_worker *w, const char *what) {
  char msg[160];
  snprintf(msg, sizeof msg, "iteration %u, worker %d: out of memory for %s", w->iteration, w->rank, what);
  numcheck_fail(&w->sh->nc, w->iteration, w->rank, msg);
  comm_abort();
}

/* numbers: a non-finite value in x stops the simulation (collectives/numcheck.h) */
static void check_floats(run_worker *w, const float *x, size_t lo, size_t hi, const char *what) {
  if (numcheck_floats(&w->sh->nc, x, hi - lo, w->iteration, w->rank, what, lo)) comm_abort();
}

/* worker_input's work (comm_work): the gradient on [lo, hi), error
 * feedback into p, and where each first holds a non-finite number (the
 * executor's thread reports it: the first failure is the simulation's). */
typedef struct input_work {
  run_worker *w;
  size_t lo, hi;
  float *p;
  int draw_window; /* draw the window w->win_lo .. win_hi first (window_plan) */
  size_t bad_g, bad_p; /* index of the first non-finite element, or hi - lo */
  size_t next_lo, next_n; /* the memory's state to prefetch (next_n 0: none) */
} input_work;

/* comm_work's function of worker_input: the gradient, its check, then
 * error feedback and its check (on whichever thread comm_work picks). */
static void input_work_run(void *arg, int thread) {
  (void)thread;
  input_work *k = arg;
  run_worker *w = k->w;
  const size_t n = k->hi - k->lo;
  k->bad_p = n;
  float *g = w->mem ? w->g : k->p;
  if (k->draw_window) fill(w, w->win_lo, w->win_hi, w->win);
  if (k->lo >= w->win_lo && k->hi <= w->win_hi) {
    if (n) memcpy(g, w->win + (k->lo - w->win_lo), n * sizeof *g); /* an empty chunk: no window (NULL) */
  }
  else fill(w, k->lo, k->hi, g);
  /* A generated gradient is finite by construction, and not checked: a
   * draw is at most 14.4 in magnitude (the ziggurat's tail r - log(u) / r
   * with u >= 2^-54; Laplace's 26.5, uniform's 1.8), times at most
   * sqrt(65536) (a sparse row drawn by every token) and a scale of at most
   * 1e30 (the readers' bound): under 1e34, far below FLT_MAX. */
  k->bad_g = w->sh->generated ? n : numcheck_first_bad(g, n);
  if (!w->mem || k->bad_g < n) return; /* a bad gradient stops the run before error feedback */
  w->mem->type->compensate(w->mem->state, w->g, n, k->lo, k->p);
  k->bad_p = numcheck_first_bad(k->p, n);
  if (k->next_n) w->mem->type->prefetch(w->mem->state, k->next_n, k->next_lo);
}

/* Where worker w's next input probably is, after [lo, hi) (absolute
 * elements): the neighbouring chunk of the same size in the direction the
 * last two went (a ring walks its chunks downwards, one a step), else
 * nowhere (*n = 0).  Only a prefetch hint rides on the guess. */
static void guess_next(run_worker *w, size_t lo, size_t hi, size_t *next_lo, size_t *n) {
  const size_t m = hi - lo, end = data_elements(w->sh);
  *n = 0;
  if (!w->mem || !w->mem->type->prefetch || m == 0) return;
  if (hi == w->in_lo && lo >= m) *next_lo = lo - m, *n = m;                /* downwards */
  else if (lo == w->in_hi && hi + m <= end) *next_lo = hi, *n = m;       /* upwards */
}

/* The gradient window.  A ring asks for one chunk a step, next to the last
 * one (downwards, or upwards), and at 1024 workers and a sampled bucket of
 * 65,536 elements a chunk is 64: a block of draws (ZIG_BLOCK, 256) was cut
 * into four, each paying the block's setup, the vector pass over its ~2
 * misses and fill()'s layer search and stream keys (2.6 ns a draw against
 * 1.4 in whole blocks).  So when a chunk smaller than WIN_MIN continues a
 * walk, fill() draws the chunks ahead of it too, at least WIN_MIN elements
 * within the bucket, into w->win, and the next inputs are copied from
 * there.  A generated gradient is a function of the worker, the iteration
 * and the element alone (each draw has its own counter), so the floats are
 * the same bit for bit, drawn in one go or chunk by chunk; only where a walk
 * stops short are up to WIN_MIN elements drawn for nothing.  Traces and
 * training data are read chunk by chunk as before. */
enum { WIN_MIN = 256, WIN_CAP = 2 * WIN_MIN };

/* Worker w's input [lo, hi) (absolute): is it in the window, or should a
 * new window be drawn for it (the window's bounds set, *draw 1)? */
static void window_plan(run_worker *w, size_t lo, size_t hi, int *draw) {
  *draw = 0;
  if (w->win_it == w->iteration && lo >= w->win_lo && hi <= w->win_hi) return; /* drawn already */
  w->win_lo = w->win_hi = 0;
  const size_t m = hi - lo, first = w->base, end = w->base + w->bucket_n;
  if (!w->sh->generated || m == 0 || m >= WIN_MIN || lo < first || hi > end || end > data_elements(w->sh)) return;
  const size_t ahead = (WIN_MIN + m - 1) / m * m - m; /* whole chunks: WIN_MIN <= window < WIN_MIN + m */
  size_t wlo, whi;
  if (hi == w->in_lo) wlo = lo - first > ahead ? lo - ahead : first, whi = hi; /* downwards */
  else if (lo == w->in_hi) wlo = lo, whi = end - hi > ahead ? hi + ahead : end; /* upwards */
  else return;
  if (!w->win && !(w->win = malloc(WIN_CAP * sizeof *w->win))) out_of_memory_for(w, "the gradient window");
  w->win_lo = wlo, w->win_hi = whi, w->win_it = w->iteration;
  *draw = 1;
}

/* coll_io.input: worker arg's payload input on the bucket's [lo, hi), the
 * gradient after error feedback; a non-finite number or a failed
 * allocation stops the run. */
static void worker_input(void *arg, size_t lo, size_t hi, float *p) {
  run_worker *w = arg;
  lo += w->base, hi += w->base;
  if (w->mem && hi - lo > w->gcap) {
    free(w->g);
    w->gcap = hi - lo;
    w->g = malloc(w->gcap * sizeof *w->g);
    if (!w->g) { /* a runtime error naming what, never a NULL dereference */
      char what[64];
      snprintf(what, sizeof what, "a %zu-element gradient buffer", hi - lo);
      out_of_memory_for(w, what);
    }
  }
  input_work k = {.w = w, .lo = lo, .hi = hi, .p = p};
  window_plan(w, lo, hi, &k.draw_window);
  guess_next(w, lo, hi, &k.next_lo, &k.next_n);
  w->in_lo = lo, w->in_hi = hi;
  comm_work(input_work_run, &k, hi - lo);
  if (k.bad_g < hi - lo) check_floats(w, w->mem ? w->g : p, lo, hi, "the gradient");
  if (k.bad_p < hi - lo) check_floats(w, p, lo, hi, "the gradient after error feedback");
}

/* coll_io.hop_payload: a payload decoded at hop h must be finite. */
static void worker_hop_payload(void *arg, size_t h, const float *y, size_t lo, size_t n) {
  run_worker *w = arg;
  char what[64];
  snprintf(what, sizeof what, "the payload decoded at hop %zu", h);
  check_floats(w, y, w->base + lo, w->base + lo + n, what);
}

/* coll_io.out_of_memory: an allocation of the collective failed; like a
 * number gone bad, it stops the run (exit 1) with msg, which names the
 * iteration and the worker. */
static void worker_out_of_memory(void *arg, const char *msg) {
  run_worker *w = arg;
  numcheck_fail(&w->sh->nc, w->iteration, w->rank, msg);
  comm_abort();
}

/* coll_io.encoded: what was sent of the bucket's [lo, hi) (p, and the
 * worker's own decode where the memory wants it) goes to the memory, which
 * keeps the error for the next iteration. */
static void worker_encoded(void *arg, size_t lo, size_t hi, const float *p, const float *own) {
  run_worker *w = arg;
  if (w->mem->type->encoded) w->mem->type->encoded(w->mem->state, p, own, hi - lo, lo + w->base);
}

/* Remember the stretch between marks m0 and m1 of an actor of w. */
static void span_add(run_worker *w, uint32_t actor, const char *what, int bucket, uint32_t m0, uint32_t m1) {
  const int k = actor == comm_actor(w);
  if (w->nspans[k] == w->spancap[k]) {
    const size_t cap = w->spancap[k] ? 2 * w->spancap[k] : 64;
    span *s = realloc(w->spans[k], cap * sizeof *s);
    if (!s) out_of_memory_for(w, "the timeline's spans");
    w->spans[k] = s;
    w->spancap[k] = cap;
  }
  w->spans[k][w->nspans[k]++] = (span){what, w->rank, bucket, actor, m0, m1};
}

/* A timeline mark: only taken when the timeline is written. */
static uint32_t tl_mark(const run_worker *w) { return w->sh->timeline ? comm_mark() : 0; }
/* A timeline row from mark m0 to now, when the timeline is written. */
static void timeline_row(run_worker *w, uint32_t actor, const char *what, int bucket, uint32_t m0) {
  if (w->sh->timeline) span_add(w, actor, what, bucket, m0, comm_mark());
}

/* Device time of one compression operation on n elements (0 without a
 * device): the measured device's table where it has one for this
 * compressor, else docs/design.md, launches x overhead + bytes / bandwidth
 * + flops / peak. */
static double compress_seconds(const run_worker *w, enum ccomp_op op, size_t n) {
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
static size_t full_elements(const run_worker *w, size_t n) {
  if (w->bucket_full <= w->bucket_n || w->bucket_n == 0) return n;
  return (size_t)llround((double)n * (double)w->bucket_full / (double)w->bucket_n);
}

/* compress_seconds of n data-plane elements of the current bucket, charged
 * for the full tensor they stand for.  The price depends on op, n and the
 * bucket's sizes alone (the cost's contract, compressor.h): the last two
 * an operation made are reused. */
static double device_price(run_worker *w, enum ccomp_op op, size_t n) {
  struct dev_price *pr = w->dev_memo[op]; /* op is one of the three, as compress_seconds assumes */
  for (int k = 0; k < 2; k++)
    if (pr[k].n == n && pr[k].bucket_n == w->bucket_n && pr[k].bucket_full == w->bucket_full) return pr[k].s;
  const double d = compress_seconds(w, op, full_elements(w, n));
  pr[w->dev_next[op]] = (struct dev_price){n, w->bucket_n, w->bucket_full, d};
  w->dev_next[op] ^= 1;
  return d;
}

/* Run a compression operation on n data-plane elements on the device
 * (sharing it with backward), charged for the full tensor they stand for;
 * count it, and record it in the timeline as `what`. */
static void device_run(run_worker *w, enum ccomp_op op, size_t n, const char *what, int bucket) {
  const double d = device_price(w, op, n);
  if (d <= 0) return;
  const uint32_t m0 = tl_mark(w);
  comm_execute(d);
  w->compress_s += d;
  timeline_row(w, comm_actor(w), what, bucket, m0);
}

/* comm.model "nccl": the algorithm that prices a collective call whose
 * payload is `bytes` per worker and its protocol (NCCL's tuner:
 * nccl_call_algo, nccl_pick), set for the call's messages, and the call's
 * base latency waited before it. */
static void nccl_call(run_worker *w, double bytes) {
  const nccl_plan *p = engine_comm_plan();
  if (p->model != COMM_NCCL) return;
  const int algo = nccl_call_algo(p, bytes), proto = nccl_pick(p, algo, bytes);
  comm_protocol((unsigned)(proto | algo << 4));
  comm_sleep(nccl_base_latency(algo, proto));
  if (w->rank == 0) w->sh->fig.proto_calls[proto]++, w->sh->fig.algo_calls[algo]++;
}

/* coll_io.device: a compression operation inside the collective. */
static void worker_device(void *arg, enum ccomp_op op, size_t n) {
  device_run(arg, op, n, "compress", -1);
}

/* coll_io.input of a round: the round's fp32 payload. */
static void round_input(void *arg, size_t lo, size_t hi, float *p) {
  run_worker *w = arg;
  memcpy(p, w->round_in + lo, (hi - lo) * sizeof *p);
}

/* One iteration of a multi-phase compressor: every round is encoded, summed
 * over all workers by the experiment's all-reduce on fp32 payloads, and
 * decoded, in order; the last round yields the aggregate. */
static void run_phased(run_worker *w, coll_ctx *base) {
  run_state *sh = w->sh;
  const experiment *e = sh->e;
  const size_t n = data_elements(sh);
  const int N = e->workers;
  worker_input(w, 0, n, w->x);
  coll_phases *phases = sh->phases;
  double *exact = coll_phases_exact(phases, w->iteration);
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
    nccl_call(w, (double)bytes);
    e->collective->run(&ctx);
    coll_metrics_bytes(base->metrics, w->phase_metrics.bytes);
    ccomp_phase_decode(w->comp, w->x, (const uint8_t *)w->round_out, n, ph, (uint32_t)N, &call,
                       phases->y);
  }
  /* phases->y: the decoded sum over all N (the same on every worker) */
  ccomp_finish(w->comp, phases->y, n, (uint32_t)N);
  if (w->out || w->rank == 0) memcpy(w->out ? w->out : sh->agg, phases->y, n * sizeof(float));
  if (w->rank == 0) {
    err_acc fin = {0};
    err_acc_add(&fin, phases->y, exact, n, 1.0 / N);
    coll_metrics_add(base->metrics, &base->metrics->final, &fin, (uint32_t)N);
    memset(exact, 0, n * sizeof *exact);
  }
}

/* The communication actor of a worker, one iteration: for every bucket, as
 * soon as backward has produced it, encode on the device, aggregate through
 * the collective, decode on the device. */
void worker_comm_iter(void *arg) {
  run_worker *w = arg;
  run_state *sh = w->sh;
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
      .metrics = &sh->fig.metrics[it],
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
    else {
      nccl_call(w, (double)ccomp_max_wire_bytes(w->comp, ctx.n_full));
      coll_run(e->collective, &ctx);
    }
    span_add(w, comm_actor(w), NULL, (int)k, c0, comm_mark());
    timeline_row(w, comm_actor(w), "communicate", (int)k, c0);
    device_run(w, CCOMP_DECODE, ctx.n, "decompress", (int)k);
  }
  w->base = 0;
  comm_sem_release(w->done);
}

/* The compute actor of a worker, one iteration: forward, then backward layer
 * by layer in reverse order, releasing each bucket to the communication
 * actor when its last layer is done; then it waits for the aggregate.
 * Iterations are separated by a barrier (run_loop.c). */
void worker_compute_iter(void *arg) {
  run_worker *w = arg;
  run_state *sh = w->sh;
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
  w->m_end = comm_mark();
  w->busy = busy;
}
