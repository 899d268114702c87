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
#include <stdint.h>
#include <string.h>

#include "ccomp/rng.h"
#include "check.h"
#include "data/gradients.h"

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

/* The sparse source (gradients.h): row-sparse, Zipf row frequencies,
 * deterministic per (seed, worker, iteration, index). */
static void check_sparse(void) {
  const size_t W = 16, R = 1000, n = R * W - 5; /* the last row is short */
  grad_source g = {.distribution = GRAD_NORMAL, .scale = 0.5, .seed = 11, .sparse = 1, .width = W,
                   .tokens = 300, .rows = R, .zipf = 1.1};
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  uint32_t rows[300], counts[300];
  size_t nu;
  grad_fill(&g, 2, 9, 0, n, x);
  grad_sparse_rows(&g, 2, 9, rows, counts, &nu);
  size_t total = 0, bad_rows = 0, nz_rows = 0;
  for (size_t k = 0; k < nu; k++) total += counts[k];
  CHECK(total == 300 && nu <= 300 && nu > 0, "drawn rows: %zu distinct, %zu draws", nu, total);
  for (size_t r = 0, k = 0; r < R; r++) {
    const int drawn = k < nu && rows[k] == r;
    size_t nz = 0;
    for (size_t t = r * W; t < (r + 1) * W && t < n; t++) nz += x[t] != 0.0f;
    const size_t len = (r + 1) * W <= n ? W : n - r * W;
    if (drawn ? nz != len : nz != 0) bad_rows++;
    nz_rows += nz > 0;
    k += drawn;
  }
  CHECK(bad_rows == 0 && nz_rows == nu, "rows: %zu drawn, %zu non-zero, %zu inconsistent", nu, nz_rows,
        bad_rows);
  /* any chunk, the same values; a sampled fill reads the same elements */
  grad_fill(&g, 2, 9, 37, 5003, y);
  CHECK(memcmp(x + 37, y, (5003 - 37) * sizeof *y) == 0, "sparse chunk differs from the whole");
  grad_fill_sampled(&g, 2, 9, 0, 100, 0, n, 100, NULL, y);
  size_t same = 0;
  for (size_t j = 0; j < 100; j++) same += y[j] == x[(size_t)((unsigned __int128)j * n / 100)];
  CHECK(same == 100, "sampled sparse fill: %zu of 100 equal", same);
  grad_fill(&g, 3, 9, 0, n, y);
  CHECK(memcmp(x, y, n * sizeof *y) != 0, "another worker draws the same gradient");
  /* the Zipf law: row k-1 with probability k^-s / sum_j j^-s.  65,536 draws
   * of a 1000-row law; the first five rows' frequencies within 5 binomial
   * standard deviations, and no row outside [0, R). */
  grad_source z = g;
  z.tokens = 65536;
  uint32_t *zr = malloc(65536 * sizeof *zr), *zc = malloc(65536 * sizeof *zc);
  grad_sparse_rows(&z, 0, 0, zr, zc, &nu);
  double norm = 0;
  for (size_t k = 1; k <= R; k++) norm += pow((double)k, -z.zipf);
  for (uint32_t r = 0; r < 5; r++) {
    const double p = pow(r + 1.0, -z.zipf) / norm, sd = sqrt(65536 * p * (1 - p));
    const double got = zr[r] == r ? zc[r] : 0;
    CHECK(fabs(got - 65536 * p) <= 5 * sd, "row %u drawn %.0f times, expected %.1f +- %.1f", r, got,
          65536 * p, sd);
  }
  CHECK(zr[nu - 1] < R, "a row id %u outside [0, %zu)", zr[nu - 1], R);
  /* the tail: the share of draws in rows 500..999 */
  double tail_p = 0, tail = 0;
  for (size_t k = 501; k <= R; k++) tail_p += pow((double)k, -z.zipf) / norm;
  for (size_t k = 0; k < nu; k++) tail += zr[k] >= 500 ? zc[k] : 0;
  CHECK(fabs(tail - 65536 * tail_p) <= 5 * sqrt(65536 * tail_p * (1 - tail_p)),
        "tail rows 500..999 drawn %.0f times, expected %.1f", tail, 65536 * tail_p);
  free(zr), free(zc), free(x), free(y);
}

