/* compressors/qbits.h — kernels shared by the quantizers and sign methods.
 *
 * Wire conventions of every compressor built on these kernels:
 *   - multi-byte scalars are little-endian; a float travels as its IEEE-754
 *     binary32 bit pattern;
 *   - bit streams are LSB first: a field of b bits for element i starts at
 *     stream bit i*b, and stream bit k is bit (k mod 8) of byte k/8 (the same
 *     order as bitstream.h), so 64 sign bits are one little-endian uint64;
 *   - a sign bit is 1 for x >= 0 (+0.0, -0.0 and positive values), 0 for
 *     x < 0 and for NaN: signSGD's "x >= 0" rule, exactly;
 *   - signed b-bit integers are two's complement in b bits (2 <= b <= 16);
 *   - padding bits after the last element of a stream are zero.
 *
 * Randomness: qb_sround and qb_bernoulli64 draw from compressors/rng.h as a
 * pure function of (key, global element index), in blocks aligned to
 * multiples of 64 global indices, so that a chunk encoded at any offset gets
 * exactly the draws the whole tensor would.
 *
 * Speed: the loops are written over fixed blocks of 64 elements with restrict
 * pointers, which gcc -O2 vectorizes (its "very cheap" cost model only takes
 * loops whose trip count is known); QB_CLONES additionally builds an AVX2
 * clone selected at load time (gcc function multiversioning).  Only integer
 * and correctly rounded IEEE operations are used, and no FMA, so every clone
 * gives bit-identical results.
 */
#ifndef CCOMP_QBITS_H
#define CCOMP_QBITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ccomp/rng.h"

/* Function multiversioning needs GNU ifunc (glibc); define CCOMP_NO_CLONES
 * to build without it. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(CCOMP_NO_CLONES)
#define QB_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define QB_CLONES
#endif

/* Kernels called inside the clones must be inlined into them, so that they
 * are compiled for the clone's target. */
#if defined(__GNUC__)
#define QB_INLINE static inline __attribute__((always_inline))
#else
#define QB_INLINE static inline
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define QB_LITTLE_ENDIAN 1
#else
#define QB_LITTLE_ENDIAN 0
#endif

/* ---- little-endian scalars at unaligned addresses ---------------------- */

static inline void qb_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t qb_get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t qb_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float qb_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline void qb_putf(uint8_t *p, float f) { qb_put32(p, qb_f2u(f)); }
static inline float qb_getf(const uint8_t *p) { return qb_u2f(qb_get32(p)); }

static inline void qb_put64(uint8_t *p, uint64_t v) {
#if QB_LITTLE_ENDIAN
  memcpy(p, &v, 8);
#else
  for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
#endif
}
static inline uint64_t qb_get64(const uint8_t *p) {
#if QB_LITTLE_ENDIAN
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
#else
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
#endif
}
/* The low nbytes (<= 8) bytes of v, little-endian. */
static inline void qb_put_partial(uint8_t *p, uint64_t v, size_t nbytes) {
  for (size_t k = 0; k < nbytes; k++) p[k] = (uint8_t)(v >> (8 * k));
}
static inline uint64_t qb_get_partial(const uint8_t *p, size_t nbytes) {
  uint64_t v = 0;
  for (size_t k = 0; k < nbytes; k++) v |= (uint64_t)p[k] << (8 * k);
  return v;
}

/* Bytes of a stream of n fields of b bits. */
static inline size_t qb_stream_bytes(size_t n, unsigned b) { return (n * b + 7) / 8; }

/* ---- exact Bernoulli decisions ------------------------------------------ */

#define QB_TIE_SALT 0x7469652d62726b72ull /* "tie-brkr" */

/* up[j] = 1 with probability t[j] / 2^31 EXACTLY (t[j] in [0, 2^31)), for the
 * 64 elements with global indices g0 .. g0 + 63, g0 a multiple of 64.
 * Element g compares the 16-bit field (g mod 4) of ccr_u64(key, g / 4) with
 * the top 16 bits of t; when they are equal (probability 2^-16) the tie is
 * broken by 15 bits of ccr_u64(ccr_key(key, QB_TIE_SALT), g) against the low
 * 15 bits of t.  So P(up) = t / 2^31 with no rounding bias, at the cost of
 * one 64-bit draw per four elements (plus a rare second draw). */
