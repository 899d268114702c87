/* compressors/sbc.c — Sparse Binary Compression (Sattler, Wiedemann, Mueller
 * & Samek, "Sparse Binary Compression: Towards Distributed Deep Learning with
 * minimal Communication", IJCNN 2019); docs/algorithms.md.
 *
 * Binarization [reconstructed, as docs/algorithms.md states it]: with
 * k = ceil(ratio * n), T+ = the k largest entries of A and T- = the k largest
 * of -A, mu+ = mean(T+) and mu- = mean(T-); if mu+ >= mu- send +mu+ at T+'s
 * positions, else -mu- at T-'s.  Ties at the k-th value are broken by lower
 * index, so exactly k positions always go, and the receiver knows k.  When A
 * has fewer than k positive entries T+ also holds the largest non-positive
 * ones (docs/algorithms.md's "k largest positive entries" would then be fewer than
 * k); their mean is then small and the negative side is the one sent.  Use
 * the residual memory: it keeps A - sent.
 *
 * Positions: Golomb-Rice coded (golomb.h) with b* from q = (k+1)/(n+1).
 * k is not sent: the receiver knows n and the ratio.
 *
 *     bytes 0..3        bytes 4..
 *     +-------------+-------------------------------------------+
 *     | fp32 mu, LE | k Golomb codes, LSB-first, zero-padded    |
 *     +-------------+-------------------------------------------+
 *     mu > 0: the positive side was sent; mu < 0: the negative side.
 *
 * Communication delay [paper]: each worker accumulates its updates locally for
 * m steps before sending.  Here that is parameter 'delay' = m, realised with
 * the residual memory: on iterations with iteration % m != m - 1 encode sends
 * nothing (a 0-byte payload, which decodes to zeros), so the memory's residual
 * e = p - 0 = p carries the whole update to the next step; on the m-th step
 * the compressor sees p = (the m accumulated gradients) + (the older residual)
 * and sends it.  The upstream bits per step are divided by m.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "golomb.h"
#include "select.h"
#include "sparse_pairs.h"

static const ccomp_param sbc_params[] = {
    {"ratio", CCOMP_REAL, 0.01, 1e-6, 1.0,
     "fraction of positions sent: k = ceil(ratio * n), at least 1 (ccsim's default; the paper sweeps it)"},
    {"delay", CCOMP_INT, 1, 1, 1e6,
     "communication delay m: send on iterations with iteration % m == m - 1, nothing on the others "
     "(the residual memory accumulates the m local steps)"},
};

typedef struct {
  double ratio;
  uint32_t delay;
  uint32_t *pos_p, *pos_n; /* T+ and T- positions, k each */
  size_t cap;
  ccsel_scratch scratch;
} sbc_state;

static int sbc_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                    size_t errlen) {
  sbc_state *s = state;
  s->ratio = params[0];
  s->delay = (uint32_t)params[1];
  if (setup->n > UINT32_MAX) {
    snprintf(err, errlen, "sbc: tensor of %zu elements exceeds the 32-bit positions", setup->n);
    return -1;
  }
  return 0;
}

static void sbc_clear(void *state) {
  sbc_state *s = state;
  free(s->pos_p), free(s->pos_n);
  ccsel_scratch_clear(&s->scratch);
}

static int sbc_sends(const sbc_state *s, uint32_t iteration) {
  return iteration % s->delay == s->delay - 1;
}

static size_t sbc_max_wire_bytes(const void *state, size_t n) {
  const sbc_state *s = state;
  if (n == 0) return 0;
  size_t k = ccsp_count(s->ratio, n);
  return 4 + (ccg_max_bits(k, n, ccg_rice_param(k, n)) + 7) / 8;
}

/* The binarization: *mu and the k positions (ascending) of the side sent, in
 * pos (which is s->pos_p or s->pos_n); NULL if out of memory.  Also used by
 * roundtrip_bound, on a scratch state. */
static const uint32_t *binarize(sbc_state *s, const float *x, size_t n, size_t k, double *mu) {
  if (s->cap < k) {
    uint32_t *a = realloc(s->pos_p, k * sizeof *a);
    if (a) s->pos_p = a;
    uint32_t *b = realloc(s->pos_n, k * sizeof *b);
    if (b) s->pos_n = b;
    if (!a || !b) return NULL;
    s->cap = k;
  }
  size_t above_p, above_n;
  uint32_t tp = ccsel_kth(x, n, k, CCSEL_POS, &s->scratch, &above_p);
  uint32_t tn = ccsel_kth(x, n, k, CCSEL_NEG, &s->scratch, &above_n);
  size_t eq_p = k - above_p, eq_n = k - above_n, jp = 0, jn = 0;
  double sum_p = 0, sum_n = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t kp = ccsel_key(x[i], CCSEL_POS), kn = ccsel_key(x[i], CCSEL_NEG);
    if (kp > tp || (kp == tp && eq_p > 0)) {
      eq_p -= (kp == tp);
      s->pos_p[jp++] = (uint32_t)i;
      sum_p += x[i];
    }
    if (kn > tn || (kn == tn && eq_n > 0)) {
      eq_n -= (kn == tn);
      s->pos_n[jn++] = (uint32_t)i;
      sum_n -= x[i];
    }
  }
  double mu_p = sum_p / (double)k, mu_n = sum_n / (double)k;
  *mu = mu_p >= mu_n ? mu_p : -mu_n;
  return mu_p >= mu_n ? s->pos_p : s->pos_n;
}

