/* compressors/ef_signsgd.c — the scaled sign of EF-signSGD (Karimireddy,
 * Rebjock, Stich & Jaggi, "Error Feedback Fixes SignSGD and other Gradient
 * Compression Schemes", ICML 2019, Algorithm 1):
 *   c = (||p||_1 / d) sign(p),
 * d the elements of the chunk.  Pair it with the 'ef-sign' memory (p = e +
 * eta g, e = p - c, the paper's loop) or with 'residual' (eta = 1).  The
 * scale makes c the best multiple of sign(p): ||p - c||^2 = ||p||^2 -
 * ||p||_1^2 / d, the paper's delta-approximate compressor with
 * delta = ||p||_1^2 / (d ||p||^2).
 *
 *   wire:  +--------------------+------------------------------+
 *          | scale, fp32, LE    | ceil(d/8) bytes: bit = p >= 0 |
 *          +--------------------+------------------------------+
 *
 * Not summable (every worker has its own scale): all-gather, parameter
 * server or a recompressing ring.  finish() is the mean. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

/* The scale, computed the same way by encode and by the stated bound. */
static float l1_scale(const float *x, size_t n) {
  return n ? (float)(qb_sum_abs(x, n) / (double)n) : 0.0f;
}

static size_t efsign_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 4 + (n + 7) / 8;
}

static size_t efsign_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                            uint8_t *out) {
  (void)state, (void)call;
  qb_putf(out, l1_scale(x, n));
  qb_pack_signs(x, n, out + 4);
  return 4 + (n + 7) / 8;
}

static void efsign_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                          uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  const float a = qb_getf(in);
  qb_unpack_signs(in + 4, n, a, -a, y);
}

static void efsign_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, bits = (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE: /* an l1 reduction, then compare-and-pack */
    c->launches = 2, c->bytes_read = 8 * d, c->bytes_written = bits + 4, c->flops = 3 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = bits + 4, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Deterministic and exact: | |x_i| - scale | per element. */
static double efsign_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  return qb_scaled_sign_error(x, n, l1_scale(x, n));
}

const ccomp_type ccomp_ef_signsgd = {
    .name = "ef-signsgd",
    .summary = "EF-signSGD: sign bits + fp32 scale ||p||_1/d; use with the ef-sign memory",
    .flags = CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = efsign_max_wire_bytes,
    .encode = efsign_encode,
    .decode = efsign_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = efsign_cost,
    .roundtrip_bound = efsign_roundtrip_bound,
};
