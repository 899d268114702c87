/* tests/test_quantizers.c — what the generic test cannot see in the
 * quantizers: unbiasedness over seeds (qsgd, terngrad w.r.t. its clipped
 * input, natural, global-qsgd's decoded mean of n workers), QSGD's variance
 * bound, Global-QSGD's exact integer combine without overflow up to the
 * largest n the bits allow and its refusal beyond, wire sizes, exact bit
 * packing at sizes that are not multiples of 8 or 64, chunked encoding at
 * offsets equal to whole encoding, and bf16's rounding.  All randomness from
 * compressors/rng.h with fixed seeds: the test is deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "half.h"
#include "qbits.h"
#include "ccomp/rng.h"
#include "unbiased.h"

static ccomp *make(const char *name, const double *params, size_t n, uint32_t workers) {
  char err[CCOMP_ERRLEN] = "";
  const ccomp_type *t = ccomp_find(name);
  CHECK(t != NULL, "%s is not registered", name);
  if (!t) exit(1);
  ccomp_setup su = {.n = n, .workers = workers, .rank = 0, .seed = 1};
  ccomp *c = ccomp_new(t, params, &su, err, sizeof err);
  CHECK(c != NULL, "%s: %s", name, err);
  if (!c) exit(1);
  return c;
}

/* ---- one-worker round trips over seeds ---------------------------------- */

typedef struct {
  ccomp *c;
  const float *x;
  size_t d;
  uint8_t *w;
  uint64_t base;
} rt_ctx;

static void rt_sample(void *vctx, int s, float *y) {
  rt_ctx *r = vctx;
  ccomp_call call = {.key = ccr_key(r->base, (uint64_t)s), .offset = 0};
  if (r->c->type->flags & CCOMP_GLOBAL_MAX)
    call.global_max = r->c->type->local_stat(r->c->state, r->x, r->d);
  size_t nb = ccomp_encode(r->c, r->x, r->d, &call, r->w);
  ccomp_decode(r->c, r->w, nb, r->d, 1, &call, y);
}

static void unbiased_roundtrip(const char *name, const double *params, const float *x,
                               const float *target, size_t d, int S, double step) {
  rt_ctx r = {.c = make(name, params, d, 1), .x = x, .d = d, .base = ccr_key(11, d)};
  r.w = malloc(ccomp_max_wire_bytes(r.c, d));
  char what[64];
  snprintf(what, sizeof what, "%s%s", name, params ? " (non-default)" : "");
  check_unbiased(what, d, S, target, rt_sample, &r, 1e-6 * qb_max_abs(x, d), step);
  free(r.w);
  ccomp_free(r.c);
}

/* A test vector with a spread of magnitudes, some exact zeros, a few
 * outliers, and exact powers of two. */
static void test_vector(float *x, size_t d, uint64_t key) {
  gaussian_fill(x, d, key, 1e-2);
  for (size_t i = 0; i < d; i += 17) x[i] = 0;
  for (size_t i = 5; i < d; i += 41) x[i] *= 8; /* outliers: terngrad clips these */
  if (d > 3) x[3] = 0.25f, x[2] = -0x1p-10f;
}

static void test_unbiased(void) {
  const size_t d = 203; /* not a multiple of 4, 8 or 64 */
  float *x = malloc(d * sizeof *x), *t = malloc(d * sizeof *t);
  test_vector(x, d, 5);
  const int S = 4000;
  const double norm = sqrt(qb_sum_sq(x, d)), xmax = qb_max_abs(x, d);
  unbiased_roundtrip("qsgd", NULL, x, x, d, S, norm / 127);
  const double q3[] = {3, 0}; /* coarse: 3 levels, 3-bit codes, norm l2 */
  unbiased_roundtrip("qsgd", q3, x, x, d, S, norm / 3);
  const double qmax[] = {127, 1}; /* norm "max": step max|x| / 127 */
  unbiased_roundtrip("qsgd", qmax, x, x, d, S, xmax / 127);
  const double qmax3[] = {3, 1};
  unbiased_roundtrip("qsgd", qmax3, x, x, d, S, xmax / 3);
  unbiased_roundtrip("natural", NULL, x, x, d, S, xmax);
  const double noclip[] = {0};
  unbiased_roundtrip("terngrad", noclip, x, x, d, S, xmax);
  /* terngrad with its default clipping: unbiased for the CLIPPED input */
  {
    double mean = 0, sq = 0;
    for (size_t i = 0; i < d; i++) mean += x[i], sq += (double)x[i] * x[i];
    mean /= (double)d;
    double sigma = sqrt(sq / (double)d - mean * mean), c = 2.5 * sigma;
    int clipped = 0;
    for (size_t i = 0; i < d; i++) {
      double a = fmin(fabs((double)x[i]), c);
      clipped += fabs((double)x[i]) > c;
      t[i] = (float)(x[i] < 0 ? -a : a);
    }
    CHECK(clipped > 0, "terngrad test vector has nothing to clip");
    unbiased_roundtrip("terngrad", NULL, x, t, d, S, c);
  }
  free(x), free(t);
}

