/* src/timemodel/schedule.h — how a model's layer gradients are grouped into
 * collectives, iteration by iteration.
 *
 * Backward produces the layers' gradients in reverse order.  A plan cuts
 * that backward sequence into buckets of consecutive layers; a bucket is one
 * contiguous element range of the flat gradient (layers are contiguous in
 * forward order) and one compression + collective, started as soon as its
 * last layer's gradient is ready.
 *
 *   single     one bucket: everything after backward (no overlap, one call)
 *   layerwise  one bucket per layer (most overlap, a fixed cost per layer)
 *   buckets    DDP-style: layers gathered in backward order until the bucket
 *              holds bucket_mb of fp32 (PyTorch DDP's default cap: 25 MB)
 *   mergecomp  y groups whose number (y = 1 .. Y, Y = schedule.groups) and
 *              cuts are searched on probe iterations, as MergeComp does
 *              (docs/algorithms.md): when every partition into at most Y
 *              groups fits the probe budget (schedule.probes), every one is
 *              probed and the fastest kept (exhaustive: the best there is);
 *              else the partitions whose cuts lie on a grid of G positions
 *              (equal shares of the elements, G the most whose partitions
 *              fit 3/4 of the budget) are all probed, then each cut of the
 *              best is refined by a binary search between its neighbouring
 *              grid positions, within the budget; the fastest partition
 *              measured is kept.  Nothing is assumed of the time's shape on
 *              the grid; between grid positions the refinement can miss a
 *              better cut (no bound is claimed there).  Every probe is a real
 *              simulated iteration.
 *   fixed      the partition schedule.cuts gives.
 */
#ifndef CCSIM_SCHEDULE_H
#define CCSIM_SCHEDULE_H

#include <jansson.h>
#include <stddef.h>

#include "experiment.h"

typedef struct sched_bucket {
  size_t l0, l1; /* layers [l0, l1) in backward order (0 = the last layer) */
  size_t lo, hi; /* elements [lo, hi) of the flat gradient */
} sched_bucket;

typedef struct sched_plan {
  size_t nb;
  sched_bucket *b; /* in backward order: b[0] is ready first */
} sched_plan;

typedef struct scheduler scheduler;

/* NULL without memory. */
scheduler *sched_new(const experiment *e);
void sched_free(scheduler *s);
/* The plan of the next iteration. */
const sched_plan *sched_plan_now(const scheduler *s);
/* An iteration with the current plan took t seconds (mergecomp: the search
 * moves on, and the next plan may differ).  -1 without memory, else 0. */
int sched_observe(scheduler *s, double t);
/* Whether the next plan waits for the last iteration's time (MergeComp's
 * search, until it ends). */
int sched_waits(const scheduler *s);
/* {"kind", "buckets": [...], and for mergecomp "cuts", "probes", "log"}. */
json_t *sched_report(const scheduler *s);

#endif
