/* tests/test_gqsgd_exp.c — global-qsgd with dithering = exponential
 * (compressors/gqsgd_exp.c): the codes of exact powers of two, the wire
 * (4 + ceil(d B / 8) bytes, field by field, zero padding), the exact combine
 * cases, and unbiasedness over many seeds of (a) one worker's rounding,
 * (b) every pair combine, (c) whole all-reduces combined hop by hop in ring
 * (chain) order and in binary-tree order, at 4, 7 and 16 workers, at 8 and
 * at 4 bits.  The statistical bound is tests/unbiased.h's: every functional
 * within 3 standard errors, every coordinate within 5, and no more
 * coordinates beyond 3 than chance explains.  Also: the headroom at the
 * largest worker count the bits allow (every code stays >= 1) and the
 * refusal beyond it, and that the default is still standard dithering,
 * byte for byte.  All draws from compressors/rng.h with fixed keys. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "qbits.h"
#include "ccomp/rng.h"
#include "unbiased.h"

static ccomp *make(unsigned bits, int exponential, size_t d, uint32_t workers) {
  char err[CCOMP_ERRLEN] = "";
  const double par[2] = {bits, exponential};
  ccomp_setup su = {.n = d, .workers = workers, .rank = 0, .seed = 1};
  ccomp *c = ccomp_new(ccomp_find("global-qsgd"), par, &su, err, sizeof err);
  CHECK(c != NULL, "bits=%u workers=%u: %s", bits, workers, err);
  if (!c) exit(1);
  return c;
}

/* Field i of a B-bit two's complement stream, read bit by bit. */
static int32_t field(const uint8_t *s, size_t i, unsigned B) {
  uint32_t v = 0;
  for (unsigned k = 0; k < B; k++) v |= (uint32_t)(s[(i * B + k) / 8] >> ((i * B + k) % 8) & 1) << k;
  return v >> (B - 1) ? (int32_t)v - (int32_t)(1u << B) : (int32_t)v;
}

