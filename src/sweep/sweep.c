/* src/sweep/sweep.c — `ccsim sweep SWEEP.json`: a base experiment run over a grid
 * of values, one `ccsim run` process per point (SimGrid starts once per
 * process), several at a time with --jobs, resumable.  This file runs the
 * points (their children, --jobs, a stop by signal) or hands them to Slurm
 * (sweep_slurm.c); sweep_load.c reads the sweep file into its points and
 * sweep_plan.c places, hashes and resumes them and writes DIR/sweep.csv.
 * One sweep at a time per DIR (a lock).  Every point is loaded and checked
 * before the first one runs, so a bad value stops the sweep with exit 2
 * before any simulation. */
#include "sweep/sweep.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "outputs/lock.h"
#include "outputs/results.h"
#include "sim/resources.h"
#include "sweep/sweep_internal.h"
#include "sweep/sweep_slurm.h"

static volatile sig_atomic_t stop_signal; /* SIGINT, SIGTERM or SIGHUP received */
static void on_stop(int sig) { stop_signal = sig; }

/* Start `ccsim run` for point p in its directory, on `threads` threads (0:
 * the run's default), with --no-memo (RUN_NO_MEMO in flags) and --timing
 * simgrid (RUN_TIMING_SIMGRID) if asked; its stderr goes to the
 * file errfd.  The child dies with this process, however this one dies
 * (PR_SET_PDEATHSIG survives exec), and shares its process group, so a
 * terminal's ^C reaches both. */
enum { RUN_NO_MEMO = 1, RUN_TIMING_SIMGRID = 2 };

static pid_t start(const sweep *s, const point *p, const point_run *pr, int threads, int flags,
                   int errfd) {
  const int argc = 12 + 2 * p->nsets;
  char nthreads[16];
  snprintf(nthreads, sizeof nthreads, "%d", threads);
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv) return -1;
  int k = 0;
  argv[k++] = "ccsim";
  argv[k++] = "run";
  argv[k++] = s->base;
  argv[k++] = "--quiet";
  argv[k++] = "--out";
  argv[k++] = pr->dir;
  if (pr->changed) argv[k++] = "--force"; /* its old results are of another experiment */
  if (threads > 0) argv[k++] = "--threads", argv[k++] = nthreads; /* else the run's own default */
  if (flags & RUN_NO_MEMO) argv[k++] = "--no-memo";
  if (flags & RUN_TIMING_SIMGRID) argv[k++] = "--timing", argv[k++] = "simgrid";
  for (int i = 0; i < p->nsets; i++) argv[k++] = "--set", argv[k++] = p->sets[i];
  fflush(NULL);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* the parent died before prctl */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* the run's one-screen summary is in its summary.json: keep the terminal quiet */
    if (!freopen("/dev/null", "w", stdout) || dup2(errfd, 2) < 0) _exit(1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "ccsim sweep: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(1);
  }
  free(argv);
  return pid;
}

/* The reason a child failed: its last stderr line, or how it ended. */
static void failure_reason(int st, int errfd, char *out, size_t len) {
  char buf[4096];
  const ssize_t n = pread(errfd, buf, sizeof buf - 1, 0);
  buf[n > 0 ? n : 0] = 0;
  size_t l = strlen(buf);
  while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r')) buf[--l] = 0;
  /* ccsim's own error line (the last one), else the last line at all */
  char *line = NULL;
  for (char *p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, "ccsim: ", 7)) line = p;
  if (line) *strchrnul(line, '\n') = 0;
  else line = strrchr(buf, '\n') ? strrchr(buf, '\n') + 1 : buf;
  if (!strncmp(line, "ccsim: ", 7)) line += 7;
  if (WIFSIGNALED(st))
    snprintf(out, len, "killed by signal %d (SIG%s)%s%.400s", WTERMSIG(st), sigabbrev_np(WTERMSIG(st)) ?
             sigabbrev_np(WTERMSIG(st)) : "?", line[0] ? ": " : "", line);
  else
    snprintf(out, len, "%s", line[0] ? line : "exit status without a message");
  for (char *c = out; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
}

