/* src/cli/bench_core.h — `ccsim bench`: compressor kernel throughput. */
#ifndef CCSIM_CLI_BENCH_CORE_H
#define CCSIM_CLI_BENCH_CORE_H

#include <stddef.h>

typedef struct bench_opts {
  const char *compressor; /* only this one; NULL: all */
  size_t sizes[8];        /* element counts, nsizes of them (1 .. 8) */
  int nsizes;
  int repeat;             /* timed repetitions, >= 1; the best is kept */
  int json;               /* JSON on stdout instead of the table */
} bench_opts;

/* Times every compressor's encode/decode on o's sizes; prints the table.
 * Returns the exit status. */
int bench_run(const bench_opts *o);

#endif
