/* tests/test_signs.c — the sign methods beyond the generic test: signSGD's
 * majority vote is exact (ties give 0), Signum's momentum is keyed by the
 * global index (chunked == whole), EF-signSGD's and onebit's scales, the
 * Marsit combine is unbiased for the mean sign over ring-order and tree-order
 * sequences of combines (within 3 standard errors over many seeds) and is
 * chunk-invariant at unaligned offsets, the naive sign ring's error grows
 * with n, and the ef-sign and marsit memories keep their books (summed over
 * iterations, what was applied equals eta * the summed gradients minus the
 * current error).  Fixed seeds from compressors/rng.h: deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "ccomp/memory.h"
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

/* ---- signSGD majority vote ---------------------------------------------- */

static void test_majority_vote(void) {
  const size_t d = 1001;
  for (uint32_t n = 1; n <= 9; n++) {
    ccomp *c = make("signsgd", NULL, d, n);
    CHECK(!(c->type->flags & CCOMP_SUMMABLE), "signsgd claims to be summable");
    float *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y), *sum = calloc(d, sizeof *sum);
    int *votes = calloc(d, sizeof *votes);
    uint8_t *w = malloc(ccomp_max_wire_bytes(c, d));
    for (uint32_t k = 0; k < n; k++) {
      gaussian_fill(x, d, 50 + k, 1.0);
      if (k == 0) x[0] = 0.0f, x[1] = -0.0f; /* x >= 0: both vote +1 */
      ccomp_call call = {.key = k};
      size_t nb = ccomp_encode(c, x, d, &call, w);
      CHECK(nb == (d + 7) / 8, "signsgd: %zu bytes for %zu elements", nb, d);
      ccomp_decode(c, w, nb, d, 1, &call, y);
      for (size_t i = 0; i < d; i++) sum[i] += y[i], votes[i] += x[i] >= 0.0f ? 1 : -1;
    }
    ccomp_finish(c, sum, d, n);
    int bad = 0, ties = 0;
    for (size_t i = 0; i < d; i++) {
      float want = (float)((votes[i] > 0) - (votes[i] < 0));
      bad += sum[i] != want;
      ties += votes[i] == 0;
    }
    CHECK(bad == 0, "signsgd n=%u: %d majority votes wrong", n, bad);
    CHECK(n % 2 == 1 || ties > 0, "n=%u: no ties exercised", n);
    free(x), free(y), free(sum), free(votes), free(w);
    ccomp_free(c);
  }
}

/* ---- Signum ------------------------------------------------------------- */

static void test_signum(void) {
  const size_t d = 777;
  const double beta = 0.5;
  ccomp *whole = make("signum", &beta, d, 2), *chunked = make("signum", &beta, d, 2);
  float *g1 = malloc(d * sizeof *g1), *g2 = malloc(d * sizeof *g2);
  uint8_t *a = malloc(d), *b = malloc(d);
  gaussian_fill(g1, d, 1, 1.0);
  gaussian_fill(g2, d, 2, 1.0);
  static const size_t cuts[] = {0, 5, 64, 65, 300, 777};
  for (int it = 0; it < 2; it++) {
    const float *g = it ? g2 : g1;
    ccomp_call call = {.key = 1, .iteration = (uint32_t)it};
    ccomp_encode(whole, g, d, &call, a);
    for (int k = 0; k < 5; k++) {
      ccomp_call cc = {.key = 1, .iteration = (uint32_t)it, .offset = cuts[k]};
      size_t m = cuts[k + 1] - cuts[k];
      uint8_t buf[128];
      ccomp_encode(chunked, g + cuts[k], m, &cc, buf);
      for (size_t i = 0; i < m; i++) {
        size_t gi = cuts[k] + i;
        int bw = (a[gi / 8] >> (gi % 8)) & 1, bc = (buf[i / 8] >> (i % 8)) & 1;
        CHECK(bw == bc, "signum it=%d: element %zu differs chunked", it, gi);
        if (bw != bc) break;
      }
    }
  }
  /* after two steps m = beta (1 - beta) g1 + (1 - beta) g2 */
  int bad = 0;
  for (size_t i = 0; i < d; i++) {
    float m = 0.5f * (0.5f * g1[i]) + 0.5f * g2[i];
    bad += ((a[i / 8] >> (i % 8)) & 1) != (m >= 0.0f);
  }
  CHECK(bad == 0, "signum: %d bits are not sign(beta m + (1 - beta) g)", bad);
  /* beta = 1 would never move: refused, naming the parameter */
  char err[CCOMP_ERRLEN] = "";
  double one = 1.0;
  ccomp_setup su = {.n = d, .workers = 2};
  CHECK(ccomp_new(ccomp_find("signum"), &one, &su, err, sizeof err) == NULL && strstr(err, "beta"),
        "signum beta = 1: %s", err);
  free(g1), free(g2), free(a), free(b);
  ccomp_free(whole), ccomp_free(chunked);
}

