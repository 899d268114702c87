/* src/outputs/timeline.c — timeline.csv: its header and its rows.  The run
 * loop (sim/run_loop.c) resolves each iteration's activities to simulated
 * times once the iteration is timed, and hands them here. */
#include "outputs/timeline.h"

#include <stdlib.h>

#include "outputs/results.h"

FILE *timeline_open(const char *dir, ccsim_error *err) {
  FILE *f = results_open(dir, "timeline.csv", err);
  if (f) fprintf(f, "worker,iteration,activity,bucket,start_s,end_s\n");
  return f;
}

/* qsort order of timeline_write: end time, then worker, then order made
 * (seq is unique, so the order is total and the file deterministic). */
static int tl_cmp(const void *pa, const void *pb) {
  const tl_row *a = pa, *b = pb;
  if (a->t1 != b->t1) return a->t1 < b->t1 ? -1 : 1;
  if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void timeline_write(FILE *f, int it, tl_row *rows, size_t n) {
  qsort(rows, n, sizeof *rows, tl_cmp);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "%d,%d,%s,%d,%.12g,%.12g\n", rows[i].rank, it, rows[i].what, rows[i].bucket, rows[i].t0,
            rows[i].t1);
}