/* Which way draw t of stream key goes through the ziggurat's slow path
 * (counted by check_blocks, which wants every way taken): 0 the fast
 * path, 1 the base strip, 2 a wedge test decided with a margin the AVX-512
 * path's bounds decide too, 3 a wedge test within |u|^3/6 f(a) of the
 * curve, where those bounds leave it to exp, 4 a wedge rejection whose
 * second try misses the fast path as well.  Worked out here from the
 * tables, apart from src/variates.c's code. */
static int slow_way(uint64_t key, uint64_t t) {
  const int32_t hz = (int32_t)(uint32_t)(ccr_u64(key, t) >> 32);
  const uint32_t iz = (uint32_t)hz & 127;
  if (abs32(hz) < zig_k[iz]) return 0;
  if (iz == 0) return 1;
  const uint64_t k2 = ccr_key(key, 0x7a16);
  const double x = hz * zig_w[iz], a = iz > 1 ? zig_w[iz - 1] * 2147483648.0 : 0;
  const double y = zig_f[iz] + open_unit(k2, t << 8) * (zig_f[iz - 1] - zig_f[iz]), e = exp(-0.5 * x * x);
  const double u = 0.5 * (x * x - a * a);
  if (fabs(y - e) <= zig_f[iz - 1] * fabs(u * u * u) / 6) return 3;
  const int32_t h2 = (int32_t)(uint32_t)(ccr_u64(k2, (t << 8) + 1) >> 32);
  return y >= e && abs32(h2) >= zig_k[(uint32_t)h2 & 127] ? 4 : 2;
}

/* The block draws (eight counters at a time with AVX-512, and the slow
 * path's misses eight at a time there too) give grad_normal's doubles bit
 * for bit: contiguous and scattered counters, every length up to a block
 * and beyond, so that every lane of the vector code meets each way through
 * the ziggurat's slow path (slow_way) many times. */
static void check_blocks(void) {
  enum { N = 1 << 18 };
  uint64_t *t = malloc(N * sizeof *t);
  double *z = malloc(N * sizeof *z);
  size_t bad = 0, slow = 0, ways[5] = {0};
  for (size_t v = 0; v < 2; v++) {
    for (size_t i = 0; i < N; i++) t[i] = v ? ccr_u64(77, i) >> (i % 40) : 1000 + i;
    grad_normal_block(0x5eed + v, t, N, z);
    for (size_t i = 0; i < N; i++) {
      const double r = grad_normal(0x5eed + v, t[i]);
      bad += memcmp(&r, &z[i], sizeof r) != 0;
      slow += fabs(r) > 3.2; /* P = 0.00137: about 720 of the 2^19 */
      ways[slow_way(0x5eed + v, t[i])]++;
    }
  }
  for (size_t m = 0; m <= ZIG_BLOCK + 2; m++) { /* every length up to a block and past it */
    grad_normal_block(3, t + m, m, z);
    for (size_t i = 0; i < m; i++) bad += z[i] != grad_normal(3, t[m + i]);
  }
  CHECK(bad == 0, "block draws: %zu differ from grad_normal (vectorized: %d)", bad, grad_normal_vectorized());
  CHECK(slow > 500, "only %zu draws beyond 3.2 (expected about 720)", slow);
  /* of these 2^19 draws: 291 in the base strip, 18 at the curve, 166
   * whose second try misses (the counters are fixed: these very numbers) */
  CHECK(ways[1] > 200 && ways[3] >= 5 && ways[4] > 100, "slow ways: base %zu, at the curve %zu, second miss %zu",
        ways[1], ways[3], ways[4]);
  free(t), free(z);
}

