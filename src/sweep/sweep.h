/* src/sweep/sweep.h — `ccsim sweep`: a base experiment over a grid of values. */
#ifndef CCSIM_SWEEP_H
#define CCSIM_SWEEP_H

#include "sweep/sweep_slurm.h"

/* What `ccsim sweep` was asked (src/cli/sweep.c parses it). */
typedef struct sweep_opts {
  const char *file; /* SWEEP.json */
  const char *out;  /* overrides the sweep's output.dir when set */
  int jobs;         /* points run at once, >= 1 */
  int quiet;        /* no progress on stderr */
  int dry_run;      /* list the points (done/todo) and run nothing */
  int slurm_mode;   /* submit the points to run as a Slurm job array */
  slurm_opts slurm; /* its resources; slurm.print_only: print the script */
  long point;       /* >= 0: run this point only (a job array task) */
  const char *collect; /* gather a --slurm sweep's results in this directory */
  /* passed to every point's `ccsim run` (and to a --slurm job's tasks) */
  int threads;         /* --threads; 0: the CPUs this process may use over jobs (at least 1),
                          with --slurm the task's --cpus-per-task, with --point the run's default */
  int no_memo;         /* --no-memo */
  int timing_simgrid;  /* --timing simgrid */
} sweep_opts;

/* Runs (or lists) the sweep's points; prints its own errors.  Returns the
 * process exit code. */
int sweep_run(const sweep_opts *o);

#endif
