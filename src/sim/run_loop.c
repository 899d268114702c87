/* src/sim/run_loop.c — the iterations of a run.  Each iteration is, in
 * order: its data (the data executor runs every worker's two actors on real
 * payloads and records the trace), the checks of its numbers, its timing
 * (from the memo when the same trace was timed before, else replayed in
 * SimGrid by the timing executor), and its figures (run_figures, timeline
 * rows).  Iterations are separated by a barrier: the next starts when the
 * last worker is done, on an idle network — which is what lets the memo
 * reuse a timing (docs/engine.md).
 *
 * The data of an iteration does not depend on the timing of the ones
 * before it (except under MergeComp's search, which picks the next plan
 * from the last iteration's time), so the data executor goes on with the
 * next iterations while the timing executor replays: an iteration whose
 * timing is not known yet waits in a queue with what its figures need, and
 * iterations are settled in order as their timings arrive.  The results
 * are those of doing everything in turn, byte for byte; so are the errors
 * (an earlier iteration's first). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "outputs/timeline.h"
#include "progress.h"
#include "sim/memo.h"
#include "sim/resources.h"
#include "sim/run_state.h"

int run_ahead = 1;

/* err's message prefixed with "iteration it: " (err is both the source and
 * the destination, so the message is copied first). */
static int fail_iteration(ccsim_error *err, int it) {
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: %s", it, msg);
}

/* The messages an iteration sends, as the collective's descriptor counts
 * them (0 when it cannot: progress.h then uses the previous iteration's
 * count). */
static uint64_t expected_messages(const run_state *sh) {
  const experiment *e = sh->e;
  const double nb = (double)sched_plan_now(sh->sched)->nb;
  const double rounds = e->compressor->phases > 1 ? (double)e->compressor->phases : 1;
  const double m = resources_messages(e, nb * rounds);
  return m > 0 && m < 1e18 ? (uint64_t)m : 0;
}

/* The data of iteration it (msgs: the messages it sends, as
 * expected_messages counts them): every worker's compute and communication
 * actors run to their end in the data executor, which records the trace.
 * A number gone bad (sh->nc) is reported as the actor that met it said. */
static int data_iteration(run_state *sh, int it, uint64_t msgs, ccsim_error *err) {
  const sched_plan *plan = sched_plan_now(sh->sched);
  sim_exec_reset(sh->exec);
  run_state_shared(sh, (uint32_t)it);
  coll_metrics_begin(&sh->fig.metrics[it], sh->xm);
  /* the source failed (now, or earlier with what it kept): the run stops
   * here, its message already names the iteration */
  int rc = feed_iteration_begin(sh->feed, (uint32_t)it, comm_threads(), err);
  if (rc) return rc;
  for (int r = 0; r < sh->e->workers; r++) {
    run_worker *w = &sh->workers[r];
    w->iteration = (uint32_t)it;
    w->nspans[0] = w->nspans[1] = 0;
    w->plan = plan;
    w->compress_s = w->busy = 0;
    if (sim_exec_spawn(sh->exec, r, worker_compute_iter, w) || sim_exec_spawn(sh->exec, r, worker_comm_iter, w))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                        "iteration %d: worker %d: no memory for its actors' stacks (%s: the memory, or the memory "
                        "maps vm.max_map_count allows, ran out)",
                        it, r, strerror(errno));
  }
  /* each communication actor (2r + 1, spawned above) grows its trace, past
   * its first 256 words, to room for its share of the iteration's msgs (4
   * words a message: a send's two and its wait, a receive), where it has no
   * length of its own from an earlier iteration (a ring's runs of equal
   * steps keep it within those 256: exec_comm.c, trace_grow) */
  const size_t words = (size_t)(4 * (msgs / (uint64_t)sh->e->workers) + 64);
  for (int r = 0; msgs && r < sh->e->workers; r++) sim_exec_trace_hint(sh->exec, 2 * (size_t)r + 1, words);
  /* an iteration that repeats the trace being replayed (the memo's usual
   * case) holds no second copy of it: each actor compares its words with
   * the replay's (sim/exec.h); time_iteration makes them its own before
   * that replay is finished, where they are still needed */
  for (size_t i = 0; i < 2 * (size_t)sh->e->workers; i++) {
    const sim_word *ops;
    size_t n;
    if (!engine_replay_words(i, &ops, &n)) break;
    sim_exec_trace_ref(sh->exec, i, ops, n);
  }
  rc = sim_exec_run(sh->exec, err);
  coll_metrics_settle(&sh->fig.metrics[it]);
  if (!rc) { /* the source hears of the aggregates in rank order, on this thread */
    for (int r = 0; r < sh->e->workers; r++)
      feed_end(sh->feed, (uint32_t)r, (uint32_t)it, sh->workers[r].out ? sh->workers[r].out : sh->agg);
    feed_iteration_end(sh->feed, (uint32_t)it);
    return 0;
  }
  if (sh->nc.failed) /* numbers went bad: an actor stopped the iteration */
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", sh->e->file, sh->nc.msg);
  return fail_iteration(err, it);
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