/* qsgd with norm "max" (the Global-QSGD reference's QSGD hook): the wire's
 * scale is max |x|, and the levels on a hand example are exact.  x = (0.5,
 * -1, 0.25, 0, 0.3) with s = 4: s x / max = (2, -4, 1, 0, 1.2), so the first
 * four are those levels whatever the random draw, and the last is 1 or 2. */
static void test_qsgd_max_levels(void) {
  const float x[5] = {0.5f, -1.0f, 0.25f, 0.0f, 0.3f};
  const double par[] = {4, 1}; /* levels 4 (b = 4 bits), norm "max" */
  ccomp *c = make("qsgd", par, 5, 1);
  uint8_t w[64];
  int seen1 = 0, seen2 = 0;
  for (int k = 0; k < 200; k++) {
    ccomp_call call = {.key = ccr_key(21, (uint64_t)k)};
    size_t nb = ccomp_encode(c, x, 5, &call, w);
    CHECK(nb == 4 + (5 * 4 + 7) / 8, "qsgd max: %zu wire bytes, expected 7", nb);
    CHECK(qb_getf(w) == 1.0f, "qsgd max: scale %g on the wire, expected max |x| = 1", qb_getf(w));
    int32_t l[5];
    qb_unpack_int(w + 4, 5, 4, l);
    CHECK(l[0] == 2 && l[1] == -4 && l[2] == 1 && l[3] == 0, "qsgd max: levels %d %d %d %d, expected 2 -4 1 0",
          l[0], l[1], l[2], l[3]);
    CHECK(l[4] == 1 || l[4] == 2, "qsgd max: level %d for 1.2, expected 1 or 2", l[4]);
    seen1 += l[4] == 1, seen2 += l[4] == 2;
    float y[5];
    ccomp_decode(c, w, nb, 5, 1, &call, y);
    CHECK(y[0] == 0.5f && y[1] == -1.0f && y[2] == 0.25f && y[3] == 0.0f, "qsgd max: decoded %g %g %g %g",
          y[0], y[1], y[2], y[3]);
  }
  /* P(level 2) = 0.2: 200 draws see both (each side missed with probability < 1e-19) */
  CHECK(seen1 > 0 && seen2 > 0, "qsgd max: 1.2 rounded %d times to 1 and %d to 2", seen1, seen2);
  ccomp_free(c);
  /* the same x with norm "l2" scales by ||x||_2 = 1.2493..., not by 1 */
  ccomp *l2 = make("qsgd", (const double[]){4, 0}, 5, 1);
  ccomp_call call = {.key = 5};
  ccomp_encode(l2, x, 5, &call, w);
  CHECK(fabs(qb_getf(w) - sqrt(0.25 + 1 + 0.0625 + 0.09)) < 1e-6, "qsgd l2: scale %g", qb_getf(w));
  ccomp_free(l2);
}

/* QSGD's Lemma 3.1: E ||Q(x) - x||^2 <= min(d/s^2, sqrt(d)/s) ||x||^2,
 * checked on the sample mean plus 3 standard errors. */
