/* compressors/qbits.c — kernels shared by the quantizers and sign methods
 * (conventions in qbits.h).  Everything works on blocks of 64 elements with
 * fixed trip counts so that gcc vectorizes it at -O2; a partial block is
 * copied into a zero-padded local block and run through the same code, so
 * the tail gives the same results as it would inside a full block. */
#include "qbits.h"

#include <math.h>

/* ---- sign bits ----------------------------------------------------------- */

/* 64 sign bits as one word.  Bytes of 0/1 are gathered eight at a time with
 * a multiply: byte k of v lands on bit 56 + k of v * 0x0102040810204080, and
 * no two partial products share a bit position, so nothing carries. */
QB_INLINE uint64_t sign_word(const float *restrict x) {
  uint8_t t[64];
  for (int j = 0; j < 64; j++) t[j] = x[j] >= 0.0f;
  uint64_t v = 0;
  for (int k = 0; k < 8; k++) {
    uint64_t b;
#if QB_LITTLE_ENDIAN
    memcpy(&b, t + 8 * k, 8);
#else
    b = 0;
    for (int m = 0; m < 8; m++) b |= (uint64_t)t[8 * k + m] << (8 * m);
#endif
    v |= ((b * 0x0102040810204080ull) >> 56) << (8 * k);
  }
  return v;
}

QB_CLONES void qb_pack_signs(const float *restrict x, size_t n, uint8_t *restrict out) {
  const size_t nw = n / 64, rem = n % 64;
  for (size_t w = 0; w < nw; w++) qb_put64(out + 8 * w, sign_word(x + 64 * w));
  if (rem) {
    float pad[64];
    memcpy(pad, x + 64 * nw, rem * sizeof *pad);
    for (size_t j = rem; j < 64; j++) pad[j] = -1.0f; /* padding bits are 0 */
    qb_put_partial(out + 8 * nw, sign_word(pad), (rem + 7) / 8);
  }
}

QB_INLINE void unpack_word(uint64_t v, float pos, float neg, float *restrict y) {
  const uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
  for (int j = 0; j < 32; j++) y[j] = (lo >> j) & 1 ? pos : neg;
  for (int j = 0; j < 32; j++) y[32 + j] = (hi >> j) & 1 ? pos : neg;
}

QB_CLONES void qb_unpack_signs(const uint8_t *restrict in, size_t n, float pos, float neg,
                               float *restrict y) {
  const size_t nw = n / 64, rem = n % 64;
  for (size_t w = 0; w < nw; w++) unpack_word(qb_get64(in + 8 * w), pos, neg, y + 64 * w);
  if (rem) {
    float t[64];
    unpack_word(qb_get_partial(in + 8 * nw, (rem + 7) / 8), pos, neg, t);
    memcpy(y + 64 * nw, t, rem * sizeof *t);
  }
}

size_t qb_count_ones(const uint8_t *in, size_t n) {
  size_t c = 0, nw = n / 64, rem = n % 64;
  for (size_t w = 0; w < nw; w++) c += (size_t)__builtin_popcountll(qb_get64(in + 8 * w));
  if (rem) {
    uint64_t v = qb_get_partial(in + 8 * nw, (rem + 7) / 8) & ((1ull << rem) - 1);
    c += (size_t)__builtin_popcountll(v);
  }
  return c;
}

/* ---- b-bit signed fields ------------------------------------------------- */