/* An iteration whose data is done and whose figures wait for its timing:
 * what they need, copied from the workers before the next iteration's data
 * overwrites it. */
typedef struct pending {
  int it;
  int replayed; /* its timing comes from a replay (not from the memo) */
  int known;    /* marks[] holds its timing */
  uint64_t h[2];
  double *marks;          /* actor a's mark k at marks[mark0[a] + k] */
  size_t nmarks;
  size_t *mark0;          /* [actors + 1] */
  uint32_t *m_end, *m_bwd_end; /* [workers]: the compute actors' marks */
  double busy0, compress0;     /* worker 0's device time */
  span *spans;                 /* by worker, compute actor then communication actor */
  size_t nspans;
} pending;

/* The timing side of the loop: the memo (NULL when off), the iterations
 * waiting for their timing in order (q[0] first), and whether a replay is
 * in flight (for the waiting iterations marked replayed and not known, all
 * of one trace). */
typedef struct loop_timing {
  sim_memo *memo;
  pending **q;
  size_t nq, capq;
  int inflight;
  double start; /* when the next iteration to settle starts, simulated */
} loop_timing;

static void pending_free(pending *p) {
  if (!p) return;
  free(p->marks);
  free(p->mark0);
  free(p->m_end);
  free(p->m_bwd_end);
  free(p->spans);
  free(p);
}

/* Iteration it's pending entry, from the workers and the trace t. */
static pending *pending_new(const run_state *sh, const sim_trace *t, int it) {
  const int N = sh->e->workers;
  pending *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->it = it;
  size_t nspans = 0;
  for (int r = 0; r < N; r++) nspans += sh->workers[r].nspans[0] + sh->workers[r].nspans[1];
  p->mark0 = calloc(t->nactors + 1, sizeof *p->mark0);
  p->m_end = malloc((size_t)N * sizeof *p->m_end);
  p->m_bwd_end = malloc((size_t)N * sizeof *p->m_bwd_end);
  p->spans = malloc((nspans + 1) * sizeof *p->spans);
  if (!p->mark0 || !p->m_end || !p->m_bwd_end || !p->spans) {
    pending_free(p);
    return NULL;
  }
  for (size_t a = 0; a < t->nactors; a++) p->mark0[a + 1] = p->mark0[a] + t->actors[a].nmarks;
  p->nmarks = p->mark0[t->nactors];
  if (!(p->marks = malloc((p->nmarks + 1) * sizeof *p->marks))) {
    pending_free(p);
    return NULL;
  }
  for (int r = 0; r < N; r++) {
    const run_worker *w = &sh->workers[r];
    p->m_end[r] = w->m_end;
    p->m_bwd_end[r] = w->m_bwd_end;
    for (int k = 0; k < 2; k++) {
      if (!w->nspans[k]) continue; /* spans[k] may be NULL */
      memcpy(p->spans + p->nspans, w->spans[k], w->nspans[k] * sizeof *p->spans);
      p->nspans += w->nspans[k];
    }
  }
  p->busy0 = sh->workers[0].busy;
  p->compress0 = sh->workers[0].compress_s;
  return p;
}

/* numbers: an iteration longer than SIM_MAX_ITERATION_S (run_state.h) of
 * simulated time is refused, naming the worker: past it a double no longer
 * resolves SimGrid's 1 ns steps (at 3e32 s a 5 us message adds nothing), so
 * communication times would silently read 0. */
static int check_time_scale(const run_state *sh, const pending *p, ccsim_error *err) {
  for (int r = 0; r < sh->e->workers; r++) {
    const double end = p->marks[p->mark0[compute_actor(&sh->workers[r])] + p->m_end[r]];
    if (!(end <= SIM_MAX_ITERATION_S))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                        "%s: iteration %d, worker %d: the iteration takes %g s of simulated time, more than "
                        "%g s, where double-precision times no longer resolve SimGrid's 1 ns steps; the "
                        "compute or transfer times are out of scale (model.batch, the device, the bandwidth)",
                        sh->e->file, p->it, r, end, SIM_MAX_ITERATION_S);
  }
  return 0;
}

