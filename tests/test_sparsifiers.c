/* tests/test_sparsifiers.c — what the generic test cannot see in topk,
 * randomk, threshold, dgc and the dgc memory:
 *   - radix selection agrees with a full sort, ties and degenerate inputs too;
 *   - topk keeps exactly the k largest magnitudes (ties to the lower index);
 *   - randomk: every worker picks the same k distinct indices; scaled is
 *     unbiased (20000 seeds, every coordinate within 4.5 standard errors and a
 *     linear functional within 3); combine is exact;
 *   - threshold sends exactly {|x| >= tau};
 *   - dgc: the sampled threshold's density is within +-30% of the target per
 *     call and +-7% on average (20 calls, n = 1M, density 1%, 10000 samples:
 *     the fraction above the sample's 100th largest has a relative standard
 *     deviation of ~1/sqrt(100) = 10%); refinement caps at exactly k; warm-up;
 *   - the dgc memory's momentum correction and masking, step by step;
 *   - topk throughput at 1M and 16M elements, ratio 1% (printed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "ccomp/memory.h"
#include "ccomp/rng.h"
#include "hostclock.h"
#include "select.h"
#include "sparse_pairs.h"

static void gaussian(float *x, size_t n, uint64_t key, double scale) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    x[i] = (float)(scale * sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

static ccomp *make(const char *name, const double *params, size_t n) {
  char err[CCOMP_ERRLEN];
  const ccomp_type *t = ccomp_find(name);
  CHECK(t != NULL, "%s not registered", name);
  if (!t) exit(1);
  ccomp_setup su = {.n = n, .workers = 4, .rank = 0, .seed = 42};
  ccomp *c = ccomp_new(t, params, &su, err, sizeof err);
  CHECK(c != NULL, "%s: %s", name, err);
  if (!c) exit(1);
  return c;
}

/* ---- selection ---------------------------------------------------------- */

typedef struct {
  uint32_t key, idx;
} kv;
static int by_key_desc_idx_asc(const void *a, const void *b) {
  const kv *p = a, *q = b;
  if (p->key != q->key) return p->key < q->key ? 1 : -1;
  return p->idx < q->idx ? -1 : p->idx > q->idx;
}
static int by_u32(const void *a, const void *b) {
  uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
  return (p > q) - (p < q);
}

/* ccsel_topk_indices == the first k of a full sort by (key desc, index asc). */
static int select_matches_sort(const float *x, size_t n, size_t k, enum ccsel_mode mode,
                               ccsel_scratch *s) {
  kv *ref = malloc(n * sizeof *ref);
  uint32_t *want = malloc(k * sizeof *want), *got = malloc(k * sizeof *got);
  for (size_t i = 0; i < n; i++) ref[i] = (kv){ccsel_key(x[i], mode), (uint32_t)i};
  qsort(ref, n, sizeof *ref, by_key_desc_idx_asc);
  for (size_t j = 0; j < k; j++) want[j] = ref[j].idx;
  qsort(want, k, sizeof *want, by_u32);
  uint32_t t = ccsel_topk_indices(x, n, k, mode, s, got);
  int ok = t == ref[k - 1].key && memcmp(want, got, k * sizeof *got) == 0;
  free(ref), free(want), free(got);
  return ok;
}

static void test_selection(void) {
  static const size_t sizes[] = {1, 2, 3, 17, 1000, 65537};
  ccsel_scratch s = {0};
  int bad = 0, cases = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t n = sizes[si];
    float *x = malloc(n * sizeof *x);
    for (int kind = 0; kind < 4; kind++) {
      if (kind == 0) gaussian(x, n, ccr_key(11, n), 1.0);
      if (kind == 1) /* heavy ties: values in {-3..3} */
        for (size_t i = 0; i < n; i++) x[i] = (float)((int)(ccr_u64(12, i) % 7) - 3);
      if (kind == 2) /* all equal, including the sign */
        for (size_t i = 0; i < n; i++) x[i] = 0.25f;
      if (kind == 3) /* spread over all exponents, subnormals and zeros */
        for (size_t i = 0; i < n; i++) {
          uint32_t u = (uint32_t)ccr_u64(13, i) & 0xff7fffffu; /* no inf/NaN */
          if (i % 17 == 0) u &= 0x807fffffu;                  /* subnormal or zero */
          memcpy(&x[i], &u, 4);
        }
      static const double fr[] = {0.0, 0.01, 0.5, 1.0};
      for (int m = 0; m < 3; m++)
        for (int f = 0; f < 4; f++) {
          size_t k = fr[f] == 0.0 ? 1 : ccsp_count(fr[f], n);
          cases++;
          /* with and without scratch: both paths of ccsel_kth */
          bad += !select_matches_sort(x, n, k, (enum ccsel_mode)m, &s);
          bad += !select_matches_sort(x, n, k, (enum ccsel_mode)m, NULL);
        }
    }
    free(x);
  }
  ccsel_scratch_clear(&s);
  CHECK(bad == 0, "radix select disagrees with a full sort in %d of %d cases", bad, 2 * cases);
}

