/* tests/test_s2_sketch.c — the S2 Reducer count sketch on row-sparse data:
 *   - exact recovery when the non-zeros are far fewer than the columns c:
 *     20 non-zeros in 3 rows of a 4096 x 32 tensor, c = 65536.  With one hash
 *     row an entry is wrong when it shares a bucket with a non-zero: about
 *     96 x 20 / 65536 = 0.03 expected collisions per trial, 1.5 failed trials
 *     in 50, so at least 42 of 50 shared keys must be exact (Poisson(1.5):
 *     P(more than 8 failures) ~ 2e-5); with
 *     three hash rows the median needs two collisions for one entry, ~1e-6
 *     per trial, so all 50 must be exact;
 *   - untouched rows decode to exact zeros, always;
 *   - the error grows as c shrinks as a count sketch's should (ratios 0.5,
 *     0.1, 0.02, 0.005 of R m, 2000 non-zeros in 64 rows, mean over 10 shared
 *     keys): every one of the T entries of the touched rows picks up, in
 *     expectation, ||x||^2 / c of colliding mass, so the relative error is
 *     about sqrt(T / c); each measured value must be within 20% of that;
 *   - summable: the combine of 4 workers' payloads, in any grouping, decodes
 *     like the sketch of their sum (fp32 rounding aside): exact recovery of
 *     the sum, no cascading error;
 *   - wire size 4 c depth + ceil(R / 8);
 *   - encode and decode equal, bit for bit, the definition written out here
 *     element by element (h = ccr_u64(ccr_key(shared_key, r), offset + t),
 *     sign = bit 0, bucket = floor((h >> 1) c / 2^63), non-zeros added in
 *     index order, median over hash rows), for chunk lengths that are not
 *     multiples of the encoder's blocks, rows of 1 to more than n elements,
 *     1 to 4 hash rows, offsets up to 2^64 - 2^20, all-zero stretches and
 *     -0.0 entries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "ccomp/rng.h"

enum { ROWS = 4096, M = 32, N = ROWS * M };

static ccomp *make(double ratio, unsigned depth) {
  char err[CCOMP_ERRLEN];
  double p[3] = {M, ratio, depth};
  ccomp_setup su = {.n = N, .workers = 4, .rank = 0, .seed = 3};
  ccomp *c = ccomp_new(ccomp_find("s2-sketch"), p, &su, err, sizeof err);
  CHECK(c != NULL, "s2-sketch: %s", err);
  if (!c) exit(1);
  return c;
}

/* nnz non-zeros spread over `rows` random rows, values N(0,1)-ish. */
static void sparse_rows(float *x, size_t nnz, size_t rows, uint64_t key) {
  memset(x, 0, N * sizeof *x);
  size_t r0[64];
  for (size_t r = 0; r < rows; r++) r0[r] = ccr_u64(key, r) % ROWS;
  for (size_t j = 0; j < nnz; j++) {
    size_t row = r0[j % rows], col = ccr_u64(key ^ 0x55, j) % M;
    x[row * M + col] += (float)(ccr_unit(key ^ 0xaa, j) * 2 - 1) + 0.5f;
  }
}

static int roundtrip_exact(ccomp *c, const float *x, uint64_t shared, float *y, uint8_t *w) {
  ccomp_call call = {.key = 1, .shared_key = shared};
  size_t nb = ccomp_encode(c, x, N, &call, w);
  ccomp_decode(c, w, nb, N, 1, &call, y);
  int same = 1; /* by value: an empty bucket times sign -1 is -0.0 */
  for (size_t i = 0; i < N; i++) same &= x[i] == y[i];
  return same;
}

static void test_exact_recovery(void) {
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (unsigned depth = 1; depth <= 3; depth += 2) {
    ccomp *c = make(0.5, depth);
    size_t cap = ccomp_max_wire_bytes(c, N);
    CHECK(cap == 4 * depth * 65536 + ROWS / 8, "s2-sketch size %zu", cap);
    uint8_t *w = malloc(cap);
    int exact = 0, zeros_ok = 1;
    for (int t = 0; t < 50; t++) {
      sparse_rows(x, 20, 3, ccr_key(200, (uint64_t)t));
      exact += roundtrip_exact(c, x, ccr_key(300, (uint64_t)t), y, w);
      for (size_t row = 0; row < ROWS; row++) {
        int touched = 0;
        for (size_t j = 0; j < M; j++) touched |= x[row * M + j] != 0;
        if (!touched)
          for (size_t j = 0; j < M; j++) zeros_ok &= y[row * M + j] == 0;
      }
    }
    fprintf(stderr, "s2-sketch depth %u, 20 non-zeros, c = 65536: exact in %d of 50 trials\n",
            depth, exact);
    CHECK(exact >= (depth == 1 ? 42 : 50), "depth %u: exact in only %d of 50", depth, exact);
    CHECK(zeros_ok, "an untouched row decoded to non-zeros");
    free(w);
    ccomp_free(c);
  }
  free(x), free(y);
}