/* The options every point's run is given, as start()'s flags. */
static int run_flags(const sweep_opts *o) {
  return (o->no_memo ? RUN_NO_MEMO : 0) | (o->timing_simgrid ? RUN_TIMING_SIMGRID : 0);
}

/* Run the points marked 0, jobs at a time, each on `threads` threads; stop
 * (killing the children) on SIGINT, SIGTERM or SIGHUP.  Returns how many failed;
 * SIZE_MAX when there was no memory to run any. */
static size_t run_points(sweep *s, point_run *pr, size_t todo, int jobs, int threads, int flags, int quiet) {
  pid_t *pids = calloc(s->npoints, sizeof *pids);
  int *errfds = calloc(s->npoints, sizeof *errfds);
  size_t finished = 0, failed = 0, next = 0, running = 0;
  if (!pids || !errfds) {
    free(pids);
    free(errfds);
    return SIZE_MAX;
  }
  while (finished < todo) {
    while (!stop_signal && running < (size_t)jobs && next < s->npoints) {
      if (s->points[next].status == 0) {
        errfds[next] = memfd_create("ccsim-point-stderr", MFD_CLOEXEC);
        pids[next] = errfds[next] < 0 ? -1 : start(s, &s->points[next], &pr[next], threads, flags, errfds[next]);
        if (pids[next] < 0) {
          snprintf(pr[next].reason, sizeof pr[next].reason, "cannot start: %s", strerror(errno));
          s->points[next].status = 3, failed++, finished++;
        } else {
          running++;
        }
      }
      next++;
    }
    if (stop_signal && running == 0) break;
    int st;
    const pid_t pid = wait(&st);
    if (pid < 0) {
      if (errno == EINTR && stop_signal) { /* pass it on to the children, then reap them */
        for (size_t i = 0; i < s->npoints; i++)
          if (pids[i] > 0 && s->points[i].status == 0) kill(pids[i], SIGTERM);
        continue;
      }
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < s->npoints; i++)
      if (pids[i] == pid) {
        const int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        /* a point the sweep stopped (its SIGTERM, or the terminal's signal
         * to the whole group: the run's exit 143, 130 or 129) did not fail:
         * its line is not an error, and sweep.csv says why it has no result */
        const int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1, sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
        const int stopped = !ok && stop_signal &&
                            (code == 143 || code == 130 || code == 129 || sig == SIGTERM || sig == SIGINT || sig == SIGHUP);
        s->points[i].status = ok ? 2 : 3;
        if (stopped)
          snprintf(pr[i].reason, sizeof pr[i].reason, "stopped with the sweep (SIG%s): run the sweep again",
                   sigabbrev_np(stop_signal));
        else if (!ok)
          failure_reason(st, errfds[i], pr[i].reason, sizeof pr[i].reason);
        close(errfds[i]);
        pids[i] = 0;
        failed += !ok;
        running--;
        finished++;
        if (!quiet || (!ok && !stopped))
          fprintf(stderr, "ccsim sweep: [%zu/%zu] %s %s%s%s\n", finished, todo, s->points[i].id,
                  ok ? "done" : stopped ? "stopped" : "FAILED", ok || stopped ? "" : ": ", ok || stopped ? "" : pr[i].reason);
      }
  }
  free(pids);
  free(errfds);
  return failed;
}