/* Exact powers of two of M are levels: their codes are deterministic. */
static void test_codes_and_wire(void) {
  const float M = 3.0f;
  const float x[8] = {M, -M, M / 2, -M / 4, 0.0f, -0.0f, M * 0x1p-10f, -M / 8};
  static const unsigned bitsv[] = {5, 8, 16};
  for (int bi = 0; bi < 3; bi++) {
    const unsigned B = bitsv[bi];
    const int32_t n = 4, want[8] = {n, -n, n + 1, -(n + 2), 0, 0, n + 10, -(n + 3)};
    ccomp *c = make(B, 1, 8, (uint32_t)n);
    uint8_t w[64];
    memset(w, 0xEE, sizeof w);
    ccomp_call call = {.key = 9, .global_max = M};
    const size_t nb = ccomp_encode(c, x, 8, &call, w), want_nb = 4 + (8 * B + 7) / 8;
    CHECK(nb == want_nb && ccomp_max_wire_bytes(c, 8) == want_nb, "bits=%u: %zu bytes, want %zu", B,
          nb, want_nb);
    CHECK(qb_getf(w) == M, "bits=%u: header is not M", B);
    float y[8];
    ccomp_decode(c, w, nb, 8, 1, &call, y);
    for (int i = 0; i < 8; i++) {
      CHECK(field(w + 4, (size_t)i, B) == want[i], "bits=%u x[%d]: code %d, want %d", B, i,
            field(w + 4, (size_t)i, B), want[i]);
      CHECK(y[i] == x[i], "bits=%u x[%d] = %g decodes to %g", B, i, x[i], y[i]);
    }
    CHECK(w[nb] == 0xEE, "bits=%u: wrote past the payload", B);
    ccomp_free(c);
  }
  /* sizes that are not multiples of 8 or 64: exact bytes, zero padding */
  static const size_t sizes[] = {1, 3, 7, 9, 63, 65, 1001};
  for (size_t si = 0; si < 7; si++)
    for (unsigned B = 3; B <= 16; B++) {
      const size_t d = sizes[si], want_nb = 4 + (d * B + 7) / 8;
      ccomp *c = make(B, 1, d, 2);
      float *xs = malloc(d * sizeof *xs);
      gaussian_fill(xs, d, d * 31 + B, 1.0);
      uint8_t *a = calloc(want_nb + 8, 1), *b = calloc(want_nb + 8, 1), *o = calloc(want_nb + 8, 1);
      ccomp_call call = {.key = B, .global_max = qb_max_abs(xs, d)};
      const size_t na = ccomp_encode(c, xs, d, &call, a);
      call.key = B + 100;
      const size_t nb2 = ccomp_encode(c, xs, d, &call, b);
      const size_t no = ccomp_combine(c, a, na, 1, b, nb2, 1, d, &call, o);
      CHECK(na == want_nb && nb2 == want_nb && no == want_nb, "d=%zu bits=%u: %zu/%zu/%zu bytes, want %zu",
            d, B, na, nb2, no, want_nb);
      const size_t pad = (want_nb - 4) * 8 - d * B;
      for (size_t k = 0; k < pad; k++) {
        const size_t bit = d * B + k;
        CHECK(!((a[4 + bit / 8] >> (bit % 8)) & 1) && !((o[4 + bit / 8] >> (bit % 8)) & 1),
              "d=%zu bits=%u: padding bit %zu set", d, B, k);
      }
      const int32_t emax = (int32_t)((1u << (B - 1)) - 1);
      int bad = 0;
      for (size_t i = 0; i < d; i++) {
        const int32_t q = field(a + 4, i, B), s = field(o + 4, i, B);
        bad += !(q == 0 || (abs(q) >= 2 && abs(q) <= emax)) || abs(s) > emax;
      }
      CHECK(bad == 0, "d=%zu bits=%u: %d codes out of range", d, B, bad);
      free(xs), free(a), free(b), free(o);
      ccomp_free(c);
    }
}

/* Payload of codes q[d] under M = 1. */
static void pack(const int32_t *q, size_t d, unsigned B, uint8_t *out) {
  qb_putf(out, 1.0f);
  qb_pack_int(q, d, B, out + 4);
}

/* Cases whose sum is itself a level: the combine is exact. */
static void test_combine_exact(void) {
  const unsigned B = 8;
  const int32_t a[6] = {5, 5, 5, 0, -7, 9}, b[6] = {5, -5, -6, -9, 0, -10};
  const int32_t want[6] = {4, 0, 6, -9, -7, 10}; /* 2+2 = 4, x - x = 0, 1 - 1/2 = 1/2, ... */
  ccomp *c = make(B, 1, 6, 8);
  uint8_t pa[16], pb[16], po[16];
  pack(a, 6, B, pa), pack(b, 6, B, pb);
  for (uint64_t key = 0; key < 50; key++) {
    ccomp_call call = {.key = key, .global_max = 1.0f};
    ccomp_combine(c, pa, 10, 3, pb, 10, 2, 6, &call, po);
    for (int i = 0; i < 6; i++)
      CHECK(field(po + 4, (size_t)i, B) == want[i], "combine(%d, %d) = %d, want %d", a[i], b[i],
            field(po + 4, (size_t)i, B), want[i]);
  }
  ccomp_free(c);
}

/* ---- unbiasedness ---------------------------------------------------------- */

typedef struct {
  ccomp *c;
  unsigned B;
  size_t d;
  uint32_t n;
  const float *x;         /* one worker: its vector */
  float **xs;             /* all-reduce: n vectors */
  int tree;               /* combine order: 0 ring chain, 1 binary tree */
  const int32_t *qa, *qb; /* pair combine: the two code vectors */
  uint8_t *buf;           /* n payloads of cap bytes */
  size_t cap;
} ctx;