/* ---- scaled signs: ef-signsgd, sign-ring, onebit ------------------------ */

static void test_scales(void) {
  const size_t d = 1001;
  float *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
  gaussian_fill(x, d, 77, 1e-2);
  uint8_t *w = malloc(d);
  ccomp_call call = {.key = 3};
  /* ef-signsgd: scale ||x||_1 / d, values +-scale */
  ccomp *c = make("ef-signsgd", NULL, d, 4);
  size_t nb = ccomp_encode(c, x, d, &call, w);
  CHECK(nb == 4 + (d + 7) / 8, "ef-signsgd wire %zu", nb);
  double l1 = 0;
  for (size_t i = 0; i < d; i++) l1 += fabs((double)x[i]);
  CHECK_NEAR(qb_getf(w), l1 / d, 1e-6 * l1 / d, "ef-signsgd scale");
  ccomp_decode(c, w, nb, d, 1, &call, y);
  int bad = 0;
  for (size_t i = 0; i < d; i++) bad += y[i] != (x[i] >= 0 ? qb_getf(w) : -qb_getf(w));
  CHECK(bad == 0, "ef-signsgd: %d values are not +-scale", bad);
  ccomp_free(c);
  /* sign-ring unscaled: alpha = 1 */
  double unscaled = 0;
  c = make("sign-ring", &unscaled, d, 4);
  nb = ccomp_encode(c, x, d, &call, w);
  CHECK(qb_getf(w) == 1.0f && nb == 4 + (d + 7) / 8, "sign-ring scaled=false: alpha %g", qb_getf(w));
  ccomp_free(c);
  /* onebit: each side's sum is kept */
  c = make("onebit", NULL, d, 4);
  nb = ccomp_encode(c, x, d, &call, w);
  CHECK(nb == 8 + (d + 7) / 8, "onebit wire %zu, want d/8 + 8", nb);
  ccomp_decode(c, w, nb, d, 1, &call, y);
  double sp = 0, sn = 0, yp = 0, yn = 0;
  for (size_t i = 0; i < d; i++) {
    if (x[i] >= 0) sp += x[i], yp += y[i];
    else sn += x[i], yn += y[i];
  }
  CHECK_NEAR(yp, sp, 1e-5 * fabs(sp), "onebit: sum of the non-negative side");
  CHECK_NEAR(yn, sn, 1e-5 * fabs(sn), "onebit: sum of the negative side");
  CHECK(qb_getf(w) >= 0 && qb_getf(w + 4) <= 0, "onebit means %g %g", qb_getf(w), qb_getf(w + 4));
  ccomp_free(c);
  free(x), free(y), free(w);
}

/* ---- Marsit ------------------------------------------------------------- */

typedef struct {
  ccomp *c;
  float **xs;
  uint32_t n;
  size_t d;
  int tree;
  uint8_t **p; /* per worker payloads */
  uint8_t *tmp;
} mz_ctx;

