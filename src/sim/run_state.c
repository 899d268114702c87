/* src/sim/run_state.c — a run's state before its first iteration, and its
 * release: where the data plane's elements lie (coordinate sampling), the
 * aggregate and the figures, the bucket plan, the device's compute times,
 * the data executor, and each worker's compressor, memory and buffers. */
#include <stdlib.h>
#include <string.h>

#include "outputs/results.h"
#include "collectives/phases.h"
#include "timemodel/measured.h"
#include "sim/run_state.h"
#include "data/source.h"

/* Seconds of the device for flops of work (0 without a device). */
static double compute_seconds(const experiment *e, double flops) {
  return e->device && flops > 0 ? flops / (e->device->peak_flops * e->efficiency) : 0;
}

/* sh->fwd_s and sh->bwd_s[L] (backward order) for the experiment's batch:
 * from the measured device's table of this model and precision, else from
 * the profile's flops on the roofline.  0 on success, -1 out of memory. */
static int compute_times(run_state *sh) {
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

/* numbers: compute times SimGrid could not replay (it deadlocks on an
 * infinite or absurd duration, and past SIM_MAX_ITERATION_S a double no
 * longer resolves its nanoseconds) stop the run before it starts. */
static int check_compute_times(const run_state *sh, ccsim_error *err) {
  double total = sh->fwd_s;
  for (size_t j = 0; j < sh->e->model.layers->nlayers; j++) total += sh->bwd_s[j];
  if (!(total <= SIM_MAX_ITERATION_S))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                      "%s: iteration 0, worker 0: forward and backward take %g s of simulated time per "
                      "iteration, more than %g s, where double-precision times no longer resolve SimGrid's "
                      "1 ns steps; model.batch, the layers' flops or the device's times are out of scale",
                      sh->e->file, total, SIM_MAX_ITERATION_S);
  return 0;
}

void run_state_shared(run_state *sh, uint32_t it) {
  if (!sh->shared) return;
  for (size_t l = 0; l < sh->e->model.layers->nlayers; l++) {
    const size_t k = sh->soff[l + 1] - sh->soff[l];
    grad_shared_sampled(&sh->grads, it, 0, k, sh->foff[l], sh->foff[l + 1] - sh->foff[l], k,
                        sh->carry ? sh->carry + sh->soff[l] : NULL, sh->shared + sh->soff[l]);
  }
}

/* sh->soff and sh->foff: each layer's data-plane and full offsets.  Under
 * model.sample = K, layer l keeps ceil(params_l K / elements) coordinates,
 * at least 1 and at most all of them, so every layer is represented and
 * the sample's size is about K.  0, or -1 out of memory. */
static int data_layout(run_state *sh) {
  const experiment *e = sh->e;
  const model_profile *m = e->model.layers;
  sh->soff = calloc(m->nlayers + 1, sizeof *sh->soff);
  sh->foff = calloc(m->nlayers + 1, sizeof *sh->foff);
  if (!sh->soff || !sh->foff) return -1;
  for (size_t l = 0; l < m->nlayers; l++) {
    const size_t p = m->layers[l].params;
    size_t k = p;
    if (e->model.sample) {
      k = (size_t)(((unsigned __int128)p * e->model.sample + e->model.elements - 1) / e->model.elements);
      if (k < 1) k = 1;
      if (k > p) k = p;
    }
    sh->foff[l + 1] = sh->foff[l] + p;
    sh->soff[l + 1] = sh->soff[l] + k;
  }
  return 0;
}

/* The figures of every iteration (run_figures), zeroed: each iteration's
 * metrics point at H hops and H cascades of sh->hops (none reported for
 * multi-phase compressors, whose rounds are fp32 sums).  0, or -1 out of
 * memory. */
