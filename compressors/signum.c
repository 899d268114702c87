/* compressors/signum.c — Signum: signSGD with momentum (Bernstein, Wang,
 * Azizzadenesheli & Anandkumar, "signSGD: Compressed Optimisation for
 * Non-Convex Problems", ICML 2018, Algorithm 2):
 *   m <- beta m + (1 - beta) g;   send sign(m);   aggregate by majority vote.
 * beta defaults to 0.9, the value of the paper's experiments.
 *
 * The momentum lives in the instance (CCOMP_STATEFUL), one float per element
 * of the tensor, indexed by the global element index (call->offset + i), so a
 * collective may encode the tensor in any chunking.  Each encode() advances
 * the momentum of the elements it covers: call it once per element per
 * iteration (a recompressing collective must not re-encode partial sums with
 * the same instance).  m starts at zero.
 *
 * Wire, decode and finish are signSGD's: ceil(n/8) bytes of bits (m >= 0),
 * decode +-1, finish = sign of the sum (0 on a tie). */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "qbits.h"

typedef struct {
  float beta;
  float *m; /* momentum, setup.n elements */
  size_t n;
} signum;

static const ccomp_param signum_params[] = {
    {"beta", CCOMP_REAL, 0.9, 0.0, 1.0,
     "momentum coefficient in [0, 1): m = beta m + (1 - beta) g (Bernstein et al. 2018: 0.9)"},
};

static int signum_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                       size_t errlen) {
  signum *s = state;
  if (params[0] >= 1.0) {
    snprintf(err, errlen, "signum: parameter 'beta' must be below 1 (got %g): with beta = 1 the "
                          "momentum never sees a gradient", params[0]);
    return -1;
  }
  s->beta = (float)params[0];
  s->n = setup->n;
  s->m = ccomp_zeroed(setup->n, sizeof *s->m);
  if (!s->m) {
    snprintf(err, errlen, "signum: cannot allocate the momentum of %zu elements", setup->n);
    return -1;
  }
  return 0;
}

static void signum_clear(void *state) { free(((signum *)state)->m); }

static size_t signum_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return (n + 7) / 8;
}

/* m = b m + a x over n elements, in blocks of 64 that gcc vectorizes. */
QB_CLONES static void momentum(float *restrict m, const float *restrict x, size_t n, float b,
                               float a) {
  size_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int j = 0; j < 64; j++) m[i + j] = b * m[i + j] + a * x[i + j];
  for (; i < n; i++) m[i] = b * m[i] + a * x[i];
}

static size_t signum_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                            uint8_t *out) {
  signum *s = state;
  assert(call->offset + n <= s->n);
  float *m = s->m + call->offset;
  const float b = s->beta, a = 1.0f - s->beta;
  /* Update and pack 4096 elements (512 bytes of bits) at a time, while the
   * momentum block is still in cache. */
  for (size_t lo = 0; lo < n; lo += 4096) {
    size_t k = n - lo < 4096 ? n - lo : 4096;
    momentum(m + lo, x + lo, k, b, a);
    qb_pack_signs(m + lo, k, out + lo / 8);
  }
  return (n + 7) / 8;
}

static void signum_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                          uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  qb_unpack_signs(in, n, 1.0f, -1.0f, y);
}

static void signum_finish(const void *state, float *y, size_t n, uint32_t workers) {
  (void)state, (void)workers;
  for (size_t i = 0; i < n; i++) y[i] = (float)((y[i] > 0.0f) - (y[i] < 0.0f));
}

static void signum_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, bits = (double)((n + 7) / 8);
  switch (op) {
  case CCOMP_ENCODE: /* momentum update fused with compare-and-pack */
    c->launches = 1, c->bytes_read = 8 * d, c->bytes_written = 4 * d + bits, c->flops = 4 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = bits, c->bytes_written = 4 * d, c->flops = d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* The output is +-1 whatever the momentum holds, so |out - x| <= 1 + |x| for
 * any state (on a fresh instance sign(m) = sign(x) and the error is
 * |1 - |x||, but the bound must hold after any history). */
static double signum_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = 1.0 + fabs((double)x[i]);
    s += e * e;
  }
  return sqrt(s);
}

const ccomp_type ccomp_signum = {
    .name = "signum",
    .summary = "Signum: sign of the momentum, 1 bit per element, majority vote",
    .flags = CCOMP_FIXED_SIZE | CCOMP_STATEFUL,
    .params = signum_params,
    .nparams = sizeof signum_params / sizeof signum_params[0],
    .state_size = sizeof(signum),
    .init = signum_init,
    .clear = signum_clear,
    .max_wire_bytes = signum_max_wire_bytes,
    .encode = signum_encode,
    .decode = signum_decode,
    .combine = NULL,
    .finish = signum_finish,
    .local_stat = NULL,
    .cost = signum_cost,
    .roundtrip_bound = signum_roundtrip_bound,
};