/* One all-reduce of n sign payloads: in ring order (acc + worker w, w =
 * 1 .. n-1) or in tree order (pairs, then pairs of pairs, uneven at the
 * end); every combine has its own key, as the collectives give them. */
static void mz_sample(void *vctx, int s, float *y) {
  mz_ctx *m = vctx;
  const size_t nb = 4 + (m->d + 7) / 8;
  const uint64_t skey = ccr_key(555, (uint64_t)s);
  uint32_t k[64] = {0};
  for (uint32_t w = 0; w < m->n; w++) {
    ccomp_call call = {.key = 0};
    ccomp_encode(m->c, m->xs[w], m->d, &call, m->p[w]);
    k[w] = 1;
  }
  uint64_t hop = 0;
  if (!m->tree) {
    for (uint32_t w = 1; w < m->n; w++) {
      ccomp_call call = {.key = ccr_key(skey, hop++)};
      ccomp_combine(m->c, m->p[0], nb, k[0], m->p[w], nb, 1, m->d, &call, m->tmp);
      memcpy(m->p[0], m->tmp, nb);
      k[0] += 1;
    }
  } else {
    for (uint32_t stride = 1; stride < m->n; stride *= 2)
      for (uint32_t w = 0; w + stride < m->n; w += 2 * stride) {
        ccomp_call call = {.key = ccr_key(skey, hop++)};
        ccomp_combine(m->c, m->p[w], nb, k[w], m->p[w + stride], nb, k[w + stride], m->d, &call,
                      m->tmp);
        memcpy(m->p[w], m->tmp, nb);
        k[w] += k[w + stride];
      }
  }
  CHECK(k[0] == m->n && qb_get32(m->p[0]) == m->n, "marsit: combined count %u", qb_get32(m->p[0]));
  ccomp_call call = {.key = 0};
  ccomp_decode(m->c, m->p[0], nb, m->d, m->n, &call, y);
  ccomp_finish(m->c, y, m->d, m->n);
}

static void test_marsit_unbiased(uint32_t n, int tree, int S) {
  const size_t d = 150;
  mz_ctx m = {.c = make("marsit", NULL, d, n), .n = n, .d = d, .tree = tree};
  m.xs = malloc(n * sizeof *m.xs);
  m.p = malloc(n * sizeof *m.p);
  m.tmp = malloc(4 + d);
  float *target = calloc(d, sizeof *target);
  for (uint32_t w = 0; w < n; w++) {
    m.xs[w] = malloc(d * sizeof(float));
    m.p[w] = malloc(4 + d);
    gaussian_fill(m.xs[w], d, 900 + w, 1.0);
    for (size_t i = 0; i < d; i++) m.xs[w][i] += (float)((double)i / d - 0.5); /* spread the means */
    for (size_t i = 0; i < d; i++) target[i] += (m.xs[w][i] >= 0 ? 1.0f : -1.0f) / (float)n;
  }
  char what[96];
  snprintf(what, sizeof what, "marsit mean sign of %u workers, %s order", n, tree ? "tree" : "ring");
  check_unbiased(what, d, S, target, mz_sample, &m, 1e-6, 2.0);
  for (uint32_t w = 0; w < n; w++) free(m.xs[w]), free(m.p[w]);
  free(m.xs), free(m.p), free(m.tmp), free(target);
  ccomp_free(m.c);
}

/* The combine's mask against its rule written out one coordinate at a
 * time (marsit.c's header): coordinate g takes A's bit when U < p, where
 * p = floor(ka 2^64 / (ka + kb)) and U's binary digit j is bit g mod 64 of
 * ccr_u64(key', 64 (g / 64) + j), key' = ccr_key(ccr_key(call.key,
 * "marsit-m"), ka << 32 | kb).  Both paths (AVX-512 and portable: meson
 * runs this test with CCSIM_NO_AVX512=1 too) must give these bits exactly,
 * at any offset and length, for counts with long and short digit strings
 * of p (1:1 ends after one digit). */
