/* src/sim/run_loop.c — the iterations of a run.  Each iteration is, in
 * order: its data (the data executor runs every worker's two actors on real
 * payloads and records the trace), its timing (from the memo when the same
 * trace was timed before, else replayed in SimGrid by the timing executor),
 * the checks of its numbers, and its figures (run_figures, timeline rows).
 * Iterations are separated by a barrier: the next starts when the last
 * worker is done, on an idle network — which is what lets the memo reuse a
 * timing (docs/engine.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "outputs/timeline.h"
#include "progress.h"
#include "sim/memo.h"
#include "sim/run_state.h"

/* The timing side of the loop, kept across iterations: the memo (NULL when
 * off), and the marks' simulated times of the current iteration, actor a's
 * mark k at marks[mark0[a] + k]. */
typedef struct loop_timing {
  sim_memo *memo;
  double *marks;
  size_t *mark0, markcap;
} loop_timing;

/* err's message prefixed with "iteration it: " (err is both the source and
 * the destination, so the message is copied first). */
static int fail_iteration(ccsim_error *err, int it) {
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: %s", it, msg);
}

/* The data of iteration it: every worker's compute and communication
 * actors run to their end in the data executor, which records the trace.
 * A number gone bad (sh->nc) is reported as the actor that met it said. */
static int data_iteration(run_state *sh, int it, ccsim_error *err) {
  const sched_plan *plan = sched_plan_now(sh->sched);
  sim_exec_reset(sh->exec);
  run_state_shared(sh, (uint32_t)it);
  coll_metrics_begin(&sh->fig.metrics[it], sh->xm);
  for (int r = 0; r < sh->e->workers; r++) {
    run_worker *w = &sh->workers[r];
    w->iteration = (uint32_t)it;
    w->nspans[0] = w->nspans[1] = 0;
    w->plan = plan;
    w->compress_s = w->busy = 0;
    if (sim_exec_spawn(sh->exec, r, worker_compute_iter, w) || sim_exec_spawn(sh->exec, r, worker_comm_iter, w))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: worker %d: no memory for its actors' stacks", it, r);
  }
  const int rc = sim_exec_run(sh->exec, err);
  coll_metrics_settle(&sh->fig.metrics[it]);
  sh->nspans = 0;
  for (int r = 0; r < sh->e->workers; r++) sh->nspans += sh->workers[r].nspans[0] + sh->workers[r].nspans[1];
  if (!rc) return 0;
  if (sh->nc.failed) /* numbers went bad: an actor stopped the iteration */
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", sh->e->file, sh->nc.msg);
  return fail_iteration(err, it);
}

/* The timing of iteration it's trace into lt->marks: the memo's copy when
 * it has timed the same trace, else a replay in SimGrid (remembered). */
static int time_iteration(run_state *sh, loop_timing *lt, int it, ccsim_error *err) {
  sim_trace *t = sim_exec_trace(sh->exec);
  for (size_t a = 0; a < t->nactors; a++) lt->mark0[a + 1] = lt->mark0[a] + t->actors[a].nmarks;
  const size_t nmarks = lt->mark0[t->nactors];
  if (nmarks > lt->markcap) {
    free(lt->marks);
    lt->markcap = nmarks;
    if (!(lt->marks = malloc(lt->markcap * sizeof *lt->marks)))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for %zu marks", it, nmarks);
  }
  uint64_t h[2];
  const double *known = NULL;
  if (lt->memo) {
    sim_trace_hash(t, h);
    known = sim_memo_find(lt->memo, h, nmarks);
  }
  if (known) {
    memcpy(lt->marks, known, nmarks * sizeof *lt->marks);
    sh->fig.memo_hits++;
    return 0;
  }
  if (engine_replay(t, lt->marks, err)) return fail_iteration(err, it);
  sh->fig.simulated++;
  if (lt->memo) sim_memo_put(lt->memo, h, lt->marks, nmarks);
  return 0;
}

/* numbers: at the end of iteration it (every worker done, outside the
 * actors), the aggregate(s), then the hops' partial aggregates; a failure
 * sets sh->nc.failed, which stops the run. */
static void check_iteration(run_state *sh, int it) {
  const size_t n = data_elements(sh);
  int bad = 0;
  for (int r = 0; r < sh->e->workers && !bad; r++)
    if (sh->workers[r].out) bad = numcheck_floats(&sh->nc, sh->workers[r].out, n, (uint32_t)it, r, "the aggregate", 0);
  if (!bad && !sh->workers[0].out) bad = numcheck_floats(&sh->nc, sh->agg, n, (uint32_t)it, -1, "the aggregate", 0);
  if (!bad) numcheck_metrics(&sh->nc, &sh->fig.metrics[it], (uint32_t)it);
}

/* Iteration it's figures from its timing (lt->marks), the iteration
 * starting at simulated time `start`: when each worker finished, worker 0's
 * time breakdown, and the timeline rows.  *end is the end of the iteration
 * (the last worker's).  -1 when the timeline's rows find no memory. */
