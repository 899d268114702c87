/* compressors/select.h — O(n) top-k selection on fp32 data (radix select).
 *
 * Every float is mapped to a 32-bit key whose unsigned order is the order
 * wanted (|x|, x, or -x).  The k-th largest key is then found digit by digit,
 * most significant first, with three histogram passes of 11, 11 and 10 bits
 * (the method of GPU top-k kernels, e.g. PyTorch's radix select, with wider
 * digits): the first pass reads all n elements, the next two only the elements
 * that share the digits found so far, copied to a scratch buffer when that is
 * small.  Worst case 3 passes over n (all keys equal), never O(n log n).
 *
 * Ties: the elements kept are all those with key > the k-th key, then those
 * equal to it in increasing index order until k are kept, so the selection is
 * a deterministic function of the data.
 */
#ifndef CCOMP_SELECT_H
#define CCOMP_SELECT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum ccsel_mode {
  CCSEL_ABS, /* largest |x| */
  CCSEL_POS, /* largest x (most positive) */
  CCSEL_NEG, /* largest -x (most negative) */
};

/* Order-preserving map of x's bits to an unsigned key under mode. */
static inline uint32_t ccsel_key(float x, enum ccsel_mode mode) {
  uint32_t u;
  memcpy(&u, &x, 4);
  if (mode == CCSEL_ABS) return u & 0x7fffffffu;
  if (mode == CCSEL_NEG) u ^= 0x80000000u;
  /* negative: ~u; positive: u | 2^31.  Branch-free: signs are coin flips. */
  return u ^ ((uint32_t)-(int32_t)(u >> 31) | 0x80000000u);
}

/* Reusable scratch memory for the candidate keys; zero-initialise it, free
 * it with ccsel_scratch_clear.  It grows to at most n/4 + 65 keys. */
typedef struct ccsel_scratch {
  uint32_t *buf;
  size_t cap;
} ccsel_scratch;

void ccsel_scratch_clear(ccsel_scratch *s);

/* The k-th largest key (1 <= k <= n) of x[n] under mode; *above = how many
 * elements have a strictly larger key.  s may be NULL (then the second and
 * third passes re-read x). */
uint32_t ccsel_kth(const float *x, size_t n, size_t k, enum ccsel_mode mode, ccsel_scratch *s,
                   size_t *above);

/* idx[0..k) = the indices, ascending, of the k largest elements of x[n]
 * under mode (ties as above).  Returns the k-th key. */
uint32_t ccsel_topk_indices(const float *x, size_t n, size_t k, enum ccsel_mode mode,
                            ccsel_scratch *s, uint32_t *idx);

#endif