static void test_qsgd_variance(void) {
  const size_t d = 1000;
  const int S = 500;
  float *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
  gaussian_fill(x, d, 9, 1.0);
  static const double levels[] = {1, 2, 4, 16, 127};
  for (int li = 0; li < 5; li++) {
    const double par[] = {levels[li], 0}; /* norm l2 */
    ccomp *c = make("qsgd", par, d, 1);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, d));
    double m = 0, m2 = 0, nx2 = qb_sum_sq(x, d), s = levels[li];
    for (int k = 0; k < S; k++) {
      ccomp_call call = {.key = ccr_key(3, (uint64_t)k)};
      size_t nb = ccomp_encode(c, x, d, &call, w);
      ccomp_decode(c, w, nb, d, 1, &call, y);
      double e = 0;
      for (size_t i = 0; i < d; i++) e += ((double)y[i] - x[i]) * ((double)y[i] - x[i]);
      m += e, m2 += e * e;
    }
    m /= S;
    double se = sqrt(fmax(m2 / S - m * m, 0) / S), bound = fmin(d / (s * s), sqrt(d) / s) * nx2;
    CHECK(m - 3 * se <= bound, "qsgd s=%g: E||Q-x||^2 = %.4g > bound %.4g", s, m, bound);
    free(w);
    ccomp_free(c);
  }
  free(x), free(y);
}

/* natural: every output is 0 or +-a power of two next to |x|, same sign. */
static void test_natural_values(void) {
  const size_t d = 4099;
  float *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
  test_vector(x, d, 21);
  x[7] = 0x1p-140f, x[8] = -0x1.8p-130f, x[9] = 0x1p127f * 1.5f; /* subnormals, the top */
  ccomp *c = make("natural", NULL, d, 1);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, d));
  ccomp_call call = {.key = 99};
  size_t nb = ccomp_encode(c, x, d, &call, w);
  CHECK(nb == d + (d + 7) / 8 && nb == (9 * d + 7) / 8, "natural wire %zu bytes for %zu", nb, d);
  ccomp_decode(c, w, nb, d, 1, &call, y);
  int bad = 0;
  for (size_t i = 0; i < d; i++) {
    const double a = fabs((double)x[i]), b = fabs((double)y[i]);
    int ok;
    if (a == 0) {
      ok = b == 0;
    } else if (a < 0x1p-126) { /* subnormal: to 0 or the smallest normal */
      ok = b == 0 || b == 0x1p-126;
    } else {
      int ea;
      frexp(a, &ea); /* a in [2^(ea-1), 2^ea) */
      const double lo = ldexp(1, ea - 1), hi = ldexp(1, ea);
      ok = a == lo ? b == a : (b == lo || b == hi || (hi == 0x1p128 && isinf(b)));
    }
    ok = ok && (b == 0 || (y[i] < 0) == (x[i] < 0));
    bad += !ok;
  }
  CHECK(bad == 0, "natural: %d outputs are not a neighbouring power of two", bad);
  free(w), free(x), free(y);
  ccomp_free(c);
}

/* ---- Global-QSGD -------------------------------------------------------- */

typedef struct {
  ccomp *c;
  float **xs; /* n workers' inputs */
  uint32_t n;
  size_t d;
  uint8_t *acc, *tmp, *out;
} gq_ctx;

/* One all-reduce: every worker encodes with the global max and its own key,
 * combined in ring order, decoded, finished (the mean). */
static void gq_sample(void *vctx, int s, float *y) {
  gq_ctx *g = vctx;
  float M = 0;
  for (uint32_t w = 0; w < g->n; w++) M = fmaxf(M, g->c->type->local_stat(g->c->state, g->xs[w], g->d));
  size_t na = 0;
  for (uint32_t w = 0; w < g->n; w++) {
    ccomp_call call = {.key = ccr_key(ccr_key(17, (uint64_t)s), w), .global_max = M};
    if (w == 0) {
      na = ccomp_encode(g->c, g->xs[0], g->d, &call, g->acc);
      continue;
    }
    size_t nt = ccomp_encode(g->c, g->xs[w], g->d, &call, g->tmp);
    na = ccomp_combine(g->c, g->acc, na, w, g->tmp, nt, 1, g->d, &call, g->out);
    memcpy(g->acc, g->out, na);
  }
  ccomp_call call = {.key = 0, .global_max = M};
  ccomp_decode(g->c, g->acc, na, g->d, g->n, &call, y);
  ccomp_finish(g->c, y, g->d, g->n);
}

