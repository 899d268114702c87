/* bench/draws.c — the synthetic gradients' normal draws, nanoseconds a
 * draw, as the fills take them (src/data/gradients.c): blocks of
 * ZIG_BLOCK counters, contiguous (a full gradient) and scattered (a
 * sampled one's counters, every 37th element).
 *
 * Usage: bench_draws [ROUNDS]   (default 5; 64M draws a case a round)
 *
 * Prints, each round, both cases in ns a draw and whether the AVX-512 path
 * ran (CCSIM_NO_AVX512=1 in the environment takes the portable one), then
 * a sum of the draws read: the same on every run with the same ROUNDS,
 * on either path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hostclock.h"
#include "variates.h"

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 5;
  enum { FILL = 4096, FILLS = 16384 };
  static double z[FILL];
  static uint64_t t[FILL];
  for (size_t i = 0; i < FILL; i++) t[i] = i * 37;
  printf("normal draws, %d fills of %d in blocks of %d, AVX-512 path: %s\n", FILLS, FILL, ZIG_BLOCK,
         grad_normal_vectorized() ? "yes" : "no");
  double sum = 0;
  for (int r = 0; r < rounds; r++) {
    double ns[2];
    for (int scattered = 0; scattered < 2; scattered++) {
      const double t0 = host_clock();
      for (uint64_t k = 0; k < FILLS; k++) {
        for (size_t b = 0; b < FILL; b += ZIG_BLOCK)
          zig_normal_block(k, k * FILL + b, 1, scattered ? t + b : NULL, NULL, ZIG_BLOCK, z + b);
        sum += z[k % FILL];
      }
      ns[scattered] = (host_clock() - t0) / ((double)FILLS * FILL) * 1e9;
    }
    printf("round %d: contiguous %.3f ns a draw, scattered %.3f\n", r + 1, ns[0], ns[1]);
  }
  printf("sum of the draws read: %.17g\n", sum);
  return 0;
}