static void test_error_vs_c(void) {
  static const double ratios[] = {0.5, 0.1, 0.02, 0.005};
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double err[4], predicted[4];
  for (int r = 0; r < 4; r++) {
    predicted[r] = 0;
    ccomp *c = make(ratios[r], 1);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, N));
    err[r] = 0;
    for (int t = 0; t < 10; t++) {
      sparse_rows(x, 2000, 64, ccr_key(400, (uint64_t)t));
      roundtrip_exact(c, x, ccr_key(500, (uint64_t)t), y, w);
      double e = 0, nx = 0;
      for (size_t i = 0; i < N; i++) e += ((double)x[i] - y[i]) * ((double)x[i] - y[i]), nx += (double)x[i] * x[i];
      err[r] += sqrt(e / nx) / 10;
      size_t touched = 0;
      for (size_t row = 0; row < ROWS; row++) {
        int any = 0;
        for (size_t j = 0; j < M; j++) any |= x[row * M + j] != 0;
        touched += any ? M : 0;
      }
      size_t cc = (size_t)ceil(ratios[r] * N - 1e-9);
      predicted[r] += sqrt((double)touched / (double)cc) / 10;
    }
    free(w);
    ccomp_free(c);
  }
  fprintf(stderr, "s2-sketch relative error, 2000 non-zeros in 64 rows, c = 0.5/0.1/0.02/0.005 R m:"
          " %.4f %.4f %.4f %.4f (predicted %.4f %.4f %.4f %.4f)\n", err[0], err[1], err[2], err[3],
          predicted[0], predicted[1], predicted[2], predicted[3]);
  CHECK(err[0] < err[1] && err[1] < err[2] && err[2] < err[3], "error does not grow as c shrinks");
  for (int r = 0; r < 4; r++)
    CHECK(fabs(err[r] / predicted[r] - 1) < 0.2, "c = %g R m: error %.4f, predicted %.4f",
          ratios[r], err[r], predicted[r]);
  free(x), free(y);
}

static void test_summable(void) {
  enum { W = 4 };
  ccomp *c = make(0.5, 3);
  size_t cap = ccomp_max_wire_bytes(c, N);
  float *x[W], *sum = calloc(N, sizeof *sum), *y1 = malloc(N * sizeof *y1), *y2 = malloc(N * sizeof *y2);
  uint8_t *w[W], *ab = malloc(cap), *cd = malloc(cap), *all1 = malloc(cap), *bc = malloc(cap),
                 *abc = malloc(cap), *all2 = malloc(cap);
  ccomp_call call = {.shared_key = 999};
  for (int k = 0; k < W; k++) {
    x[k] = malloc(N * sizeof *x[k]);
    sparse_rows(x[k], 6, 2, ccr_key(600, (uint64_t)k)); /* different rows per worker */
    for (size_t i = 0; i < N; i++) sum[i] += x[k][i];
    w[k] = malloc(cap);
    call.key = (uint64_t)k;
    ccomp_encode(c, x[k], N, &call, w[k]);
  }
  /* tree grouping ((0 1)(2 3)) and ring grouping (((1 2) 3) 0) */
  ccomp_combine(c, w[0], cap, 1, w[1], cap, 1, N, &call, ab);
  ccomp_combine(c, w[2], cap, 1, w[3], cap, 1, N, &call, cd);
  ccomp_combine(c, ab, cap, 2, cd, cap, 2, N, &call, all1);
  ccomp_combine(c, w[1], cap, 1, w[2], cap, 1, N, &call, bc);
  ccomp_combine(c, bc, cap, 2, w[3], cap, 1, N, &call, abc);
  ccomp_combine(c, abc, cap, 3, w[0], cap, 1, N, &call, all2);
  ccomp_decode(c, all1, cap, N, W, &call, y1);
  ccomp_decode(c, all2, cap, N, W, &call, y2);
  double d1 = 0, d2 = 0;
  for (size_t i = 0; i < N; i++) d1 = fmax(d1, fabs((double)y1[i] - sum[i])), d2 = fmax(d2, fabs((double)y2[i] - sum[i]));
  CHECK(d1 < 1e-6 && d2 < 1e-6, "combined sketches decode %g / %g away from the exact sum", d1, d2);
  free(sum), free(y1), free(y2), free(ab), free(cd), free(all1), free(bc), free(abc), free(all2);
  for (int k = 0; k < W; k++) free(x[k]), free(w[k]);
  ccomp_free(c);
}