static int figures_init(run_state *sh, size_t H, int phased) {
  const experiment *e = sh->e;
  run_figures *f = &sh->fig;
  f->metrics = calloc((size_t)e->iterations, sizeof *f->metrics);
  f->ends = calloc((size_t)e->iterations * e->workers, sizeof *f->ends);
  f->t_compute = calloc(4 * (size_t)e->iterations, sizeof(double));
  sh->hops = calloc(2 * (size_t)e->iterations * (H ? H : 1), sizeof *sh->hops);
  if (!f->metrics || !f->ends || !f->t_compute || !sh->hops) return -1;
  f->t_compress = f->t_compute + e->iterations;
  f->t_comm = f->t_compress + e->iterations;
  f->t_exposed = f->t_comm + e->iterations;
  for (int it = 0; it < e->iterations; it++) {
    f->metrics[it].hops = sh->hops + (size_t)it * H;
    f->metrics[it].cascade = sh->hops + (size_t)(e->iterations + it) * H;
    f->metrics[it].nhops = phased ? 0 : H; /* rounds' fp32 sums: no hop errors to report */
  }
  f->data_elements = data_elements(sh);
  f->trainer = feed_trainer(sh->feed);
  f->sched = sh->sched;
  return 0;
}

/* The rounds of a multi-phase compressor for worker w: a plain-sum
 * instance as large as its largest round, the round buffers, and metrics
 * the rounds' collectives write to (H hops). */
static int worker_rounds_init(run_worker *w, const ccomp_setup *su, size_t n, size_t H, ccsim_error *err) {
  const coll_phases *phases = w->sh->phases;
  char cerr[CCOMP_ERRLEN] = "";
  size_t m = 0;
  for (unsigned ph = 0; ph < ccomp_phases(w->comp); ph++) {
    size_t b = ccomp_phase_bytes(w->comp, n, ph) / 4;
    if (b > m) m = b;
  }
  ccomp_setup ss = *su;
  ss.n = m;
  w->sum = ccomp_new(&phases->sum_type, NULL, &ss, cerr, sizeof cerr);
  w->x = malloc((n + 1) * sizeof(float));
  w->round_in = malloc((m + 1) * sizeof(float));
  w->round_out = malloc((m + 1) * sizeof(float));
  w->round_n = m;
  w->phase_metrics.hops = calloc(2 * (H + 1), sizeof(err_acc));
  if (w->phase_metrics.hops) w->phase_metrics.cascade = w->phase_metrics.hops + H + 1;
  w->phase_metrics.nhops = H;
  if (!w->sum || !w->x || !w->round_in || !w->round_out || !w->phase_metrics.hops)
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, w->sh->e->file, "compressor", 0, 0, "cannot set up the rounds of %s: %s",
                         w->sh->e->compressor->name, w->sum ? "out of memory" : cerr);
  return 0;
}

/* Worker r of sh, for n data-plane elements: its own aggregate when
 * outputs are private, its compressor (seeded by rank), the rounds of a
 * multi-phase one, its memory, and the semaphores between its actors. */
static int worker_init(run_state *sh, int r, size_t n, size_t H, ccsim_error *err) {
  const experiment *e = sh->e;
  run_worker *w = &sh->workers[r];
  char cerr[CCOMP_ERRLEN];
  ccomp_setup su = {.n = n, .workers = (uint32_t)e->workers, .rank = (uint32_t)r, .seed = e->seed};
  w->sh = sh;
  w->rank = r;
  if (sh->private_outputs && !(w->out = calloc(n ? n : 1, sizeof(float))))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for private outputs");
  if (!(w->comp = ccomp_new(e->compressor, e->comp_params, &su, cerr, sizeof cerr)))
    return ccsim_fail_at(err, strstr(cerr, ": out of memory") ? CCSIM_ERR_RUNTIME : CCSIM_ERR_INPUT, e->file,
                         "compressor", 0, 0, "worker %d: %s", r, cerr);
  if (e->compressor->phases > 1 && worker_rounds_init(w, &su, n, H, err)) return err->code;
  if (e->memory && !(w->mem = ccomp_memory_new(e->memory, e->mem_params, n, cerr, sizeof cerr)))
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, e->file, "compressor.memory", 0, 0, "%s", cerr);
  return 0;
}

/* Whether the workers may run on several threads (docs/engine.md): each
 * touches only what it owns and the exact metrics, unless its gradients
 * come from a shared source (feed_threadsafe), its rounds share the sums of
 * a multi-phase compressor, or the collective's descriptor says its
 * workers share state in arrival order (COLL_ONE_LANE). */
