/* src/sweep.h — `ccsim sweep`: a base experiment over a grid of values. */
#ifndef CCSIM_SWEEP_H
#define CCSIM_SWEEP_H

/* What `ccsim sweep` was asked (src/cli/sweep.c parses it). */
typedef struct sweep_opts {
  const char *file; /* SWEEP.json */
  const char *out;  /* overrides the sweep's output.dir when set */
  int jobs;         /* points run at once, >= 1 */
  int quiet;        /* no progress on stderr */
  int dry_run;      /* list the points (done/todo) and run nothing */
} sweep_opts;

/* Runs (or lists) the sweep's points; prints its own errors.  Returns the
 * process exit code. */
int sweep_run(const sweep_opts *o);

#endif
