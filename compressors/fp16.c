/* compressors/fp16.c — IEEE binary16, round to nearest even.
 *
 * Wire: n x 2 bytes, little-endian binary16.  Summable: combine decodes both
 * sides to fp32, adds, and re-rounds to fp16, which is what an fp16 ring
 * all-reduce does at every hop; the re-rounding is a (small) cascading error,
 * and a sum beyond 65504 overflows to infinity as it would on a GPU. */
#include <math.h>
#include <string.h>

#include "compressor.h"
#include "half.h"

static size_t fp16_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 2 * n;
}

static size_t fp16_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  (void)state, (void)call;
  for (size_t i = 0; i < n; i++) {
    uint16_t h = ccomp_f32_to_f16(x[i]);
    out[2 * i] = (uint8_t)h;
    out[2 * i + 1] = (uint8_t)(h >> 8);
  }
  return 2 * n;
}

static inline uint16_t load16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static void fp16_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  for (size_t i = 0; i < n; i++) y[i] = ccomp_f16_to_f32(load16(in + 2 * i));
}

static size_t fp16_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                           const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                           const ccomp_call *call, uint8_t *out) {
  (void)state, (void)na, (void)ka, (void)nb, (void)kb, (void)call;
  for (size_t i = 0; i < n; i++) {
    float s = ccomp_f16_to_f32(load16(a + 2 * i)) + ccomp_f16_to_f32(load16(b + 2 * i));
    uint16_t h = ccomp_f32_to_f16(s);
    out[2 * i] = (uint8_t)h;
    out[2 * i + 1] = (uint8_t)(h >> 8);
  }
  return 2 * n;
}

static void fp16_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  c->launches = 1;
  switch (op) {
  case CCOMP_ENCODE:
    c->bytes_read = 4.0 * (double)n, c->bytes_written = 2.0 * (double)n, c->flops = (double)n;
    break;
  case CCOMP_DECODE:
    c->bytes_read = 2.0 * (double)n, c->bytes_written = 4.0 * (double)n, c->flops = (double)n;
    break;
  case CCOMP_COMBINE:
    c->bytes_read = 4.0 * (double)n, c->bytes_written = 2.0 * (double)n, c->flops = 3.0 * (double)n;
    break;
  }
}

/* Round to nearest: |h(x) - x| <= 2^-11 |x| in the normal range, and at most
 * half the subnormal spacing, 2^-25, below it.  Inputs beyond 65504 overflow. */
static double fp16_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fmax(fabs((double)x[i]) * 0x1p-11, 0x1p-25);
    s += e * e;
  }
  return sqrt(s);
}

const ccomp_type ccomp_fp16 = {
    .name = "fp16",
    .summary = "IEEE binary16, round to nearest even; ring hops re-round the fp32 sum",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = fp16_max_wire_bytes,
    .encode = fp16_encode,
    .decode = fp16_decode,
    .combine = fp16_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = fp16_cost,
    .roundtrip_bound = fp16_roundtrip_bound,
};
