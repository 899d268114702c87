/* compressors/bf16.c — bfloat16 (the upper half of an IEEE binary32: sign,
 * 8-bit exponent, 7-bit fraction), round to nearest, ties to even, as
 * TensorFlow, PyTorch and the AVX512-BF16 / ARMv8.6 conversion instructions
 * round.
 *
 * Wire: n x 2 bytes, little-endian bfloat16.  Summable like fp16: combine
 * decodes both sides to fp32 (exact), adds, and re-rounds to bf16, which is
 * what a bf16 ring all-reduce does at every hop; the re-rounding is a small
 * cascading error (unit roundoff 2^-8, eight times fp16's, but with fp32's
 * range: no overflow below 3.39e38).  NaN stays NaN (made quiet, sign kept);
 * values that round beyond the largest bf16 become infinity. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

static inline uint16_t f32_to_bf16(float f) {
  const uint32_t u = qb_f2u(f);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; /* nearest, ties to even */
  const uint32_t quiet = (u >> 16) | 0x0040u;                     /* NaN: set the quiet bit */
  return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}

static inline float bf16_to_f32(uint16_t h) { return qb_u2f((uint32_t)h << 16); }

/* Blocks of 64 with fixed trip counts: vectorized by gcc -O2. */
QB_CLONES static void bf16_pack(const float *restrict x, size_t n, uint8_t *restrict out) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 64; j++) {
      uint16_t h = f32_to_bf16(x[i + j]);
      out[2 * (i + j)] = (uint8_t)h, out[2 * (i + j) + 1] = (uint8_t)(h >> 8);
    }
  for (; i < n; i++) {
    uint16_t h = f32_to_bf16(x[i]);
    out[2 * i] = (uint8_t)h, out[2 * i + 1] = (uint8_t)(h >> 8);
  }
}

static inline uint16_t load16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

QB_CLONES static void bf16_unpack(const uint8_t *restrict in, size_t n, float *restrict y) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 64; j++) y[i + j] = bf16_to_f32(load16(in + 2 * (i + j)));
  for (; i < n; i++) y[i] = bf16_to_f32(load16(in + 2 * i));
}

static size_t bf16_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 2 * n;
}

static size_t bf16_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  (void)state, (void)call;
  bf16_pack(x, n, out);
  return 2 * n;
}

static void bf16_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  bf16_unpack(in, n, y);
}

static size_t bf16_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                           const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                           const ccomp_call *call, uint8_t *out) {
  (void)state, (void)na, (void)ka, (void)nb, (void)kb, (void)call;
  float fa[256], fb[256];
  for (size_t lo = 0; lo < n; lo += 256) {
    size_t m = n - lo < 256 ? n - lo : 256;
    bf16_unpack(a + 2 * lo, m, fa);
    bf16_unpack(b + 2 * lo, m, fb);
    for (size_t i = 0; i < m; i++) fa[i] += fb[i];
    bf16_pack(fa, m, out + 2 * lo);
  }
  return 2 * n;
}

static void bf16_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n;
  c->launches = 1;
  switch (op) {
  case CCOMP_ENCODE:
    c->bytes_read = 4 * d, c->bytes_written = 2 * d, c->flops = d;
    break;
  case CCOMP_DECODE:
    c->bytes_read = 2 * d, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE:
    c->bytes_read = 4 * d, c->bytes_written = 2 * d, c->flops = 3 * d;
    break;
  }
}

/* Round to nearest with an 8-bit significand: |bf(x) - x| <= 2^-8 |x| for
 * normal x, and at most half the subnormal spacing, 2^-134, below 2^-126.
 * Deterministic; inputs that overflow (|x| >= 0x1.ffp127) are excluded. */
static double bf16_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  return ccomp_rounding_bound(x, n, 0x1p-8, 0x1p-134);
}

const ccomp_type ccomp_bf16 = {
    .name = "bf16",
    .summary = "bfloat16, round to nearest even; ring hops re-round the fp32 sum",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = bf16_max_wire_bytes,
    .encode = bf16_encode,
    .decode = bf16_decode,
    .combine = bf16_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = bf16_cost,
    .roundtrip_bound = bf16_roundtrip_bound,
};