int main(void) {
  check_sparse();
  check_blocks();
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
  grad_fill(&g, 3, 8, 0, M, y);
  CHECK(memcmp(x, y, 16 * sizeof *y) != 0, "iterations 7 and 8 agree");
  dot = 0;
  for (size_t i = 0; i < M; i++) dot += (double)x[i] * y[i];
  CHECK(fabs(dot / M) < 5 / sqrt(M), "iterations 7 and 8 correlate: %g", dot / M);
  /* a sampled fill reads element base + floor(j * full / sample) for any
   * chunk [lo, hi) of the sample: the normal fast path and the general one
   * (correlated), with sample sizes that do and do not divide full */
  {
    /* the last two divide: their counters are base + j q, drawn without
     * being written out (sample_counters) */
    const size_t fulls[] = {M - 1000, M - 7, 999983, 16 * 4096, 3 * 1000}, samples[] = {65536, 4093, 1000, 4096, 1000};
    const grad_source gs[] = {g, {.distribution = GRAD_NORMAL, .scale = 0.5, .correlation = 0.6, .seed = 9}};
    size_t bad = 0;
    for (size_t v = 0; v < 2; v++) {
      float *full_x = malloc(M * sizeof *full_x);
      grad_fill(&gs[v], 1, 2, 0, M, full_x);
      for (size_t a = 0; a < sizeof fulls / sizeof fulls[0]; a++) {
        const size_t fl = fulls[a], sm = samples[a], base = 500, lo = sm / 3, hi = sm - 5;
        /* the indices stepped (no carries) and made from the layer's carries */
        uint32_t *carry = malloc(sm * sizeof *carry);
        CHECK(carry && grad_sample_carries(fl, sm, carry) == 0, "carries of %zu in %zu", sm, fl);
        for (int c = 0; c < 2; c++) {
          const uint32_t *cy = c ? carry : NULL;
          grad_fill_sampled(&gs[v], 1, 2, lo, hi, base, fl, sm, cy, y);
          for (size_t j = lo; j < hi; j++) bad += y[j - lo] != full_x[base + (size_t)((unsigned __int128)j * fl / sm)];
          /* every length of a block's last part, from several starts */
          const size_t lens[] = {1, 2, 3, 5, 7, 8, 9, 10, 11, 255, 256, 257, 258, 259, 513};
          for (size_t q = 0; q < sizeof lens / sizeof lens[0]; q++)
            for (size_t l0 = 0; l0 < 3; l0++) {
              const size_t from = l0 * 37 + a, to = from + lens[q];
              grad_fill_sampled(&gs[v], 1, 2, from, to, base, fl, sm, cy, y);
              for (size_t j = from; j < to; j++)
                bad += y[j - from] != full_x[base + (size_t)((unsigned __int128)j * fl / sm)];
            }
        }
        free(carry);
      }
      free(full_x);
    }
    CHECK(bad == 0, "sampled fill: %zu elements not floor(j * full / sample)", bad);
  }

  /* the shared part drawn once (grad_shared_sampled) and added per worker
   * (grad_fill_sampled_shared) gives grad_fill_sampled's floats bit for
   * bit: every distribution, sampled and full (full == sample), any chunk */
  {
    const enum grad_distribution ds[] = {GRAD_NORMAL, GRAD_LAPLACE, GRAD_UNIFORM};
    const size_t fulls[] = {M - 7, 5000}, samples[] = {4093, 5000};
    double *sh = malloc(M * sizeof *sh);
    size_t bad = 0;
    for (size_t d = 0; d < 3; d++) {
      const grad_source gc = {.distribution = ds[d], .scale = 0.5, .correlation = 0.3, .seed = 4};
      CHECK(grad_has_shared(&gc), "a correlated source has a shared part");
      for (size_t a = 0; a < 2; a++) {
        const size_t fl = fulls[a], sm = samples[a], base = 77, lo = sm / 5, hi = sm - 3;
        uint32_t *carry = malloc(sm * sizeof *carry);
        CHECK(carry && grad_sample_carries(fl, sm, carry) == 0, "carries of %zu in %zu", sm, fl);
        for (int c = 0; c < 2; c++) { /* the shared part with and without the carries */
          grad_shared_sampled(&gc, 6, lo, hi, base, fl, sm, c ? carry : NULL, sh);
          for (uint32_t w = 0; w < 3; w++) {
            grad_fill_sampled(&gc, w, 6, lo, hi, base, fl, sm, NULL, x);
            grad_fill_sampled_shared(&gc, w, 6, lo, hi, base, fl, sm, c ? carry : NULL, sh, y);
            bad += memcmp(x, y, (hi - lo) * sizeof *x) != 0;
          }
        }
        free(carry);
      }
    }
    CHECK(bad == 0, "shared part: %zu fills differ from grad_fill_sampled", bad);
    const grad_source plain = {.distribution = GRAD_NORMAL, .scale = 1.0, .seed = 4};
    CHECK(!grad_has_shared(&plain), "an uncorrelated source has no shared part");
    free(sh);
  }

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