/* Slurm: submit the points to run as a job array (sweep_slurm.h). */
static int submit(sweep *s, const sweep_opts *o, ccsim_error *err) {
  char file[PATH_MAX], out[PATH_MAX];
  if (!realpath(s->file, file) || !realpath(s->out, out))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", s->file, strerror(errno));
  size_t *todo = calloc(s->npoints + 1, sizeof *todo), ntodo = 0;
  char **ids = calloc(s->npoints + 1, sizeof *ids);
  if (!todo || !ids) return free(todo), free(ids), ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  for (size_t i = 0; i < s->npoints; i++) {
    ids[i] = s->points[i].id;
    if (s->points[i].status == 0) todo[ntodo++] = i;
  }
  int rc = 0;
  if (ntodo == 0) fprintf(stderr, "ccsim sweep %s: every point is done; nothing to submit\n", s->name);
  else rc = slurm_submit(s->name, file, out, ids, s->npoints, todo, ntodo, &o->slurm, err);
  free(todo), free(ids);
  return rc;
}

/* --point K, a Slurm array task: run point K as a local sweep would, and
 * record how it ended for --collect. */
static int run_point(sweep *s, point_run *pr, const sweep_opts *o, ccsim_error *err) {
  const size_t k = (size_t)o->point;
  if (k >= s->npoints)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--point %zu: the sweep has %zu points", k, s->npoints);
  int rc = slurm_check_point(s->out, k, s->points[k].id, err);
  if (rc) return rc;
  int code = 0;
  if (s->points[k].status == 0) {
    int st;
    const int errfd = memfd_create("ccsim-point-stderr", MFD_CLOEXEC);
    pid_t pid = errfd < 0 ? -1 : start(s, &s->points[k], &pr[k], o->threads, run_flags(o), errfd);
    code = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : CCSIM_ERR_RUNTIME;
    if (errfd >= 0) close(errfd);
  }
  slurm_record_status(s->out, k, code);
  if (code) ccsim_fail(err, code, "point %s failed (exit %d)", s->points[k].id, code);
  return code;
}

/* --collect: which points are done, failed (their task ended without a
 * result) or still pending; sweep.csv lists them. */
static int collect(sweep *s, point_run *pr, ccsim_error *err) {
  size_t done = 0, failed = 0, pending = 0;
  for (size_t i = 0; i < s->npoints; i++) {
    if (s->points[i].status) {
      done++;
      continue;
    }
    /* a task that ended without a result failed; one that succeeded but
     * whose result is gone (removed, stale) is to run again: pending */
    const int st = slurm_status(s->out, i);
    if (st > 0) {
      s->points[i].status = 3, failed++;
      snprintf(pr[i].reason, sizeof pr[i].reason, "its Slurm task ended with exit status %d", st);
    } else {
      pending++;
    }
  }
  const int rc = sweep_write_index(s, pr, err);
  if (rc) return rc;
  fprintf(stderr, "ccsim sweep %s: %zu done, %zu failed, %zu pending; %s/sweep.csv\n", s->name, done,
          failed, pending, s->out);
  return failed || pending ? CCSIM_ERR_RUNTIME : 0;
}

