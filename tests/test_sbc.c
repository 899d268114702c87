/* tests/test_sbc.c — Golomb position coding, SBC and STC:
 *   - Golomb decode(encode(positions)) is exact for random position sets and
 *     the edge cases (first position 0, last n - 1, k = n, k = 1, n = 1) at
 *     every Rice parameter 0..16, and never exceeds ccg_max_bits;
 *   - b* and b-bar reproduce docs/algorithms.md's table;
 *   - the real SBC encoder's measured bits per position on random positions
 *     (top-k of i.i.d. Gaussian data: a uniformly random k-subset) is within
 *     2% of the table, with k = 100000 / 20000 / 20000 positions for
 *     q = 0.1 / 0.01 / 0.001 (standard error of the mean < 0.2%), and the
 *     Golomb coder alone for q = 1e-4 (k = 5000);
 *   - SBC sends the side with the larger mean, exactly k positions, and its
 *     error is ||x||^2 - k mu^2; its delay sends nothing for m - 1 steps and
 *     the residual memory carries the accumulated sum, dividing the bytes by m;
 *   - STC sends mu * sign at the k largest |x|. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "golomb.h"
#include "ccomp/memory.h"
#include "ccomp/rng.h"
#include "sparse_pairs.h"

static void gaussian(float *x, size_t n, uint64_t key, double scale) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    x[i] = (float)(scale * sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

static ccomp *make(const char *name, const double *params, size_t n) {
  char err[CCOMP_ERRLEN];
  ccomp_setup su = {.n = n, .workers = 1, .rank = 0, .seed = 1};
  ccomp *c = ccomp_new(ccomp_find(name), params, &su, err, sizeof err);
  CHECK(c != NULL, "%s: %s", name, err);
  if (!c) exit(1);
  return c;
}

/* k uniformly random ascending positions in [0, n) (selection sampling). */
static size_t random_positions(uint32_t *pos, size_t n, size_t k, uint64_t key) {
  size_t j = 0;
  for (size_t i = 0; i < n && j < k; i++)
    if ((uint64_t)(((unsigned __int128)ccr_u64(key, i) * (n - i)) >> 64) < k - j)
      pos[j++] = (uint32_t)i;
  return j;
}

/* Encode pos[k] with parameter b, decode, compare; returns the bits used. */
static size_t golomb_roundtrip(const uint32_t *pos, size_t k, size_t n, unsigned b, int *ok) {
  size_t maxbits = ccg_max_bits(k, n, b);
  uint8_t *buf = calloc(maxbits / 8 + 2, 1);
  uint32_t *back = malloc((k ? k : 1) * sizeof *back);
  ccb_writer w;
  ccb_writer_init(&w, buf);
  ccg_encode(&w, pos, k, b);
  size_t bits = ccb_tell(&w), bytes = ccb_flush(&w);
  ccb_reader r;
  ccb_reader_init(&r, buf, bytes);
  *ok = bits <= maxbits && ccg_decode(&r, back, k, b, n) == 0 &&
        memcmp(back, pos, k * sizeof *pos) == 0;
  free(buf), free(back);
  return bits;
}

static void test_golomb_roundtrip(void) {
  int bad = 0, cases = 0, ok;
  static const size_t ns[] = {1, 2, 3, 64, 1000, 100003};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    size_t n = ns[a];
    uint32_t *pos = malloc(n * sizeof *pos);
    for (unsigned b = 0; b <= 16; b++) {
      /* k = n: every position */
      for (size_t i = 0; i < n; i++) pos[i] = (uint32_t)i;
      golomb_roundtrip(pos, n, n, b, &ok), bad += !ok, cases++;
      /* k = 1 at 0, at n - 1, in the middle */
      uint32_t one[3] = {0, (uint32_t)(n - 1), (uint32_t)(n / 2)};
      for (int e = 0; e < 3; e++) golomb_roundtrip(one + e, 1, n, b, &ok), bad += !ok, cases++;
      /* first 0 and last n - 1 with random ones between; random sets */
      static const double fr[] = {0.001, 0.1, 0.5, 0.9};
      for (int f = 0; f < 4; f++) {
        size_t k = ccsp_count(fr[f], n);
        k = random_positions(pos, n, k, ccr_key(b, (uint64_t)f));
        golomb_roundtrip(pos, k, n, b, &ok), bad += !ok, cases++;
        if (n >= 3 && k >= 2) {
          pos[0] = 0, pos[k - 1] = (uint32_t)(n - 1);
          if (k == 2 || pos[1] > 0) golomb_roundtrip(pos, k, n, b, &ok), bad += !ok, cases++;
        }
      }
    }
    free(pos);
  }
  CHECK(bad == 0, "Golomb round trip failed in %d of %d cases", bad, cases);
  /* a truncated stream is reported, not misread */
  uint32_t pos[3] = {5, 900, 901};
  uint8_t buf[64];
  ccb_writer w;
  ccb_writer_init(&w, buf);
  ccg_encode(&w, pos, 3, 4);
  size_t bytes = ccb_flush(&w);
  ccb_reader r;
  ccb_reader_init(&r, buf, bytes - 1);
  uint32_t back[3];
  CHECK(ccg_decode(&r, back, 3, 4, 1000) == -1, "a truncated Golomb stream decoded");
}

