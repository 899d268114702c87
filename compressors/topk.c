/* compressors/topk.c — top-k sparsification: keep the k = ceil(ratio * n)
 * entries of largest magnitude (Aji & Heafield, "Sparse Communication for
 * Distributed Gradient Descent", EMNLP 2017; Stich et al., "Sparsified SGD with
 * Memory", NeurIPS 2018; GRACE's TopKCompressor).  Use it with the residual
 * memory: what is not sent is accumulated and sent later.
 *
 * Wire: sparse_pairs.h, k x (u32 index + fp32 value), indices ascending; the
 * values are sent exactly, so decode(encode(x)) = x on the kept entries.
 *
 * Selection: radix select (select.h), O(n): one histogram pass over x, two
 * small passes over the candidates of the k-th key's top digit, one pass to
 * emit.  Ties at the k-th magnitude are broken by lower index.
 */
#include <stdio.h>

#include "ccomp/compressor.h"
#include "select.h"
#include "sparse_pairs.h"

static const ccomp_param topk_params[] = {
    {"ratio", CCOMP_REAL, 0.01, 1e-6, 1.0,
     "fraction of entries kept: k = ceil(ratio * n), at least 1 (default 1%, the 99% drop of Aji & Heafield 2017; GRACE's helper uses 0.3)"},
};

typedef struct {
  double ratio;
  ccsel_scratch scratch; /* candidate keys of the selection, reused across calls */
} topk_state;

static int topk_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                     size_t errlen) {
  topk_state *s = state;
  s->ratio = params[0];
  if (setup->n > UINT32_MAX) {
    snprintf(err, errlen, "topk: tensor of %zu elements exceeds the u32 indices of the wire format",
             setup->n);
    return -1;
  }
  return 0;
}

static void topk_clear(void *state) { ccsel_scratch_clear(&((topk_state *)state)->scratch); }

static size_t topk_max_wire_bytes(const void *state, size_t n) {
  return CCSP_RECORD * ccsp_count(((const topk_state *)state)->ratio, n);
}

static size_t topk_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  (void)call;
  topk_state *s = state;
  size_t k = ccsp_count(s->ratio, n);
  if (k == 0) return 0;
  return ccsp_put_topk(x, n, k, &s->scratch, out);
}

/* Encode is modelled as the radix select it is: three passes reading x (the
 * histogram, the candidate gather and the final compaction; the two digit
 * passes over the candidates touch a small fraction of n and are not
 * charged), five kernels, and ~3 integer operations per element per pass,
 * counted as flops.  So top-k costs about three times a linear pass, which is
 * what GPU radix-select top-k measures relative to a copy. */
static void topk_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  double k = (double)ccsp_count(((const topk_state *)state)->ratio, n);
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 5;
    c->bytes_read = 3 * 4.0 * (double)n;
    c->bytes_written = CCSP_RECORD * k;
    c->flops = 3 * 3.0 * (double)n;
    break;
  case CCOMP_DECODE:
    ccsp_decode_cost(n, k, c);
    break;
  case CCOMP_COMBINE: /* not summable */
    break;
  }
}

/* Deterministic: the k kept entries carry the k largest squares, so the
 * dropped n - k carry at most the average share:
 *   ||x - topk(x)||^2 <= (1 - k/n) ||x||^2. */
static double topk_roundtrip_bound(const void *state, const float *x, size_t n) {
  if (n == 0) return 0;
  double k = (double)ccsp_count(((const topk_state *)state)->ratio, n);
  return sqrt(1.0 - k / (double)n) * ccsp_norm2(x, n);
}

const ccomp_type ccomp_topk = {
    .name = "topk",
    .summary = "top-k magnitudes: k x (u32 index + fp32 value); use with residual memory",
    .flags = 0,
    .params = topk_params,
    .nparams = sizeof topk_params / sizeof topk_params[0],
    .state_size = sizeof(topk_state),
    .init = topk_init,
    .clear = topk_clear,
    .max_wire_bytes = topk_max_wire_bytes,
    .encode = topk_encode,
    .decode = ccsp_decode_op,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = topk_cost,
    .roundtrip_bound = topk_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
