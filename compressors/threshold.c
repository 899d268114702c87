/* compressors/threshold.c — hard-threshold sparsification: send every entry
 * with |x| >= tau, values exact, as GRACE's ThresholdCompressor does (its
 * default tau = 0.01 is kept).  Strom ("Scalable distributed DNN training using
 * commodity GPU cloud computing", Interspeech 2015) introduced the fixed
 * threshold with residual accumulation but sends only +-tau per entry; this
 * compressor sends the values.  How many entries go depends on the data.
 *
 * Wire: sparse_pairs.h, one (u32 index, fp32 value) record per entry sent,
 * indices ascending; at most n records.
 */
#include <stdio.h>

#include "ccomp/compressor.h"
#include "sparse_pairs.h"

static const ccomp_param threshold_params[] = {
    {"tau", CCOMP_REAL, 0.01, 0.0, INFINITY,
     "send the entries with |x| >= tau (GRACE's default 0.01)"},
};

typedef struct {
  float tau;
} threshold_state;

static int threshold_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                          size_t errlen) {
  threshold_state *s = state;
  s->tau = (float)params[0];
  if (setup->n > UINT32_MAX) {
    snprintf(err, errlen,
             "threshold: tensor of %zu elements exceeds the u32 indices of the wire format",
             setup->n);
    return -1;
  }
  if (params[0] > 0 && s->tau == 0) {
    snprintf(err, errlen, "threshold: parameter 'tau' = %g underflows fp32", params[0]);
    return -1;
  }
  return 0;
}

static size_t threshold_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return CCSP_RECORD * n;
}

static size_t threshold_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                               uint8_t *out) {
  (void)call;
  const float tau = ((const threshold_state *)state)->tau;
  uint8_t *o = out;
  for (size_t i = 0; i < n; i++)
    if (fabsf(x[i]) >= tau) o = ccsp_put(o, (uint32_t)i, x[i]);
  return (size_t)(o - out);
}

/* Encode: one compaction kernel (a compare and a stream compaction: read x,
 * write the records).  The record count is data-dependent; cost() does not see
 * the data, so it charges the worst case, all n records written. */
static void threshold_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 2; /* flag + prefix-sum compaction */
    c->bytes_read = 4.0 * (double)n;
    c->bytes_written = CCSP_RECORD * (double)n;
    c->flops = 2.0 * (double)n;
    break;
  case CCOMP_DECODE:
    ccsp_decode_cost(n, (double)n, c);
    break;
  case CCOMP_COMBINE:
    break;
  }
}

/* Exact and deterministic: the error is the part below tau, which is sent
 * nowhere:  ||x - C(x)||^2 = sum over |x_i| < tau of x_i^2  (<= n tau^2). */
static double threshold_roundtrip_bound(const void *state, const float *x, size_t n) {
  const float tau = ((const threshold_state *)state)->tau;
  double s = 0;
  for (size_t i = 0; i < n; i++)
    if (fabsf(x[i]) < tau) s += (double)x[i] * x[i];
  return sqrt(s);
}

const ccomp_type ccomp_threshold = {
    .name = "threshold",
    .summary = "entries with |x| >= tau: (u32 index + fp32 value) each; size varies",
    .flags = 0,
    .params = threshold_params,
    .nparams = sizeof threshold_params / sizeof threshold_params[0],
    .state_size = sizeof(threshold_state),
    .init = threshold_init,
    .clear = NULL,
    .max_wire_bytes = threshold_max_wire_bytes,
    .encode = threshold_encode,
    .decode = ccsp_decode_op,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = threshold_cost,
    .roundtrip_bound = threshold_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
