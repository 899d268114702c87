/* compressors/marsit.c — Marsit's 1-bit payload with unbiased bit-wise
 * aggregation (docs/algorithms.md).  The paper's abstract states the goal (one
 * bit per coordinate per hop, an aggregated sign that is unbiased, and a
 * global compensation, see mem_marsit.c); the combine rule below is
 * [reconstructed]: no public code or full text was available.
 *
 *   wire:  +-------------------------+--------------------------------------+
 *          | k: workers, uint32 LE   | ceil(d/8) bytes: sign bits, LSB first |
 *          +-------------------------+--------------------------------------+
 *
 * encode: k = 1, bit = (x >= 0).
 * combine(A with ka workers, B with kb): for every coordinate take A's bit
 *   with probability ka / (ka + kb), else B's bit; k = ka + kb.  By induction
 *   the bit is then that of a uniformly chosen worker among the ka + kb, so
 *   E[+-1 output] = (1/n) sum_i sign(p_i): unbiased for the MEAN SIGN, in
 *   any order of combines (ring, tree, torus).  [reconstructed]
 * decode(workers = k) = k * (+-1), the payload's estimate of the sum of the
 *   k workers' signs, so finish() (the mean) gives +-1 with expectation the
 *   mean sign.  The all-gather phase forwards payloads unchanged.
 *
 * The random mask M (bit = 1: take A) is drawn 64 coordinates at a time, as a
 * pure function of (call->key, ka, kb, global index): coordinate g uses bit
 * g mod 64 of mask word g / 64 of that stream, so a chunk combined at any
 * offset gets the bits the whole tensor would; out = (M & a) | (~M & b).
 * A mask word with P(bit) = p is built by comparing, lane-wise, a uniform
 * U = 0.r0 r1 r2 ... (r_j a random word per binary digit) with the binary
 * digits of p, most significant first: a lane is decided at the first digit
 * where they differ, so on average a word needs ~log2(64) + 2 draws, and
 * P(bit) equals p truncated to 64 binary digits (error < 2^-64).
 * Each combine of the same coordinates must have an independent mask: the
 * collective must give them distinct call->key (ccsim's ring salts the key by
 * hop); ka and kb are mixed into the stream as an extra guard. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "qbits.h"

#define MASK_SALT 0x6d61727369742d6dull /* "marsit-m" */

static size_t marsit_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 4 + (n + 7) / 8;
}

static size_t marsit_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                            uint8_t *out) {
  (void)state, (void)call;
  qb_put32(out, 1);
  qb_pack_signs(x, n, out + 4);
  return 4 + (n + 7) / 8;
}

static void marsit_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                          uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)call;
  const uint32_t k = qb_get32(in);
  assert(k == workers && "marsit: payload worker count differs from the collective's");
  (void)workers;
  qb_unpack_signs(in + 4, n, (float)k, -(float)k, y);
}

/* floor(ka 2^64 / (ka + kb)): the probability of taking A in 64 binary
 * digits (ka < ka + kb, so it fits; one 128-bit division, where a digit-by-
 * digit long division mispredicted a branch at every other digit). */
static uint64_t take_a_prob(uint32_t ka, uint32_t kb) {
  if (kb == 0) return UINT64_MAX; /* 1 - 2^-64 */
#if defined(__x86_64__)
  /* the one divq (the dividend's high word ka is below the divisor, so the
   * quotient fits), without libgcc's __udivti3 around it: 0.7% of a
   * 1024-worker Marsit run's samples */
  uint64_t q, r;
  __asm__("divq %4" : "=a"(q), "=d"(r) : "a"((uint64_t)0), "d"((uint64_t)ka), "rm"((uint64_t)ka + kb));
  (void)r;
  return q;
#else
  return (uint64_t)(((unsigned __int128)ka << 64) / ((uint64_t)ka + kb));
#endif
}

/* Mask word W of the stream: each bit 1 with probability p / 2^64. */
static uint64_t mask_word(uint64_t key, uint64_t W, uint64_t p) {
  uint64_t undecided = ~0ull, take = 0;
  for (int j = 0; j < 64 && undecided; j++) {
    const uint64_t pj = (p >> (63 - j)) & 1 ? ~0ull : 0, r = ccr_u64(key, W * 64 + (uint64_t)j);
    const uint64_t differ = (r ^ pj) & undecided; /* lanes decided at this digit */
    take |= differ & pj;                          /* r_j = 0 < p_j = 1: U < p */
    undecided &= ~differ;
    if ((p << j << 1) == 0) break; /* p's remaining digits are 0: the rest have U >= p */
  }
  return take;
}