static void one_worker(void *v, int s, float *y) {
  ctx *t = v;
  ccomp_call call = {.key = ccr_key(21, (uint64_t)s), .global_max = qb_max_abs(t->x, t->d)};
  size_t nb = ccomp_encode(t->c, t->x, t->d, &call, t->buf);
  ccomp_decode(t->c, t->buf, nb, t->d, 1, &call, y);
}

static void pair(void *v, int s, float *y) {
  ctx *t = v;
  uint8_t *a = t->buf, *b = a + t->cap, *o = b + t->cap;
  pack(t->qa, t->d, t->B, a), pack(t->qb, t->d, t->B, b);
  ccomp_call call = {.key = ccr_key(22, (uint64_t)s), .global_max = 1.0f};
  size_t no = ccomp_combine(t->c, a, t->cap, 1, b, t->cap, 1, t->d, &call, o);
  ccomp_decode(t->c, o, no, t->d, 2, &call, y);
}

/* One all-reduce: every worker encodes under the global max with its own
 * key; payloads are combined in ring order (a chain: ((w0 + w1) + w2) ...)
 * or binary-tree order (pairs, then pairs of pairs), each combine with its
 * own key as a collective's hops have; the sum is decoded and finished. */
static void allreduce(void *v, int s, float *y) {
  ctx *t = v;
  float M = 0;
  for (uint32_t w = 0; w < t->n; w++) M = fmaxf(M, qb_max_abs(t->xs[w], t->d));
  uint32_t *k = malloc(t->n * sizeof *k);
  size_t nb = 0;
  for (uint32_t w = 0; w < t->n; w++) {
    ccomp_call call = {.key = ccr_key(ccr_key(23, (uint64_t)s), w), .global_max = M};
    nb = ccomp_encode(t->c, t->xs[w], t->d, &call, t->buf + w * t->cap);
    k[w] = 1;
  }
  uint8_t *tmp = malloc(t->cap);
  /* ring: worker 0 absorbs 1, 2, ... in turn; tree: w absorbs w + stride */
  for (uint32_t stride = 1; stride < t->n; stride = t->tree ? 2 * stride : stride + 1)
    for (uint32_t w = 0; w + stride < t->n; w += t->tree ? 2 * stride : t->n) {
      const uint32_t j = w + stride;
      ccomp_call call = {.key = ccr_key(ccr_key(24, (uint64_t)s), (uint64_t)stride << 32 | j),
                         .global_max = M};
      uint8_t *acc = t->buf + w * t->cap;
      nb = ccomp_combine(t->c, acc, nb, k[w], t->buf + j * t->cap, nb, k[j], t->d, &call, tmp);
      memcpy(acc, tmp, nb);
      k[w] += k[j];
    }
  CHECK(k[0] == t->n, "combined %u of %u workers", k[0], t->n);
  ccomp_call call = {.key = 0, .global_max = M};
  ccomp_decode(t->c, t->buf, nb, t->d, t->n, &call, y);
  ccomp_finish(t->c, y, t->d, t->n);
  free(tmp), free(k);
}

/* A spread of magnitudes (down to 1e-7 of the max), zeros, exact powers of two. */
static void vector(float *x, size_t d, uint64_t key) {
  gaussian_fill(x, d, key, 1.0);
  for (size_t i = 0; i < d; i++) x[i] *= (float)pow(10.0, -7.0 * ccr_unit(key + 1, i));
  for (size_t i = 0; i < d; i += 13) x[i] = 0;
  if (d > 4) x[1] = 0.5f, x[4] = -0x1p-12f;
}