static int rule_takes_a(uint64_t key2, uint64_t g, uint64_t p) {
  const uint64_t W = g / 64, lane = g % 64;
  for (int j = 0; j < 64; j++) {
    const int r = (int)((ccr_u64(key2, W * 64 + (uint64_t)j) >> lane) & 1), pj = (int)((p >> (63 - j)) & 1);
    if (r != pj) return pj; /* decided here: U < p where p has the 1 */
  }
  return 0; /* U equals p in 64 digits: not below it */
}

static void test_marsit_rule(void) {
  static const uint32_t counts[][2] = {{1, 1}, {1, 2}, {2, 1}, {3, 5}, {7, 1}, {1, 1023}, {1023, 1},
                                       {512, 512}, {341, 682}, {5, 1019}, {1, 0}, {100000, 3}};
  static const size_t offsets[] = {0, 1, 63, 64, 130, 4095};
  static const size_t lengths[] = {1, 7, 63, 64, 65, 200, 2049, 4100};
  const size_t dmax = 4100;
  ccomp *c = make("marsit", NULL, dmax, 8);
  float *x = malloc(dmax * sizeof *x), *z = malloc(dmax * sizeof *z);
  gaussian_fill(x, dmax, 11, 1.0);
  gaussian_fill(z, dmax, 12, 1.0);
  const size_t nb = 4 + (dmax + 7) / 8;
  uint8_t *a = malloc(nb), *b = malloc(nb), *o = malloc(nb);
  long checked = 0, bad = 0;
  for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
    for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; oi++)
      for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        const uint32_t ka = counts[ci][0], kb = counts[ci][1];
        const size_t n = lengths[li], off = offsets[oi];
        ccomp_call call = {.key = ccr_key(77, ci * 1000 + oi * 10 + li), .offset = off};
        ccomp_encode(c, x, n, &call, a);
        ccomp_encode(c, z, n, &call, b);
        qb_put32(a, ka);
        qb_put32(b, kb);
        ccomp_combine(c, a, 4 + (n + 7) / 8, ka, b, 4 + (n + 7) / 8, kb, n, &call, o);
        CHECK(qb_get32(o) == ka + kb, "marsit: count %u after %u + %u", qb_get32(o), ka, kb);
        const uint64_t p = kb ? (uint64_t)(((unsigned __int128)ka << 64) / ((uint64_t)ka + kb)) : UINT64_MAX;
        const uint64_t key2 = ccr_key(ccr_key(call.key, 0x6d61727369742d6dull), (uint64_t)ka << 32 | kb);
        for (size_t i = 0; i < n; i++) {
          const int bo = (o[4 + i / 8] >> (i % 8)) & 1, ba = x[i] >= 0, bb = z[i] >= 0;
          const int want = rule_takes_a(key2, off + i, p) ? ba : bb;
          checked++;
          if (bo != want && bad++ < 5)
            fprintf(stderr, "marsit %u:%u offset %zu length %zu: bit %zu is %d, the rule says %d\n", ka, kb, off, n,
                    i, bo, want);
        }
      }
  printf("marsit rule: %ld bits checked (%s), %ld differ\n", checked,
         getenv("CCSIM_NO_AVX512") ? "portable path" : "this machine's path", bad);
  CHECK(bad == 0, "marsit: %ld of %ld combined bits differ from the rule", bad, checked);
  free(x), free(z), free(a), free(b), free(o);
  ccomp_free(c);
}

/* Combining chunks at their offsets gives the bits of the whole combine;
 * where both sides agree the output is that bit, whatever the mask. */