QB_CLONES void qb_pack_int(const int32_t *restrict q, size_t n, unsigned b, uint8_t *restrict out) {
  if (b == 8) { /* blocks of 64 for the vectorizer, then the tail */
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
      for (int j = 0; j < 64; j++) out[i + j] = (uint8_t)q[i + j];
    for (; i < n; i++) out[i] = (uint8_t)q[i];
    return;
  }
  if (b == 16) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
      for (int j = 0; j < 64; j++)
        out[2 * (i + j)] = (uint8_t)q[i + j], out[2 * (i + j) + 1] = (uint8_t)(q[i + j] >> 8);
    for (; i < n; i++) out[2 * i] = (uint8_t)q[i], out[2 * i + 1] = (uint8_t)(q[i] >> 8);
    return;
  }
  if (b == 2) { /* four fields per byte */
    size_t nb = n / 4;
    for (size_t k = 0; k < nb; k++)
      out[k] = (uint8_t)((q[4 * k] & 3) | (q[4 * k + 1] & 3) << 2 | (q[4 * k + 2] & 3) << 4 |
                         (q[4 * k + 3] & 3) << 6);
    if (n % 4) {
      unsigned v = 0;
      for (size_t i = 4 * nb; i < n; i++) v |= (unsigned)(q[i] & 3) << (2 * (i - 4 * nb));
      out[nb] = (uint8_t)v;
    }
    return;
  }
  const uint64_t mask = (1ull << b) - 1;
  uint64_t acc = 0;
  unsigned fill = 0;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    acc |= ((uint64_t)(uint32_t)q[i] & mask) << fill;
    fill += b;
    while (fill >= 8) {
      out[o++] = (uint8_t)acc;
      acc >>= 8;
      fill -= 8;
    }
  }
  if (fill) out[o] = (uint8_t)acc;
}

QB_CLONES void qb_unpack_int(const uint8_t *restrict in, size_t n, unsigned b, int32_t *restrict q) {
  if (b == 8) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
      for (int j = 0; j < 64; j++) q[i + j] = (int8_t)in[i + j];
    for (; i < n; i++) q[i] = (int8_t)in[i];
    return;
  }
  if (b == 16) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
      for (int j = 0; j < 64; j++)
        q[i + j] = (int16_t)(uint16_t)(in[2 * (i + j)] | in[2 * (i + j) + 1] << 8);
    for (; i < n; i++) q[i] = (int16_t)(uint16_t)(in[2 * i] | in[2 * i + 1] << 8);
    return;
  }
  const uint32_t mask = (1u << b) - 1, half = 1u << (b - 1);
  uint64_t acc = 0;
  unsigned fill = 0;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    while (fill < b) {
      acc |= (uint64_t)in[o++] << fill;
      fill += 8;
    }
    uint32_t v = (uint32_t)acc & mask;
    acc >>= b;
    fill -= b;
    q[i] = (int32_t)(v ^ half) - (int32_t)half; /* sign-extend b bits */
  }
}

/* ---- reductions ---------------------------------------------------------- */

/* Eight partial sums, lane j taking elements i = j mod 8, then a fixed tree. */
#define QB_REDUCE(name, expr)                                                     \
  QB_CLONES double name(const float *restrict x, size_t n) {                     \
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                    \
    size_t i = 0;                                                                \
    for (; i + 8 <= n; i += 8)                                                   \
      for (int j = 0; j < 8; j++) {                                              \
        const double v = x[i + j];                                               \
        acc[j] += (expr);                                                        \
      }                                                                          \
    for (int j = 0; i + (size_t)j < n; j++) {                                    \
      const double v = x[i + j];                                                 \
      acc[j] += (expr);                                                          \
    }                                                                            \
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7])); \
  }

QB_REDUCE(qb_sum_abs, fabs(v))
QB_REDUCE(qb_sum_sq, v *v)

/* Branch-free, so it vectorizes (random signs defeat a branch predictor):
 * with S = sum x and A = sum |x|, the positives sum to (S + A) / 2 and the
 * negatives to (S - A) / 2. */
QB_CLONES void qb_sum_pos_neg(const float *restrict x, size_t n, double *pos, double *neg) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) {
      const double v = x[i + j];
      s[j] += v;
      a[j] += fabs(v);
    }
  for (int j = 0; i + (size_t)j < n; j++) {
    const double v = x[i + j];
    s[j] += v;
    a[j] += fabs(v);
  }
  const double S = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
  const double A = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
  *pos = 0.5 * (S + A);
  *neg = 0.5 * (S - A);
}