QB_INLINE void qb_bernoulli64(uint64_t key, uint64_t g0, const int32_t *restrict t,
                                  int32_t *restrict up) {
  uint64_t r[16];
  uint16_t u[64];
  const uint64_t w0 = g0 >> 2;
  for (int k = 0; k < 16; k++) r[k] = ccr_u64(key, w0 + (uint64_t)k);
#if QB_LITTLE_ENDIAN
  memcpy(u, r, sizeof u);
#else
  for (int k = 0; k < 16; k++)
    for (int m = 0; m < 4; m++) u[4 * k + m] = (uint16_t)(r[k] >> (16 * m));
#endif
  int32_t tie = 0;
  for (int j = 0; j < 64; j++) {
    const int32_t hi = t[j] >> 15, uj = u[j];
    up[j] = uj < hi;
    tie |= uj == hi;
  }
  if (__builtin_expect(tie != 0, 0)) {
    const uint64_t k2 = ccr_key(key, QB_TIE_SALT);
    for (int j = 0; j < 64; j++)
      if ((int32_t)u[j] == t[j] >> 15)
        up[j] = (int32_t)(ccr_u64(k2, g0 + (uint64_t)j) & 0x7fff) < (t[j] & 0x7fff);
  }
}

/* ---- shared kernels (qbits.c) ------------------------------------------ */

/* out[0 .. ceil(n/8)) = the sign bits of x[n] (1 for x >= 0). */
void qb_pack_signs(const float *x, size_t n, uint8_t *out);
/* y[i] = bit i of in ? pos : neg. */
void qb_unpack_signs(const uint8_t *in, size_t n, float pos, float neg, float *y);

/* Signed b-bit two's complement fields, 2 <= b <= 16: q[i] must fit. */
void qb_pack_int(const int32_t *q, size_t n, unsigned b, uint8_t *out);
void qb_unpack_int(const uint8_t *in, size_t n, unsigned b, int32_t *q);

/* Reductions in double, in a fixed order (8 interleaved partial sums), so
 * the result does not depend on the clone that ran. */
double qb_sum_abs(const float *x, size_t n);
double qb_sum_sq(const float *x, size_t n);
/* *pos = sum of x_i over x_i >= 0, *neg = sum over x_i < 0 (<= 0). */
void qb_sum_pos_neg(const float *x, size_t n, double *pos, double *neg);
/* One pass: *sum = sum x_i, *sq = sum x_i^2 (the same value as qb_sum_sq)
 * and the return value max |x_i| (as qb_max_abs). */
float qb_moments(const float *x, size_t n, double *sum, double *sq);
/* max |x_i| (NaN ignored). */
float qb_max_abs(const float *x, size_t n);
/* Number of set bits in the first n bits of a stream. */
size_t qb_count_ones(const uint8_t *in, size_t n);

/* Stochastic rounding to signed levels, unbiased:
 *   a_i = min(|x_i| * scale, smax);  l_i = floor(a_i) + Bernoulli(a_i - floor(a_i));
 *   q_i = sign(x_i) * l_i,
 * drawn from `key` at global index g0 + i.  The fraction f = a - floor(a) is
 * exact in float; it becomes t = floor(f * 2^31) for qb_bernoulli64, which is
 * exact whenever a >= 2^-8 and otherwise rounds f down by less than 2^-31:
 * E[l_i] = a_i to within 2^-31 of one level.  NaN or infinite inputs give +-smax.  Returns 1 if some
 * a_i had to be clipped at smax by more than float rounding (a caller that
 * promises |x| * scale <= smax can assert on it), else 0. */
int qb_sround(const float *x, size_t n, float scale, int32_t smax, uint64_t key, uint64_t g0,
              int32_t *q);

/* sqrt(sum_i (|x_i| - a)^2): the exact round-trip error of a * sign(x). */
double qb_scaled_sign_error(const float *x, size_t n, float a);

#endif
