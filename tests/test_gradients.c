/* tests/test_gradients.c — the synthetic gradient source is deterministic per
 * (seed, worker, iteration, index), independent of chunking, and has the
 * distribution it claims.
 *
 * Statistical bounds: with M = 2^22 samples, the sample mean of a unit
 * normal has standard error 1/sqrt(M) = 4.9e-4, the sample variance
 * sqrt(2/M) = 6.9e-4, the fourth moment sqrt(96/M) = 4.8e-3; we allow 5
 * standard errors (a false alarm about once in 1.7 million runs), and the
 * tests are deterministic anyway: fixed seeds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gradients.h"

static void moments(const float *x, size_t m, double *mean, double *var, double *m4) {
  double s = 0, s2 = 0, s4 = 0;
  for (size_t i = 0; i < m; i++) s += x[i];
  *mean = s / m;
  for (size_t i = 0; i < m; i++) {
    double d = x[i] - *mean;
    s2 += d * d;
    s4 += d * d * d * d;
  }
  *var = s2 / m;
  *m4 = s4 / m;
}

/* Normal CDF at a few points against the empirical one: SE <= 0.5/sqrt(M). */
static void check_cdf(const float *x, size_t m) {
  static const double pts[] = {-3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 3.5};
  for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++) {
    size_t below = 0;
    for (size_t i = 0; i < m; i++) below += x[i] <= pts[k];
    double emp = (double)below / m, cdf = 0.5 * erfc(-pts[k] / M_SQRT2);
    double se = sqrt(cdf * (1 - cdf) / m) + 1e-12;
    CHECK(fabs(emp - cdf) <= 5 * se, "CDF at %g: empirical %.6f vs %.6f (5 SE = %.2g)", pts[k], emp,
          cdf, 5 * se);
  }
}

int main(void) {
  const size_t M = 1u << 22;
  float *x = malloc(M * sizeof *x), *y = malloc(M * sizeof *y);
  grad_source g = {.distribution = GRAD_NORMAL, .scale = 1.0, .correlation = 0, .seed = 5};
  grad_fill(&g, 3, 7, 0, M, x);
  double mean, var, m4;
  moments(x, M, &mean, &var, &m4);
  CHECK(fabs(mean) < 5 / sqrt(M), "normal mean %g", mean);
  CHECK(fabs(var - 1) < 5 * sqrt(2.0 / M), "normal variance %g", var);
  CHECK(fabs(m4 - 3) < 5 * sqrt(96.0 / M), "normal 4th moment %g", m4);
  check_cdf(x, M);

  /* chunking does not matter; the same (seed, worker, iteration) gives the same values */
  grad_fill(&g, 3, 7, 1000, 5000, y);
  CHECK(memcmp(x + 1000, y, 4000 * sizeof *y) == 0, "chunk [1000, 5000) differs from the whole");
  grad_fill(&g, 3, 7, 0, M, y);
  CHECK(memcmp(x, y, M * sizeof *y) == 0, "same inputs, different values");
  /* other worker, iteration or seed: different (and uncorrelated) values */
  grad_fill(&g, 4, 7, 0, M, y);
  double dot = 0;
  for (size_t i = 0; i < M; i++) dot += (double)x[i] * y[i];
  CHECK(fabs(dot / M) < 5 / sqrt(M), "workers 3 and 4 correlate: %g", dot / M);
  grad_fill(&g, 3, 8, 0, 16, y);
  CHECK(memcmp(x, y, 16 * sizeof *y) != 0, "iterations 7 and 8 agree");

  /* scale and correlation: corr(g_a, g_b) = rho, var = scale^2 */
  grad_source c = {.distribution = GRAD_NORMAL, .scale = 0.5, .correlation = 0.6, .seed = 9};
  grad_fill(&c, 0, 0, 0, M, x);
  grad_fill(&c, 1, 0, 0, M, y);
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < M; i++) sxy += (double)x[i] * y[i], sxx += (double)x[i] * x[i];
  CHECK(fabs(sxx / M - 0.25) < 5 * 0.25 * sqrt(2.0 / M), "variance %g, want 0.25", sxx / M);
  CHECK(fabs(sxy / sxx - 0.6) < 0.01, "correlation %g, want 0.6", sxy / sxx);

  /* laplace and uniform: unit variance, right kurtosis (6 and 1.8) */
  grad_source l = {.distribution = GRAD_LAPLACE, .scale = 1.0, .seed = 2};
  grad_fill(&l, 0, 0, 0, M, x);
  moments(x, M, &mean, &var, &m4);
  CHECK(fabs(mean) < 5 / sqrt(M) && fabs(var - 1) < 5 * sqrt(5.0 / M), "laplace mean %g var %g", mean, var);
  CHECK(fabs(m4 - 6) < 0.1, "laplace kurtosis %g, want 6", m4);
  grad_source u = {.distribution = GRAD_UNIFORM, .scale = 1.0, .seed = 2};
  grad_fill(&u, 0, 0, 0, M, x);
  moments(x, M, &mean, &var, &m4);
  CHECK(fabs(mean) < 5 / sqrt(M) && fabs(var - 1) < 5 * sqrt(0.8 / M), "uniform mean %g var %g", mean, var);
  CHECK(fabs(m4 - 1.8) < 0.01, "uniform kurtosis %g, want 1.8", m4);
  free(x), free(y);
  return check_status("test_gradients");
}
