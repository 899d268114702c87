/* tests/test_powersgd.c — PowerSGD's two-phase path and its single shot:
 *   - 4 workers whose summed matrix has rank <= r: the two all-reduce rounds
 *     give the sum exactly (to fp32 tolerance), identically on every worker,
 *     also when the rank is below r (dependent columns of P), and again on
 *     the next iteration with error feedback; error feedback 2 (own
 *     compression) leaves no error when every M_w lies in the column space,
 *     error feedback 1 (aggregate) leaves errors that sum to zero;
 *   - the single shot equals the two rounds run with one worker, and is exact
 *     for a rank <= r matrix, also on a chunk of a bigger tensor;
 *   - warm start: repeating the same M, the power iteration converges to the
 *     best rank-r approximation (error within 1% of the tail singular values);
 *   - sizes and a parameter error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "ccomp/rng.h"

static void gaussian(float *x, size_t n, uint64_t key) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    x[i] = (float)(sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

static ccomp *make(const double *params, size_t n, char *err) {
  ccomp_setup su = {.n = n, .workers = 4, .rank = 0, .seed = 9};
  return ccomp_new(ccomp_find("powersgd"), params, &su, err, CCOMP_ERRLEN);
}

/* M (rows x cols, row-major) = U V^T with U rows x r and V cols x r. */
static void low_rank(float *m, size_t rows, size_t cols, size_t r, uint64_t ku, uint64_t kv) {
  float *u = malloc(rows * r * sizeof *u), *v = malloc(cols * r * sizeof *v);
  gaussian(u, rows * r, ku), gaussian(v, cols * r, kv);
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < cols; j++) {
      double s = 0;
      for (size_t k = 0; k < r; k++) s += (double)u[i * r + k] * v[j * r + k];
      m[i * cols + j] = (float)s;
    }
  free(u), free(v);
}

static double rel_err(const float *a, const double *b, size_t n) {
  double e = 0, nb = 0;
  for (size_t i = 0; i < n; i++) e += (a[i] - b[i]) * (a[i] - b[i]), nb += b[i] * b[i];
  return sqrt(e / nb);
}

/* One iteration of the two rounds over W workers; sums in fp32 in worker
 * order, as a ring would (any order is a valid all-reduce). */
static void run_iteration(ccomp **c, float **x, size_t n, unsigned W, float **y) {
  for (unsigned p = 0; p < 2; p++) {
    size_t bytes = ccomp_phase_bytes(c[0], n, p), len = bytes / 4;
    uint8_t *buf = malloc(bytes), *sum = calloc(bytes, 1);
    float *acc = calloc(len, sizeof *acc);
    for (unsigned w = 0; w < W; w++) {
      ccomp_call call = {.key = w, .shared_key = 77, .iteration = 0};
      ccomp_phase_encode(c[w], x[w], n, p, &call, buf);
      for (size_t t = 0; t < len; t++) {
        float f;
        memcpy(&f, buf + 4 * t, 4);
        acc[t] += f;
      }
    }
    memcpy(sum, acc, bytes); /* little-endian host */
    for (unsigned w = 0; w < W; w++) {
      ccomp_call call = {.key = w, .shared_key = 77};
      ccomp_phase_decode(c[w], x[w], sum, n, p, W, &call, y[w]);
    }
    free(buf), free(sum), free(acc);
  }
}