static void test_global_qsgd_unbiased(uint32_t n, double bits, int S) {
  const size_t d = 131;
  const double par[2] = {bits, 0}; /* standard dithering */
  gq_ctx g = {.c = make("global-qsgd", par, d, n), .n = n, .d = d};
  g.xs = malloc(n * sizeof *g.xs);
  float *mean = calloc(d, sizeof *mean);
  for (uint32_t w = 0; w < n; w++) {
    g.xs[w] = malloc(d * sizeof(float));
    test_vector(g.xs[w], d, 100 + w);
    for (size_t i = 0; i < d; i++) mean[i] += g.xs[w][i] / (float)n;
  }
  size_t cap = ccomp_max_wire_bytes(g.c, d);
  g.acc = malloc(cap), g.tmp = malloc(cap), g.out = malloc(cap);
  char what[96];
  snprintf(what, sizeof what, "global-qsgd mean of %u workers, bits=%g", n, bits);
  /* the decoded mean moves in steps of M / (s n) */
  float M = 0;
  for (uint32_t w = 0; w < n; w++) M = fmaxf(M, qb_max_abs(g.xs[w], d));
  const double s = (double)(((1u << ((unsigned)bits - 1)) - 1) / n);
  check_unbiased(what, d, S, mean, gq_sample, &g, 1e-6 * qb_max_abs(mean, d), M / (s * n));
  for (uint32_t w = 0; w < n; w++) free(g.xs[w]);
  free(g.xs), free(mean), free(g.acc), free(g.tmp), free(g.out);
  ccomp_free(g.c);
}

/* combine is exact integer addition of the B-bit fields. */
static void test_global_qsgd_exact_sum(void) {
  const size_t d = 1001;
  static const double bitsv[] = {2, 3, 5, 8, 11, 16};
  for (int bi = 0; bi < 6; bi++) {
    unsigned B = (unsigned)bitsv[bi];
    uint32_t n = (1u << (B - 1)) - 1 < 6 ? (1u << (B - 1)) - 1 : 6;
    const double par[2] = {bitsv[bi], 0};
    ccomp *c = make("global-qsgd", par, d, n);
    size_t cap = ccomp_max_wire_bytes(c, d);
    CHECK(cap == (d * B + 7) / 8 + 4, "bits=%u: max wire %zu", B, cap);
    uint8_t *acc = malloc(cap), *tmp = malloc(cap), *out = malloc(cap);
    int32_t *sum = calloc(d, sizeof *sum), *q = malloc(d * sizeof *q);
    float *x = malloc(d * sizeof *x);
    size_t na = 0;
    for (uint32_t w = 0; w < n; w++) {
      gaussian_fill(x, d, 300 + w, 1.0);
      ccomp_call call = {.key = ccr_key(5, w), .global_max = 4.5f};
      for (size_t i = 0; i < d; i++) x[i] = fmaxf(-4.5f, fminf(4.5f, x[i]));
      size_t nt = ccomp_encode(c, x, d, &call, w ? tmp : acc);
      CHECK(nt == (d * B + 7) / 8 + 4, "bits=%u: wire %zu bytes, want ceil(d B/8) + 4 = %zu", B, nt,
            (d * B + 7) / 8 + 4);
      qb_unpack_int((w ? tmp : acc) + 4, d, B, q);
      for (size_t i = 0; i < d; i++) sum[i] += q[i];
      if (w) {
        na = ccomp_combine(c, acc, na, w, tmp, nt, 1, d, &call, out);
        memcpy(acc, out, na);
      } else {
        na = nt;
      }
    }
    qb_unpack_int(acc + 4, d, B, q);
    CHECK(memcmp(q, sum, d * sizeof *q) == 0, "bits=%u: combined fields are not the integer sum", B);
    free(acc), free(tmp), free(out), free(sum), free(q), free(x);
    ccomp_free(c);
  }
}

