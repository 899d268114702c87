/* src/sim/run_report.h — what a run measured, for the caller's human
 * summary (cli/run.c) and for the result writer (sim/run_results.c) that
 * fills the totals: a plain struct, so a reader of the figures needs
 * neither the run nor the experiment. */
#ifndef CCSIM_RUN_REPORT_H
#define CCSIM_RUN_REPORT_H

#include <limits.h>
#include <stddef.h>

/* What a run measured, for the caller's human summary. */
typedef struct run_report {
  double sim_time_s, iteration_time_s, bytes_on_wire, compression_ratio;
  double agg_rel_error, agg_cosine, host_time_s, peak_rss_mb;
  double timing_cpu_s;               /* CPU seconds of the timing executor's replays (host-dependent: not in summary.json) */
  unsigned long long timing_replays;
  size_t hosts;
  double memory_estimate; /* bytes the run is expected to need (sim/resources.h) */
  int unguarded;          /* actor stacks without guard pages: vm.max_map_count (sim/resources.h) */
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

#endif