static void test_marsit_chunks(void) {
  const size_t d = 1000;
  static const size_t cuts[] = {0, 1, 37, 64, 100, 191, 500, 777, 1000};
  ccomp *c = make("marsit", NULL, d, 8);
  float *x = malloc(d * sizeof *x), *z = malloc(d * sizeof *z);
  gaussian_fill(x, d, 1, 1.0);
  gaussian_fill(z, d, 2, 1.0);
  const size_t nb = 4 + (d + 7) / 8;
  uint8_t *a = malloc(nb), *b = malloc(nb), *o = malloc(nb), *oc = malloc(nb);
  for (uint32_t ka = 1; ka <= 5; ka += 2) {
    ccomp_call call = {.key = ccr_key(9, ka)};
    ccomp_encode(c, x, d, &call, a);
    ccomp_encode(c, z, d, &call, b);
    qb_put32(a, ka); /* pretend a already holds ka workers */
    ccomp_combine(c, a, nb, ka, b, nb, 1, d, &call, o);
    CHECK(qb_get32(o) == ka + 1, "marsit: count %u after %u + 1", qb_get32(o), ka);
    int bad = 0, agree_bad = 0, froma = 0, diff = 0;
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
      size_t lo = cuts[k], m = cuts[k + 1] - lo;
      uint8_t ca[132], cb[132];
      ccomp_call cc = {.key = ccr_key(9, ka), .offset = lo};
      ccomp_encode(c, x + lo, m, &cc, ca);
      ccomp_encode(c, z + lo, m, &cc, cb);
      qb_put32(ca, ka);
      ccomp_combine(c, ca, 4 + (m + 7) / 8, ka, cb, 4 + (m + 7) / 8, 1, m, &cc, oc);
      for (size_t i = 0; i < m; i++) {
        size_t g = lo + i;
        int bw = (o[4 + g / 8] >> (g % 8)) & 1, bc = (oc[4 + i / 8] >> (i % 8)) & 1;
        int ba = x[g] >= 0, bb = z[g] >= 0;
        bad += bw != bc;
        agree_bad += ba == bb && bw != ba;
        if (ba != bb) diff++, froma += bw == ba;
      }
    }
    CHECK(bad == 0, "marsit ka=%u: %d bits differ between chunked and whole combine", ka, bad);
    CHECK(agree_bad == 0, "marsit: %d agreeing bits changed", agree_bad);
    /* the share taken from a is ka/(ka+1): loose binomial check, 5 SE */
    double p = (double)ka / (ka + 1), se = sqrt(p * (1 - p) / diff);
    CHECK(fabs((double)froma / diff - p) <= 5 * se, "marsit ka=%u: took a %d of %d", ka, froma, diff);
  }
  free(x), free(z), free(a), free(b), free(o), free(oc);
  ccomp_free(c);
}

/* ---- the naive sign ring cascades --------------------------------------- */

/* Relative error of the naive ring's mean against the exact mean, n workers
 * whose gradients share a signal and add their own noise. */
static double sign_ring_error(uint32_t n, size_t d) {
  ccomp *c = make("sign-ring", NULL, d, n);
  CHECK(!(c->type->flags & CCOMP_SUMMABLE), "sign-ring claims to be summable");
  float *g = malloc(d * sizeof *g), *y = malloc(d * sizeof *y), *sig = malloc(d * sizeof *sig);
  double *exact = calloc(d, sizeof *exact);
  uint8_t *w = malloc(4 + d);
  gaussian_fill(sig, d, 4, 1.0);
  size_t nb = 0;
  for (uint32_t k = 0; k < n; k++) {
    gaussian_fill(g, d, 40 + k, 1.0);
    for (size_t i = 0; i < d; i++) g[i] += sig[i], exact[i] += g[i] / n;
    ccomp_call call = {.key = k};
    if (k) { /* decode the partial aggregate, add, re-sign */
      ccomp_decode(c, w, nb, d, k, &call, y);
      for (size_t i = 0; i < d; i++) g[i] += y[i];
    }
    nb = ccomp_encode(c, g, d, &call, w);
  }
  ccomp_call call = {0};
  ccomp_decode(c, w, nb, d, n, &call, y);
  ccomp_finish(c, y, d, n);
  double e = 0, s = 0;
  for (size_t i = 0; i < d; i++) e += (y[i] - exact[i]) * (y[i] - exact[i]), s += exact[i] * exact[i];
  free(g), free(y), free(sig), free(exact), free(w);
  ccomp_free(c);
  return sqrt(e / s);
}