/* docs/algorithms.md's table: q, b*, b-bar. */
static const struct {
  double q;
  unsigned b;
  double bbar;
} table[] = {{0.1, 3, 4.76}, {0.01, 6, 8.11}, {0.001, 9, 11.50}, {1e-4, 13, 14.79}};

static void test_table(void) {
  for (int t = 0; t < 4; t++) {
    size_t n = 10000000, k = (size_t)llround(table[t].q * (double)(n + 1)) - 1;
    unsigned b = ccg_rice_param(k, n);
    CHECK(b == table[t].b, "q = %g: b* = %u, table %u", table[t].q, b, table[t].b);
    /* 0.01: the table's 11.50 for q = 0.001 is 11.4947 rounded up */
    CHECK_NEAR(ccg_expected_bits(table[t].q, b), table[t].bbar, 0.01, "b-bar");
  }
  CHECK(ccg_rice_param(10, 10) == 0 && ccg_rice_param(6, 10) == 0, "b* clamps to 0 for dense q");
}

/* Bits per position of the real SBC encoder (and of the coder alone for
 * q = 1e-4) against the table. */
static void test_measured_bits(void) {
  static const size_t ns[] = {1000000, 2000000, 20000000};
  fprintf(stderr, "   q      b*  measured bits/pos  expected(q_eff)  table   positions\n");
  for (int t = 0; t < 3; t++) {
    size_t n = ns[t];
    float *x = malloc(n * sizeof *x);
    gaussian(x, n, ccr_key(91, (uint64_t)t), 1.0);
    double p[2] = {table[t].q, 1};
    ccomp *c = make("sbc", p, n);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
    ccomp_call call = {0};
    size_t nb = ccomp_encode(c, x, n, &call, w);
    size_t k = ccsp_count(table[t].q, n);
    unsigned b = ccg_rice_param(k, n);
    double measured = (double)(8 * (nb - 4)) / (double)k;
    double qeff = ((double)k + 1) / ((double)n + 1), expect = ccg_expected_bits(qeff, b);
    fprintf(stderr, "  %-6g %2u  %17.3f  %15.3f  %6.2f  %zu (SBC encoder)\n", table[t].q, b,
            measured, expect, table[t].bbar, k);
    CHECK(b == table[t].b, "q = %g: encoder used b* = %u", table[t].q, b);
    CHECK(fabs(measured / table[t].bbar - 1) <= 0.02, "q = %g: %.3f bits/position vs table %.2f",
          table[t].q, measured, table[t].bbar);
    free(x), free(w);
    ccomp_free(c);
  }
  size_t n = 50000000, k = 5000;
  uint32_t *pos = malloc(k * sizeof *pos);
  k = random_positions(pos, n, k, 93);
  int ok;
  unsigned b = ccg_rice_param(k, n);
  double measured = (double)golomb_roundtrip(pos, k, n, b, &ok) / (double)k;
  fprintf(stderr, "  %-6g %2u  %17.3f  %15.3f  %6.2f  %zu (Golomb coder)\n", table[3].q, b,
          measured, ccg_expected_bits(((double)k + 1) / ((double)n + 1), b), table[3].bbar, k);
  CHECK(ok && b == table[3].b && fabs(measured / table[3].bbar - 1) <= 0.02,
        "q = 1e-4: %.3f bits/position, b* = %u", measured, b);
  free(pos);
}

