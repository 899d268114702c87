/* tests/bench_quantizers.c — encode throughput of every registered compressor
 * (or those named on the command line), in elements per second on one core,
 * next to memcpy's element rate (4 bytes per element) on the same buffers.
 * Two sizes: 64 Ki elements (cache resident) and 16 Mi elements (memory).
 * Not a test: `meson test -C build --benchmark` or run it directly.
 * Targets (docs/design.md, scale): the sign family, fp16 and global-qsgd encode at
 * >= 40% of memcpy's element rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/compressor.h"
#include "ccomp/rng.h"
#include "hostclock.h"

/* Best of `reps` timings of `calls` calls of stmt, as elements per second,
 * into `out`. */
#define RATE(out, n, calls, reps, stmt)                                 \
  do {                                                                  \
    double best = INFINITY;                                             \
    for (int r_ = 0; r_ < (reps); r_++) {                               \
      double t0_ = host_clock();                                        \
      for (int c_ = 0; c_ < (calls); c_++) { stmt; }                    \
      double t_ = host_clock() - t0_;                                   \
      best = t_ < best ? t_ : best;                                     \
    }                                                                   \
    (out) = (double)(n) * (calls) / best;                               \
  } while (0)

static volatile float sink;

int main(int argc, char **argv) {
  static const size_t sizes[] = {1 << 16, 1 << 24};
  size_t count;
  const ccomp_type *const *reg = ccomp_registry(&count);
  printf("%-14s %10s %12s %12s %7s\n", "compressor", "elements", "encode Gel/s", "memcpy Gel/s",
         "ratio");
  for (int si = 0; si < 2; si++) {
    const size_t n = sizes[si];
    const int calls = si ? 1 : 256, reps = si ? 5 : 7;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (size_t i = 0; i < n; i++) x[i] = (float)(0.01 * (ccr_unit(1, i) - 0.5));
    memcpy(y, x, n * sizeof *x);
    double mc, r;
    RATE(mc, n, calls, reps, memcpy(y, x, n * sizeof *x); sink = y[c_]);
    for (size_t k = 0; k < count; k++) {
      const ccomp_type *t = reg[k];
      int want = argc < 2;
      for (int a = 1; a < argc; a++) want |= strcmp(argv[a], t->name) == 0;
      if (!want) continue;
      char err[CCOMP_ERRLEN];
      ccomp_setup su = {.n = n, .workers = 4, .rank = 0, .seed = 1};
      ccomp *c = ccomp_new(t, NULL, &su, err, sizeof err);
      if (!c) {
        printf("%-14s %s\n", t->name, err);
        continue;
      }
      uint8_t *w = malloc(ccomp_max_wire_bytes(c, n) + 1);
      ccomp_call call = {.key = 7};
      if (t->flags & CCOMP_GLOBAL_MAX) call.global_max = t->local_stat(c->state, x, n);
      ccomp_encode(c, x, n, &call, w); /* warm up, fault the pages in */
      RATE(r, n, calls, reps, ccomp_encode(c, x, n, &call, w));
      printf("%-14s %10zu %12.3f %12.3f %6.0f%%\n", t->name, n, r / 1e9, mc / 1e9, 100 * r / mc);
      free(w);
      ccomp_free(c);
    }
    free(x), free(y);
  }
  return 0;
}