/* ---- topk ---------------------------------------------------------------- */

static void test_topk_exact(void) {
  const size_t n = 100003;
  for (int kind = 0; kind < 2; kind++) {
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (kind == 0) gaussian(x, n, 21, 1e-2);
    else /* ties at the k-th magnitude */
      for (size_t i = 0; i < n; i++) x[i] = (float)((int)(ccr_u64(22, i) % 2001) - 1000) / 64.0f;
    double ratio = 0.01;
    ccomp *c = make("topk", &ratio, n);
    size_t k = ccsp_count(ratio, n);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
    ccomp_call call = {.key = 1, .shared_key = 2};
    size_t nb = ccomp_encode(c, x, n, &call, w);
    CHECK(nb == 8 * k, "topk wrote %zu bytes, want %zu", nb, 8 * k);
    /* indices ascending, values exact */
    int order = 1, exact = 1;
    for (size_t r = 0; r < k; r++) {
      uint32_t i = (uint32_t)w[8 * r] | (uint32_t)w[8 * r + 1] << 8 | (uint32_t)w[8 * r + 2] << 16 |
                   (uint32_t)w[8 * r + 3] << 24;
      float v;
      memcpy(&v, w + 8 * r + 4, 4);
      if (r > 0) {
        uint32_t p = (uint32_t)w[8 * r - 8] | (uint32_t)w[8 * r - 7] << 8 |
                     (uint32_t)w[8 * r - 6] << 16 | (uint32_t)w[8 * r - 5] << 24;
        order &= p < i;
      }
      exact &= i < n && v == x[i];
    }
    CHECK(order && exact, "topk records not ascending (%d) or not exact (%d)", order, exact);
    /* the kept set is the reference top-k (ties to lower index) */
    ccomp_decode(c, w, nb, n, 1, &call, y);
    kv *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) ref[i] = (kv){ccsel_key(x[i], CCSEL_ABS), (uint32_t)i};
    qsort(ref, n, sizeof *ref, by_key_desc_idx_asc);
    char *kept = calloc(n, 1);
    for (size_t j = 0; j < k; j++) kept[ref[j].idx] = 1;
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++) wrong += kept[i] ? y[i] != x[i] : y[i] != 0.0f;
    CHECK(wrong == 0, "topk (kind %d): %zu entries differ from the reference top-%zu", kind, wrong, k);
    free(ref), free(kept), free(x), free(y), free(w);
    ccomp_free(c);
  }
}

static void topk_throughput(void) {
  static const size_t sizes[] = {1u << 20, 1u << 24};
  for (int si = 0; si < 2; si++) {
    size_t n = sizes[si];
    float *x = malloc(n * sizeof *x);
    gaussian(x, n, 31, 1e-2);
    double ratio = 0.01;
    ccomp *c = make("topk", &ratio, n);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
    ccomp_call call = {.key = 1};
    ccomp_encode(c, x, n, &call, w); /* warm: page faults, scratch */
    int reps = si == 0 ? 20 : 3;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = host_clock();
      ccomp_encode(c, x, n, &call, w);
      double dt = host_clock() - t0;
      if (dt < best) best = dt;
    }
    fprintf(stderr, "topk encode, n = %zu, ratio 1%%: %.3f ms, %.2f G elements/s (best of %d)\n",
            n, 1e3 * best, (double)n / best * 1e-9, reps);
    free(x), free(w);
    ccomp_free(c);
  }
}

/* ---- randomk ------------------------------------------------------------- */