static void test_one_worker(unsigned B, uint32_t n) {
  const size_t d = 157;
  float x[157];
  vector(x, d, 40 + B);
  ctx t = {.c = make(B, 1, d, n), .B = B, .d = d, .x = x};
  t.buf = malloc(ccomp_max_wire_bytes(t.c, d));
  char what[80];
  snprintf(what, sizeof what, "exponential rounding, bits=%u head=%u", B, n);
  check_unbiased(what, d, 4000, x, one_worker, &t, 1e-6 * qb_max_abs(x, d), qb_max_abs(x, d));
  /* the stated round-trip bound holds on every draw */
  float y[157], err[157];
  for (int s = 0; s < 200; s++) {
    one_worker(&t, s, y);
    for (size_t i = 0; i < d; i++) err[i] = y[i] - x[i];
    const double e = sqrt(qb_sum_sq(err, d)), b = t.c->type->roundtrip_bound(t.c->state, x, d);
    CHECK(e <= b, "%s: round trip error %g above the stated bound %g", what, e, b);
  }
  free(t.buf);
  ccomp_free(t.c);
}

/* Every pair of codes in [2, emax] with either sign: E[combine] = the sum. */
static void test_pairs(unsigned B) {
  const int32_t emax = (int32_t)((1u << (B - 1)) - 1);
  size_t d = 0;
  int32_t *qa = malloc(4 * (size_t)(emax * emax) * sizeof *qa), *qb = malloc(4 * (size_t)(emax * emax) * sizeof *qb);
  for (int32_t a = 2; a <= emax; a++)
    for (int32_t b = 2; b <= emax; b++)
      for (int sg = 0; sg < 4; sg++) qa[d] = sg & 1 ? -a : a, qb[d] = sg & 2 ? -b : b, d++;
  float *target = malloc(d * sizeof *target);
  ccomp *c = make(B, 1, d, 2); /* head 2: a value is sign 2^(2 - code) */
  for (size_t i = 0; i < d; i++)
    target[i] = (float)(copysign(ldexp(1.0, 2 - abs(qa[i])), qa[i]) + copysign(ldexp(1.0, 2 - abs(qb[i])), qb[i]));
  ctx t = {.c = c, .B = B, .d = d, .qa = qa, .qb = qb, .cap = ccomp_max_wire_bytes(c, d)};
  t.buf = malloc(3 * t.cap);
  char what[64];
  snprintf(what, sizeof what, "exponential pair combine, bits=%u (%zu pairs)", B, d);
  check_unbiased(what, d, 4000, target, pair, &t, 1e-7, 2.0);
  free(t.buf), free(qa), free(qb), free(target);
  ccomp_free(c);
}

static void test_allreduce(unsigned B, uint32_t n, int tree, int S) {
  const size_t d = 131;
  ctx t = {.c = make(B, 1, d, n), .B = B, .d = d, .n = n, .tree = tree};
  t.cap = ccomp_max_wire_bytes(t.c, d);
  t.buf = malloc(n * t.cap);
  t.xs = malloc(n * sizeof *t.xs);
  float *mean = calloc(d, sizeof *mean), M = 0;
  for (uint32_t w = 0; w < n; w++) {
    t.xs[w] = malloc(d * sizeof(float));
    vector(t.xs[w], d, 700 + 17 * w);
    for (size_t i = 0; i < d; i++) mean[i] += t.xs[w][i] / (float)n;
    M = fmaxf(M, qb_max_abs(t.xs[w], d));
  }
  char what[96];
  snprintf(what, sizeof what, "exponential %s all-reduce, %u workers, bits=%u", tree ? "tree" : "ring", n, B);
  check_unbiased(what, d, S, mean, allreduce, &t, 1e-6 * M, 2.0 * M);
  for (uint32_t w = 0; w < n; w++) free(t.xs[w]);
  free(t.xs), free(mean), free(t.buf);
  ccomp_free(t.c);
}

/* n = emax workers, all at +M or -M or alternating: the chain and the tree
 * stay within the codes (the combine asserts), and the mean is unbiased. */