static int settle_iteration(run_state *sh, const loop_timing *lt, int it, double start, double *end) {
  const int N = sh->e->workers;
  const double *marks = lt->marks;
  const size_t *mark0 = lt->mark0;
  run_figures *fig = &sh->fig;
  double last = start;
  for (int r = 0; r < N; r++) {
    const run_worker *w = &sh->workers[r];
    const double *wm = marks + mark0[compute_actor(w)];
    const double wend = start + wm[w->m_end];
    fig->ends[(size_t)it * N + r] = wend;
    last = fmax(last, wend);
    if (r == 0) {
      fig->t_compute[it] = w->busy;
      fig->t_compress[it] = w->compress_s;
      fig->t_exposed[it] = wend - (start + wm[w->m_bwd_end]);
    }
  }
  *end = last;
  double comm0 = 0;
  size_t nrows = 0;
  tl_row *rows = NULL;
  if (sh->timeline && !(rows = malloc((sh->nspans + 1) * sizeof *rows))) return -1;
  size_t i = 0; /* the spans in order: by worker, its compute actor's, then its communication actor's */
  for (int r = 0; r < N; r++)
    for (int k = 0; k < 2; k++)
      for (size_t j = 0; j < sh->workers[r].nspans[k]; j++, i++) {
        const span *p = &sh->workers[r].spans[k][j];
        const double t0 = start + marks[mark0[p->actor] + p->m0], t1 = start + marks[mark0[p->actor] + p->m1];
        if (!p->what && p->rank == 0) comm0 += t1 - t0;
        if (p->what && rows && t1 > t0) rows[nrows++] = (tl_row){p->rank, p->bucket, (uint32_t)i, p->what, t0, t1};
      }
  fig->t_comm[it] = comm0;
  if (rows) timeline_write(sh->timeline, it, rows, nrows);
  free(rows);
  return 0;
}

/* The messages an iteration sends, where the collective's count is known
 * (0 otherwise: progress.h then uses the previous iteration's count). */
static uint64_t expected_messages(const run_state *sh) {
  const experiment *e = sh->e;
  const uint64_t n = (uint64_t)e->workers, nb = sched_plan_now(sh->sched)->nb;
  const uint64_t rounds = e->compressor->phases > 1 ? (uint64_t)e->compressor->phases : 1;
  const char *c = e->collective->name;
  if (!strcmp(c, "allreduce/ring") || !strcmp(c, "allreduce/ring-recompress")) return 2 * n * (n - 1) * nb * rounds;
  if (!strcmp(c, "allgather/ring")) return n * (n - 1) * nb * rounds;
  return 0;
}

/* Iteration it ended at simulated time now: tell the progress line, and
 * what the next iteration is expected to send. */
static void progress(const run_state *sh, int it, double now) {
  progress_iteration_done(it, now);
  if (it + 1 < sh->e->iterations) progress_expect(it + 1, expected_messages(sh));
}

/* numbers: an iteration longer than SIM_MAX_ITERATION_S (run_state.h) of
 * simulated time is refused, naming the worker: past it a double no longer
 * resolves SimGrid's 1 ns steps (at 3e32 s a 5 us message adds nothing), so
 * communication times would silently read 0. */
static int check_time_scale(const run_state *sh, const loop_timing *lt, int it, ccsim_error *err) {
  for (int r = 0; r < sh->e->workers; r++) {
    const run_worker *w = &sh->workers[r];
    const double end = lt->marks[lt->mark0[compute_actor(w)] + w->m_end];
    if (!(end <= SIM_MAX_ITERATION_S))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                        "%s: iteration %d, worker %d: the iteration takes %g s of simulated time, more than "
                        "%g s, where double-precision times no longer resolve SimGrid's 1 ns steps; the "
                        "compute or transfer times are out of scale (model.batch, the device, the bandwidth)",
                        sh->e->file, it, r, end, SIM_MAX_ITERATION_S);
  }
  return 0;
}

int run_iterations(run_state *sh, int memo_on, int quiet, ccsim_error *err) {
  const experiment *e = sh->e;
  loop_timing lt = {.memo = memo_on ? sim_memo_new(64) : NULL,
                    .mark0 = calloc(2 * (size_t)e->workers + 1, sizeof *lt.mark0)};
  double start = 0;
  int rc = CCSIM_OK;
  progress_begin(e->iterations, quiet);
  progress_expect(0, expected_messages(sh));
  if (!lt.mark0 || (memo_on && !lt.memo)) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the iterations' timing");
    goto out;
  }
  for (int it = 0; it < e->iterations; it++) {
    if ((rc = data_iteration(sh, it, err)) || (rc = time_iteration(sh, &lt, it, err))) goto out;
    check_iteration(sh, it);
    if (sh->nc.failed) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", e->file, sh->nc.msg);
      goto out;
    }
    if ((rc = check_time_scale(sh, &lt, it, err))) goto out;
    double last;
    if (settle_iteration(sh, &lt, it, start, &last)) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for %zu timeline rows", it, sh->nspans);
      goto out;
    }
    sched_observe(sh->sched, last - start);
    progress(sh, it, last);
    start = last;
  }
out:
  progress_end();
  sim_memo_free(lt.memo);
  free(lt.marks);
  free(lt.mark0);
  return rc;
}