/* Mask words W and W + 1 of the stream at once, each as mask_word makes it
 * (a word's lanes stop changing once all are decided; the digits of p end
 * both alike): two independent chains of draws keep the core busy where
 * one waits on each multiply. */
static void mask_pair(uint64_t key, uint64_t W, uint64_t p, uint64_t *out) {
  uint64_t ua = ~0ull, ub = ~0ull, ta = 0, tb = 0;
  for (int j = 0; j < 64 && (ua | ub); j++) {
    const uint64_t pj = (p >> (63 - j)) & 1 ? ~0ull : 0;
    const uint64_t ra = ccr_u64(key, W * 64 + (uint64_t)j), rb = ccr_u64(key, (W + 1) * 64 + (uint64_t)j);
    const uint64_t da = (ra ^ pj) & ua, db = (rb ^ pj) & ub;
    ta |= da & pj, tb |= db & pj;
    ua &= ~da, ub &= ~db;
    if ((p << j << 1) == 0) break;
  }
  out[0] = ta, out[1] = tb;
}

/* With AVX-512 (F and DQ: 64-bit products in one instruction), a word's
 * digits are drawn eight at a time, the counters W 64 + j .. W 64 + j + 7 in
 * one vector, and decided one by one as mask_word does from those same
 * draws.  A digit past the ones mask_word would have drawn (all lanes
 * decided, or p's digits ended) changes nothing: a decided lane stays as it
 * is, and where p's digit is 0 no lane is taken.  So the words are
 * mask_word's, bit for bit (test_signs compares them with the rule written
 * out, with and without CCSIM_NO_AVX512 in the environment).  The scalar
 * chains waited on three dependent products a draw; eight digits of a word
 * cover all 64 lanes four times in five. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(CCSIM_NO_AVX512)
#include <immintrin.h>
#define MASK_VECTOR 1

/* Whether this machine has AVX-512 F and DQ, and CCSIM_NO_AVX512 is unset. */
static int mask_avx512(void) {
  static int have = -1;
  int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
  if (h < 0) {
    __builtin_cpu_init();
    h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && !getenv("CCSIM_NO_AVX512");
    __atomic_store_n(&have, h, __ATOMIC_RELAXED);
  }
  return h;
}

/* r[0 .. 8) = ccr_u64(key, c0 + i): SplitMix64's finaliser of key + (c0 + i + 1) gamma. */
static inline __attribute__((always_inline, target("avx512f,avx512dq"))) void draws8(uint64_t key, uint64_t c0,
                                                                                    uint64_t *r) {
  const __m512i steps = _mm512_setr_epi64(0, (long long)CCR_GAMMA, (long long)(2 * CCR_GAMMA),
                                          (long long)(3 * CCR_GAMMA), (long long)(4 * CCR_GAMMA),
                                          (long long)(5 * CCR_GAMMA), (long long)(6 * CCR_GAMMA),
                                          (long long)(7 * CCR_GAMMA));
  __m512i x = _mm512_add_epi64(_mm512_set1_epi64((long long)(key + (c0 + 1) * CCR_GAMMA)), steps);
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)),
                         _mm512_set1_epi64((long long)0xBF58476D1CE4E5B9ull));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)),
                         _mm512_set1_epi64((long long)0x94D049BB133111EBull));
  _mm512_storeu_si512(r, _mm512_xor_si512(x, _mm512_srli_epi64(x, 31)));
}

