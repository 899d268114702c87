/* src/sim/run.c — one experiment, start to finish: its inputs checked against
 * this machine and its platform, the output directory claimed, the
 * platform written and loaded, the run's state set up (sim/run_state.c),
 * its iterations run (sim/run_loop.c, the actors in sim/worker.c), and its
 * result files written (sim/run_results.c, outputs/timeline.c). */
#include "sim/run.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include "data/feed.h"
#include "engine/engine.h"
#include "heap.h"
#include "hostclock.h"
#include "outputs/lock.h"
#include "outputs/outdir.h"
#include "outputs/results.h"
#include "outputs/timeline.h"
#include "platform.h"
#include "platforms/guard.h"
#include "sim/exec.h"
#include "sim/resources.h"
#include "sim/run_results.h"
#include "sim/run_state.h"

/* The larger of this process's peak and its children's (the timing
 * executor replays in forked children, which share the parent's pages). */
static double peak_rss_mb(void) {
  struct rusage ru, rc;
  getrusage(RUSAGE_SELF, &ru);
  getrusage(RUSAGE_CHILDREN, &rc);
  return (ru.ru_maxrss > rc.ru_maxrss ? ru.ru_maxrss : rc.ru_maxrss) / 1024.0;
}

/* Everything before the first iteration that is not the run's own state:
 * the resource estimate, the platform's checks, the output directory
 * (locked into *lock, which the caller closes when the run ends; left alone
 * when it holds this experiment's finished results and skip_finished asks
 * so; else claimed), the platform written there when generated, SimGrid
 * started on it.  *done is set when nothing more is to run (validate_only,
 * or skipped). */
static int prepare(const experiment *e, const run_opts *o, const char *dir, run_report *rep, int *done,
                   int *lock, ccsim_error *err) {
  char platform_path[PATH_MAX];
  int rc;
  *done = 1;
  /* platforms: checked before this process's SimGrid sees them (a generated
   * one from memory), and before anything is written */
  /* resources: will it fit in this machine (or --max-memory)?  Before the
   * probe, which would start the actors */
  resource_estimate est;
  if ((rc = resources_check(e, o->max_memory, o->record_trace != NULL, &est, err))) return rc;
  rep->memory_estimate = est.total;
  /* the heap grown at once by what the run will hold, on huge pages
   * (heap.h), before any of its threads starts */
  if (!o->validate_only) heap_reserve(est.total);
  /* past what guard pages fit in, SimGrid's stacks go without (the probe's
   * child and the zygote inherit this) as the data executor's do */
  engine_unguarded = rep->unguarded = !est.guard_pages;
  if ((rc = platform_guard(e, o->cfg, o->ncfg, e->platform.file, err))) return rc;
  if (o->validate_only && !e->platform.file) {
    rep->hosts = (size_t)e->platform.hosts;
    return 0;
  }
  /* outputs: finished results in a directory nobody may write (an archive
   * on a read-only disk) are read, not locked: no writer can be there */
  if (!o->validate_only && o->skip_finished && access(dir, W_OK) != 0) {
    char want[17], have[17];
    if ((rc = outdir_hash(e, want, err))) return rc;
    if (outdir_finished_hash(dir, have) && !strcmp(have, want)) {
      rep->skipped = 1;
      return 0;
    }
  }
  /* outputs: one writer at a time, held until the run ends (lock.h); a
   * second one is refused naming the first, --force or not */
  if (!o->validate_only) {
    if ((rc = results_mkdir(dir, err))) return rc;
    if ((*lock = lock_dir(dir, "run", err)) < 0) return err->code;
  }
  /* outputs: a directory that already holds this very experiment's finished
   * results (summary.json with its hash) is left alone when asked */
  int force = o->force;
  if (!o->validate_only && o->skip_finished) {
    char want[17], have[17];
    if ((rc = outdir_hash(e, want, err))) return rc;
    if (outdir_finished_hash(dir, have) && !strcmp(have, want)) {
      rep->skipped = 1;
      return 0;
    }
    /* the finished results of this very experiment with an input or an
     * option since changed: stale, run again in their place, saying why
     * (another experiment's results stay refused without --force) */
    char why[1024];
    if (outdir_why_changed(dir, e, why, sizeof why) == 1) {
      ccsim_one_line(why, sizeof why);
      fprintf(stderr, "ccsim: %s: %s; rerunning\n", dir, why);
      force = 1;
    }
  }
  /* outputs: claim the directory before anything is written to it */
  if (!o->validate_only && (rc = outdir_claim(dir, e, force, err))) return rc;
  if (e->platform.file) {
    snprintf(platform_path, sizeof platform_path, "%s", e->platform.file);
  } else {
    if ((rc = platform_write(e, dir, "platform.xml", err))) return rc;
    snprintf(platform_path, sizeof platform_path, "%s/platform.xml", dir); /* fits: claimed above */
  }
  engine_latency_free = e->comm.model == COMM_NCCL;
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
  if ((rc = engine_comm_resolve(&e->comm, err))) return rc;
  *done = o->validate_only;
  /* replays fork from this moment's small heap, not the data executor's */
  engine_timing_simgrid = o->timing_simgrid;
  if (!o->validate_only && (rc = engine_timing_start(err))) return rc;
  return 0;
}