static void test_multiphase_exact(int ef, size_t true_rank) {
  enum { W = 4 };
  const size_t rows = 40, cols = 30, n = rows * cols, r = 3;
  char err[CCOMP_ERRLEN];
  double params[4] = {(double)r, (double)cols, ef, 1};
  ccomp *c[W];
  float *x[W], *y[W];
  double *want = calloc(n, sizeof *want);
  for (unsigned w = 0; w < W; w++) {
    c[w] = make(params, n, err);
    CHECK(c[w] != NULL, "%s", err);
    if (!c[w]) return;
    x[w] = malloc(n * sizeof *x[w]), y[w] = malloc(n * sizeof *y[w]);
    low_rank(x[w], rows, cols, true_rank, 5 /* U shared */, 100 + w);
    for (size_t i = 0; i < n; i++) want[i] += x[w][i];
  }
  CHECK(ccomp_phases(c[0]) == 2, "powersgd has %u phases", ccomp_phases(c[0]));
  CHECK(ccomp_phase_bytes(c[0], n, 0) == 4 * r * rows && ccomp_phase_bytes(c[0], n, 1) == 4 * r * cols,
        "phase sizes");
  for (int iter = 0; iter < 2; iter++) {
    run_iteration(c, x, n, W, y);
    double e = rel_err(y[0], want, n);
    CHECK(e < 1e-5, "ef %d, rank %zu <= r = %zu, iteration %d: relative error %.3g", ef,
          true_rank, r, iter, e);
    for (unsigned w = 1; w < W; w++)
      CHECK(memcmp(y[0], y[w], n * sizeof *y[0]) == 0, "worker %u decoded differently", w);
  }
  /* What error feedback kept, seen through round 0 with a zero gradient: the
   * payload is then e Q.  ef 2: each e_w ~ 0 (M_w lies in span P^); ef 1:
   * e_w = M_w - mean, which sums to ~0.  Compared with the size of M Q. */
  if (ef) {
    size_t bytes = ccomp_phase_bytes(c[0], n, 0), len = bytes / 4;
    uint8_t *buf = malloc(bytes);
    float *zero = calloc(n, sizeof *zero);
    double *sum = calloc(len, sizeof *sum), worst = 0, scale = 0;
    for (unsigned w = 0; w < W; w++) {
      ccomp_call call = {.key = w, .shared_key = 77};
      ccomp_phase_encode(c[w], zero, n, 0, &call, buf);
      for (size_t t = 0; t < len; t++) {
        float f;
        memcpy(&f, buf + 4 * t, 4);
        sum[t] += f;
        if (ef == 2) worst = fmax(worst, fabs(f));
      }
      ccomp_phase_encode(c[w], x[w], n, 0, &call, buf); /* M Q, for scale (e ~ 0 in it) */
      for (size_t t = 0; t < len; t++) {
        float f;
        memcpy(&f, buf + 4 * t, 4);
        scale = fmax(scale, fabs(f));
      }
    }
    if (ef == 1)
      for (size_t t = 0; t < len; t++) worst = fmax(worst, fabs(sum[t]));
    CHECK(worst < 1e-4 * scale, "ef %d, rank %zu: error feedback left %.3g (scale %.3g)", ef,
          true_rank, worst, scale);
    free(buf), free(zero), free(sum);
  }
  for (unsigned w = 0; w < W; w++) ccomp_free(c[w]), free(x[w]), free(y[w]);
  free(want);
}

/* Error feedback: single shot of one worker twice on the same rank-r M:
 * exact both times, so e stays ~0 and the second output equals the first. */
static void test_single_shot(void) {
  const size_t rows = 33, cols = 31, n = rows * cols - 5; /* padded last row */
  char err[CCOMP_ERRLEN];
  double params[4] = {2, (double)cols, 1, 1};
  ccomp *c = make(params, n, err);
  CHECK(c != NULL, "%s", err);
  if (!c) return;
  float *m = malloc(rows * cols * sizeof *m), *y = malloc(n * sizeof *y);
  low_rank(m, rows, cols, 2, 7, 8);
  /* n stops 5 short of the last row, which is zero-padded: zero the whole
   * row so that the padded matrix is still rank 2 */
  for (size_t i = (rows - 1) * cols; i < rows * cols; i++) m[i] = 0;
  double *want = malloc(n * sizeof *want);
  for (size_t i = 0; i < n; i++) want[i] = m[i];
  size_t cap = ccomp_max_wire_bytes(c, n);
  CHECK(cap == 4 * 2 * (rows + cols), "single shot size %zu", cap);
  uint8_t *wire = malloc(cap);
  ccomp_call call = {.key = 1, .shared_key = 2};
  for (int it = 0; it < 2; it++) {
    size_t nb = ccomp_encode(c, m, n, &call, wire);
    CHECK(nb == cap, "single shot wrote %zu", nb);
    ccomp_decode(c, wire, nb, n, 1, &call, y);
    double e = rel_err(y, want, n);
    CHECK(e < 1e-5, "single shot, iteration %d: relative error %.3g", it, e);
  }
  /* a chunk of a bigger tensor is compressed as its own matrix, still exact */
  ccomp_setup big = {.n = 3 * n, .workers = 1, .rank = 0, .seed = 9};
  ccomp *cb = ccomp_new(ccomp_find("powersgd"), params, &big, err, sizeof err);
  size_t nbc = ccomp_encode(cb, m, n, &call, wire);
  CHECK(nbc == cap, "chunk payload %zu bytes, want %zu", nbc, cap);
  ccomp_decode(cb, wire, nbc, n, 1, &call, y);
  CHECK(rel_err(y, want, n) < 1e-5, "chunk: relative error %.3g", rel_err(y, want, n));
  ccomp_free(cb);
  /* single shot == the two rounds with one worker, from the same state */
  ccomp *a = make(params, n, err), *b = make(params, n, err);
  float *ya = malloc(n * sizeof *ya), *yb = malloc(n * sizeof *yb), *xs[1] = {m}, *ys[1] = {yb};
  gaussian(m, n, 31); /* full rank now */
  ccomp_encode(a, m, n, &call, wire);
  ccomp_decode(a, wire, cap, n, 1, &call, ya);
  run_iteration(&b, xs, n, 1, ys);
  double d = 0;
  for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)ya[i] - yb[i]));
  CHECK(d < 1e-5, "single shot differs from the one-worker rounds by %g", d);
  ccomp_free(a), ccomp_free(b), ccomp_free(c);
  free(m), free(y), free(want), free(wire), free(ya), free(yb);
}