/* n at the limit, every worker at +max (and at -max): the sum n s fits. */
static void test_global_qsgd_limit(void) {
  const size_t d = 13;
  for (unsigned B = 2; B <= 16; B++) {
    const uint32_t nmax = (1u << (B - 1)) - 1;
    const double bits[2] = {B, 0};
    for (int sign = 1; sign >= -1; sign -= 2) {
      ccomp *c = make("global-qsgd", bits, d, nmax);
      size_t cap = ccomp_max_wire_bytes(c, d);
      uint8_t *acc = malloc(cap), *tmp = malloc(cap), *out = malloc(cap);
      float x[13], y[13];
      for (size_t i = 0; i < d; i++) x[i] = (float)sign * 1.0f; /* +-max, M = 1 */
      size_t na = 0;
      for (uint32_t w = 0; w < nmax; w++) {
        ccomp_call call = {.key = ccr_key(8, w), .global_max = 1.0f};
        size_t nt = ccomp_encode(c, x, d, &call, w ? tmp : acc);
        if (w) {
          na = ccomp_combine(c, acc, na, w, tmp, nt, 1, d, &call, out);
          memcpy(acc, out, na);
        } else {
          na = nt;
        }
      }
      int32_t q[13];
      qb_unpack_int(acc + 4, d, B, q);
      int bad = 0; /* at the limit the levels are s = 1, so the sum is n */
      for (size_t i = 0; i < d; i++) bad += q[i] != sign * (int32_t)nmax;
      CHECK(bad == 0, "bits=%u n=%u: sum field %d, want %d (overflow?)", B, nmax, q[0],
            sign * (int32_t)nmax);
      ccomp_call call = {.global_max = 1.0f};
      ccomp_decode(c, acc, na, d, nmax, &call, y);
      ccomp_finish(c, y, d, nmax);
      CHECK_NEAR(y[0], sign, 1e-6, "mean of workers all at max");
      free(acc), free(tmp), free(out);
      ccomp_free(c);
    }
    /* one worker more: s would be 0, refused with a message naming bits and workers */
    char err[CCOMP_ERRLEN] = "";
    ccomp_setup su = {.n = d, .workers = nmax + 1, .rank = 0, .seed = 1};
    ccomp *bad = ccomp_new(ccomp_find("global-qsgd"), bits, &su, err, sizeof err);
    CHECK(bad == NULL, "bits=%u accepted workers=%u", B, nmax + 1);
    CHECK(strstr(err, "bits") && strstr(err, "workers"), "message: %s", err);
    ccomp_free(bad);
  }
  /* a larger s: bits = 8, n = 4 workers -> s = 31; all at +max sums to 124 */
  const double b8[2] = {8, 0};
  ccomp *c = make("global-qsgd", b8, 3, 4);
  uint8_t a[8], b[8], o[8];
  float x[3] = {2.0f, 2.0f, -2.0f};
  ccomp_call call = {.key = 1, .global_max = 2.0f};
  ccomp_encode(c, x, 3, &call, a);
  ccomp_encode(c, x, 3, &call, b);
  ccomp_combine(c, a, 7, 1, b, 7, 1, 3, &call, o);
  ccomp_combine(c, o, 7, 2, o, 7, 2, 3, &call, a);
  CHECK((int8_t)a[4] == 124 && (int8_t)a[6] == -124, "4 x 31 = %d, %d", (int8_t)a[4], (int8_t)a[6]);
  ccomp_free(c);
}

/* ---- bit packing -------------------------------------------------------- */

static void test_packing(void) {
  static const size_t sizes[] = {1, 2, 7, 8, 9, 31, 63, 64, 65, 127, 128, 129, 1000, 1001};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    const size_t n = sizes[si];
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    gaussian_fill(x, n, n, 1.0);
    if (n > 3) x[1] = 0.0f, x[2] = -0.0f, x[3] = NAN;
    uint8_t *got = malloc(n / 8 + 2), *ref = calloc(n / 8 + 2, 1);
    memset(got, 0xAA, n / 8 + 2);
    for (size_t i = 0; i < n; i++) ref[i / 8] |= (uint8_t)((x[i] >= 0.0f) << (i % 8));
    qb_pack_signs(x, n, got);
    CHECK(memcmp(got, ref, (n + 7) / 8) == 0, "sign bits differ at n=%zu", n);
    CHECK(got[(n + 7) / 8] == 0xAA, "n=%zu: wrote past ceil(n/8) bytes", n);
    qb_unpack_signs(got, n, 2.0f, -3.0f, y);
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += y[i] != (x[i] >= 0.0f ? 2.0f : -3.0f);
    CHECK(bad == 0, "unpack signs n=%zu: %d wrong", n, bad);
    size_t ones = 0;
    for (size_t i = 0; i < n; i++) ones += x[i] >= 0.0f;
    CHECK(qb_count_ones(got, n) == ones, "count_ones n=%zu", n);
    /* b-bit fields against a bit-by-bit reference */
    int32_t *q = malloc(n * sizeof *q), *r = malloc(n * sizeof *r);
    for (unsigned b = 2; b <= 16; b++) {
      const int32_t lim = (1 << (b - 1)) - 1;
      for (size_t i = 0; i < n; i++)
        q[i] = (int32_t)(ccr_u64(b, i) % (uint64_t)(2 * lim + 2)) - lim - 1; /* full range */
      size_t nb = qb_stream_bytes(n, b);
      uint8_t *p = malloc(nb + 1), *pr = calloc(nb + 1, 1);
      p[nb] = 0x5A;
      for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < b; k++)
          pr[(i * b + k) / 8] |= (uint8_t)((((uint32_t)q[i] >> k) & 1) << ((i * b + k) % 8));
      qb_pack_int(q, n, b, p);
      CHECK(memcmp(p, pr, nb) == 0 && p[nb] == 0x5A, "b=%u n=%zu: packed bytes differ", b, n);
      qb_unpack_int(p, n, b, r);
      CHECK(memcmp(q, r, n * sizeof *q) == 0, "b=%u n=%zu: unpack differs", b, n);
      free(p), free(pr);
    }
    free(q), free(r), free(x), free(y), free(got), free(ref);
  }
}