static void test_headroom(unsigned B) {
  const uint32_t n = (1u << (B - 1)) - 1;
  const size_t d = 64;
  for (int tree = 0; tree <= 1; tree++) {
    ctx t = {.c = make(B, 1, d, n), .B = B, .d = d, .n = n, .tree = tree};
    t.cap = ccomp_max_wire_bytes(t.c, d);
    t.buf = malloc(n * t.cap);
    t.xs = malloc(n * sizeof *t.xs);
    float *mean = calloc(d, sizeof *mean);
    for (uint32_t w = 0; w < n; w++) {
      t.xs[w] = malloc(d * sizeof(float));
      for (size_t i = 0; i < d; i++)
        t.xs[w][i] = i < d / 2 ? 1.0f : i < 3 * d / 4 ? -1.0f : ((w + i) % 2 ? 1.0f : -0.5f);
      for (size_t i = 0; i < d; i++) mean[i] += t.xs[w][i] / (float)n;
    }
    char what[96];
    snprintf(what, sizeof what, "exponential at the headroom limit, %s, %u workers, bits=%u",
             tree ? "tree" : "ring", n, B);
    check_unbiased(what, d, 1000, mean, allreduce, &t, 1e-6, 64.0);
    for (uint32_t w = 0; w < n; w++) free(t.xs[w]);
    free(t.xs), free(mean), free(t.buf);
    ccomp_free(t.c);
  }
  char err[CCOMP_ERRLEN] = "";
  const double par[2] = {B, 1};
  ccomp_setup su = {.n = d, .workers = n + 1, .rank = 0, .seed = 1};
  ccomp *bad = ccomp_new(ccomp_find("global-qsgd"), par, &su, err, sizeof err);
  CHECK(bad == NULL, "bits=%u exponential accepted workers=%u", B, n + 1);
  CHECK(strstr(err, "exponential") && strstr(err, "bits") && strstr(err, "workers"), "message: %s", err);
  ccomp_free(bad);
}

/* The default is standard dithering: the same bytes as naming it. */
static void test_default_standard(void) {
  const size_t d = 300;
  float x[300];
  vector(x, d, 5);
  const double std8[2] = {8, 0};
  char err[CCOMP_ERRLEN];
  ccomp_setup su = {.n = d, .workers = 4, .rank = 0, .seed = 1};
  ccomp *a = ccomp_new(ccomp_find("global-qsgd"), NULL, &su, err, sizeof err);
  ccomp *b = ccomp_new(ccomp_find("global-qsgd"), std8, &su, err, sizeof err);
  ccomp *e = make(8, 1, d, 4);
  uint8_t wa[320], wb[320], we[320];
  ccomp_call call = {.key = 3, .global_max = qb_max_abs(x, d)};
  size_t na = ccomp_encode(a, x, d, &call, wa), nb = ccomp_encode(b, x, d, &call, wb);
  size_t ne = ccomp_encode(e, x, d, &call, we);
  CHECK(na == nb && memcmp(wa, wb, na) == 0, "default differs from dithering=standard");
  CHECK(ne == na && memcmp(wa, we, na) != 0, "exponential gives the standard bytes");
  const ccomp_param *p = &a->type->params[1];
  char name[32];
  CHECK(p->kind == CCOMP_CHOICE && ccomp_param_nchoices(p) == 2 &&
            ccomp_param_choice_index(p, "exponential") == 1 && ccomp_param_choice_index(p, "exp") == -1 &&
            ccomp_param_choice_name(p, 0, name, sizeof name) == 0 && strcmp(name, "standard") == 0,
        "the dithering parameter's choices");
  ccomp_free(a), ccomp_free(b), ccomp_free(e);
}

int main(void) {
  test_codes_and_wire();
  test_combine_exact();
  test_default_standard();
  test_one_worker(8, 4);
  test_one_worker(4, 4); /* levels M .. M/8, below: M/8 or 0 */
  test_pairs(5);
  test_allreduce(8, 4, 0, 4000);
  test_allreduce(8, 4, 1, 4000);
  test_allreduce(4, 4, 0, 4000); /* the coarsest 4-worker setting */
  test_allreduce(8, 7, 0, 3000);
  test_allreduce(8, 16, 1, 2000);
  test_headroom(4);
  test_headroom(6);
  return check_status("test_gqsgd_exp");
}