static int run_lanes_safe(const run_state *sh) {
  const experiment *e = sh->e;
  return feed_threadsafe(sh->feed) && e->compressor->phases <= 1 && !(e->collective->requires & COLL_ONE_LANE);
}

int run_state_init(run_state *sh, const experiment *e, feed *fd, int private_outputs, int threads,
                   ccsim_error *err) {
  *sh = (run_state){.e = e, .feed = fd, .private_outputs = private_outputs};
  const int phased = e->compressor->phases > 1;
  if (data_layout(sh)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu layers", e->model.layers->nlayers);
  grad_source_init(&sh->grads, e);
  sh->generated = (e->gradients.source->flags & GSRC_GENERATED) != 0;
  const size_t n = data_elements(sh), H = e->collective->hops(e->workers, e->coll_params);
  sh->agg = calloc(n, sizeof *sh->agg);
  if (grad_experiment_shares(e) && !(sh->shared = malloc((n ? n : 1) * sizeof *sh->shared)))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements of shared gradient", n);
  if (e->model.sample) {
    if (!(sh->carry = malloc((n ? n : 1) * sizeof *sh->carry)))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements of sampled indices", n);
    for (size_t l = 0; l < e->model.layers->nlayers; l++)
      if (grad_sample_carries(sh->foff[l + 1] - sh->foff[l], sh->soff[l + 1] - sh->soff[l],
                              sh->carry + sh->soff[l])) {
        free(sh->carry); /* a layer's sample beyond 32 bits: the indices are stepped */
        sh->carry = NULL;
        break;
      }
  }
  if (e->collective->requires & COLL_NEEDS_EXACT_SUM) sh->exact_sum = calloc(n, sizeof *sh->exact_sum);
  sh->sched = sched_new(e);
  sh->workers = calloc((size_t)e->workers, sizeof *sh->workers);
  if (!sh->agg || !sh->sched || ((e->collective->requires & COLL_NEEDS_EXACT_SUM) && !sh->exact_sum) || !sh->workers ||
      figures_init(sh, H, phased) || compute_times(sh))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements x %d workers", n, e->workers);
  if (check_compute_times(sh, err)) return err->code;
  if (!run_lanes_safe(sh)) threads = 1;
  if (threads > e->workers) threads = e->workers; /* a lane holds at least one worker */
  if (!(sh->exec = sim_exec_new(2 * (size_t)e->workers, threads, err))) return err->code;
  if (!(sh->xm = coll_xmetrics_new(H, comm_threads())))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the metrics of %zu hops", H);
  if (phased && !(sh->phases = coll_phases_new(n)))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu elements of %s's rounds", n, e->compressor->name);
  for (int r = 0; r < e->workers; r++) {
    int rc = worker_init(sh, r, n, H, err);
    if (rc) return rc;
  }
  for (int r = 0; r < e->workers; r++) {
    if (!(sh->workers[r].ready = comm_sem_new()) || !(sh->workers[r].done = comm_sem_new()))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for worker %d's semaphores", r);
  }
  return 0;
}

void run_state_clear(run_state *sh) {
  for (int r = 0; sh->workers && r < sh->e->workers; r++) {
    run_worker *w = &sh->workers[r];
    ccomp_free(w->comp);
    ccomp_memory_free(w->mem);
    free(w->g);
    free(w->win);
    free(w->out);
    ccomp_free(w->sum);
    free(w->x);
    free(w->round_in);
    free(w->round_out);
    free(w->phase_metrics.hops);
    free(w->spans[0]);
    free(w->spans[1]);
    if (w->ready) comm_sem_free(w->ready);
    if (w->done) comm_sem_free(w->done);
  }
  free(sh->workers);
  free(sh->hops);
  free(sh->fig.ends);
  free(sh->fig.t_compute);
  free(sh->fig.metrics);
  free(sh->soff);
  free(sh->foff);
  free(sh->shared);
  free(sh->carry);
  free(sh->bwd_s);
  results_abandon(sh->timeline);
  sim_exec_free(sh->exec);
  coll_xmetrics_free(sh->xm);
  sched_free(sh->sched);
  free(sh->agg);
  free(sh->exact_sum);
  coll_phases_free(sh->phases);
  memset(sh, 0, sizeof *sh);
}
