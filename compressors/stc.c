/* compressors/stc.c — Sparse Ternary Compression (Sattler, Wiedemann, Mueller
 * & Samek, "Robust and Communication-Efficient Federated Learning from
 * Non-IID Data", IEEE TNNLS 2020), SBC's successor; docs/algorithms.md.
 *
 * [paper] With k = ceil(ratio * n): v = the k-th largest |A|,
 * mu = mean of the k largest |A|, and the update sent is mu * sign(A_i) at the
 * positions with |A_i| >= v.  Ties at v are broken by lower index, so exactly k
 * positions go and the receiver knows k from n and the ratio.  Use the
 * residual memory (the paper's error accumulation).
 *
 *     bytes 0..3     bytes 4..
 *     +----------+--------------+---+--------------+---+-- ... --+-----+
 *     | fp32 mu  | Golomb gap 0 | s | Golomb gap 1 | s |         | pad |
 *     +----------+--------------+---+--------------+---+-- ... --+-----+
 *     one LSB-first bit stream (bitstream.h): each position's Golomb code
 *     (golomb.h, b* from q = (k+1)/(n+1)) is followed by its sign bit,
 *     1 = -mu, so the decoder scatters as it reads; k codes, k sign bits.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "golomb.h"
#include "select.h"
#include "sparse_pairs.h"

static const ccomp_param stc_params[] = {
    {"ratio", CCOMP_REAL, 0.01, 1e-6, 1.0,
     "fraction of positions sent: k = ceil(ratio * n), at least 1 (ccsim's default; the paper sweeps it)"},
};

typedef struct {
  double ratio;
  uint32_t *pos;
  size_t cap;
  ccsel_scratch scratch;
} stc_state;

static int stc_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                    size_t errlen) {
  stc_state *s = state;
  s->ratio = params[0];
  if (setup->n > UINT32_MAX) {
    snprintf(err, errlen, "stc: tensor of %zu elements exceeds the 32-bit positions", setup->n);
    return -1;
  }
  return 0;
}

static void stc_clear(void *state) {
  stc_state *s = state;
  free(s->pos);
  ccsel_scratch_clear(&s->scratch);
}

static size_t stc_max_wire_bytes(const void *state, size_t n) {
  if (n == 0) return 0;
  size_t k = ccsp_count(((const stc_state *)state)->ratio, n);
  return 4 + (ccg_max_bits(k, n, ccg_rice_param(k, n)) + k + 7) / 8;
}

/* The k positions of largest |x| into s->pos, and mu (their mean |x|);
 * NULL if out of memory. */
static const uint32_t *ternarize(stc_state *s, const float *x, size_t n, size_t k, double *mu) {
  if (s->cap < k) {
    uint32_t *p = realloc(s->pos, k * sizeof *p);
    if (!p) return NULL;
    s->pos = p, s->cap = k;
  }
  ccsel_topk_indices(x, n, k, CCSEL_ABS, &s->scratch, s->pos);
  double sum = 0;
  for (size_t j = 0; j < k; j++) sum += fabs((double)x[s->pos[j]]);
  *mu = sum / (double)k;
  return s->pos;
}

static size_t stc_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                         uint8_t *out) {
  (void)call;
  stc_state *s = state;
  if (n == 0) return 0;
  size_t k = ccsp_count(s->ratio, n);
  double mu;
  const uint32_t *pos = ternarize(s, x, n, k, &mu);
  assert(pos != NULL); /* k u32 of scratch: out of memory here is fatal */
  if (!pos) return 0;
  ccb_store_f32(out, (float)mu);
  ccb_writer w;
  ccb_writer_init(&w, out + 4);
  unsigned b = ccg_rice_param(k, n);
  uint64_t prev = ccg_START;
  for (size_t j = 0; j < k; j++) {
    ccg_put(&w, b, &prev, pos[j]);
    ccb_put(&w, ccb_f32_bits(x[pos[j]]) >> 31, 1);
  }
  return 4 + ccb_flush(&w);
}

static void stc_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                       uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers, (void)call;
  memset(y, 0, n * sizeof *y);
  if (n == 0 || nbytes == 0) return;
  size_t k = ccsp_count(((const stc_state *)state)->ratio, n);
  unsigned b = ccg_rice_param(k, n);
  const float mu = ccb_load_f32(in);
  ccb_reader r;
  ccb_reader_init(&r, in + 4, nbytes - 4);
  uint64_t prev = ccg_START;
  for (size_t j = 0; j < k; j++) {
    uint32_t p;
    int bad = ccg_next(&r, b, n, &prev, &p);
    assert(!bad); /* a payload we encoded always decodes */
    if (bad) return;
    y[p] = ccb_get(&r, 1) ? -mu : mu;
  }
}

/* Encode: one radix selection on |x| (two passes over x), the gather of the k
 * largest, and Golomb + sign coding (~b-bar + 1 bit operations per position).
 * Decode: a zero fill and a sequential decode with scatter. */
static void stc_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  double k = (double)ccsp_count(((const stc_state *)state)->ratio, n);
  double wire = (double)stc_max_wire_bytes(state, n);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 4 + 1 + 2;
    c->bytes_read = 3 * 4.0 * (double)n + 4 * k;
    c->bytes_written = 4 * k + wire;
    c->flops = 3 * 3.0 * (double)n + 18 * k;
    break;
  case CCOMP_DECODE:
    c->launches = 2;
    c->bytes_read = wire;
    c->bytes_written = 4.0 * (double)n + 4 * k;
    c->flops = 18 * k;
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Deterministic, stated exactly: with S the k positions, mu = mean_S |x| and
 * mu_f its fp32 rounding,
 *   ||x - C(x)||^2 = ||x||^2 - 2 mu_f k mu + k mu_f^2
 *                  = ||x||^2 - k mu^2 + k (mu_f - mu)^2  <= ||x||^2,
 * plus 2^-40 ||x||^2 of slack for the rounding of the two ways of summing. */
static double stc_roundtrip_bound(const void *state, const float *x, size_t n) {
  double nx = ccsp_norm2(x, n);
  if (n == 0) return 0;
  stc_state s = {.ratio = ((const stc_state *)state)->ratio};
  size_t k = ccsp_count(s.ratio, n);
  double mu, e2 = nx * nx;
  if (ternarize(&s, x, n, k, &mu)) {
    double df = (double)(float)mu - mu;
    e2 = nx * nx - (double)k * mu * mu + (double)k * df * df;
  }
  stc_clear(&s);
  return sqrt(fmax(e2, 0.0) + 0x1p-40 * nx * nx);
}

const ccomp_type ccomp_stc = {
    .name = "stc",
    .summary = "Sparse Ternary Compression: fp32 mean + Golomb positions + sign bits",
    .flags = 0,
    .params = stc_params,
    .nparams = sizeof stc_params / sizeof stc_params[0],
    .state_size = sizeof(stc_state),
    .init = stc_init,
    .clear = stc_clear,
    .max_wire_bytes = stc_max_wire_bytes,
    .encode = stc_encode,
    .decode = stc_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = stc_cost,
    .roundtrip_bound = stc_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
