/* src/sim/run.h — run one experiment: engine, workers, results. */
#ifndef CCSIM_RUN_H
#define CCSIM_RUN_H

#include <limits.h>

#include "error.h"
#include "experiment.h"

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

/* What a run measured, for the caller's human summary. */
typedef struct run_report {
  double sim_time_s, iteration_time_s, bytes_on_wire, compression_ratio;
  double agg_rel_error, agg_cosine, host_time_s, peak_rss_mb;
  double timing_cpu_s;               /* CPU seconds of the timing executor's replays (host-dependent: not in summary.json) */
  unsigned long long timing_replays;
  size_t hosts;
  double memory_estimate; /* bytes the run is expected to need (sim/resources.h) */
  char out_dir[PATH_MAX];
  int skipped; /* skip_finished and out_dir was finished: nothing ran, nothing was written */
  float *aggregate; /* [elements], when keep_aggregate; the caller frees it */
  double worker_spread; /* private_outputs: max |out_w[i] - out_0[i]| (last iteration) */
  /* gradients.source "train": the last evaluation and when the target was
   * first reached (NAN / -1 if never) */
  int trained;
  double final_loss, final_accuracy, time_to_accuracy_s;
  int iterations_to_accuracy;
} run_report;

int run_experiment(const experiment *e, const run_opts *o, run_report *rep, ccsim_error *err);

#endif