/* Mask words W .. W + k, each mask_word's. */
__attribute__((target("avx512f,avx512dq"))) static void mask_words_avx512(uint64_t key, uint64_t W, uint64_t p,
                                                                          size_t k, uint64_t *out) {
  for (size_t i = 0; i < k; i++) {
    uint64_t undecided = ~0ull, take = 0;
    for (int j0 = 0; j0 < 64 && undecided; j0 += 8) {
      uint64_t r[8];
      draws8(key, (W + i) * 64 + (uint64_t)j0, r);
      for (int q = 0; q < 8; q++) {
        const int j = j0 + q;
        const uint64_t pj = (p >> (63 - j)) & 1 ? ~0ull : 0, differ = (r[q] ^ pj) & undecided;
        take |= differ & pj;
        undecided &= ~differ;
      }
      if ((p << (j0 + 7) << 1) == 0) break; /* p's digits after j0 + 7 are 0 */
    }
    out[i] = take;
  }
}
#endif

/* Mask words W .. W + k. */
static void mask_words(uint64_t key, uint64_t W, uint64_t p, size_t k, uint64_t *out) {
#ifdef MASK_VECTOR
  if (mask_avx512()) {
    mask_words_avx512(key, W, p, k, out);
    return;
  }
#endif
  size_t i = 0;
  for (; i + 2 <= k; i += 2) mask_pair(key, W + i, p, out + i);
  if (i < k) out[i] = mask_word(key, W + i, p);
}

static size_t marsit_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                             const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                             const ccomp_call *call, uint8_t *out) {
  (void)state, (void)na, (void)nb;
  const uint32_t ha = qb_get32(a), hb = qb_get32(b);
  assert(ha == ka && hb == kb && "marsit: payload worker counts differ from the collective's");
  (void)ka, (void)kb;
  const uint64_t p = take_a_prob(ha, hb);
  const uint64_t key = ccr_key(ccr_key(call->key, MASK_SALT), (uint64_t)ha << 32 | hb);
  qb_put32(out, ha + hb);
  a += 4, b += 4, out += 4;
  /* Payload word w holds global coordinates offset + 64 w + j, which straddle
   * mask words W0 + w and W0 + w + 1 when the offset is not a multiple of 64;
   * the chunk needs mask words W0 .. W0 + nm, each made once, a block at a
   * time. */
  const uint64_t W0 = call->offset / 64;
  const unsigned sh = (unsigned)(call->offset % 64);
  const size_t nw = (n + 63) / 64, nm = (sh + n + 63) / 64;
  enum { B = 32 };
  uint64_t mk[B + 1];
  for (size_t w0 = 0; w0 < nw; w0 += B) {
    const size_t bw = nw - w0 < B ? nw - w0 : B, mend = w0 + bw + (sh != 0) < nm ? w0 + bw + (sh != 0) : nm;
    mask_words(key, W0 + w0, p, mend - w0, mk);
    for (size_t w = w0; w < w0 + bw; w++) {
      uint64_t m = mk[w - w0] >> sh;
      if (sh && w + 1 < nm) m |= mk[w + 1 - w0] << (64 - sh);
      const size_t nbytes = w + 1 == nw ? ((n - 64 * w) + 7) / 8 : 8;
      const uint64_t va = qb_get_partial(a + 8 * w, nbytes), vb = qb_get_partial(b + 8 * w, nbytes);
      qb_put_partial(out + 8 * w, (m & va) | (~m & vb), nbytes);
    }
  }
  return 4 + (n + 7) / 8;
}

static void marsit_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, w = (double)((n + 7) / 8) + 4;
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 1, c->bytes_read = 4 * d, c->bytes_written = w, c->flops = d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = w, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE: /* ~8 random words of ~12 integer ops per 64 coordinates, and a select */
    c->launches = 1, c->bytes_read = 2 * w, c->bytes_written = w, c->flops = 2 * d;
    break;
  }
}

/* A round trip (k = 1) errs by |1 - |x_i|| <= 1 + |x_i| per coordinate; a
 * combine of two single-worker payloads decodes to +-2 where their decoded
 * sum is 0, an error of 2.  |x_i| + 2 per coordinate covers both
 * (deterministic). */
static double marsit_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs((double)x[i]) + 2.0;
    s += e * e;
  }
  return sqrt(s);
}

const ccomp_type ccomp_marsit = {
    .name = "marsit",
    .summary = "Marsit (reconstructed compensation): sign bits + worker count, summable by an unbiased random bit choice",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = marsit_max_wire_bytes,
    .encode = marsit_encode,
    .decode = marsit_decode,
    .combine = marsit_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = marsit_cost,
    .roundtrip_bound = marsit_roundtrip_bound,
};
