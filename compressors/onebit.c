/* compressors/onebit.c — 1-bit SGD (Seide, Fu, Droppo, Li & Yu, "1-Bit
 * Stochastic Gradient Descent and its Application to Data-Parallel Distributed
 * Training of Speech DNNs", Interspeech 2014): every element becomes one bit,
 * and is reconstructed as the mean of the elements on its side of zero, so
 * the reconstruction keeps the sum of each side; the quantization error is
 * carried to the next step by error feedback (use the 'residual' memory).
 * The paper reconstructs per matrix column; here the two means are per chunk
 * (the tensor or bucket a call encodes), as GRACE's onebit does per tensor.
 *
 *   wire:  +-----------------+-----------------+-----------------------------+
 *          | mean of x >= 0  | mean of x < 0   | ceil(d/8) bytes: bit = x>=0 |
 *          | fp32, LE        | fp32, LE (<= 0) |                             |
 *          +-----------------+-----------------+-----------------------------+
 *
 * d + 64 bits.  A side with no elements has mean 0.  Not summable; finish()
 * is the mean. */
#include <math.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "qbits.h"

/* The two reconstruction values, computed the same way by encode and by the
 * stated bound.  bits: the packed signs of x (to count the non-negatives). */
static void side_means(const float *x, size_t n, const uint8_t *bits, float *mpos, float *mneg) {
  double sp, sn;
  qb_sum_pos_neg(x, n, &sp, &sn);
  size_t np = qb_count_ones(bits, n), nn = n - np;
  *mpos = np ? (float)(sp / (double)np) : 0.0f;
  *mneg = nn ? (float)(sn / (double)nn) : 0.0f;
}

static size_t onebit_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 8 + (n + 7) / 8;
}

static size_t onebit_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                            uint8_t *out) {
  (void)state, (void)call;
  float mp, mn;
  qb_pack_signs(x, n, out + 8);
  side_means(x, n, out + 8, &mp, &mn);
  qb_putf(out, mp);
  qb_putf(out + 4, mn);
  return 8 + (n + 7) / 8;
}

static void onebit_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                          uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  qb_unpack_signs(in + 8, n, qb_getf(in), qb_getf(in + 4), y);
}

static void onebit_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, bits = (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE: /* pack, then a two-sided reduction */
    c->launches = 2, c->bytes_read = 8 * d + bits, c->bytes_written = bits + 8, c->flops = 4 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = bits + 8, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Deterministic and exact: |x_i - mean of its side| per element. */
static double onebit_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  uint8_t *bits = malloc((n + 7) / 8 + 1);
  if (!bits) return INFINITY;
  float mp, mn;
  qb_pack_signs(x, n, bits);
  side_means(x, n, bits, &mp, &mn);
  free(bits);
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = (double)x[i] - (x[i] >= 0.0f ? mp : mn);
    s += e * e;
  }
  return sqrt(s);
}

const ccomp_type ccomp_onebit = {
    .name = "onebit",
    .summary = "1-bit SGD: sign bits + the mean of each side (d + 64 bits); use with residual",
    .flags = CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = onebit_max_wire_bytes,
    .encode = onebit_encode,
    .decode = onebit_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = onebit_cost,
    .roundtrip_bound = onebit_roundtrip_bound,
};