/* Iteration p's figures from its timing, the iteration starting at
 * simulated time `start`: when each worker finished, worker 0's time
 * breakdown, and the timeline rows.  *end is the end of the iteration (the
 * last worker's).  -1 when the timeline's rows find no memory. */
static int settle_figures(run_state *sh, const pending *p, double start, double *end) {
  const int N = sh->e->workers, it = p->it;
  const double *marks = p->marks;
  const size_t *mark0 = p->mark0;
  run_figures *fig = &sh->fig;
  double last = start;
  for (int r = 0; r < N; r++) {
    const double *wm = marks + mark0[compute_actor(&sh->workers[r])];
    const double wend = start + wm[p->m_end[r]];
    fig->ends[(size_t)it * N + r] = wend;
    last = fmax(last, wend);
    if (r == 0) {
      fig->t_compute[it] = p->busy0;
      fig->t_compress[it] = p->compress0;
      fig->t_exposed[it] = wend - (start + wm[p->m_bwd_end[r]]);
    }
  }
  *end = last;
  double comm0 = 0;
  size_t nrows = 0;
  tl_row *rows = NULL;
  if (sh->timeline && !(rows = malloc((p->nspans + 1) * sizeof *rows))) return -1;
  for (size_t i = 0; i < p->nspans; i++) { /* by worker, compute actor then communication actor */
    const span *s = &p->spans[i];
    const double t0 = start + marks[mark0[s->actor] + s->m0], t1 = start + marks[mark0[s->actor] + s->m1];
    if (!s->what && s->rank == 0) comm0 += t1 - t0;
    if (s->what && rows && t1 > t0) rows[nrows++] = (tl_row){s->rank, s->bucket, (uint32_t)i, s->what, t0, t1};
  }
  fig->t_comm[it] = comm0;
  if (rows) timeline_write(sh->timeline, it, rows, nrows);
  free(rows);
  return 0;
}

/* Settle the waiting iterations whose timing is known, in order. */
static int settle_known(run_state *sh, loop_timing *lt, ccsim_error *err) {
  while (lt->nq && lt->q[0]->known) {
    pending *p = lt->q[0];
    int rc = check_time_scale(sh, p, err);
    double last = lt->start;
    if (!rc && settle_figures(sh, p, lt->start, &last))
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for %zu timeline rows", p->it, p->nspans);
    if (rc) return rc;
    if (sched_observe(sh->sched, last - lt->start))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for the schedule's search", p->it);
    progress_iteration_done(p->it, last);
    lt->start = last;
    memmove(lt->q, lt->q + 1, --lt->nq * sizeof *lt->q);
    pending_free(p);
  }
  return 0;
}

/* Wait for the replay in flight: its timing to every iteration waiting for
 * it (and to the memo), then settle what can be. */
static int finish_replay(run_state *sh, loop_timing *lt, ccsim_error *err) {
  if (lt->inflight) {
    pending *first = NULL;
    for (size_t i = 0; i < lt->nq && !first; i++)
      if (lt->q[i]->replayed && !lt->q[i]->known) first = lt->q[i];
    lt->inflight = 0;
    if (!first) /* a replay in flight is always some waiting iteration's */
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "a replay in flight that no iteration waits for");
    if (engine_replay_finish(first->marks, err)) return fail_iteration(err, first->it);
    /* a timing the memo cannot keep would be replayed again, and the
     * memo_hits reported would depend on the memory left: an error */
    if (lt->memo && sim_memo_put(lt->memo, first->h, first->marks, first->nmarks, err))
      return fail_iteration(err, first->it);
    for (size_t i = 0; i < lt->nq; i++) { /* the same trace, so as many marks */
      pending *p = lt->q[i];
      if (!p->replayed || p->known) continue;
      if (p != first) memcpy(p->marks, first->marks, p->nmarks * sizeof *p->marks);
      p->known = 1;
    }
  }
  return settle_known(sh, lt, err);
}

/* p's timing is the memo's copy `known`: settle what can be. */
static int memo_hit(run_state *sh, loop_timing *lt, pending *p, const double *known, ccsim_error *err) {
  memcpy(p->marks, known, p->nmarks * sizeof *p->marks);
  p->known = 1;
  sh->fig.memo_hits++;
  return settle_known(sh, lt, err);
}

