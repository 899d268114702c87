/* compressors/golomb.h — Golomb-Rice coding of sparse positions.
 *
 * [code] (Sattler et al.'s public compression utilities, as docs/algorithms.md
 * records): k strictly ascending positions p_0 < ... < p_{k-1} in [0, n) are
 * coded as gaps g_i = p_i - p_{i-1} >= 1 with p_{-1} = -1; each g_i - 1 is
 * split by the Rice parameter 2^b into a quotient, written in unary (that many
 * one-bits, then a zero-bit), and a remainder written in b bits:
 *
 *     g_i - 1 = q * 2^b + r      code: 1 1 ... 1 0 | r (b bits, LSB first)
 *                                       `-- q --'
 *
 * The bit order is bitstream.h's (LSB-first); the Python reference writes
 * strings of '0'/'1', so only the bit order within bytes is ccsim's own.
 *
 * For positions that are a Bernoulli(q) sample of [0, n) the gaps are
 * geometric, and the best Rice parameter (Kiely, "Selecting the Golomb
 * parameter in Rice coding", IPN Progress Report 42-159, 2004; used by Sattler
 * et al. 2019, "Sparse Binary Compression", IJCNN) is
 *     b* = 1 + floor(log2(ln(phi - 1) / ln(1 - q))),  phi = (sqrt 5 + 1)/2,
 * with q = (k+1)/(n+1); the expected code length per position is
 *     b-bar = b* + 1 / (1 - (1 - q)^(2^b*)).
 */
#ifndef CCOMP_GOLOMB_H
#define CCOMP_GOLOMB_H

#include <stddef.h>
#include <stdint.h>

#include "bitstream.h"

/* b* for k positions among n, clamped to [0, 30].  The formula gives b* <= 0
 * for q > 0.38 (log2 of a ratio below 1/2); Kiely's statement of it takes
 * max(0, .), i.e. plain unary gaps, and so does ccsim. */
unsigned ccg_rice_param(size_t k, size_t n);

/* b-bar: expected bits per position for density q and parameter b. */
double ccg_expected_bits(double q, unsigned b);

/* Upper bound, in bits, of the code of any k ascending positions in [0, n)
 * with parameter b: the quotients add up to at most (n - k) / 2^b. */
size_t ccg_max_bits(size_t k, size_t n, unsigned b);

/* Append the code of pos[0..k) (strictly ascending) to w. */
void ccg_encode(ccb_writer *w, const uint32_t *pos, size_t k, unsigned b);

/* Read k positions into pos; 0 on success, -1 if the stream ends early or a
 * position falls outside [0, n). */
int ccg_decode(ccb_reader *r, uint32_t *pos, size_t k, unsigned b, size_t n);

/* Append the code of one position, given the previous one (*prev, starting
 * at ccg_START); for encoders that interleave other fields. */
#define ccg_START UINT64_MAX
static inline void ccg_put(ccb_writer *w, unsigned b, uint64_t *prev, uint32_t pos) {
  uint64_t g1 = (uint64_t)pos - *prev - 1; /* gap - 1 >= 0; prev = -1 wraps */
  ccb_put_unary(w, (size_t)(g1 >> b));
  ccb_put(w, g1, b);
  *prev = pos;
}

/* One position at a time, for decoders that scatter as they read: start with
 * *prev = ccg_START; each call reads the next position into *pos (0), or
 * returns -1 as ccg_decode does. */
static inline int ccg_next(ccb_reader *r, unsigned b, size_t n, uint64_t *prev, uint32_t *pos) {
  uint64_t q = ccb_get_unary(r);
  uint64_t p = *prev + 1 + ((q << b) | ccb_get(r, b)); /* prev = -1 wraps to 0 + gap */
  if (r->overrun || p >= n) return -1;
  *pos = (uint32_t)p;
  *prev = p;
  return 0;
}

#endif
