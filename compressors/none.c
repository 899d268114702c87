/* compressors/none.c — no compression: the fp32 values, little-endian.
 *
 * Wire: n x 4 bytes, IEEE-754 binary32.  Summable: combine adds in fp32, the
 * way an uncompressed ring all-reduce (NCCL, MPI) does. */
#include <string.h>

#include "ccomp/compressor.h"

static size_t none_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return n * sizeof(float);
}

static size_t none_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  (void)state, (void)call;
  memcpy(out, x, n * sizeof(float));
  return n * sizeof(float);
}

static void none_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  memcpy(y, in, n * sizeof(float));
}

static size_t none_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                           const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                           const ccomp_call *call, uint8_t *out) {
  (void)state, (void)na, (void)ka, (void)nb, (void)kb, (void)call;
  /* Byte buffers may be unaligned for float: each value through memcpy,
   * which the compiler makes one (vector) load or store, not a copy */
  for (size_t i = 0; i < n; i++) {
    float x, y;
    memcpy(&x, a + 4 * i, 4);
    memcpy(&y, b + 4 * i, 4);
    x += y;
    memcpy(out + 4 * i, &x, 4);
  }
  return n * sizeof(float);
}

static void none_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  if (op == CCOMP_COMBINE) { /* one element-wise add kernel */
    c->launches = 1;
    c->bytes_read = 8.0 * (double)n;
    c->bytes_written = 4.0 * (double)n;
    c->flops = (double)n;
  } /* encode and decode: the buffer is sent as it is, nothing runs */
}

static double none_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state, (void)x, (void)n;
  return 0.0;
}

const ccomp_type ccomp_none = {
    .name = "none",
    .summary = "no compression: fp32 values",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE | CCOMP_UNBIASED | CCOMP_LOSSLESS,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = none_max_wire_bytes,
    .encode = none_encode,
    .decode = none_decode,
    .combine = none_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = none_cost,
    .roundtrip_bound = none_roundtrip_bound,
};
