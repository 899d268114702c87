/* tests/unbiased.h — statistical checks shared by test_quantizers.c and
 * test_signs.c: unbiasedness over many seeds within 3 standard errors, the
 * standard error computed from the samples themselves.
 *
 * sample(ctx, s, y) fills y[d] with the s-th independent draw (s = 0 .. S-1,
 * deterministic seeds).  Checked against target[d]:
 *   - three scalar functionals F(y) = sum_i w_i y_i, with w = 1, w = sign of
 *     the target, and fixed pseudo-random +-1: |mean F - F(target)| <= 3 SE(F);
 *     a bias that is systematic across coordinates (e.g. rounding toward
 *     zero) shows in the second, which has the whole vector's power;
 *   - every coordinate: |mean y_i - target_i| <= 5 SE_i (with d coordinates,
 *     a per-coordinate 3 SE test would fail by chance on ~0.3% of them;
 *     5 SE keeps the chance of any false alarm below d * 6e-7), and no more
 *     coordinates beyond 3 SE than chance explains (at most 2 + d/100, where
 *     0.27% of d are expected).
 * A tolerance of tol (absolute, per coordinate; times sum |w_i| for a
 * functional) covers fp32 rounding where a draw is deterministic.  A sample
 * SE cannot see a rare event that did not happen: a coordinate that rounds
 * up one lattice step with probability p < 5/S often shows S identical
 * draws and SE 0, so each coordinate is also allowed 5 step / S (step: the
 * largest spacing between a coordinate's possible outputs, 0 if unknown). */
#ifndef CCSIM_TEST_UNBIASED_H
#define CCSIM_TEST_UNBIASED_H

#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "ccomp/rng.h"

typedef void (*sample_fn)(void *ctx, int s, float *y);

static void check_unbiased(const char *what, size_t d, int S, const float *target,
                           sample_fn sample, void *ctx, double tol, double step) {
  double *m1 = calloc(d, sizeof *m1), *m2 = calloc(d, sizeof *m2);
  float *y = malloc(d * sizeof *y);
  double F[3] = {0, 0, 0}, F2[3] = {0, 0, 0}, Ft[3] = {0, 0, 0}, W[3] = {0, 0, 0};
  for (int s = 0; s < S; s++) {
    sample(ctx, s, y);
    double f[3] = {0, 0, 0};
    for (size_t i = 0; i < d; i++) {
      double w[3] = {1.0, (target[i] > 0) - (target[i] < 0), (ccr_u64(77, i) & 1) ? 1.0 : -1.0};
      m1[i] += y[i];
      m2[i] += (double)y[i] * y[i];
      for (int k = 0; k < 3; k++) f[k] += w[k] * y[i];
    }
    for (int k = 0; k < 3; k++) F[k] += f[k], F2[k] += f[k] * f[k];
  }
  for (size_t i = 0; i < d; i++) {
    double w[3] = {1.0, (target[i] > 0) - (target[i] < 0), (ccr_u64(77, i) & 1) ? 1.0 : -1.0};
    for (int k = 0; k < 3; k++) Ft[k] += w[k] * target[i], W[k] += fabs(w[k]);
  }
  static const char *fname[3] = {"sum", "sign-weighted sum", "random-sign sum"};
  for (int k = 0; k < 3; k++) {
    double mean = F[k] / S, var = fmax((F2[k] - S * mean * mean) / (S - 1), 0.0);
    double se = sqrt(var / S), z = se > 0 ? (mean - Ft[k]) / se : 0;
    CHECK(fabs(mean - Ft[k]) <= 3 * se + tol * W[k],
          "%s: %s: mean %.9g vs %.9g, %.2f standard errors (SE %.3g, %d samples)", what,
          fname[k], mean, Ft[k], z, se, S);
  }
  int bad = 0;
  size_t beyond3 = 0;
  double zmax = 0;
  for (size_t i = 0; i < d; i++) {
    double mean = m1[i] / S, var = fmax((m2[i] - S * mean * mean) / (S - 1), 0.0);
    double se = sqrt(var / S);
    if (se > 0) zmax = fmax(zmax, fabs(mean - target[i]) / se);
    beyond3 += !(fabs(mean - target[i]) <= 3 * se + tol + 5 * step / S);
    if (!(fabs(mean - target[i]) <= 5 * se + tol + 5 * step / S)) {
      if (bad++ < 3)
        fprintf(stderr, "%s: coordinate %zu: mean %.9g vs %.9g (SE %.3g)\n", what, i, mean,
                (double)target[i], se);
    }
  }
  CHECK(bad == 0, "%s: %d of %zu coordinates beyond 5 standard errors (%d samples)", what, bad, d,
        S);
  CHECK(beyond3 <= 2 + d / 100, "%s: %zu of %zu coordinates beyond 3 standard errors", what,
        beyond3, d);
  fprintf(stderr, "%s: %d samples x %zu coordinates, max |z| %.2f, %zu beyond 3 SE\n", what, S,
          d, zmax, beyond3);
  free(m1), free(m2), free(y);
}

static void gaussian_fill(float *x, size_t n, uint64_t key, double scale) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    x[i] = (float)(scale * sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

#endif
