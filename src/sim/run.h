/* src/sim/run.h — run one experiment: engine, workers, results. */
#ifndef CCSIM_RUN_H
#define CCSIM_RUN_H

#include "error.h"
#include "experiment.h"
#include "sim/run_report.h"

typedef struct run_opts {
  const char *out_dir;   /* overrides the experiment's output.dir when set */
  char *const *cfg;      /* SimGrid --cfg= / --log= flags */
  int ncfg;
  int quiet;             /* no progress on stderr */
  int validate_only;     /* load the platform and check, run nothing */
  int keep_aggregate;    /* return the last iteration's aggregate in the report */
  int private_outputs;   /* each worker gets its own aggregate buffer (tests: every
                            delivery path runs); the report gives their spread.
                            Training runs always use them (trainer.h) */
  const char *record_trace; /* write the workers' gradients as a trace in this directory */
  int force;             /* replace another experiment's results in out_dir */
  int skip_finished;     /* out_dir already holds this experiment's finished results: run nothing */
  double max_memory;     /* bytes the run may use (> 0), else the machine's MemAvailable */
  int no_memo;           /* time every iteration in SimGrid, even one whose trace was timed before */
  int timing_simgrid;    /* --timing simgrid: every iteration timed in SimGrid, never analytically */
  int threads;           /* threads of the data executor (> 0), 0: resources_cpus() */
} run_opts;


int run_experiment(const experiment *e, const run_opts *o, run_report *rep, ccsim_error *err);

#endif
