/* src/sweep/sweep_internal.h — what the sweep's files share: its points,
 * what each point is on disk, and the steps from the sweep file to the points
 * to run (sweep_load.c, sweep_plan.c); sweep.c runs them. */
#ifndef CCSIM_SWEEP_INTERNAL_H
#define CCSIM_SWEEP_INTERNAL_H

#include <stddef.h>

#include "error.h"

/* One point of the grid: its id, its --set assignments, its label on each axis. */
typedef struct point {
  char id[512];   /* "workers=4,method=marsit" */
  char **sets;    /* --set assignments */
  int nsets;
  /* where each assignment comes from in the sweep file, for messages:
   * its field path (axes[i].path, axes[i].values[k].set.KEY, set.KEY) and
   * its value (axes[i].values[k], ...) */
  char **path_at, **value_at;
  char **labels;  /* one per axis */
  int status;     /* 0 to run, 1 done earlier, 2 ran ok, 3 failed */
} point;

/* A sweep file, loaded (sweep_load): its axes and every point. */
typedef struct sweep {
  char *file, *dir, *base, *out, *name;
  int naxes;
  char **axis_names;
  point *points;
  size_t npoints;
} sweep;

/* What each point is, for resume and for sweep.csv. */
typedef struct point_run {
  char *dir;
  char hash[17];   /* of its resolved experiment */
  int changed;     /* its directory holds results of another experiment */
  char reason[600]; /* why it failed: the child's error line, or its signal */
  double need;      /* its memory estimate, bytes */
} point_run;

/* Reads the sweep file into s (zeroed first), its output directory
 * out_override when set; 0, or an exit code with err.  sweep_free(s) either
 * way. */
int sweep_load(const char *file, const char *out_override, sweep *s, ccsim_error *err);

/* err from loading point p's experiment: when its JSON path in the base
 * experiment is a field p's assignments write (or lies inside or above
 * one), err is rewritten to name the sweep file and where that assignment
 * is written there — the field path when the experiment has no such field,
 * else the value — keeping the experiment's message.  Returns err->code. */
int sweep_blame(const sweep *s, const point *p, ccsim_error *err);

/* Frees what s holds (not s); safe after a failed sweep_load. */
void sweep_free(sweep *s);

/* Every point's directory and hash (and memory estimate) into
 * pr[0..s->npoints); two points in one directory, two that are the same
 * experiment, or a point directory that is a symbolic link: refused, an exit
 * code with err.  A point the base experiment refuses because of a field an
 * axis (or "set") writes is blamed on the sweep file at that axis' path or
 * value (sweep_blame). */
int sweep_plan_points(const sweep *s, point_run *pr, ccsim_error *err);

/* Resume: marks done (status 1) each point whose summary.json holds its
 * hash, and changed each one whose directory holds another experiment,
 * saying on stderr what changed (an input, an option, a field) and that it
 * is rerun, or would be (dry); counts the reused, changed and fresh points.
 * Returns how many are to run. */
size_t sweep_resume(sweep *s, point_run *pr, int dry, size_t *reused, size_t *changed, size_t *fresh);

/* Writes DIR/sweep.csv: every point, its status (done, failed with the
 * reason, pending) and, when done, its figures from its summary.json.
 * 0, or an exit code with err (also when a finished point's summary.json
 * cannot be read whole: never listed as pending, nor with figures jansson
 * read without all its memory). */
int sweep_write_index(const sweep *s, const point_run *pr, ccsim_error *err);

#endif
