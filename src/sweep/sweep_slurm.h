/* src/sweep/sweep_slurm.h — a sweep's points as a Slurm job array.
 *
 * `ccsim sweep SWEEP.json --slurm` writes DIR/slurm/sweep.sbatch, one array
 * task per point still to run (the local sweep's resume rule decides which),
 * each task running `ccsim sweep SWEEP.json --out DIR --point K`; it submits
 * it with sbatch, or prints it.  DIR/slurm/points.txt maps task indices to
 * point ids (a task refuses to run a sweep that changed since), and each
 * task writes its exit status to DIR/slurm/status/K, which
 * `ccsim sweep --collect DIR` reads to tell failed points from pending ones. */
#ifndef CCSIM_SWEEP_SLURM_H
#define CCSIM_SWEEP_SLURM_H

#include <stddef.h>

#include "error.h"

typedef struct slurm_opts {
  int throttle;          /* at most this many tasks at once (%N); 0: no limit */
  int cpus_per_task;     /* --cpus-per-task */
  const char *mem;       /* --mem, Slurm's syntax (e.g. 4G); NULL: the cluster's default */
  const char *time;      /* --time, Slurm's syntax (e.g. 30, 2:00:00); NULL: default */
  const char *partition; /* --partition; NULL: default */
  int print_only;        /* print the script, submit nothing */
  int threads;           /* each task's --threads (0: cpus_per_task) */
  int no_memo;           /* each task passes --no-memo */
  int timing_simgrid;    /* each task passes --timing simgrid */
} slurm_opts;

/* Checks the Slurm option values; 0, or -1 with a message in err. */
int slurm_check(const slurm_opts *o, ccsim_error *err);

/* Checks that the sweep file's path and the output directory out can be
 * written into a job script as data (no control character in either; out
 * also fit for an #SBATCH --output line); 0, or an input error in err. */
int slurm_check_paths(const char *sweep_file, const char *out, ccsim_error *err);

/* The job script (a new string) for the points todo[0..ntodo) of npoints,
 * run by the binary exe on sweep_file with outputs in out; NULL with err
 * when a value cannot be carried as data (slurm_check, slurm_check_paths)
 * or memory runs out.  Every #SBATCH line precedes the script's one
 * command, in which every path is single-quoted. */
char *slurm_script(const char *name, const char *exe, const char *sweep_file, const char *out,
                   size_t npoints, const size_t *todo, size_t ntodo, const slurm_opts *o, ccsim_error *err);

/* Writes the job script for the points ids[todo[0..ntodo)] of the sweep in
 * sweep_file (absolute) with outputs in out (absolute), and submits it (or
 * prints it).  Prints the job id.  Returns 0 or an exit code with err. */
int slurm_submit(const char *name, const char *sweep_file, const char *out, char *const *ids,
                 size_t npoints, const size_t *todo, size_t ntodo, const slurm_opts *o,
                 ccsim_error *err);

/* The sweep file a --slurm submission into out recorded, into buf; 0 or -1 with err. */
int slurm_sweep_file(const char *out, char *buf, size_t len, ccsim_error *err);

/* Is task k of the submission into out still point `id`?  0, or -1 with err. */
int slurm_check_point(const char *out, size_t k, const char *id, ccsim_error *err);

/* Records task k's exit status in out/slurm/status/k. */
void slurm_record_status(const char *out, size_t k, int status);

/* Task k's recorded exit status, or -1 when it has not finished. */
int slurm_status(const char *out, size_t k);

#endif
