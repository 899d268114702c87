/* compressors/signsgd.c — signSGD with majority vote (Bernstein, Wang,
 * Azizzadenesheli & Anandkumar, "signSGD: Compressed Optimisation for
 * Non-Convex Problems", ICML 2018; majority vote: Bernstein, Zhao,
 * Azizzadenesheli & Anandkumar, "signSGD with Majority Vote is Communication
 * Efficient and Fault Tolerant", ICLR 2019).
 *
 * Wire: ceil(n/8) bytes, one bit per element, bit = (x >= 0), LSB first
 * (qbits.h).  decode gives +-1 per element; the collective adds the n
 * workers' +-1 (an all-gather or a parameter server: a payload cannot be
 * combined without counts, so the type is not summable) and finish() takes the
 * majority vote, sign(sum), which is 0 on a tie (an even n split evenly):
 * the paper's sign(sum of signs), with sign(0) = 0. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

static size_t signsgd_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return (n + 7) / 8;
}

static size_t signsgd_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                             uint8_t *out) {
  (void)state, (void)call;
  qb_pack_signs(x, n, out);
  return (n + 7) / 8;
}

static void signsgd_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                           uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  qb_unpack_signs(in, n, 1.0f, -1.0f, y);
}

/* Majority vote: the sign of the sum of the workers' signs, 0 on a tie. */
static void signsgd_finish(const void *state, float *y, size_t n, uint32_t workers) {
  (void)state, (void)workers;
  for (size_t i = 0; i < n; i++) y[i] = (float)((y[i] > 0.0f) - (y[i] < 0.0f));
}

static void signsgd_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, bits = (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE: /* one compare-and-pack kernel */
    c->launches = 1, c->bytes_read = 4 * d, c->bytes_written = bits, c->flops = d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = bits, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE: /* not summable: nothing runs */
    break;
  }
}

/* Deterministic and exact: |sign(x) - x| = | 1 - |x| | per element. */
static double signsgd_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  return qb_scaled_sign_error(x, n, 1.0f);
}

const ccomp_type ccomp_signsgd = {
    .name = "signsgd",
    .summary = "signSGD: 1 bit per element (x >= 0), majority vote",
    .flags = CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = signsgd_max_wire_bytes,
    .encode = signsgd_encode,
    .decode = signsgd_decode,
    .combine = NULL,
    .finish = signsgd_finish,
    .local_stat = NULL,
    .cost = signsgd_cost,
    .roundtrip_bound = signsgd_roundtrip_bound,
};