/* The run after prepare(): its state, its iterations, its result files.
 * With private outputs, rep->worker_spread is how far the workers' last
 * aggregates lie apart (they should be equal). */
static int run_prepared(const experiment *e, const run_opts *o, feed *fd, const char *dir, double host0,
                        run_report *rep, ccsim_error *err) {
  run_state sh;
  const int threads = o->threads > 0 ? o->threads : resources_cpus();
  /* a memory that reads the aggregate, where no message orders the
   * aggregate's one writer before the reader: each worker its own copy */
  const int unordered = e->memory && (e->memory->flags & CCOMP_MEM_AGGREGATE) &&
                        (e->collective->requires & COLL_OUT_FROM_ONE);
  int rc = run_state_init(&sh, e, fd, o->private_outputs || feed_private_outputs(fd) || unordered, threads, err);
  if (rc) goto out;
  sim_exec_guard_pages(sh.exec, !rep->unguarded); /* before the first actor's stack: prepare() decided */
  if (e->timeline && !(sh.timeline = timeline_open(dir, err))) {
    rc = CCSIM_ERR_RUNTIME;
    goto out;
  }
  if ((rc = run_iterations(&sh, !o->no_memo, o->quiet, err))) goto out;
  if (sh.timeline) {
    rc = results_commit(sh.timeline, dir, "timeline.csv", err);
    sh.timeline = NULL;
    if (rc) goto out;
  }
  if ((rc = feed_finish(fd, err))) goto out;
  const size_t n = data_elements(&sh);
  if (sh.private_outputs) {
    const run_worker *w = sh.workers;
    memcpy(sh.agg, w[0].out, n * sizeof *sh.agg);
    for (int r = 1; r < e->workers; r++)
      for (size_t i = 0; i < n; i++)
        rep->worker_spread = fmax(rep->worker_spread, fabs((double)w[r].out[i] - w[0].out[i]));
  }
  rep->host_time_s = host_clock() - host0;
  rep->peak_rss_mb = peak_rss_mb();
  rep->timing_cpu_s = engine_timing_cpu(&rep->timing_replays);
  rc = run_results_write(e, &sh.fig, dir, rep, err);
  if (!rc && o->keep_aggregate) {
    rep->aggregate = sh.agg;
    sh.agg = NULL;
  }
out:
  run_state_clear(&sh);
  return rc;
}

/* Before anything is written (feed_new starts a recorded trace by removing
 * its old index.json): a trace recorded into the trace the run replays is
 * refused (inputs are never overwritten), and the result files and the
 * trace must fit on their disks. */
static int check_outputs(const experiment *e, const run_opts *o, const char *dir, ccsim_error *err) {
  struct stat rt, gt;
  if (o->record_trace && e->gradients.trace && stat(o->record_trace, &rt) == 0 &&
      stat(e->gradients.trace, &gt) == 0 && rt.st_dev == gt.st_dev && rt.st_ino == gt.st_ino)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, e->file, "gradients.trace", 0, 0,
                         "--record-trace %s is the trace this run replays; record into another directory",
                         o->record_trace);
  return resources_check_disk(e, dir, o->record_trace, err);
}

/* The gradient source is set up (and checked: a trace is read once, the
 * training data loaded) before anything else, so `validate` checks it too. */
int run_experiment(const experiment *e, const run_opts *o, run_report *rep, ccsim_error *err) {
  const double host0 = host_clock();
  memset(rep, 0, sizeof *rep);
  const char *dir = o->out_dir ? o->out_dir : e->out_dir;
  int rc;
  if (!o->validate_only && (rc = check_outputs(e, o, dir, err))) return rc;
  feed *fd = feed_new(e, o->validate_only ? NULL : o->record_trace, err);
  if (!fd) return err->code;
  snprintf(rep->out_dir, sizeof rep->out_dir, "%s", dir);
  int done, lock = -1;
  rc = prepare(e, o, dir, rep, &done, &lock, err);
  if (!rc && !done) rc = run_prepared(e, o, fd, dir, host0, rep, err);
  engine_timing_stop();
  feed_free(fd);
  if (lock >= 0) close(lock);
  return rc;
}