/* Iteration it's data is done: its timing from the memo, from the replay
 * in flight when it has the same trace, or from a replay started now (the
 * one in flight finished first). */
static int time_iteration(run_state *sh, loop_timing *lt, int it, ccsim_error *err) {
  sim_trace *t = sim_exec_trace(sh->exec);
  pending *p = pending_new(sh, t, it);
  if (p && lt->nq == lt->capq) { /* lt->q kept as it was when it cannot grow */
    pending **q = realloc(lt->q, (2 * lt->capq + 8) * sizeof *q);
    if (q) lt->q = q, lt->capq = 2 * lt->capq + 8;
  }
  if (!p || lt->nq == lt->capq) {
    pending_free(p);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for its figures' wait", it);
  }
  lt->q[lt->nq++] = p;
  const size_t nmarks = p->nmarks;
  const double *known = NULL;
  if (lt->memo) {
    sim_trace_hash(t, p->h);
    known = sim_memo_find(lt->memo, p->h, nmarks);
  }
  if (known) return memo_hit(sh, lt, p, known, err);
  if (lt->memo && lt->inflight) { /* the same trace as the replay in flight: its timing */
    for (size_t i = 0; i + 1 < lt->nq; i++) {
      const pending *o = lt->q[i];
      if (o->replayed && !o->known && o->h[0] == p->h[0] && o->h[1] == p->h[1] && o->nmarks == p->nmarks) {
        p->replayed = 1;
        sh->fig.memo_hits++;
        return 0;
      }
    }
  }
  /* the replay in flight's words go with it: any this trace shares become its own first */
  if (sim_exec_trace_own(sh->exec))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "iteration %d: out of memory for its trace", it);
  if (finish_replay(sh, lt, err)) return err->code;
  if (lt->memo && (known = sim_memo_find(lt->memo, p->h, nmarks))) /* what just finished */
    return memo_hit(sh, lt, p, known, err);
  if (engine_replay_start(t, err)) return fail_iteration(err, it);
  p->replayed = 1;
  lt->inflight = 1;
  sh->fig.simulated++;
  return run_ahead ? 0 : finish_replay(sh, lt, err);
}

/* After a failure (err) in iteration it: the iterations before it are
 * settled first, as they would have been had everything run in turn, and
 * their failure is the one reported. */
static int drain_then(run_state *sh, loop_timing *lt, int rc, ccsim_error *err) {
  ccsim_error earlier;
  if (finish_replay(sh, lt, &earlier)) {
    *err = earlier;
    return earlier.code;
  }
  return rc;
}

int run_iterations(run_state *sh, int memo_on, int quiet, ccsim_error *err) {
  const experiment *e = sh->e;
  loop_timing lt = {.memo = memo_on ? sim_memo_new(64) : NULL};
  int rc = CCSIM_OK;
  progress_begin(e->iterations, quiet);
  if (memo_on && !lt.memo) {
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the iterations' timing");
    goto out;
  }
  for (int it = 0; it < e->iterations; it++) {
    /* MergeComp's search plans the next iteration from the last one's time */
    if (lt.nq && sched_waits(sh->sched) && (rc = finish_replay(sh, &lt, err))) goto out;
    const uint64_t msgs = expected_messages(sh);
    progress_expect(it, msgs);
    if ((rc = data_iteration(sh, it, msgs, err))) {
      rc = drain_then(sh, &lt, rc, err);
      goto out;
    }
    check_iteration(sh, it);
    if (sh->nc.failed) {
      rc = drain_then(sh, &lt, ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", e->file, sh->nc.msg), err);
      goto out;
    }
    if ((rc = time_iteration(sh, &lt, it, err))) goto out;
  }
  rc = finish_replay(sh, &lt, err);
out:
  if (lt.inflight) { /* a failure left a replay running: its answer is not wanted */
    ccsim_error ignored;
    double *sink = NULL;
    for (size_t i = 0; i < lt.nq && !sink; i++)
      if (lt.q[i]->replayed && !lt.q[i]->known) sink = lt.q[i]->marks;
    engine_replay_finish(sink, &ignored);
  }
  progress_end();
  for (size_t i = 0; i < lt.nq; i++) pending_free(lt.q[i]);
  free(lt.q);
  sim_memo_free(lt.memo);
  return rc;
}
