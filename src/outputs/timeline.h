/* src/outputs/timeline.h — timeline.csv (output.timeline): one row per
 * activity of a worker (forward, backward, compress, communicate,
 * decompress) with its simulated start and end, written iteration by
 * iteration as the run goes, so a long run does not keep every row. */
#ifndef CCSIM_OUTPUTS_TIMELINE_H
#define CCSIM_OUTPUTS_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* A timeline row, resolved to simulated times. */
typedef struct tl_row {
  int rank, bucket;
  uint32_t seq; /* order made: breaks ties */
  const char *what;
  double t0, t1;
} tl_row;

/* A fresh temporary for DIR/timeline.csv with its header line written;
 * NULL and err set when it cannot be made.  results_commit() makes it
 * timeline.csv, results_abandon() drops it. */
FILE *timeline_open(const char *dir, ccsim_error *err);

/* Append iteration it's n rows to f, in the order the activities end (then
 * worker, then the order made): the order a clock-driven run would write
 * them in.  rows is sorted in place. */
void timeline_write(FILE *f, int it, tl_row *rows, size_t n);

#endif