/* ---- chunked encoding == whole encoding ---------------------------------- */

/* Encode x[d] whole at offset 0 and in chunks at their offsets (ragged,
 * unaligned); the decoded values must be identical. */
static void chunk_compare(const char *name, const double *params, const float *x, size_t d,
                          size_t lo_only, size_t hi_only) {
  static const size_t cuts[] = {0, 1, 37, 64, 100, 191, 500, 777};
  ccomp *c = make(name, params, d, 3);
  float *yw = malloc(d * sizeof *yw), *yc = malloc(d * sizeof *yc);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, d));
  const uint64_t key = ccr_key(4242, 1);
  float M = qb_max_abs(x, d);
  ccomp_call call = {.key = key, .offset = 0, .global_max = M};
  size_t nb = ccomp_encode(c, x, d, &call, w);
  ccomp_decode(c, w, nb, d, 1, &call, yw);
  size_t ncuts = sizeof cuts / sizeof cuts[0];
  for (size_t k = 0; k < ncuts; k++) {
    size_t lo = cuts[k], hi = k + 1 < ncuts ? cuts[k + 1] : d;
    if (lo_only != hi_only && (lo != lo_only || hi != hi_only)) continue;
    ccomp_call cc = {.key = key, .offset = lo, .global_max = M};
    size_t nbc = ccomp_encode(c, x + lo, hi - lo, &cc, w);
    ccomp_decode(c, w, nbc, hi - lo, 1, &cc, yc + lo);
    CHECK(memcmp(yc + lo, yw + lo, (hi - lo) * sizeof *yc) == 0,
          "%s: chunk [%zu, %zu) decodes differently from the whole", name, lo, hi);
  }
  free(yw), free(yc), free(w);
  ccomp_free(c);
}

static void test_chunking(void) {
  const size_t d = 1000;
  float *x = malloc(d * sizeof *x), *z = calloc(d, sizeof *z);
  test_vector(x, d, 31);
  const double b5[2] = {5, 0}, e6[2] = {6, 1};
  chunk_compare("natural", NULL, x, d, 0, 0);
  chunk_compare("global-qsgd", NULL, x, d, 0, 0);
  chunk_compare("global-qsgd", b5, x, d, 0, 0);
  chunk_compare("global-qsgd", e6, x, d, 0, 0); /* exponential */
  /* qsgd and terngrad scale by a statistic of the chunk: a vector that is
   * zero outside one chunk has the same statistic whole and chunked. */
  memcpy(z + 191, x + 191, (500 - 191) * sizeof *z);
  chunk_compare("qsgd", NULL, z, d, 191, 500);
  double noclip = 0, lv[] = {5, 0}, lvmax[] = {5, 1};
  chunk_compare("qsgd", lv, z, d, 191, 500);
  chunk_compare("qsgd", lvmax, z, d, 191, 500);
  chunk_compare("terngrad", &noclip, z, d, 191, 500);
  free(x), free(z);
}

/* ---- bf16 --------------------------------------------------------------- */