static void test_sign_ring_cascade(void) {
  double prev = 0;
  for (uint32_t n = 2; n <= 64; n *= 2) {
    double e = sign_ring_error(n, 4096);
    fprintf(stderr, "sign-ring: n = %2u, relative error of the mean %.3f\n", n, e);
    CHECK(e > prev, "sign-ring: error %.4f at n = %u does not grow (was %.4f)", e, n, prev);
    prev = e;
  }
}

/* ---- memories ----------------------------------------------------------- */

/* A memory with a compressor: sum over iterations of what was sent equals
 * eta * (sum of gradients) - e (telescoping of e = p - C(p)), and e is the
 * last iteration's p - C(p) (ef-sign with ef-signsgd; residual, eta = 1,
 * with 1-bit SGD). */
static void test_memory_books(const char *memory, const double *params, double eta, const char *compressor) {
  const size_t d = 300;
  const int T = 20;
  char err[CCOMP_ERRLEN];
  ccomp_memory *mem = ccomp_memory_new(ccomp_memory_find(memory), params, d, err, sizeof err);
  CHECK(mem != NULL, "%s: %s", memory, err);
  if (!mem) return;
  ccomp *c = make(compressor, NULL, d, 1);
  float *g = malloc(d * sizeof *g), *p = malloc(d * sizeof *p), *own = malloc(d * sizeof *own);
  double *sent = calloc(d, sizeof *sent), *gs = calloc(d, sizeof *gs);
  uint8_t *w = malloc(4 + d);
  for (int t = 0; t < T; t++) {
    gaussian_fill(g, d, 70 + (uint64_t)t, 1.0);
    for (size_t lo = 0; lo < d; lo += 100) { /* in chunks, as a collective would */
      mem->type->compensate(mem->state, g + lo, 100, lo, p + lo);
      ccomp_call call = {.offset = lo};
      size_t nb = ccomp_encode(c, p + lo, 100, &call, w);
      ccomp_decode(c, w, nb, 100, 1, &call, own + lo);
      mem->type->encoded(mem->state, p + lo, own + lo, 100, lo);
    }
    for (size_t i = 0; i < d; i++) sent[i] += own[i], gs[i] += eta * g[i];
  }
  /* e = p - own of the last iteration */
  double worst = 0;
  for (size_t i = 0; i < d; i++) worst = fmax(worst, fabs(sent[i] + (p[i] - own[i]) - gs[i]));
  CHECK(worst < 1e-5, "%s: books off by %g", memory, worst);
  /* the memory holds that e: compensating a zero gradient gives it back */
  for (size_t i = 0; i < d; i++) g[i] = 0;
  mem->type->compensate(mem->state, g, d, 0, own);
  worst = 0;
  for (size_t i = 0; i < d; i++) worst = fmax(worst, fabs(own[i] - (gs[i] - sent[i])));
  CHECK(worst < 1e-5, "%s: the memory is not p - C(p): off by %g", memory, worst);
  free(g), free(p), free(own), free(sent), free(gs), free(w);
  ccomp_free(c);
  ccomp_memory_free(mem);
}

static void test_ef_sign_memory(void) {
  const double eta = 0.1;
  test_memory_books("ef-sign", &eta, eta, "ef-signsgd");
  test_memory_books("residual", NULL, 1.0, "onebit");
  char err[CCOMP_ERRLEN];
  double bad_eta = -1;
  CHECK(ccomp_memory_new(ccomp_memory_find("ef-sign"), &bad_eta, 300, err, sizeof err) == NULL &&
            strstr(err, "eta"),
        "ef-sign eta = -1: %s", err);
}