static void test_randomk_indices_and_combine(void) {
  const size_t n = 5000;
  double p[2] = {0.03, 0};
  ccomp *c = make("randomk", p, n);
  size_t k = ccsp_count(p[0], n);
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  float *ya = malloc(n * sizeof *ya), *yb = malloc(n * sizeof *yb), *ys = malloc(n * sizeof *ys);
  gaussian(a, n, 41, 1.0), gaussian(b, n, 42, 1.0);
  size_t cap = ccomp_max_wire_bytes(c, n);
  uint8_t *wa = malloc(cap), *wb = malloc(cap), *ws = malloc(cap);
  /* two workers: different private keys, same shared key */
  ccomp_call ca = {.key = 100, .shared_key = 7, .offset = 300}, cb = ca;
  cb.key = 200;
  size_t na = ccomp_encode(c, a, n, &ca, wa), nb = ccomp_encode(c, b, n, &cb, wb);
  CHECK(na == 4 * k && nb == 4 * k, "randomk wrote %zu/%zu, want %zu", na, nb, 4 * k);
  ccomp_decode(c, wa, na, n, 1, &ca, ya);
  ccomp_decode(c, wb, nb, n, 1, &cb, yb);
  size_t nza = 0, same = 0;
  for (size_t i = 0; i < n; i++) {
    nza += ya[i] != 0;
    same += (ya[i] != 0) == (yb[i] != 0);
    if (ya[i] != 0) CHECK(ya[i] == a[i], "randomk value %zu changed", i);
  }
  CHECK(nza == k, "randomk kept %zu distinct indices, want %zu", nza, k);
  CHECK(same == n, "workers picked different indices (%zu of %zu agree)", same, n);
  /* combine: exactly the fp32 sums, and decodes to exactly ya + yb */
  size_t ns = ccomp_combine(c, wa, na, 1, wb, nb, 1, n, &ca, ws);
  CHECK(ns == na, "combine wrote %zu", ns);
  int exact = 1;
  for (size_t r = 0; r < k; r++) {
    float fa, fb, fs;
    memcpy(&fa, wa + 4 * r, 4), memcpy(&fb, wb + 4 * r, 4), memcpy(&fs, ws + 4 * r, 4);
    exact &= fs == fa + fb;
  }
  ccomp_decode(c, ws, ns, n, 2, &ca, ys);
  for (size_t i = 0; i < n; i++) exact &= ys[i] == ya[i] + yb[i];
  CHECK(exact, "randomk combine is not the exact fp32 sum");
  /* another shared key, other indices; ratio 1 keeps everything */
  ccomp_call cc = ca;
  cc.shared_key = 8;
  ccomp_encode(c, a, n, &cc, wb);
  ccomp_decode(c, wb, 4 * k, n, 1, &cc, yb);
  same = 0;
  for (size_t i = 0; i < n; i++) same += (ya[i] != 0) && (yb[i] != 0);
  CHECK(same < k / 2, "a new shared key kept %zu of the same %zu indices", same, k);
  ccomp_free(c);
  double all[2] = {1.0, 1};
  c = make("randomk", all, n);
  uint8_t *wall = malloc(ccomp_max_wire_bytes(c, n));
  ccomp_encode(c, a, n, &ca, wall);
  ccomp_decode(c, wall, 4 * n, n, 1, &ca, ya);
  free(wall);
  CHECK(memcmp(a, ya, n * sizeof *a) == 0, "randomk ratio 1 (scaled) is not the identity");
  ccomp_free(c);
  free(a), free(b), free(ya), free(yb), free(ys), free(wa), free(wb), free(ws);
}

