/* compressors/global_qsgd.c — Global-QSGD: quantization with a GLOBAL norm,
 * so that the quantized integers add up exactly in a plain all-reduce
 * (docs/algorithms.md; standard dithering as in the public global-qsgd code).
 *
 *   M = max over workers of max |x_i|      (call->global_max, computed by the
 *                                           collective from local_stat())
 *   s = floor((2^(B-1) - 1) / n)            levels per worker, n = workers
 *   y = x s / M,  q = sign(y) (floor|y| + Bernoulli(|y| - floor|y|))
 *   S = sum of the workers' q, by integer addition, hop by hop
 *   decode = S M / s (the sum over workers); finish = the mean S M / (s n)
 *
 * q in [-s, s] and n s <= 2^(B-1) - 1, so no partial sum of at most n workers
 * can overflow B bits: init refuses a setup where s would be 0.  E[q] = y
 * (the Bernoulli is exact, qbits.h), so the decoded mean is unbiased, with
 * variance per coordinate <= M^2 / (4 n s^2).  Rounding sign(y) floor|y| + B
 * is the same distribution as floor(y) + Bernoulli(y - floor(y)).
 *
 *   wire:  +------------+------------------------------------------------+
 *          | M, fp32 LE | ceil(d B / 8) bytes: q_i as B-bit two's        |
 *          |            | complement, LSB first (qbits.h)                |
 *          +------------+------------------------------------------------+
 *
 * dithering = exponential (the paper's second variant, gqsgd_exp.c): an
 * element is a level code, q = 0 for zero, else sign(q) 2^(n - |q|) M with
 * |q| <= emax = 2^(B-1) - 1, sent in the same B-bit two's complement fields;
 * one worker's |x| <= M rounds stochastically between neighbouring powers of
 * two (codes n .. emax; below the smallest, to it or 0), unbiased; combine
 * is the randomized exponent rule of the public code, unbiased given its
 * inputs, so any all-reduce's sum is unbiased (tests/test_gqsgd_exp.c), at
 * the price of one rounding per hop.  The headroom of n codes keeps every
 * partial sum of at most n workers at code >= 1; init refuses n > emax.
 * Same wire: 4 + ceil(d B / 8) bytes. */
#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "ccomp/compressor.h"
#include "gqsgd_exp.h"
#include "qbits.h"

#define BLOCK 1024 /* elements per pass; BLOCK * B is a multiple of 8 bits */

typedef struct {
  unsigned bits;     /* B */
  int32_t levels;    /* s */
  uint32_t workers;  /* n */
  int exponential;   /* dithering: 0 standard, 1 exponential */
  int32_t emax;      /* exponential: the largest level code, 2^(B-1) - 1 */
} gqsgd;

#define EXP_SALT 0x677173642d657870ull /* "gqsd-exp": the combine's draws */

static const ccomp_param gqsgd_params[] = {
    {"bits", CCOMP_INT, 8, 2, 16,
     "B: bits per element on the wire; levels per worker s = floor((2^(B-1)-1)/workers)"},
    {"dithering", CCOMP_CHOICE, 0, 0, 1,
     "standard|exponential: levels evenly spaced (integers summed exactly), or powers of two of "
     "the global max (sign and exponent code, combined by an unbiased randomized rule)"},
};

static int gqsgd_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                      size_t errlen) {
  gqsgd *g = state;
  g->bits = (unsigned)params[0];
  g->workers = setup->workers ? setup->workers : 1;
  g->exponential = params[1] != 0;
  const int32_t maxint = (int32_t)((1u << (g->bits - 1)) - 1);
  g->emax = maxint;
  if (g->exponential) {
    if (g->workers > (uint32_t)maxint) {
      unsigned need = 2;
      while (((1ull << (need - 1)) - 1) < g->workers) need++;
      snprintf(err, errlen,
               "global-qsgd: dithering=exponential with bits=%u has level codes 1..%d, fewer than "
               "the workers=%u codes of headroom a sum of %u workers can climb; use bits >= %u",
               g->bits, maxint, g->workers, g->workers, need);
      return -1;
    }
    return 0;
  }
  g->levels = maxint / (int32_t)(g->workers < (uint32_t)INT32_MAX ? g->workers : INT32_MAX);
  if (g->levels == 0) {
    unsigned need = 2;
    while (((1ull << (need - 1)) - 1) < g->workers) need++;
    snprintf(err, errlen,
             "global-qsgd: bits=%u gives at most %d per element, fewer than workers=%u, so the "
             "integer sum would overflow (levels s = floor(%d/%u) = 0); use bits >= %u",
             g->bits, maxint, g->workers, maxint, g->workers, need);
    return -1;
  }
  return 0;
}

static size_t gqsgd_max_wire_bytes(const void *state, size_t n) {
  const gqsgd *g = state;
  return 4 + qb_stream_bytes(n, g->bits);
}

static float gqsgd_local_stat(const void *state, const float *x, size_t n) {
  (void)state;
  return qb_max_abs(x, n);
}

static size_t gqsgd_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                           uint8_t *out) {
  const gqsgd *g = state;
  const float M = call->global_max;
  assert(M >= 0 && isfinite(M) && "global-qsgd: call->global_max must be set (max of local_stat)");
  /* M = 0 is only right for an all-zero tensor; a collective that forgot to
   * set global_max would otherwise get zeros silently. */
  assert((M > 0 || qb_max_abs(x, n) == 0) && "global-qsgd: call->global_max is 0, x is not");
  const float scale = M > 0 ? (float)g->levels / M : 0.0f;
  int32_t q[BLOCK];
  int over = 0;
  qb_putf(out, M);
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    if (g->exponential && M > 0)
      over |= gqx_round(x + lo, m, M, (int32_t)g->workers, g->emax, call->key, call->offset + lo, q);
    else
      over |= qb_sround(x + lo, m, scale, g->levels, call->key, call->offset + lo, q);
    qb_pack_int(q, m, g->bits, out + 4 + lo * g->bits / 8);
  }
  /* An element beyond M would be clipped to s: the collective passed a
   * global_max below this worker's max |x| (a bug, not an input error). */
  assert(!over && "global-qsgd: |x| exceeds call->global_max");
  (void)over;
  return 4 + qb_stream_bytes(n, g->bits);
}