QB_CLONES float qb_moments(const float *restrict x, size_t n, double *sum, double *sq) {
  double a1[8] = {0, 0, 0, 0, 0, 0, 0, 0}, a2[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  float mx[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) {
      const double v = x[i + j];
      const float a = fabsf(x[i + j]);
      a1[j] += v, a2[j] += v * v;
      mx[j] = a > mx[j] ? a : mx[j];
    }
  for (int j = 0; i + (size_t)j < n; j++) {
    const double v = x[i + j];
    const float a = fabsf(x[i + j]);
    a1[j] += v, a2[j] += v * v;
    mx[j] = a > mx[j] ? a : mx[j];
  }
  *sum = ((a1[0] + a1[4]) + (a1[2] + a1[6])) + ((a1[1] + a1[5]) + (a1[3] + a1[7]));
  *sq = ((a2[0] + a2[4]) + (a2[2] + a2[6])) + ((a2[1] + a2[5]) + (a2[3] + a2[7]));
  float m = 0;
  for (int j = 0; j < 8; j++) m = mx[j] > m ? mx[j] : m;
  return m;
}

QB_CLONES float qb_max_abs(const float *restrict x, size_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; j++) {
      const float a = fabsf(x[i + j]);
      acc[j] = a > acc[j] ? a : acc[j];
    }
  for (int j = 0; i + (size_t)j < n; j++) {
    const float a = fabsf(x[i + j]);
    acc[j] = a > acc[j] ? a : acc[j];
  }
  float m = 0;
  for (int j = 0; j < 8; j++) m = acc[j] > m ? acc[j] : m;
  return m;
}

double qb_scaled_sign_error(const float *x, size_t n, float a) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)x[i]) - (double)a;
    s += e * e;
  }
  return sqrt(s);
}

/* ---- stochastic rounding ------------------------------------------------- */

/* One aligned block of 64: g0 is a multiple of 64.  Returns nonzero if some
 * |x| * scale exceeded smax by more than rounding. */
QB_INLINE int32_t sround64(const float *restrict x, float scale, int32_t smax, uint64_t key,
                               uint64_t g0, int32_t *restrict q) {
  int32_t base[64], t[64], up[64], over = 0;
  const float smaxf = (float)smax, lim = smaxf * (1.0f + 0x1p-20f);
  for (int j = 0; j < 64; j++) {
    float a = fabsf(x[j]) * scale;
    over |= a > lim;
    a = a < smaxf ? a : smaxf; /* also maps NaN to smax */
    const int32_t fl = (int32_t)a;
    base[j] = fl;
    t[j] = (int32_t)((a - (float)fl) * 0x1p31f); /* exact: a - fl < 1 has <= 24 bits */
  }
  qb_bernoulli64(key, g0, t, up);
  for (int j = 0; j < 64; j++) {
    const int32_t v = base[j] + up[j], neg = -(int32_t)(qb_f2u(x[j]) >> 31);
    q[j] = (v ^ neg) - neg;
  }
  return over;
}

QB_CLONES int qb_sround(const float *restrict x, size_t n, float scale, int32_t smax,
                        uint64_t key, uint64_t g0, int32_t *restrict q) {
  int32_t over = 0;
  size_t i = 0;
  while (i < n) {
    const uint64_t g = g0 + i, gb = g & ~(uint64_t)63;
    const size_t lo = (size_t)(g - gb), m = (64 - lo) < (n - i) ? 64 - lo : n - i;
    if (lo == 0 && m == 64) {
      over |= sround64(x + i, scale, smax, key, gb, q + i);
    } else { /* a partial global block: pad with zeros, keep the alignment */
      float px[64] = {0};
      int32_t pq[64];
      memcpy(px + lo, x + i, m * sizeof *px);
      over |= sround64(px, scale, smax, key, gb, pq);
      memcpy(q + i, pq + lo, m * sizeof *pq);
    }
    i += m;
  }
  return over != 0;
}