/* The sketch by its definition, one element at a time. */
static void reference(size_t n, size_t cols, double ratio, unsigned depth, const float *x,
                      uint64_t shared, uint64_t offset, uint8_t *wire, float *y) {
  size_t rows = (n + cols - 1) / cols, c = (size_t)ceil(ratio * (double)(rows * cols) - 1e-9);
  if (c < 1) c = 1;
  if (c > rows * cols) c = rows * cols;
  float *tab = calloc(depth * c, sizeof *tab);
  size_t *bk = malloc(depth * n * sizeof *bk);
  float *sg = malloc(depth * n * sizeof *sg);
  for (unsigned r = 0; r < depth; r++)
    for (size_t t = 0; t < n; t++) {
      uint64_t h = ccr_u64(ccr_key(shared, r), offset + t);
      sg[r * n + t] = (h & 1) ? -1.0f : 1.0f;
      bk[r * n + t] = (size_t)(((unsigned __int128)(h >> 1) * c) >> 63);
      if (x[t] != 0.0f) tab[r * c + bk[r * n + t]] += sg[r * n + t] * x[t];
    }
  memset(wire, 0, 4 * depth * c + (rows + 7) / 8);
  for (size_t j = 0; j < depth * c; j++) memcpy(wire + 4 * j, &tab[j], 4); /* little-endian host */
  for (size_t row = 0; row < rows; row++) {
    int any = 0;
    for (size_t t = row * cols; t < n && t < (row + 1) * cols; t++) any |= x[t] != 0.0f;
    if (any) wire[4 * depth * c + row / 8] |= (uint8_t)(1u << (row % 8));
    for (size_t t = row * cols; t < n && t < (row + 1) * cols; t++) {
      float v[4];
      for (unsigned r = 0; r < depth; r++) v[r] = sg[r * n + t] * tab[r * c + bk[r * n + t]];
      for (unsigned i = 1; i < depth; i++) /* sort */
        for (unsigned k = i; k > 0 && v[k - 1] > v[k]; k--) {
          float tmp = v[k];
          v[k] = v[k - 1], v[k - 1] = tmp;
        }
      float med = (depth & 1) ? v[depth / 2] : 0.5f * (v[depth / 2 - 1] + v[depth / 2]);
      y[t] = any ? med : 0.0f;
    }
  }
  free(tab), free(bk), free(sg);
}

static void test_matches_definition(void) {
  static const size_t ns[] = {1, 63, 64, 65, 1000, 4097, 20011};
  static const size_t colss[] = {1, 3, 64, 100, 30000};
  static const double ratios[] = {0.001, 0.05, 0.5, 4};
  static const uint64_t offsets[] = {0, 37, 4294967290ull, 18446744073708503040ull};
  int mismatched = 0, cases = 0;
  for (int k = 0; k < 60; k++) {
    uint64_t key = ccr_key(700, (uint64_t)k);
    size_t n = ns[k % 7], cols = colss[(k / 7 + k) % 5];
    double ratio = ratios[ccr_u64(key, 1) % 4];
    unsigned depth = 1 + (unsigned)(ccr_u64(key, 2) % 4);
    uint64_t offset = offsets[ccr_u64(key, 3) % 4], shared = ccr_key(key, 4);
    /* sparse: runs of 0..300 zeros between short runs of values, some -0.0 */
    float *x = calloc(n, sizeof *x), *y = malloc(n * sizeof *y), *yr = malloc(n * sizeof *yr);
    for (size_t t = 0; t < n;) {
      t += ccr_u64(key ^ 1, t) % 301;
      for (size_t e = t + 1 + ccr_u64(key ^ 2, t) % 40; t < e && t < n; t++)
        x[t] = ccr_u64(key ^ 3, t) % 5 == 0 ? -0.0f : (float)(ccr_unit(key ^ 4, t) * 4 - 2);
    }
    char err[CCOMP_ERRLEN];
    double p[3] = {(double)cols, ratio, depth};
    ccomp_setup su = {.n = n, .workers = 2, .rank = 0, .seed = 1};
    ccomp *c = ccomp_new(ccomp_find("s2-sketch"), p, &su, err, sizeof err);
    CHECK(c != NULL, "s2-sketch: %s", err);
    if (!c) exit(1);
    size_t cap = ccomp_max_wire_bytes(c, n);
    uint8_t *w = malloc(cap), *wr = malloc(cap);
    ccomp_call call = {.key = 1, .shared_key = shared, .offset = (size_t)offset};
    size_t nb = ccomp_encode(c, x, n, &call, w);
    ccomp_decode(c, w, nb, n, 1, &call, y);
    reference(n, cols, ratio, depth, x, shared, offset, wr, yr);
    int same = nb == cap && !memcmp(w, wr, cap) && !memcmp(y, yr, n * sizeof *y);
    if (!same)
      fprintf(stderr,
              "s2-sketch differs from its definition: n %zu cols %zu ratio %g depth %u offset %llu\n",
              n, cols, ratio, depth, (unsigned long long)offset);
    mismatched += !same, cases++;
    free(x), free(y), free(yr), free(w), free(wr);
    ccomp_free(c);
  }
  CHECK(mismatched == 0, "%d of %d cases differ from the definition", mismatched, cases);
}

int main(void) {
  test_exact_recovery();
  test_error_vs_c();
  test_summable();
  test_matches_definition();
  return check_status("test_s2_sketch");
}