/* marsit memory: e = p - gamma ((1 - beta) sign(p) + beta s) after the
 * aggregate s arrives; over T iterations, for any beta,
 * sum gamma ((1 - beta) b_t + beta s_t) = eta sum g_t - e_T. */
static void test_marsit_memory(void) {
  const size_t d = 200;
  const int T = 30;
  char err[CCOMP_ERRLEN];
  const ccomp_memory_type *mt = ccomp_memory_find("marsit");
  CHECK(mt && (mt->flags & CCOMP_MEM_AGGREGATE) && mt->nparams == 3,
        "marsit memory missing, without AGGREGATE, or not 3 parameters");
  for (int bi = 0; bi < 3; bi++) {
    /* eta 0.5 once: the books then hold eta times the gradients */
    const double beta = bi * 0.5, gamma = 0.5, eta = bi == 1 ? 0.5 : 1.0, params[3] = {eta, gamma, beta};
    ccomp_memory *mem = ccomp_memory_new(mt, params, d, err, sizeof err);
    CHECK(mem != NULL, "marsit memory: %s", err);
    if (!mem) return;
    float *g = malloc(d * sizeof *g), *p = malloc(d * sizeof *p), *s = malloc(d * sizeof *s);
    double *applied = calloc(d, sizeof *applied), *gs = calloc(d, sizeof *gs);
    for (int t = 0; t < T; t++) {
      gaussian_fill(g, d, 170 + (uint64_t)t, 0.3);
      mem->type->compensate(mem->state, g, d, 0, p);
      mem->type->compensate(mem->state, g, d, 0, s); /* compensate does not change the state */
      CHECK(memcmp(p, s, d * sizeof *p) == 0, "marsit memory: compensate changed the state");
      mem->type->encoded(mem->state, p, NULL, d, 0);
      /* an aggregate that disagrees with this worker's sign on every third coordinate */
      for (size_t i = 0; i < d; i++) s[i] = ((p[i] >= 0) ^ (i % 3 == 0)) ? 1.0f : -1.0f;
      mem->type->aggregated(mem->state, s, d, 0);
      for (size_t i = 0; i < d; i++) {
        const double own = p[i] >= 0 ? 1.0 : -1.0;
        applied[i] += gamma * ((1 - beta) * own + beta * s[i]), gs[i] += eta * g[i];
      }
    }
    mem->type->compensate(mem->state, g, d, 0, p); /* p = e_T + eta g: recover e_T */
    double worst = 0, emax = 0;
    for (size_t i = 0; i < d; i++) {
      const double e = (double)p[i] - eta * g[i];
      worst = fmax(worst, fabs(applied[i] + e - gs[i]));
      if (i % 3) emax = fmax(emax, fabs(e)); /* where the aggregate agreed with this worker */
    }
    CHECK(worst < 1e-4, "marsit memory beta %g: books off by %g", beta, worst);
    /* sigma-delta: where the aggregate is this worker's own sign, e = p - gamma sign(p)
     * for every beta, and with |g| mostly below gamma the error stays bounded */
    CHECK(emax < 3.0, "marsit memory beta %g: error grew to %g", beta, emax);
    free(g), free(p), free(s), free(applied), free(gs);
    ccomp_memory_free(mem);
  }
  double bad[3] = {1.0, 0.0, 0.5};
  CHECK(ccomp_memory_new(mt, bad, d, err, sizeof err) == NULL && strstr(err, "gamma"),
        "marsit gamma = 0: %s", err);
  double bad_beta[3] = {1.0, 1.0, 1.5};
  CHECK(ccomp_memory_new(mt, bad_beta, d, err, sizeof err) == NULL && strstr(err, "beta"),
        "marsit beta = 1.5: %s", err);
}

