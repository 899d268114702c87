/* compressors/qsgd.c — QSGD (Alistarh, Grubic, Li, Tomioka & Vojnovic,
 * "QSGD: Communication-Efficient SGD via Gradient Quantization and Encoding",
 * NeurIPS 2017), the stochastic quantizer Q_s of Section 3.1:
 *   Q_s(x_i) = ||x||_2 sign(x_i) l_i / s,  l_i = floor(s |x_i| / ||x||_2 + u_i),
 * u_i uniform in [0, 1): l_i rounds s|x_i|/||x|| up with probability equal to
 * its fractional part, so E[Q_s(x)] = x (unbiased; the Bernoulli is exact,
 * qbits.h), and (Lemma 3.1) E ||Q_s(x) - x||^2 <= min(d/s^2, sqrt(d)/s) ||x||^2.
 * The norm is per chunk (each call), as the paper's per-bucket variant.
 *
 * norm "l2" (the default: the paper's Q_s) or "max": the scale is the
 * chunk's max |x_i| instead of ||x||_2, as the QSGD baseline of the
 * Global-QSGD reference code does ([code] sands-lab/global-qsgd,
 * gqsgd/ddphook.py, qsgd_hook: each worker's local max |x| of the bucket,
 * 8-bit codes, all-gathered).  With the max every level is used (|x_i| <=
 * max, so s|x_i|/max <= s) and the step max/s is finer than ||x||_2/s;
 * still unbiased, and E (Q(x_i) - x_i)^2 <= (max/s)^2 / 4 per coordinate.
 * The hook divides each worker's buffer by the worker count n before
 * rounding (its sum is then the mean), so its step is n max/127, i.e.
 * 127/n levels; ccsim's "levels" is the per-worker s: levels = 127 with
 * norm "max" is the hook's codes without the 1/n, levels = floor(127/n) its
 * step (rounded to whole levels).
 *
 *   wire:  +----------------+-----------------------------------------------+
 *          | ||x||_2, fp32  | ceil(d b / 8) bytes: sign(x_i) l_i as b-bit     |
 *          | LE             | two's complement, b = ceil(log2(2s + 1))        |
 *          +----------------+-----------------------------------------------+
 *
 * b bits hold exactly the 2s+1 values of sign * level (for s >= 1,
 * ceil(log2(2s+1)) = 1 + ceil(log2(s+1))).  Fixed-width codes, not the
 * paper's Elias coding: the wire is d b + 32 bits.  The default s = 127 makes
 * b = 8 (byte codes).  Not summable (local norms): all-gather or a parameter
 * server; contrast with global-qsgd. */
#include <math.h>

#include "ccomp/compressor.h"
#include "qbits.h"

#define BLOCK 1024

typedef struct {
  int32_t levels; /* s */
  unsigned bits;  /* b */
  int maxnorm;    /* norm "max": scale by max |x_i|, not ||x||_2 */
} qsgd;

static const ccomp_param qsgd_params[] = {
    {"levels", CCOMP_INT, 127, 1, 32767,
     "s: quantization levels per sign; b = ceil(log2(2s+1)) bits per element (127: 8 bits)"},
    {"norm", CCOMP_CHOICE, 0, 0, 1,
     "l2|max: the scale sent with the levels: ||x||_2 (the QSGD paper) or the chunk's max |x| "
     "(the Global-QSGD reference code's QSGD hook)"},
};

static int qsgd_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                     size_t errlen) {
  (void)setup, (void)err, (void)errlen;
  qsgd *q = state;
  q->levels = (int32_t)params[0];
  q->maxnorm = params[1] == 1;
  q->bits = 2;
  while ((int32_t)((1u << (q->bits - 1)) - 1) < q->levels) q->bits++;
  return 0;
}

/* The norm, computed the same way by encode and the stated bound. */
static float chunk_norm(const qsgd *q, const float *x, size_t n) {
  return q->maxnorm ? qb_max_abs(x, n) : (float)sqrt(qb_sum_sq(x, n));
}