/* Reference binarization by sorting. */
static int cmp_desc(const void *a, const void *b) {
  float p = *(const float *)a, q = *(const float *)b;
  return (p < q) - (p > q);
}

static void test_sbc_semantics(void) {
  const size_t n = 4099;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *s = malloc(n * sizeof *s);
  double p[2] = {0.02, 1};
  size_t k = ccsp_count(p[0], n);
  for (int side = 0; side < 2; side++) {
    gaussian(x, n, 101, 1.0);
    for (size_t i = 0; i < n; i++) /* skew one side's tail */
      if ((side == 0 && x[i] > 1) || (side == 1 && x[i] < -1)) x[i] *= 2;
    ccomp *c = make("sbc", p, n);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
    ccomp_call call = {0};
    size_t nb = ccomp_encode(c, x, n, &call, w);
    ccomp_decode(c, w, nb, n, 1, &call, y);
    memcpy(s, x, n * sizeof *x);
    qsort(s, n, sizeof *s, cmp_desc);
    double mp = 0, mn = 0;
    for (size_t j = 0; j < k; j++) mp += s[j], mn -= s[n - 1 - j];
    mp /= (double)k, mn /= (double)k;
    float mu;
    memcpy(&mu, w, 4);
    CHECK(side == 0 ? mu > 0 : mu < 0, "sbc sent the wrong side (mu = %g, mu+ %g, mu- %g)", mu, mp,
          mn);
    CHECK_NEAR(mu, side == 0 ? mp : -mn, 1e-6 * fabs(mu), "sbc mu is the mean of its side");
    size_t cnt = 0, wrong = 0;
    double e2 = 0, nx2 = 0;
    float kth = side == 0 ? s[k - 1] : s[n - k];
    for (size_t i = 0; i < n; i++) {
      if (y[i] != 0) {
        cnt++;
        wrong += y[i] != mu || (side == 0 ? x[i] < kth : x[i] > kth);
      }
      e2 += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
      nx2 += (double)x[i] * x[i];
    }
    CHECK(cnt == k && wrong == 0, "sbc: %zu positions (want %zu), %zu wrong", cnt, k, wrong);
    double md = side == 0 ? mp : -mn, df = (double)mu - md; /* mu in double, and its rounding */
    CHECK_NEAR(e2, nx2 - (double)k * md * md + (double)k * df * df, 1e-9 * nx2,
               "sbc error = ||x||^2 - k mu^2 + k (mu_f - mu)^2");
    free(w);
    ccomp_free(c);
  }
  /* edge cases: n = 1; ratio 1 (k = n, b* = 0); all zeros */
  double all[2] = {1.0, 1};
  for (size_t m = 1; m <= 3; m++) {
    ccomp *c = make("sbc", all, m);
    float xs[3] = {0.5f, -0.25f, 0.75f}, ys[3];
    uint8_t w[64];
    ccomp_call call = {0};
    size_t nb = ccomp_encode(c, xs, m, &call, w);
    ccomp_decode(c, w, nb, m, 1, &call, ys);
    double mean = 0;
    for (size_t i = 0; i < m; i++) mean += xs[i] / (double)m;
    int okk = 1;
    for (size_t i = 0; i < m; i++) okk &= ys[i] == (float)mean;
    CHECK(okk, "sbc ratio 1, n = %zu: every entry must be the mean", m);
    ccomp_free(c);
  }
  ccomp *c = make("sbc", p, n);
  memset(x, 0, n * sizeof *x);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
  ccomp_call call = {0};
  size_t nb = ccomp_encode(c, x, n, &call, w);
  ccomp_decode(c, w, nb, n, 1, &call, y);
  int zero = 1;
  for (size_t i = 0; i < n; i++) zero &= y[i] == 0;
  CHECK(zero, "sbc of zeros is not zeros");
  ccomp_free(c);
  free(w), free(x), free(y), free(s);
}