/* Warm start: same M every step, no error feedback: after 30 steps the
 * rank-2 approximation is within 1% of the optimal error. */
static void test_warm_start(void) {
  enum { R = 24, C = 20, K = 6 };
  const size_t n = R * C;
  static const double sv[K] = {10, 6, 2, 1, 0.5, 0.25};
  float u[R * K], v[C * K];
  gaussian(u, R * K, 41), gaussian(v, C * K, 42);
  /* orthonormalise u and v columns (Gram-Schmidt) so sv are the singular values */
  float *mats[2] = {u, v};
  size_t dims[2] = {R, C};
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < K; k++) {
      float *a = mats[t];
      for (int l = 0; l < k; l++) {
        double dot = 0;
        for (size_t i = 0; i < dims[t]; i++) dot += (double)a[i * K + l] * a[i * K + k];
        for (size_t i = 0; i < dims[t]; i++) a[i * K + k] -= (float)(dot * a[i * K + l]);
      }
      double nn = 0;
      for (size_t i = 0; i < dims[t]; i++) nn += (double)a[i * K + k] * a[i * K + k];
      for (size_t i = 0; i < dims[t]; i++) a[i * K + k] /= (float)sqrt(nn);
    }
  float m[R * C], y[R * C];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += sv[k] * u[i * K + k] * v[j * K + k];
      m[i * C + j] = (float)s;
    }
  double optimal = sqrt(sv[2] * sv[2] + sv[3] * sv[3] + sv[4] * sv[4] + sv[5] * sv[5]);
  char err[CCOMP_ERRLEN];
  double params[4] = {2, C, 0, 1};
  ccomp *c = make(params, n, err);
  uint8_t *wire = malloc(ccomp_max_wire_bytes(c, n));
  ccomp_call call = {0};
  double first = 0, last = 0;
  for (int it = 0; it < 30; it++) {
    ccomp_encode(c, m, n, &call, wire);
    ccomp_decode(c, wire, ccomp_max_wire_bytes(c, n), n, 1, &call, y);
    double e = 0;
    for (size_t i = 0; i < n; i++) e += ((double)m[i] - y[i]) * ((double)m[i] - y[i]);
    if (it == 0) first = sqrt(e);
    last = sqrt(e);
  }
  fprintf(stderr, "powersgd warm start, rank 2: error %.4f after 1 step, %.4f after 30, optimal %.4f\n",
          first, last, optimal);
  CHECK(last <= 1.01 * optimal, "warm start did not converge: %.4f vs optimal %.4f", last, optimal);
  ccomp_free(c);
  free(wire);
}

static void test_params(void) {
  char err[CCOMP_ERRLEN] = "";
  double params[4] = {1, 500, 1, 1};
  ccomp *c = make(params, 100, err);
  CHECK(c == NULL && strstr(err, "'cols'") != NULL, "cols > n accepted or unclear: %s", err);
  ccomp_free(c);
}

int main(void) {
  for (int ef = 0; ef <= 2; ef++) {
    test_multiphase_exact(ef, 3);
    test_multiphase_exact(ef, 1);
  }
  test_single_shot();
  test_warm_start();
  test_params();
  return check_status("test_powersgd");
}
