/* compressors/sparse_pairs.h — the (index, value) wire format shared by the
 * magnitude sparsifiers (topk, threshold, dgc), and their common helpers.
 *
 *     record 0            record 1                   record k-1
 *     +--------+--------+ +--------+--------+       +--------+--------+
 *     | u32 i0 | f32 v0 | | u32 i1 | f32 v1 |  ...  |  i_k-1 |  v_k-1 |
 *     +--------+--------+ +--------+--------+       +--------+--------+
 *     little-endian; i = index inside the chunk (0 <= i < n), ascending;
 *     k = payload bytes / 8, so no header is needed.
 *
 * The payload represents one worker (these formats are not summable: two
 * workers' index sets differ); decode scatters the values into zeros.
 */
#ifndef CCOMP_SPARSE_PAIRS_H
#define CCOMP_SPARSE_PAIRS_H

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bitstream.h"
#include "ccomp/compressor.h"
#include "select.h"

#define CCSP_RECORD 8

/* k = ceil(ratio * n) clamped to [1, n] (0 when n = 0).  The 1e-9 slack keeps
 * a product such as 0.07 * 100 = 7.000000000000001 from rounding up to 8. */
static inline size_t ccsp_count(double ratio, size_t n) {
  if (n == 0) return 0;
  double r = ceil(ratio * (double)n - 1e-9);
  size_t k = r < 1.0 ? 1 : (size_t)r;
  return k > n ? n : k;
}

static inline uint8_t *ccsp_put(uint8_t *out, uint32_t i, float v) {
  ccb_store_u32(out, i);
  ccb_store_f32(out + 4, v);
  return out + CCSP_RECORD;
}

/* The records of exactly the k largest |x[i]| (1 <= k <= n; ties by
 * index), ascending, into out; the bytes written.  topk's encode, and dgc's
 * when it selects from the whole tensor. */
static inline size_t ccsp_put_topk(const float *x, size_t n, size_t k, ccsel_scratch *s, uint8_t *out) {
  size_t above;
  const uint32_t t = ccsel_kth(x, n, k, CCSEL_ABS, s, &above);
  size_t eq_left = k - above;
  uint8_t *o = out;
  for (size_t i = 0; i < n; i++) {
    const uint32_t key = ccsel_key(x[i], CCSEL_ABS);
    if (key > t || (key == t && eq_left > 0)) {
      eq_left -= (key == t);
      o = ccsp_put(o, (uint32_t)i, x[i]);
    }
  }
  return (size_t)(o - out);
}

/* y[n] = the values of in[nbytes] at their indices, zero elsewhere. */
static inline void ccsp_decode(const uint8_t *in, size_t nbytes, size_t n, float *y) {
  memset(y, 0, n * sizeof *y);
  for (size_t r = 0; r + CCSP_RECORD <= nbytes; r += CCSP_RECORD) {
    uint32_t i = ccb_load_u32(in + r);
    assert(i < n);
    if (i < n) y[i] = ccb_load_f32(in + r + 4);
  }
}

/* ccomp_type.decode for a payload that is nothing but records (topk, dgc,
 * threshold): a record carries its value as it is, whatever the worker
 * count. */
static inline void ccsp_decode_op(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                                  uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)workers, (void)call;
  ccsp_decode(in, nbytes, n, y);
}

/* Cost of decoding k records into n elements: a zero fill and a scatter. */
static inline void ccsp_decode_cost(size_t n, double k, ccomp_cost *c) {
  c->launches = 2;
  c->bytes_read = CCSP_RECORD * k;
  c->bytes_written = 4.0 * (double)n + 4.0 * k;
  c->flops = 0;
}

/* sqrt(sum of x_i^2), in double. */
static inline double ccsp_norm2(const float *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += (double)x[i] * x[i];
  return sqrt(s);
}

#endif