static size_t qsgd_max_wire_bytes(const void *state, size_t n) {
  const qsgd *q = state;
  return 4 + qb_stream_bytes(n, q->bits);
}

static size_t qsgd_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  const qsgd *q = state;
  const float norm = chunk_norm(q, x, n);
  /* If the fp32 norm rounds below some |x_i|, that element clips at s: an
   * error of at most one rounding of the norm. */
  const float scale = norm > 0 ? (float)q->levels / norm : 0.0f;
  int32_t l[BLOCK];
  qb_putf(out, norm);
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    qb_sround(x + lo, m, scale, q->levels, call->key, call->offset + lo, l);
    qb_pack_int(l, m, q->bits, out + 4 + lo * q->bits / 8);
  }
  return 4 + qb_stream_bytes(n, q->bits);
}

static void qsgd_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  const qsgd *q = state;
  (void)nbytes, (void)workers, (void)call;
  const float step = (float)((double)qb_getf(in) / q->levels);
  int32_t l[BLOCK];
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    size_t m = n - lo < BLOCK ? n - lo : BLOCK;
    qb_unpack_int(in + 4 + lo * q->bits / 8, m, q->bits, l);
    for (size_t i = 0; i < m; i++) y[lo + i] = (float)l[i] * step;
  }
}

static void qsgd_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const qsgd *q = state;
  const double d = (double)n, w = (double)qb_stream_bytes(n, q->bits) + 4;
  switch (op) {
  case CCOMP_ENCODE: /* a norm reduction, then the quantize kernel */
    c->launches = 2, c->bytes_read = 8 * d, c->bytes_written = w, c->flops = 12 * d;
    break;
  case CCOMP_DECODE:
    c->launches = 1, c->bytes_read = w, c->bytes_written = 4 * d, c->flops = 2 * d;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* With N = ||x||_2 (slightly enlarged for the fp32 rounding of the norm) and
 * step N/s: every element moves by less than one step, so ||err|| <=
 * sqrt(d) N / s always; E ||err||^2 <= V = min(d/s^2, sqrt(d)/s) N^2 (Lemma
 * 3.1; norm "max": N = max |x_i| and V = d step^2 / 4, a Bernoulli's variance
 * p(1-p) step^2 <= step^2/4 per coordinate), and the squared errors are independent and each in [0, (N/s)^2], so
 * by Hoeffding ||err||^2 <= V + 10 sqrt(d) (N/s)^2 except with probability
 * <= e^-200.  Stated: the smaller of the two, plus sqrt(d) N 2^-20 for the
 * fp32 rounding of the decoded values. */
static double qsgd_roundtrip_bound(const void *state, const float *x, size_t n) {
  const qsgd *q = state;
  const double d = (double)n, s = q->levels;
  const double exact = q->maxnorm ? (double)qb_max_abs(x, n) : sqrt(qb_sum_sq(x, n));
  const double N = fmax(exact, (double)chunk_norm(q, x, n)) * (1 + 0x1p-20);
  const double step = N / s;
  const double V = q->maxnorm ? d * step * step / 4 : fmin(d / (s * s), sqrt(d) / s) * N * N;
  const double det = sqrt(d) * step, hoef = sqrt(V + 10 * sqrt(d) * step * step);
  return fmin(det, hoef) + sqrt(d) * N * 0x1p-20;
}

const ccomp_type ccomp_qsgd = {
    .name = "qsgd",
    .summary = "QSGD: stochastic levels of |x|/||x||_2 (or /max|x|), b = ceil(log2(2s+1)) bits + fp32 norm",
    .flags = CCOMP_FIXED_SIZE | CCOMP_UNBIASED,
    .params = qsgd_params,
    .nparams = sizeof qsgd_params / sizeof qsgd_params[0],
    .state_size = sizeof(qsgd),
    .init = qsgd_init,
    .clear = NULL,
    .max_wire_bytes = qsgd_max_wire_bytes,
    .encode = qsgd_encode,
    .decode = qsgd_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = qsgd_cost,
    .roundtrip_bound = qsgd_roundtrip_bound,
};