static size_t sbc_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                         uint8_t *out) {
  sbc_state *s = state;
  if (n == 0 || !sbc_sends(s, call->iteration)) return 0;
  size_t k = ccsp_count(s->ratio, n);
  double mu;
  const uint32_t *pos = binarize(s, x, n, k, &mu);
  assert(pos != NULL); /* k u32 of scratch: out of memory here is fatal */
  if (!pos) return 0;
  ccb_store_f32(out, (float)mu);
  ccb_writer w;
  ccb_writer_init(&w, out + 4);
  ccg_encode(&w, pos, k, ccg_rice_param(k, n));
  return 4 + ccb_flush(&w);
}

static void sbc_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                       uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers, (void)call;
  const sbc_state *s = state;
  memset(y, 0, n * sizeof *y);
  if (nbytes == 0) return; /* a delayed step: nothing was sent */
  size_t k = ccsp_count(s->ratio, n);
  unsigned b = ccg_rice_param(k, n);
  const float mu = ccb_load_f32(in);
  ccb_reader r;
  ccb_reader_init(&r, in + 4, nbytes - 4);
  uint64_t prev = ccg_START;
  for (size_t i = 0; i < k; i++) {
    uint32_t p;
    int bad = ccg_next(&r, b, n, &prev, &p);
    assert(!bad); /* a payload we encoded always decodes */
    if (bad) return;
    y[p] = mu;
  }
}

/* Encode: two radix selections (top-k of A and of -A, two passes over x
 * each), one pass to gather both sides' positions and sums, and the Golomb
 * encoding of k positions (a prefix sum of code lengths plus a scatter of
 * bits on a GPU: ~b-bar bit operations per position).  Decode: a zero fill
 * and a sequential Golomb decode with scatter. */
static void sbc_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const sbc_state *s = state;
  double k = (double)ccsp_count(s->ratio, n), wire = (double)sbc_max_wire_bytes(s, n);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 2 * 4 + 1 + 2;
    c->bytes_read = 5 * 4.0 * (double)n + 4 * k;
    c->bytes_written = 8 * k + wire;
    c->flops = 5 * 3.0 * (double)n + 16 * k;
    break;
  case CCOMP_DECODE:
    c->launches = 2;
    c->bytes_read = wire;
    c->bytes_written = 4.0 * (double)n + 4 * k;
    c->flops = 16 * k;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* SBC is deterministic, so it states its error exactly.  mu is the mean of x
 * over the k positions S sent, hence
 *   ||x - C(x)||^2 = ||x||^2 - k mu^2 + k (mu_f - mu)^2  <= ||x||^2,
 * with mu_f = mu rounded to fp32; 2^-40 ||x||^2 of slack covers the rounding of
 * the two ways of summing.  With a delay, a fresh instance may send nothing:
 * then the bound is ||x||. */
static double sbc_roundtrip_bound(const void *state, const float *x, size_t n) {
  const sbc_state *s0 = state;
  double nx = ccsp_norm2(x, n);
  if (n == 0 || s0->delay > 1) return nx;
  sbc_state s = {.ratio = s0->ratio, .delay = s0->delay};
  size_t k = ccsp_count(s.ratio, n);
  double mu;
  const uint32_t *pos = binarize(&s, x, n, k, &mu);
  double e2 = nx * nx;
  if (pos) {
    double df = (double)(float)mu - mu;
    e2 = nx * nx - (double)k * mu * mu + (double)k * df * df;
  }
  sbc_clear(&s);
  return sqrt(fmax(e2, 0.0) + 0x1p-40 * nx * nx);
}

const ccomp_type ccomp_sbc = {
    .name = "sbc",
    .summary = "Sparse Binary Compression: one fp32 mean + Golomb-coded positions; delay m",
    .flags = 0,
    .params = sbc_params,
    .nparams = sizeof sbc_params / sizeof sbc_params[0],
    .state_size = sizeof(sbc_state),
    .init = sbc_init,
    .clear = sbc_clear,
    .max_wire_bytes = sbc_max_wire_bytes,
    .encode = sbc_encode,
    .decode = sbc_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = sbc_cost,
    .roundtrip_bound = sbc_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