static void gqsgd_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                         uint32_t workers, const ccomp_call *call, float *y) {
  const gqsgd *g = state;
  (void)nbytes, (void)workers, (void)call;
  const float M = qb_getf(in), step = (float)((double)M / g->levels);
  int32_t q[BLOCK];
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    qb_unpack_int(in + 4 + lo * g->bits / 8, m, g->bits, q);
    if (g->exponential)
      gqx_values(q, m, M, (int32_t)g->workers, g->emax, y + lo);
    else
      for (size_t i = 0; i < m; i++) y[lo + i] = (float)q[i] * step;
  }
}

/* standard: exact integer addition of the two sums; ka + kb <= workers keeps
 * every partial sum within [-(2^(B-1)-1), 2^(B-1)-1].  exponential: the
 * randomized exponent rule (gqsgd_exp.c), its draws a pure function of
 * (call->key, ka, kb, global index) as marsit's; the headroom of `workers`
 * codes keeps it above code 0. */
static size_t gqsgd_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                            const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                            const ccomp_call *call, uint8_t *out) {
  const gqsgd *g = state;
  (void)na, (void)nb;
  assert((uint64_t)ka + kb <= g->workers && "global-qsgd: combining more workers than setup");
  assert(qb_get32(a) == qb_get32(b) && "global-qsgd: payloads with different global max");
  const uint64_t key = ccr_key(ccr_key(call->key, EXP_SALT), (uint64_t)ka << 32 | kb);
  int32_t qa[BLOCK], qbv[BLOCK];
  int over = 0;
  memcpy(out, a, 4);
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK, off = 4 + lo * g->bits / 8;
    qb_unpack_int(a + off, m, g->bits, qa);
    qb_unpack_int(b + off, m, g->bits, qbv);
    if (g->exponential)
      over |= gqx_add(qa, qbv, m, key, call->offset + lo);
    else
      for (size_t i = 0; i < m; i++) qa[i] += qbv[i];
    qb_pack_int(qa, m, g->bits, out + off);
  }
  assert(!over && "global-qsgd: exponential sum above its headroom");
  (void)over;
  return 4 + qb_stream_bytes(n, g->bits);
}

static void gqsgd_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const gqsgd *g = state;
  const double d = (double)n, w = (double)qb_stream_bytes(n, g->bits) + 4;
  switch (op) {
  /* exponential: a division, an exponent split and a hash draw per element
   * to encode; a compare, a hash draw and a select per element to combine. */
  case CCOMP_ENCODE: /* the local max (local_stat), then the quantize kernel */
    c->launches = 2, c->bytes_read = 8 * d, c->bytes_written = w;
    c->flops = (g->exponential ? 24 : 10) * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = w, c->bytes_written = 4 * d;
    c->flops = (g->exponential ? 4 : 2) * d;
    break;
  case CCOMP_COMBINE: /* an integer add kernel, or the exponent rule */
    c->launches = 1, c->bytes_read = 2 * w, c->bytes_written = w;
    c->flops = (g->exponential ? 20 : 1) * d;
    break;
  }
}

/* For one worker with global_max = max |x| (what local_stat gives it): each
 * element moves by less than one level, M/s, whatever the draws; and
 * E ||err||^2 <= d (M/s)^2 / 4.  Stated: min(sqrt(d) M/s, sqrt(d (M/s)^2/4 +
 * 10 sqrt(d) (M/s)^2)), the second a Hoeffding bound on the sum of the d
 * independent squared errors (each in [0, (M/s)^2]) that fails with
 * probability <= e^-200; plus sqrt(d) M 2^-20 for fp32 rounding. */
static double gqsgd_roundtrip_bound(const void *state, const float *x, size_t n) {
  const gqsgd *g = state;
  if (g->exponential) {
    /* Between neighbouring powers of two an element moves by less than |x|
     * itself; below the smallest level F M by at most F M (gqsgd_exp.c). */
    const double M = qb_max_abs(x, n), F = ldexp(1.0, (int)g->workers - g->emax);
    return sqrt(qb_sum_sq(x, n)) + sqrt((double)n) * M * (F + 0x1p-20);
  }
  const double M = qb_max_abs(x, n), step = M / g->levels, d = (double)n;
  const double det = sqrt(d) * step, hoef = sqrt(d * step * step / 4 + 10 * sqrt(d) * step * step);
  return fmin(det, hoef) + sqrt(d) * M * 0x1p-20;
}

const ccomp_type ccomp_global_qsgd = {
    .name = "global-qsgd",
    .summary = "Global-QSGD: B-bit levels under a global max, summed hop by hop (standard: exactly)",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE | CCOMP_UNBIASED | CCOMP_GLOBAL_MAX,
    .params = gqsgd_params,
    .nparams = sizeof gqsgd_params / sizeof gqsgd_params[0],
    .state_size = sizeof(gqsgd),
    .init = gqsgd_init,
    .clear = NULL,
    .max_wire_bytes = gqsgd_max_wire_bytes,
    .encode = gqsgd_encode,
    .decode = gqsgd_decode,
    .combine = gqsgd_combine,
    .finish = NULL,
    .local_stat = gqsgd_local_stat,
    .cost = gqsgd_cost,
    .roundtrip_bound = gqsgd_roundtrip_bound,
};