/* The value of a bf16 bit pattern with an unbounded exponent (field 255
 * read as 2^128 (1 + m/128)), as IEEE rounding assumes before overflow. */
static double bf16_value(uint16_t h) {
  int e = (h >> 7) & 0xff, m = h & 0x7f;
  double v = e ? ldexp(1.0 + m / 128.0, e - 127) : ldexp(m / 128.0, -126);
  return (h & 0x8000) ? -v : v;
}

/* Reference: the nearer of the two neighbouring bf16 values, ties to the even
 * one; a result with exponent field 255 is infinity. */
static uint16_t bf16_ref(float f) {
  const uint16_t lo = (uint16_t)(qb_f2u(f) >> 16), hi = (uint16_t)(lo + 1);
  if (isinf(f)) return lo;
  const double x = f, da = fabs(x - bf16_value(lo)), db = fabs(x - bf16_value(hi));
  if (da < db) return lo;
  if (db < da) return hi;
  return (lo & 1) ? hi : lo;
}

static void test_bf16(void) {
  ccomp *c = make("bf16", NULL, 1 << 16, 2);
  const size_t n = 1 << 16;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  uint8_t *w = malloc(2 * n);
  int bad = 0, rounds = 0;
  for (int r = 0; r < 64; r++) {
    for (size_t i = 0; i < n; i++) {
      uint32_t u = (uint32_t)ccr_u64(1000 + r, i);
      if (i % 4 == 1) u = (u & 0xffff0000u) | 0x8000u; /* exact ties */
      if (i % 4 == 2) u &= 0x807fffffu;                 /* subnormals */
      x[i] = qb_u2f(u);
    }
    ccomp_call call = {0};
    ccomp_encode(c, x, n, &call, w);
    for (size_t i = 0; i < n; i++) {
      if (isnan(x[i])) continue;
      uint16_t h = (uint16_t)(w[2 * i] | w[2 * i + 1] << 8);
      bad += h != bf16_ref(x[i]);
      rounds++;
    }
    ccomp_decode(c, w, 2 * n, n, 1, &call, y);
    for (size_t i = 0; i < n; i++) bad += isnan(x[i]) != isnan(y[i]);
  }
  CHECK(bad == 0, "bf16: %d of %d conversions differ from nearest-even", bad, rounds);
  float sp[4] = {3.4e38f, -3.4e38f, 1.0f + 0x1p-8f, 1.0f + 0x1.8p-8f};
  ccomp_call call = {0};
  ccomp_encode(c, sp, 4, &call, w);
  ccomp_decode(c, w, 8, 4, 1, &call, y);
  CHECK(isinf(y[0]) && y[0] > 0 && isinf(y[1]) && y[1] < 0, "bf16 overflow: %g %g", y[0], y[1]);
  CHECK(y[2] == 1.0f && y[3] == 1.0f + 0x1p-7f, "bf16 ties to even: %a %a", y[2], y[3]);
  free(x), free(y), free(w);
  ccomp_free(c);
}

/* ---- fp16: the F16C path is bit-identical to half.h ---------------------- */