/* Why beta < 1: n workers with iid gradients g_i = mu + noise_i share one
 * aggregate s (the sign of a uniformly chosen worker, as Marsit's bit-wise
 * aggregation gives).  Each worker's deviation from the mean memory,
 * e_i - mean_j e_j, collects eta (g_i - mean g) every step; with beta = 1
 * nothing pulls it back (a random walk: its RMS after T steps is about
 * eta sigma sqrt(T (n-1)/n) = 0.3 sqrt(4000) = 19 here), with beta = 0.5
 * the worker's own sign does (a sigma-delta loop: it stays of order gamma).
 * Bounds: beta 0.5 RMS < 1.5 gamma, beta 1 RMS > 8 (d x n = 3200 samples
 * of the deviation, each RMS a mean over all of them). */
static void test_marsit_drift(void) {
  enum { N = 16, D = 200, T = 4000 };
  const double gamma = 1.0, mu = 0.1, sigma = 0.3;
  char err[CCOMP_ERRLEN];
  const ccomp_memory_type *mt = ccomp_memory_find("marsit");
  double rms[2];
  for (int bi = 0; bi < 2; bi++) {
    const double params[3] = {1.0, gamma, bi ? 1.0 : 0.5};
    ccomp_memory *mem[N];
    for (int w = 0; w < N; w++) {
      mem[w] = ccomp_memory_new(mt, params, D, err, sizeof err);
      CHECK(mem[w] != NULL, "marsit memory: %s", err);
      if (!mem[w]) return;
    }
    float *g = malloc(D * sizeof *g), *p = malloc((size_t)N * D * sizeof *p), *s = malloc(D * sizeof *s);
    for (int t = 0; t < T; t++) {
      for (int w = 0; w < N; w++) {
        gaussian_fill(g, D, 9000 + (uint64_t)t * N + (uint64_t)w, sigma);
        for (size_t i = 0; i < D; i++) g[i] += (float)mu;
        mem[w]->type->compensate(mem[w]->state, g, D, 0, p + (size_t)w * D);
        mem[w]->type->encoded(mem[w]->state, p + (size_t)w * D, NULL, D, 0);
      }
      for (size_t i = 0; i < D; i++) {
        const size_t pick = ccr_u64(0x5eed, (uint64_t)t * D + i) % N;
        s[i] = p[pick * D + i] >= 0 ? 1.0f : -1.0f;
      }
      for (int w = 0; w < N; w++) mem[w]->type->aggregated(mem[w]->state, s, D, 0);
    }
    /* e_w = compensate(0) */
    memset(g, 0, D * sizeof *g);
    for (int w = 0; w < N; w++) mem[w]->type->compensate(mem[w]->state, g, D, 0, p + (size_t)w * D);
    double ss = 0;
    for (size_t i = 0; i < D; i++) {
      double mean = 0;
      for (int w = 0; w < N; w++) mean += p[(size_t)w * D + i] / N;
      for (int w = 0; w < N; w++) ss += pow(p[(size_t)w * D + i] - mean, 2);
    }
    rms[bi] = sqrt(ss / (N * D));
    for (int w = 0; w < N; w++) ccomp_memory_free(mem[w]);
    free(g), free(p), free(s);
  }
  printf("marsit memory: workers' deviation from the mean memory after %d steps, RMS %.3f "
         "(beta 0.5), %.3f (beta 1)\n", T, rms[0], rms[1]);
  CHECK(rms[0] < 1.5 * gamma, "marsit beta 0.5: workers' memories drifted apart, RMS %g", rms[0]);
  CHECK(rms[1] > 8.0, "marsit beta 1: expected the drift random walk (RMS ~19), got %g", rms[1]);
}

int main(void) {
  test_majority_vote();
  test_signum();
  test_scales();
  test_marsit_rule();
  test_marsit_chunks();
  test_marsit_unbiased(5, 0, 4000);
  test_marsit_unbiased(8, 0, 4000);
  test_marsit_unbiased(8, 1, 4000);
  test_marsit_unbiased(6, 1, 4000); /* uneven tree: a 4-worker side meets a 2-worker side */
  test_sign_ring_cascade();
  test_ef_sign_memory();
  test_marsit_memory();
  test_marsit_drift();
  return check_status("test_signs");
}
