/* compressors/terngrad.c — TernGrad (Wen, Xu, Yan, Wu, Wang, Chen & Li,
 * "TernGrad: Ternary Gradients to Reduce Communication in Distributed Deep
 * Learning", NeurIPS 2017):
 *   clip:      x_i <- max(-c, min(c, x_i)),  c = clip * sigma  (paper: 2.5 sigma)
 *   scaler:    s = max_i |x_i|               (of the clipped chunk)
 *   ternarize: Q(x_i) = s sign(x_i) b_i,  b_i ~ Bernoulli(|x_i| / s).
 * sigma is the standard deviation of the chunk (mean subtracted, population),
 * as th = 2.5 * std(x) in public re-implementations.  E[Q(x)] = clip(x):
 * UNBIASED WITH RESPECT TO THE CLIPPED INPUT, not the raw one (the paper's
 * clipping deliberately trades that bias for a smaller variance); with
 * clip = 0 there is no clipping and Q is unbiased for x.  A constant chunk
 * (sigma = 0, e.g. one element) is not clipped: it has no outliers.
 *
 *   wire:  +------------+-------------------------------------------------+
 *          | s, fp32 LE | ceil(d/4) bytes: b_i sign(x_i) in 2-bit two's   |
 *          |            | complement (00 = 0, 01 = +1, 11 = -1), LSB first |
 *          +------------+-------------------------------------------------+
 *
 * 2d + 32 bits.  Not summable (per-worker scalers); finish() is the mean. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

#define BLOCK 1024

typedef struct {
  double clip;
} terngrad;

static const ccomp_param terngrad_params[] = {
    {"clip", CCOMP_REAL, 2.5, 0.0, 1e6,
     "clip at this many standard deviations before ternarizing (Wen et al.: 2.5); 0 = no clipping"},
};

static int terngrad_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                         size_t errlen) {
  (void)setup, (void)err, (void)errlen;
  ((terngrad *)state)->clip = params[0];
  return 0;
}

/* The scaler s and the clipping threshold c (INFINITY when not clipping),
 * computed the same way by encode and the stated bound. */
static float scaler(const terngrad *t, const float *x, size_t n, double *c) {
  *c = INFINITY;
  if (n == 0) return 0.0f;
  double sum, sq;
  const float maxabs = qb_moments(x, n, &sum, &sq);
  const double mean = sum / (double)n, var = fmax(sq / (double)n - mean * mean, 0.0);
  const double sigma = sqrt(var);
  if (t->clip > 0 && sigma > 0) *c = t->clip * sigma;
  return (float)fmin((double)maxabs, *c);
}

static size_t terngrad_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 4 + qb_stream_bytes(n, 2);
}

static size_t terngrad_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                              uint8_t *out) {
  double c;
  const float s = scaler(state, x, n, &c);
  /* a_i = min(|x_i| / s, 1): the clip is the cap at level 1. */
  const float scale = s > 0 ? 1.0f / s : 0.0f;
  int32_t q[BLOCK];
  qb_putf(out, s);
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    qb_sround(x + lo, m, scale, 1, call->key, call->offset + lo, q);
    qb_pack_int(q, m, 2, out + 4 + lo / 4);
  }
  return 4 + qb_stream_bytes(n, 2);
}

static void terngrad_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                            uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
  const float s = qb_getf(in);
  int32_t q[BLOCK];
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    qb_unpack_int(in + 4 + lo / 4, m, 2, q);
    for (size_t i = 0; i < m; i++) y[lo + i] = (float)q[i] * s;
  }
}

static void terngrad_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  const double d = (double)n, w = (double)qb_stream_bytes(n, 2) + 4;
  switch (op) {
  case CCOMP_ENCODE: /* mean/std/max reductions, then the ternarize kernel */
    c->launches = 2, c->bytes_read = 8 * d, c->bytes_written = w, c->flops = 12 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = w, c->bytes_written = 4 * d, c->flops = 2 * d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* ||Q - x|| <= ||Q - clip(x)|| + ||clip(x) - x||.  The second is exact.  For
 * the first, |Q_i - clip(x_i)| <= s always, so it is <= sqrt(d) s; and
 * E = sum s^2 a_i (1 - a_i) <= s ||clip(x)||_1 (a_i = |clip(x_i)|/s), the
 * squared errors independent in [0, s^2], so by Hoeffding it is <=
 * sqrt(E + 10 sqrt(d) s^2) except with probability <= e^-200.  Plus
 * sqrt(d) s 2^-20 for fp32 rounding. */
static double terngrad_roundtrip_bound(const void *state, const float *x, size_t n) {
  double c;
  const double s = scaler(state, x, n, &c), d = (double)n;
  double l1 = 0, clip2 = 0;
  for (size_t i = 0; i < n; i++) {
    const double a = fabs((double)x[i]);
    l1 += fmin(a, s);
    clip2 += (a > s) ? (a - s) * (a - s) : 0.0;
  }
  const double det = sqrt(d) * s, hoef = sqrt(s * l1 + 10 * sqrt(d) * s * s);
  return fmin(det, hoef) + sqrt(clip2) + sqrt(d) * s * 0x1p-20;
}

const ccomp_type ccomp_terngrad = {
    .name = "terngrad",
    .summary = "TernGrad: clip to 2.5 sigma, s * sign * Bernoulli(|x|/s), 2 bits + fp32",
    .flags = CCOMP_FIXED_SIZE,
    .params = terngrad_params,
    .nparams = sizeof terngrad_params / sizeof terngrad_params[0],
    .state_size = sizeof(terngrad),
    .init = terngrad_init,
    .clear = NULL,
    .max_wire_bytes = terngrad_max_wire_bytes,
    .encode = terngrad_encode,
    .decode = terngrad_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = terngrad_cost,
    .roundtrip_bound = terngrad_roundtrip_bound,
};