int sweep_run(const sweep_opts *o) {
  const char *file = o->file, *out = o->out;
  const int jobs = o->jobs, quiet = o->quiet, dry = o->dry_run;
  sweep s;
  ccsim_error err = {0};
  char recorded[PATH_MAX];
  if (o->collect) {
    if (slurm_sweep_file(o->collect, recorded, sizeof recorded, &err)) {
      fprintf(stderr, "ccsim sweep: %s\n", err.msg);
      return err.code;
    }
    file = recorded;
    out = o->collect;
  }
  int rc = sweep_load(file, out, &s, &err);
  point_run *pr = NULL;
  int lock = -1;
  if (rc) goto done;
  /* every point is checked (and placed, and hashed) before anything runs */
  if (!(pr = calloc(s.npoints, sizeof *pr))) {
    rc = ccsim_fail(&err, CCSIM_ERR_RUNTIME, "out of memory for %zu points", s.npoints);
    goto done;
  }
  if ((rc = sweep_plan_points(&s, pr, &err))) goto done;
  const int slurm = o->slurm_mode || o->point >= 0 || o->collect;
  if (!dry || slurm) { /* submit() resolves the directory's real path */
    if ((rc = results_mkdir(s.out, &err))) goto done;
  }
  /* a Slurm array runs its tasks into DIR at once: no lock for them, but
   * never into a run's directory */
  if (!dry && !slurm) {
    if ((lock = lock_dir(s.out, "sweep", &err)) < 0) {
      rc = err.code;
      goto done;
    }
    if ((rc = results_remove_stale(s.out, &err))) goto done;
  } else if (!o->collect && (rc = lock_check_kind(s.out, "sweep", &err))) {
    goto done;
  }
  /* resume: a point is done when its summary.json holds its hash */
  size_t reused, changed, fresh;
  const size_t todo = sweep_resume(&s, pr, dry && !slurm, &reused, &changed, &fresh);
  if (slurm) {
    rc = o->collect ? collect(&s, pr, &err) : o->point >= 0 ? run_point(&s, pr, o, &err) : submit(&s, o, &err);
    if (rc && err.msg[0]) fprintf(stderr, "ccsim sweep: %s\n", err.msg);
    err.code = 0;
    goto done;
  }
  if (jobs > 1 && todo > 1) { /* the points that run side by side must fit together */
    double *need = malloc(todo * sizeof *need);
    const char **ids = malloc(todo * sizeof *ids);
    size_t k = 0;
    for (size_t i = 0; need && ids && i < s.npoints; i++)
      if (!s.points[i].status) need[k] = pr[i].need, ids[k++] = s.points[i].id;
    rc = need && ids ? resources_check_jobs(s.file, need, ids, k, jobs, &err)
                     : ccsim_fail(&err, CCSIM_ERR_RUNTIME, "out of memory");
    free(need);
    free(ids);
    if (rc) goto done;
  }
  /* the points side by side share the CPUs (their results do not depend on it) */
  int threads = o->threads;
  if (threads <= 0) threads = resources_cpus() / jobs;
  if (threads < 1) threads = 1;
  if (!quiet || dry)
    fprintf(stderr,
            "ccsim sweep %s: %zu points: %zu reused, %zu rerun as changed, %zu new; %zu to run, %d at a "
            "time on %d thread%s each\n",
            s.name, s.npoints, reused, changed, fresh, todo, jobs, threads, threads > 1 ? "s" : "");
  if (dry) {
    for (size_t i = 0; i < s.npoints; i++)
      printf("%s %s\n", s.points[i].status ? "done" : pr[i].changed ? "changed" : "todo", s.points[i].id);
    goto done;
  }
  struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: wait() returns */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL); /* a closed terminal stops a sweep as ^C does: sweep.csv written */
  const size_t failed = run_points(&s, pr, todo, jobs, threads, run_flags(o), quiet);
  if (failed == SIZE_MAX) {
    rc = ccsim_fail(&err, CCSIM_ERR_RUNTIME, "%s: out of memory to start its %zu points", s.out, todo);
    goto done;
  }
  if ((rc = sweep_write_index(&s, pr, &err))) goto done;
  if (stop_signal) {
    rc = ccsim_fail(&err, CCSIM_ERR_RUNTIME, "%s: stopped by SIG%s; run the sweep again to resume", s.out,
                    sigabbrev_np(stop_signal));
    goto done;
  }
  if (!quiet) fprintf(stderr, "ccsim sweep: results in %s (sweep.csv)\n", s.out);
  rc = failed ? CCSIM_ERR_RUNTIME : 0;
  if (failed) fprintf(stderr, "ccsim sweep: %zu of %zu points failed (sweep.csv gives each reason)\n", failed, todo);
  err.code = 0;
done:
  if (rc && err.code) fprintf(stderr, "ccsim: %s\n", err.msg);
  for (size_t i = 0; pr && i < s.npoints; i++) free(pr[i].dir);
  free(pr);
  if (lock >= 0) close(lock);
  sweep_free(&s);
  return rc;
}