/* E[decode] = x for scaled randomk: S = 20000 shared keys, n = 64, k = 8. */
static void test_randomk_unbiased(void) {
  enum { N = 64, S = 20000 };
  double p[2] = {0.125, 1};
  ccomp *c = make("randomk", p, N);
  float x[N], y[N];
  gaussian(x, N, 51, 1.0);
  double sum[N] = {0}, sum2[N] = {0}, f = 0, f2 = 0, hits[N] = {0};
  uint8_t w[4 * N];
  for (int s = 0; s < S; s++) {
    ccomp_call call = {.key = (uint64_t)s, .shared_key = ccr_key(77, (uint64_t)s)};
    size_t nb = ccomp_encode(c, x, N, &call, w);
    ccomp_decode(c, w, nb, N, 1, &call, y);
    double fs = 0;
    for (int i = 0; i < N; i++) {
      sum[i] += y[i], sum2[i] += (double)y[i] * y[i], hits[i] += y[i] != 0;
      fs += (i % 3 == 0 ? 1.0 : -0.5) * y[i];
    }
    f += fs, f2 += fs * fs;
  }
  double worst = 0, worst_incl = 0, fx = 0;
  for (int i = 0; i < N; i++) {
    double mean = sum[i] / S, var = (sum2[i] / S - mean * mean) * S / (S - 1);
    double z = fabs(mean - x[i]) / sqrt(var / S);
    if (z > worst) worst = z;
    /* inclusion frequency: Binomial(S, 1/8) */
    double zi = fabs(hits[i] - S / 8.0) / sqrt(S * (1.0 / 8) * (7.0 / 8));
    if (zi > worst_incl) worst_incl = zi;
    fx += (i % 3 == 0 ? 1.0 : -0.5) * x[i];
  }
  double fm = f / S, fse = sqrt((f2 / S - fm * fm) / (S - 1));
  fprintf(stderr, "randomk scaled, %d seeds: worst coordinate z = %.2f, functional z = %.2f, "
          "worst inclusion z = %.2f\n", S, worst, fabs(fm - fx) / fse, worst_incl);
  CHECK(worst < 4.5, "randomk scaled biased: a coordinate is %.2f standard errors off", worst);
  CHECK(fabs(fm - fx) < 3 * fse, "randomk scaled biased: functional %.6g vs %.6g (3 se = %.3g)",
        fm, fx, 3 * fse);
  CHECK(worst_incl < 4.5, "randomk inclusion not uniform: z = %.2f", worst_incl);
  ccomp_free(c);
}

/* ---- threshold ------------------------------------------------------------ */

static void test_threshold(void) {
  const size_t n = 10007;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  gaussian(x, n, 61, 1e-2);
  x[5] = 0.02f, x[6] = -0.02f; /* exactly at tau */
  double tau = 0.02;
  ccomp *c = make("threshold", &tau, n);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
  ccomp_call call = {0};
  size_t nb = ccomp_encode(c, x, n, &call, w);
  ccomp_decode(c, w, nb, n, 1, &call, y);
  size_t want = 0, wrong = 0;
  for (size_t i = 0; i < n; i++) {
    int sent = fabsf(x[i]) >= 0.02f;
    want += sent;
    wrong += sent ? y[i] != x[i] : y[i] != 0;
  }
  CHECK(nb == 8 * want && wrong == 0, "threshold: %zu bytes for %zu entries, %zu wrong", nb, want,
        wrong);
  ccomp_free(c);
  free(x), free(y), free(w);
}

/* ---- dgc ------------------------------------------------------------------ */

static void test_dgc_density(void) {
  const size_t n = 1u << 20;
  float *x = malloc(n * sizeof *x);
  gaussian(x, n, 71, 1e-2);
  /* sparsity 99%, sample 1%: k = 10486, m = 10486, the sample's 105th largest */
  double raw[4] = {0.99, 0.01, 0, 0}, ref[4] = {0.99, 0.01, 0, 1};
  ccomp *c0 = make("dgc", raw, n), *c1 = make("dgc", ref, n);
  double topk_ratio = 0.01;
  ccomp *tk = make("topk", &topk_ratio, n);
  size_t k = ccsp_count(0.01, n);
  uint8_t *w = malloc(8 * n), *wt = malloc(8 * k);
  ccomp_call ct = {0};
  size_t ntk = ccomp_encode(tk, x, n, &ct, wt);
  double mean = 0, lo = 1e9, hi = 0;
  int capped = 1, refined_is_topk = 1;
  const int calls = 20;
  for (int s = 0; s < calls; s++) {
    ccomp_call call = {.key = ccr_key(5, (uint64_t)s)};
    double d = (double)ccomp_encode(c0, x, n, &call, w) / 8 / (double)k;
    mean += d / calls;
    lo = fmin(lo, d), hi = fmax(hi, d);
    size_t nb = ccomp_encode(c1, x, n, &call, w);
    capped &= nb <= 8 * k && nb >= (size_t)(0.7 * 8 * k);
    if (d > 1) refined_is_topk &= nb == ntk && memcmp(w, wt, nb) == 0;
  }
  fprintf(stderr, "dgc sampled density / target over %d calls: mean %.3f, range [%.3f, %.3f]\n",
          calls, mean, lo, hi);
  CHECK(lo >= 0.7 && hi <= 1.3, "dgc density outside +-30%%: [%.3f, %.3f]", lo, hi);
  CHECK(fabs(mean - 1) <= 0.07, "dgc mean density off by %.1f%%", 100 * (mean - 1));
  CHECK(capped, "dgc with refinement sent more than k or less than 0.7 k");
  CHECK(refined_is_topk, "dgc refinement is not the exact top-k");
  ccomp_free(c0), ccomp_free(c1), ccomp_free(tk);
  free(x), free(w), free(wt);
}