/* Delay m: m - 1 empty steps, then the residual carries the accumulated sum. */
static void test_sbc_delay(void) {
  const size_t n = 20000;
  const uint32_t steps = 12, m = 4;
  char err[CCOMP_ERRLEN];
  size_t bytes[2] = {0, 0};
  for (int with_delay = 0; with_delay < 2; with_delay++) {
    double p[2] = {0.01, with_delay ? m : 1};
    ccomp *c = make("sbc", p, n);
    ccomp_memory *mem = ccomp_memory_new(ccomp_memory_find("residual"), NULL, n, err, sizeof err);
    float *g = malloc(n * sizeof *g), *pin = malloc(n * sizeof *pin), *own = malloc(n * sizeof *own);
    float *acc = calloc(n, sizeof *acc);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
    for (uint32_t t = 0; t < steps; t++) {
      gaussian(g, n, ccr_key(111, t), 1.0);
      mem->type->compensate(mem->state, g, n, 0, pin);
      ccomp_call call = {.key = t, .iteration = t};
      size_t nb = ccomp_encode(c, pin, n, &call, w);
      ccomp_decode(c, w, nb, n, 1, &call, own);
      mem->type->encoded(mem->state, pin, own, n, 0);
      bytes[with_delay] += nb;
      for (size_t i = 0; i < n; i++) acc[i] += g[i];
      if (with_delay) {
        int sends = t % m == m - 1;
        CHECK(sends ? nb > 0 : nb == 0, "delay %u, step %u: %zu bytes", m, t, nb);
        if (t == m - 1) { /* the first send sees exactly the sum of m gradients */
          double d = 0;
          for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)pin[i] - acc[i]));
          CHECK(d < 1e-5, "delay: the compressor input is not the accumulated sum (%g)", d);
        }
        if (!sends) {
          int z = 1;
          for (size_t i = 0; i < n; i++) z &= own[i] == 0;
          CHECK(z, "a delayed step decodes to non-zeros");
        }
      }
    }
    free(g), free(pin), free(own), free(acc), free(w);
    ccomp_memory_free(mem);
    ccomp_free(c);
  }
  double saving = (double)bytes[0] / (double)bytes[1];
  fprintf(stderr, "sbc delay %u over %u steps: %zu bytes vs %zu without delay (x%.3f)\n", m, steps,
          bytes[1], bytes[0], saving);
  CHECK(fabs(saving / m - 1) < 0.05, "delay %u saves x%.3f, want ~x%u", m, saving, m);
}

static void test_stc(void) {
  const size_t n = 30011;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *s = malloc(n * sizeof *s);
  gaussian(x, n, 121, 1.0);
  double ratio = 0.01;
  size_t k = ccsp_count(ratio, n);
  ccomp *c = make("stc", &ratio, n);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
  ccomp_call call = {0};
  size_t nb = ccomp_encode(c, x, n, &call, w);
  ccomp_decode(c, w, nb, n, 1, &call, y);
  for (size_t i = 0; i < n; i++) s[i] = fabsf(x[i]);
  qsort(s, n, sizeof *s, cmp_desc);
  double mu = 0;
  for (size_t j = 0; j < k; j++) mu += s[j];
  mu /= (double)k;
  float muw;
  memcpy(&muw, w, 4);
  CHECK_NEAR(muw, mu, 1e-6 * mu, "stc mu = mean of the top-k |x|");
  size_t cnt = 0, wrong = 0;
  for (size_t i = 0; i < n; i++)
    if (y[i] != 0) {
      cnt++;
      wrong += fabsf(x[i]) < s[k - 1] || y[i] != (x[i] < 0 ? -muw : muw);
    }
  CHECK(cnt == k && wrong == 0, "stc: %zu positions (want %zu), %zu wrong", cnt, k, wrong);
  unsigned b = ccg_rice_param(k, n);
  fprintf(stderr, "stc: %zu bytes for k = %zu (%.2f bits/position incl. sign, b* = %u)\n", nb, k,
          8.0 * (double)(nb - 4) / (double)k, b);
  CHECK(8 * (nb - 4) <= ccg_max_bits(k, n, b) + k + 7, "stc payload beyond its bound");
  ccomp_free(c);
  free(x), free(y), free(s), free(w);
}

int main(void) {
  test_golomb_roundtrip();
  test_table();
  test_measured_bits();
  test_sbc_semantics();
  test_sbc_delay();
  test_stc();
  return check_status("test_sbc");
}
