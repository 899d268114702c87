/* compressors/dgc.c — the sparsifier of Deep Gradient Compression (Lin, Han,
 * Mao, Wang & Dally, "Deep Gradient Compression: Reducing the Communication
 * Bandwidth for Distributed Training", ICLR 2018).  Its momentum correction and
 * momentum factor masking are the 'dgc' memory (mem_dgc.c); use the two
 * together, and an optimizer without momentum (the memory applies it).
 *
 * Selection [paper, sec. 5, paraphrased]: top-k on the whole tensor is slow on
 * GPUs, so DGC samples 0.1% to 1% of the gradients, takes the top-k of the
 * sample to estimate the threshold for the whole tensor, and, when far more
 * entries than expected exceed that threshold, computes the precise threshold
 * from the already-selected entries (hierarchical top-k).  So:
 *   1. m = ceil(sample * n) positions drawn uniformly with replacement from
 *      the private key (call->key, mixed with call->offset);
 *   2. tau = the ceil(density * m)-th largest |x| of the sample;
 *   3. the entries with |x| >= tau are selected (c of them);
 *   4. if c > k = ceil(density * n), the exact top-k of those c is sent
 *      (parameter 'refine'); else all c are sent.
 * [reconstructed] "far more than expected" is taken as "more than k", so the
 * payload never exceeds the target; with refine = 0 the sampled threshold is
 * used as it is (as GRACE's DGC compressor does before its adaptation loop).
 *
 * Warm-up [paper, sec. 3.3]: the sparsity rises exponentially from 75% to
 * 99.9% over the first four epochs: 75%, 93.75%, 98.4375%, 99.6%, 99.9%.
 * Epochs are not known here, so 'warmup' is in iterations: iterations
 * [0, warmup) are split into four equal stages of sparsity 1 - 4^-(e+1),
 * e = 0..3 (each capped at the final sparsity), then the final sparsity.  For
 * the paper's schedule set warmup = 4 x iterations per epoch.
 *
 * Wire: sparse_pairs.h, (u32 index, fp32 value) records, indices ascending.
 * Not implemented from the paper: local gradient clipping (it needs the
 * tensor's global norm and belongs to the optimizer).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "ccomp/rng.h"
#include "select.h"
#include "sparse_pairs.h"

static const ccomp_param dgc_params[] = {
    {"sparsity", CCOMP_REAL, 0.999, 0.0, 1.0,
     "fraction of entries dropped after warm-up (paper: 99.9%); k = ceil((1 - sparsity) n) >= 1"},
    {"sample", CCOMP_REAL, 0.01, 1e-6, 1.0,
     "fraction of entries sampled to estimate the threshold (paper: 0.1% to 1%)"},
    {"warmup", CCOMP_INT, 0, 0, 1e9,
     "warm-up iterations, four stages of sparsity 75%, 93.75%, 98.4375%, 99.6% (0 = none)"},
    {"refine", CCOMP_BOOL, 1, 0, 1,
     "if the sampled threshold selects more than k entries, send the exact top-k of them"},
};

typedef struct {
  double sparsity, sample;
  uint32_t warmup;
  int refine;
  float *samp;        /* the sample's values */
  size_t samp_cap;
  uint32_t *sel_idx;  /* the selected entries, when refining */
  float *sel_val;
  size_t sel_icap, sel_vcap;
  ccsel_scratch scratch;
} dgc_state;

static int dgc_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                    size_t errlen) {
  dgc_state *s = state;
  s->sparsity = params[0];
  s->sample = params[1];
  s->warmup = (uint32_t)params[2];
  s->refine = params[3] != 0;
  if (setup->n > UINT32_MAX) {
    snprintf(err, errlen, "dgc: tensor of %zu elements exceeds the u32 indices of the wire format",
             setup->n);
    return -1;
  }
  return 0;
}

static void dgc_clear(void *state) {
  dgc_state *s = state;
  free(s->samp), free(s->sel_idx), free(s->sel_val);
  ccsel_scratch_clear(&s->scratch);
}

/* The sparsity of iteration t under the warm-up schedule. */
static double dgc_sparsity_at(const dgc_state *s, uint32_t t) {
  if (t >= s->warmup) return s->sparsity;
  unsigned stage = (unsigned)((uint64_t)4 * t / s->warmup); /* 0..3 */
  double w = 1.0 - ldexp(1.0, -2 * (int)(stage + 1));      /* 1 - 4^-(stage+1) */
  return w < s->sparsity ? w : s->sparsity;
}

static size_t dgc_max_wire_bytes(const void *state, size_t n) {
  const dgc_state *s = state;
  if (!s->refine) return CCSP_RECORD * n;
  double lowest = s->warmup > 0 ? dgc_sparsity_at(s, 0) : s->sparsity;
  return CCSP_RECORD * ccsp_count(1.0 - lowest, n);
}

