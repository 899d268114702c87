/* src/sim/run_results.h — a run's figures, and the result files written
 * from them once every iteration is done: iterations.csv (one row per
 * iteration), hops.csv (one row per iteration and hop) and summary.json
 * (totals, the run's setup, the experiment as resolved).  docs/outputs.md
 * gives their columns and fields; timeline.csv is written as the run goes
 * (outputs/timeline.h). */
#ifndef CCSIM_SIM_RUN_RESULTS_H
#define CCSIM_SIM_RUN_RESULTS_H

#include <stddef.h>

#include "collectives/collective.h"
#include "error.h"
#include "experiment.h"
#include "sim/run_report.h"
#include "timemodel/schedule.h"
#include "train/trainer.h"

/* What a run measured, iteration by iteration: filled by the run loop
 * (sim/run_loop.c), read by the writer.  Arrays are owned by the run. */
typedef struct run_figures {
  coll_metrics *metrics;  /* [iterations]: bytes on the wire, hop and final errors */
  double *ends;           /* [iterations * workers]: when each worker finished */
  /* [iterations], as worker 0 saw them: forward + backward device time,
   * compression device time, time inside the collectives, and time from
   * the end of backward until the aggregate was complete */
  double *t_compute, *t_compress, *t_comm, *t_exposed;
  int simulated, memo_hits; /* iterations timed in SimGrid, and from the memo */
  /* comm.model "nccl": collective calls per protocol (enum nccl_proto),
   * as worker 0 made them, every iteration counted */
  long long proto_calls[3];
  long long algo_calls[2]; /* the NCCL algorithm that priced them: [enum nccl_algo] */
  size_t data_elements;     /* elements the data plane ran on (the sample under model.sample) */
  const trainer *trainer;   /* a training run's evaluations, else NULL */
  const scheduler *sched;   /* the bucket plan, reported in summary.json */
} run_figures;

/* Write iterations.csv, hops.csv and then summary.json (last: a directory
 * is finished when summary.json holds the experiment's hash) into dir, each
 * atomically, and fill rep's figures from f; rep->host_time_s and
 * rep->peak_rss_mb are the caller's and go into summary.json as they are.
 * A training run whose last test loss or accuracy is not finite is a
 * runtime error (summary.json is then not written). */
int run_results_write(const experiment *e, const run_figures *f, const char *dir, run_report *rep,
                      ccsim_error *err);

#endif
