/* compressors/sign_ring.c — the naive 1-bit ring, the cascading baseline of
 * docs/algorithms.md (Marsit's motivation): at every hop of a recompressing
 * ring (allreduce/ring-recompress) a worker decodes the incoming partial
 * aggregate alpha * s_in, adds its own gradient and re-signs:
 *   s' = sign(alpha * s_in + g_i),   alpha' = mean |alpha * s_in + g_i|.
 * The partial sum of h workers is carried by one scale and d signs, and each
 * new worker's gradient weighs as much as the whole aggregate before it, so
 * the result is biased toward the later workers and its error grows with n.
 * With scaled = false, alpha is 1: then the incoming +-1 dominates small
 * gradients and the bias is toward the EARLY workers instead.
 *
 *   wire:  +--------------------+-------------------------------+
 *          | alpha, fp32, LE    | ceil(d/8) bytes: bit = x >= 0 |
 *          +--------------------+-------------------------------+
 *
 * decode gives alpha * (+-1), the payload's estimate of the SUM over the
 * workers it has passed (the scale was taken of that sum), whatever the
 * worker count; finish() is the mean.  Not summable by design: the
 * collective must decode, add and re-encode.  The same numbers as
 * 'ef-signsgd' when scaled; a separate name so that experiments say which
 * baseline they mean. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

typedef struct {
  int scaled;
} sign_ring;

static const ccomp_param sign_ring_params[] = {
    {"scaled", CCOMP_BOOL, 1, 0, 1,
     "attach alpha = mean |x| (true) or send plain signs with alpha = 1 (false)"},
};

static int sign_ring_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                          size_t errlen) {
  (void)setup, (void)err, (void)errlen;
  ((sign_ring *)state)->scaled = params[0] != 0;
  return 0;
}

static float ring_alpha(const sign_ring *s, const float *x, size_t n) {
  if (!s->scaled) return 1.0f;
  return n ? (float)(qb_sum_abs(x, n) / (double)n) : 0.0f;
}

static size_t sign_ring_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 4 + (n + 7) / 8;
}

static size_t sign_ring_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                               uint8_t *out) {
  (void)call;
  qb_putf(out, ring_alpha(state, x, n));
  qb_pack_signs(x, n, out + 4);
  return 4 + (n + 7) / 8;
}

static void sign_ring_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                             uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  const float a = qb_getf(in);
  qb_unpack_signs(in + 4, n, a, -a, y);
}

static void sign_ring_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const sign_ring *s = state;
  const double d = (double)n, bits = (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = s->scaled ? 2 : 1;
    c->bytes_read = (s->scaled ? 8 : 4) * d, c->bytes_written = bits + 4;
    c->flops = (s->scaled ? 3 : 1) * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = bits + 4, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Deterministic and exact: | |x_i| - alpha | per element. */
static double sign_ring_roundtrip_bound(const void *state, const float *x, size_t n) {
  return qb_scaled_sign_error(x, n, ring_alpha(state, x, n));
}

const ccomp_type ccomp_sign_ring = {
    .name = "sign-ring",
    .summary = "naive 1-bit ring baseline: sign bits + fp32 alpha, re-signed at every hop",
    .flags = CCOMP_FIXED_SIZE,
    .params = sign_ring_params,
    .nparams = sizeof sign_ring_params / sizeof sign_ring_params[0],
    .state_size = sizeof(sign_ring),
    .init = sign_ring_init,
    .clear = NULL,
    .max_wire_bytes = sign_ring_max_wire_bytes,
    .encode = sign_ring_encode,
    .decode = sign_ring_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = sign_ring_cost,
    .roundtrip_bound = sign_ring_roundtrip_bound,
};