static void test_fp16_paths(void) {
  const size_t n = (1 << 20) + 3; /* not a multiple of 8 */
  ccomp *c = make("fp16", NULL, n, 2);
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  uint8_t *w = malloc(2 * n), *w2 = malloc(2 * n), *o = malloc(2 * n);
  for (size_t i = 0; i < n; i++) {
    uint32_t u = (uint32_t)ccr_u64(404, i);
    switch ((i / 8) % 5) { /* whole blocks of 8 of one kind */
    case 0: break;                                          /* anything, NaN included */
    case 1: u = (u & 0x8fffffffu) | 0x30000000u; break;     /* half's normal range */
    case 2: u = (u & 0x83ffffffu) | 0x30000000u; break;     /* half's subnormals */
    case 3: u = (u & 0x80ffffffu) | 0x47000000u; break;     /* near 65504 and overflow */
    case 4: u = (i % 3) ? 0x7fc00001u + (u & 0xff) : 0xff800000u; break; /* NaN, -Inf */
    }
    x[i] = qb_u2f(u);
  }
  ccomp_call call = {0};
  ccomp_encode(c, x, n, &call, w);
  int bad = 0;
  for (size_t i = 0; i < n; i++) bad += (uint16_t)(w[2 * i] | w[2 * i + 1] << 8) != ccomp_f32_to_f16(x[i]);
  CHECK(bad == 0, "fp16 encode: %d of %zu differ from half.h", bad, n);
  /* decode every half pattern, and arbitrary ones */
  for (size_t i = 0; i < n; i++) {
    uint16_t h = (uint16_t)(i < 65536 ? i : ccr_u64(405, i));
    w2[2 * i] = (uint8_t)h, w2[2 * i + 1] = (uint8_t)(h >> 8);
  }
  ccomp_decode(c, w2, 2 * n, n, 1, &call, y);
  bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += qb_f2u(y[i]) != qb_f2u(ccomp_f16_to_f32((uint16_t)(w2[2 * i] | w2[2 * i + 1] << 8)));
  CHECK(bad == 0, "fp16 decode: %d of %zu differ from half.h", bad, n);
  ccomp_combine(c, w, 2 * n, 1, w2, 2 * n, 1, n, &call, o);
  bad = 0;
  for (size_t i = 0; i < n; i++) {
    float s = ccomp_f16_to_f32((uint16_t)(w[2 * i] | w[2 * i + 1] << 8)) +
              ccomp_f16_to_f32((uint16_t)(w2[2 * i] | w2[2 * i + 1] << 8));
    const uint16_t got = (uint16_t)(o[2 * i] | o[2 * i + 1] << 8);
    /* a NaN sum: any NaN (the sign of NaN + NaN is the operand order's,
     * which the compiler may swap: IEEE 754 does not specify it) */
    bad += s != s ? !((got & 0x7c00) == 0x7c00 && (got & 0x3ff)) : got != ccomp_f32_to_f16(s);
  }
  CHECK(bad == 0, "fp16 combine: %d of %zu differ from half.h", bad, n);
  free(x), free(y), free(w), free(w2), free(o);
  ccomp_free(c);
}

/* ---- wire sizes --------------------------------------------------------- */

static void test_wire_sizes(void) {
  static const size_t sizes[] = {1, 7, 9, 64, 100, 1001};
  for (size_t k = 0; k < 6; k++) {
    size_t d = sizes[k];
    float *x = malloc(d * sizeof *x);
    gaussian_fill(x, d, 7, 1.0);
    struct {
      const char *name;
      double p[2]; /* qsgd: levels, norm */
      size_t want;
    } cases[] = {
        {"qsgd", {127, 0}, 4 + d},
        {"qsgd", {127, 1}, 4 + d},
        {"qsgd", {1, 0}, 4 + (2 * d + 7) / 8},
        {"qsgd", {3, 0}, 4 + (3 * d + 7) / 8},
        {"qsgd", {4, 1}, 4 + (4 * d + 7) / 8},
        {"terngrad", {2.5}, 4 + (2 * d + 7) / 8},
        {"natural", {NAN}, (9 * d + 7) / 8},
        {"bf16", {NAN}, 2 * d},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      ccomp *c = make(cases[i].name, isnan(cases[i].p[0]) ? NULL : cases[i].p, d, 2);
      uint8_t *w = malloc(ccomp_max_wire_bytes(c, d));
      ccomp_call call = {.key = 1};
      size_t nb = ccomp_encode(c, x, d, &call, w);
      CHECK(nb == cases[i].want, "%s(%g) d=%zu: %zu bytes, want %zu", cases[i].name, cases[i].p[0], d,
            nb, cases[i].want);
      free(w);
      ccomp_free(c);
    }
    free(x);
  }
}

int main(void) {
  test_packing();
  test_wire_sizes();
  test_chunking();
  test_bf16();
  test_fp16_paths();
  test_natural_values();
  test_unbiased();
  test_qsgd_variance();
  test_qsgd_max_levels();
  test_global_qsgd_exact_sum();
  test_global_qsgd_limit();
  test_global_qsgd_unbiased(8, 8, 4000);  /* s = 15 */
  test_global_qsgd_unbiased(8, 5, 4000);  /* s = 1: the coarsest */
  test_global_qsgd_unbiased(1, 2, 4000);  /* one worker, 2-bit: s = 1 */
  test_global_qsgd_unbiased(3, 16, 2000); /* s = 10922 */
  return check_status("test_quantizers");
}