/* Grow a scratch array to hold n elements; 0, or -1 if out of memory. */
static int grow_f(float **buf, size_t *cap, size_t n) {
  if (*cap >= n) return 0;
  float *p = realloc(*buf, n * sizeof *p);
  if (!p) return -1;
  *buf = p, *cap = n;
  return 0;
}
static int grow_u(uint32_t **buf, size_t *cap, size_t n) {
  if (*cap >= n) return 0;
  uint32_t *p = realloc(*buf, n * sizeof *p);
  if (!p) return -1;
  *buf = p, *cap = n;
  return 0;
}

static size_t dgc_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                         uint8_t *out) {
  dgc_state *s = state;
  if (n == 0) return 0;
  const double density = 1.0 - dgc_sparsity_at(s, call->iteration);
  const size_t k = ccsp_count(density, n), m = ccsp_count(s->sample, n);
  if (m >= n || grow_f(&s->samp, &s->samp_cap, m))
    return ccsp_put_topk(x, n, k, &s->scratch, out); /* the sample is the population (or no memory) */

  /* 1-2: threshold from the sample */
  const uint64_t key = ccr_key(call->key, call->offset);
  for (size_t j = 0; j < m; j++)
    s->samp[j] = x[(size_t)(((unsigned __int128)ccr_u64(key, j) * n) >> 64)];
  size_t above;
  const uint32_t tau = ccsel_kth(s->samp, m, ccsp_count(density, m), CCSEL_ABS, &s->scratch, &above);

  /* 3: count what it selects */
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += ccsel_key(x[i], CCSEL_ABS) >= tau;

  uint8_t *o = out;
  if (c <= k || !s->refine) {
    for (size_t i = 0; i < n; i++)
      if (ccsel_key(x[i], CCSEL_ABS) >= tau) o = ccsp_put(o, (uint32_t)i, x[i]);
    return (size_t)(o - out);
  }
  /* 4: hierarchical top-k on the c selected entries */
  if (grow_u(&s->sel_idx, &s->sel_icap, c) || grow_f(&s->sel_val, &s->sel_vcap, c))
    return ccsp_put_topk(x, n, k, &s->scratch, out);
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (ccsel_key(x[i], CCSEL_ABS) >= tau) s->sel_idx[j] = (uint32_t)i, s->sel_val[j++] = x[i];
  uint32_t t = ccsel_kth(s->sel_val, c, k, CCSEL_ABS, &s->scratch, &above);
  size_t eq_left = k - above;
  for (j = 0; j < c; j++) {
    uint32_t kj = ccsel_key(s->sel_val[j], CCSEL_ABS);
    if (kj > t || (kj == t && eq_left > 0)) {
      eq_left -= (kj == t);
      o = ccsp_put(o, s->sel_idx[j], s->sel_val[j]);
    }
  }
  return (size_t)(o - out);
}

/* Encode, as the paper implements it: a gather of the m sampled entries, a
 * radix top-k on the sample (three small passes), a counting pass and a
 * compaction pass over x, the payload written at the target density; the
 * refinement, when it happens, re-selects among ~k entries and is charged as
 * one more small pass.  About twice a linear pass, against topk's three. */
static void dgc_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const dgc_state *s = state;
  double k = (double)ccsp_count(1.0 - s->sparsity, n), m = (double)ccsp_count(s->sample, n);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 7;
    c->bytes_read = 4 * m + 2 * 4.0 * (double)n + 4 * m + 8 * k;
    c->bytes_written = 4 * m + CCSP_RECORD * k;
    c->flops = 2 * 3.0 * (double)n + 10 * m;
    break;
  case CCOMP_DECODE:
    ccsp_decode_cost(n, k, c);
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Deterministic: at least one entry is sent (the sample's threshold is at most
 * max |x|) and the entries sent are the c largest, so
 *   ||x - C(x)||^2 <= (1 - c/n) ||x||^2 <= (1 - 1/n) ||x||^2.
 * c itself depends on the random sample, hence the weak form. */
static double dgc_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  if (n == 0) return 0;
  return sqrt(1.0 - 1.0 / (double)n) * ccsp_norm2(x, n);
}

const ccomp_type ccomp_dgc = {
    .name = "dgc",
    .summary = "DGC: sampled-threshold top-k with warm-up; use with the 'dgc' memory",
    .flags = 0,
    .params = dgc_params,
    .nparams = sizeof dgc_params / sizeof dgc_params[0],
    .state_size = sizeof(dgc_state),
    .init = dgc_init,
    .clear = dgc_clear,
    .max_wire_bytes = dgc_max_wire_bytes,
    .encode = dgc_encode,
    .decode = ccsp_decode_op,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = dgc_cost,
    .roundtrip_bound = dgc_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