static void test_dgc_warmup(void) {
  const size_t n = 20000;
  float *x = malloc(n * sizeof *x);
  gaussian(x, n, 81, 1.0);
  /* sample = 1: the sample is the tensor, so the count is exactly k */
  double p[4] = {0.999, 1.0, 400, 1};
  ccomp *c = make("dgc", p, n);
  uint8_t *w = malloc(ccomp_max_wire_bytes(c, n));
  static const uint32_t it[] = {0, 99, 100, 200, 300, 399, 400, 10000};
  static const double sp[] = {0.75, 0.75, 0.9375, 0.984375, 0.99609375, 0.99609375, 0.999, 0.999};
  for (int j = 0; j < 8; j++) {
    ccomp_call call = {.key = 3, .iteration = it[j]};
    size_t nb = ccomp_encode(c, x, n, &call, w);
    CHECK(nb == 8 * ccsp_count(1 - sp[j], n), "dgc warm-up at iteration %u: %zu records, want %zu",
          it[j], nb / 8, ccsp_count(1 - sp[j], n));
  }
  ccomp_free(c);
  free(x), free(w);
}

static void test_dgc_memory(void) {
  char err[CCOMP_ERRLEN];
  const ccomp_memory_type *t = ccomp_memory_find("dgc");
  CHECK(t != NULL, "memory dgc not registered");
  if (!t) return;
  double m = 0.9;
  ccomp_memory *mem = ccomp_memory_new(t, &m, 4, err, sizeof err);
  CHECK(mem != NULL, "%s", err);
  if (!mem) return;
  const float g[4] = {1, 1, 1, 1}, zero[4] = {0};
  float p[4], q[4], own[4] = {0};
  /* step 1: u = g, v = g; nothing sent */
  t->compensate(mem->state, g, 4, 0, p);
  t->compensate(mem->state, g, 4, 0, q); /* compensate must not change the state */
  CHECK(memcmp(p, q, sizeof p) == 0, "dgc compensate changed the state");
  CHECK_NEAR(p[0], 1.0, 0, "step 1: p = v + m u + g");
  t->encoded(mem->state, p, zero, 4, 0);
  /* step 2: u = 0.9 + 1 = 1.9, v = 1 + 1.9 = 2.9; entry 0 is sent */
  t->compensate(mem->state, g, 4, 0, p);
  CHECK_NEAR(p[1], 2.9, 1e-6, "step 2: momentum-corrected accumulation");
  own[0] = p[0];
  t->encoded(mem->state, p, own, 4, 0);
  /* step 3: entry 0 was masked (u = v = 0): p0 = g = 1; entry 1: v + m u + g */
  t->compensate(mem->state, g, 2, 2, q); /* the chunk [2, 4): entry 2 has entry 1's history */
  t->compensate(mem->state, g, 4 - 2, 0, p);
  CHECK_NEAR(p[0], 1.0, 1e-6, "step 3: momentum factor masking of a sent entry");
  CHECK_NEAR(p[1], 2.9 + 0.9 * 1.9 + 1, 1e-5, "step 3: unsent entry keeps its momentum");
  CHECK_NEAR(q[0], p[1], 1e-6, "chunk at an offset sees the same state");
  ccomp_memory_free(mem);
}

int main(void) {
  test_selection();
  test_topk_exact();
  test_randomk_indices_and_combine();
  test_randomk_unbiased();
  test_threshold();
  test_dgc_density();
  test_dgc_warmup();
  test_dgc_memory();
  topk_throughput();
  return check_status("test_sparsifiers");
}
