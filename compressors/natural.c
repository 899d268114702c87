/* compressors/natural.c — natural compression (Horvath, Ho, Horvath, Sahu,
 * Canini & Richtarik, "Natural Compression for Distributed Deep Learning",
 * 2019): each |x| in [2^a, 2^(a+1)) becomes 2^a with probability
 * (2^(a+1) - |x|) / 2^a and 2^(a+1) otherwise, so E[C(x)] = x and
 * E (C(x) - x)^2 <= x^2 / 8 (the paper's omega = 1/8).
 *
 * In IEEE terms: |x| = 2^(e-127) (1 + f/2^23) with 8-bit exponent field e and
 * 23-bit fraction f, and rounding up has probability exactly f / 2^23, so
 *   e' = e + Bernoulli(f / 2^23)
 * is the whole algorithm, with no rounding bias at all (the Bernoulli is
 * exact, qbits.h).  The same rule on fp32 subnormals (e = 0, |x| = f 2^-149)
 * rounds them to 0 or 2^-126, unbiased too.  Zero stays zero; e' = 255 is
 * infinity (|x| >= 2^127 rounding up, or an infinite input); NaN inputs
 * become infinities (ccsim rejects NaN gradients before this point).
 *
 *   wire (9 bits per element, two planes):
 *          +---------------------------------+-------------------------------+
 *          | d bytes: e'_i (0 = zero)        | ceil(d/8) bytes: bit = x >= 0 |
 *          +---------------------------------+-------------------------------+
 *   ceil(9d/8) bytes = 9d bits rounded up to a byte, the same as a 9-bit
 *   stream; the planar layout keeps both loops byte-aligned.
 *
 * Not summable; finish() is the mean. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

/* One aligned block of 64 elements at global index g0 (a multiple of 64). */
QB_INLINE void round64(const float *restrict x, uint64_t key, uint64_t g0,
                           uint8_t *restrict e) {
  int32_t t[64], up[64], ex[64];
  for (int j = 0; j < 64; j++) {
    const uint32_t u = qb_f2u(x[j]);
    ex[j] = (int32_t)((u >> 23) & 0xff);
    t[j] = (int32_t)((u & 0x7fffff) << 8); /* f / 2^23 as a 31-bit probability */
  }
  qb_bernoulli64(key, g0, t, up);
  for (int j = 0; j < 64; j++) {
    const int32_t v = ex[j] + up[j];
    e[j] = (uint8_t)(v < 255 ? v : 255);
  }
}

QB_CLONES static void natural_exponents(const float *restrict x, size_t n, uint64_t key,
                                        uint64_t g0, uint8_t *restrict e) {
  size_t i = 0;
  while (i < n) {
    const uint64_t g = g0 + i, gb = g & ~(uint64_t)63;
    const size_t lo = (size_t)(g - gb), m = (64 - lo) < (n - i) ? 64 - lo : n - i;
    if (lo == 0 && m == 64) {
      round64(x + i, key, gb, e + i);
    } else { /* a partial global block: pad, keep the alignment of the draws */
      float px[64] = {0};
      uint8_t pe[64];
      memcpy(px + lo, x + i, m * sizeof *px);
      round64(px, key, gb, pe);
      memcpy(e + i, pe + lo, m);
    }
    i += m;
  }
}

QB_CLONES static void natural_values(const uint8_t *restrict e, const uint8_t *restrict sg,
                                     size_t n, float *restrict y) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const uint64_t w = qb_get64(sg + i / 8);
    for (int j = 0; j < 64; j++)
      y[i + j] = qb_u2f((uint32_t)e[i + j] << 23 | (uint32_t)(~(w >> j) & 1) << 31);
  }
  for (; i < n; i++)
    y[i] = qb_u2f((uint32_t)e[i] << 23 | (uint32_t)(~(sg[i / 8] >> (i % 8)) & 1) << 31);
}

static size_t natural_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return n + (n + 7) / 8;
}

static size_t natural_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                             uint8_t *out) {
  (void)state;
  natural_exponents(x, n, call->key, call->offset, out);
  qb_pack_signs(x, n, out + n);
  return n + (n + 7) / 8;
}

static void natural_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                           uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  natural_values(in, in + n, n, y);
}

static void natural_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, w = d + (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 1, c->bytes_read = 4 * d, c->bytes_written = w, c->flops = 6 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = w, c->bytes_written = 4 * d, c->flops = 2 * d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Per element the error is below c_i = |x_i| (a normal x moves to a
 * neighbouring power of two, at most 2^a <= |x| away) or 2^-126 (a subnormal
 * x moves to 0 or 2^-126), so ||err|| <= sqrt(sum c_i^2) always; and
 * E ||err||^2 <= sum v_i with v_i = x_i^2 / 8 (normal) or 2^-254
 * (subnormal), the squared errors independent in [0, c_i^2], so by Hoeffding
 * ||err||^2 <= sum v_i + 10 sqrt(sum c_i^4) except with probability
 * <= e^-200.  Decoding is exact (powers of two).  Stated: the smaller. */
static double natural_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  double c2 = 0, c4 = 0, v = 0;
  for (size_t i = 0; i < n; i++) {
    const double a = fabs((double)x[i]);
    if (a == 0) continue;
    const int normal = a >= 0x1p-126;
    const double c = normal ? a : 0x1p-126;
    c2 += c * c;
    c4 += c * c * c * c;
    v += normal ? a * a / 8 : 0x1p-254;
  }
  return sqrt(fmin(c2, v + 10 * sqrt(c4)));
}

const ccomp_type ccomp_natural = {
    .name = "natural",
    .summary = "natural compression: |x| stochastically to a power of two, 9 bits, unbiased",
    .flags = CCOMP_FIXED_SIZE | CCOMP_UNBIASED,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = natural_max_wire_bytes,
    .encode = natural_encode,
    .decode = natural_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = natural_cost,
    .roundtrip_bound = natural_roundtrip_bound,
};
