/* compressors/randomk.c — random-k sparsification with indices shared by all
 * workers (Stich, Cordonnier & Jaggi, "Sparsified SGD with Memory", NeurIPS
 * 2018; GRACE's RandomKCompressor): k = ceil(ratio * n) indices drawn
 * uniformly without replacement from call->shared_key, the same on every
 * worker, so only the values travel and two payloads add value by value.
 *
 * Wire: k fp32 values, little-endian, in increasing index order; the indices
 * are recomputed by the receiver from the shared key.  Summable: combine adds
 * the values in fp32 (the index sets agree), so a ring all-reduce aggregates
 * them hop by hop with no cascading error beyond fp32 rounding.
 *
 * Sampling: selection sampling (Knuth, TAOCP vol. 2, 3.4.2, Algorithm S):
 * element i of the chunk is taken with probability (k - taken) / (n - i), an
 * exactly uniform k-subset.  Its draw is ccr_u64(shared_key, offset + i), a
 * pure function of the shared key and the global index; the subset also
 * depends on the chunk's (offset, n), which all workers share because
 * collectives chunk a tensor identically on every worker.  One pass, no
 * memory: decode has to write all n outputs anyway.
 *
 * 'scaled': decode multiplies by n/k.  Every index is kept with probability
 * exactly k/n, so E[decode(encode(x))] = x: unbiased (tested in
 * test_sparsifiers.c).  Off by default, as in GRACE, for use with residual
 * memory, where the unscaled values are what error feedback expects.
 */
#include <assert.h>
#include <string.h>

#include "bitstream.h"
#include "ccomp/compressor.h"
#include "ccomp/rng.h"
#include "sparse_pairs.h"

static const ccomp_param randomk_params[] = {
    {"ratio", CCOMP_REAL, 0.01, 1e-6, 1.0,
     "fraction of entries sent: k = ceil(ratio * n), at least 1 (GRACE's helper uses 0.3)"},
    {"scaled", CCOMP_BOOL, 0, 0, 1,
     "multiply the decoded values by n/k, which makes the compressor unbiased"},
};

typedef struct {
  double ratio;
  int scaled;
} randomk_state;

static int randomk_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                        size_t errlen) {
  (void)setup, (void)err, (void)errlen;
  randomk_state *s = state;
  s->ratio = params[0];
  s->scaled = params[1] != 0;
  return 0;
}

/* Is element i taken, given `left` still to take among the n - i remaining?
 * A uniform integer in [0, n - i) from 64 random bits by multiply-shift
 * (Lemire 2019): its bias, at most (n - i) / 2^64, is far below anything a
 * simulation can see. */
static inline int taken(uint64_t key, size_t global_i, size_t remaining, size_t left) {
  uint64_t u = ccr_u64(key, global_i);
  return (uint64_t)(((unsigned __int128)u * remaining) >> 64) < left;
}

static size_t randomk_max_wire_bytes(const void *state, size_t n) {
  return 4 * ccsp_count(((const randomk_state *)state)->ratio, n);
}

static size_t randomk_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                             uint8_t *out) {
  size_t k = ccsp_count(((const randomk_state *)state)->ratio, n), left = k;
  uint8_t *o = out;
  for (size_t i = 0; i < n && left > 0; i++)
    if (taken(call->shared_key, call->offset + i, n - i, left)) {
      ccb_store_f32(o, x[i]);
      o += 4;
      left--;
    }
  return 4 * k;
}

static void randomk_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                           uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers, (void)nbytes;
  const randomk_state *s = state;
  size_t k = ccsp_count(s->ratio, n), left = k;
  assert(nbytes == 4 * k);
  const float scale = s->scaled ? (float)((double)n / (double)k) : 1.0f;
  const uint8_t *p = in;
  memset(y, 0, n * sizeof *y);
  for (size_t i = 0; i < n && left > 0; i++)
    if (taken(call->shared_key, call->offset + i, n - i, left)) {
      y[i] = scale * ccb_load_f32(p);
      p += 4;
      left--;
    }
}

static size_t randomk_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                              const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                              const ccomp_call *call, uint8_t *out) {
  (void)state, (void)ka, (void)kb, (void)n, (void)call;
  assert(na == nb);
  (void)nb;
  for (size_t r = 0; r + 4 <= na; r += 4)
    ccb_store_f32(out + r, ccb_load_f32(a + r) + ccb_load_f32(b + r));
  return na;
}

/* Encode and decode each run one kernel that draws a random number per
 * element (SplitMix64: ~10 integer operations, counted as flops) and moves k
 * values; decode also writes the n outputs.  Combine adds k values. */
static void randomk_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  double k = (double)ccsp_count(((const randomk_state *)state)->ratio, n);
  c->launches = 1;
  switch (op) {
  case CCOMP_ENCODE:
    c->bytes_read = 4 * k, c->bytes_written = 4 * k, c->flops = 10.0 * (double)n;
    break;
  case CCOMP_DECODE:
    c->bytes_read = 4 * k, c->bytes_written = 4.0 * (double)n, c->flops = 10.0 * (double)n + k;
    break;
  case CCOMP_COMBINE:
    c->bytes_read = 8 * k, c->bytes_written = 4 * k, c->flops = k;
    break;
  }
}

/* Deterministic, whatever subset is drawn: with S the kept set and s = n/k
 * (or 1 unscaled),  ||x - C(x)||^2 = sum_{i not in S} x_i^2 + (s-1)^2 sum_{i in S} x_i^2
 * <= max(1, (s-1)^2) ||x||^2. */
static double randomk_roundtrip_bound(const void *state, const float *x, size_t n) {
  const randomk_state *s = state;
  if (n == 0) return 0;
  double f = 1.0;
  if (s->scaled) {
    double sm1 = (double)n / (double)ccsp_count(s->ratio, n) - 1.0;
    f = sm1 > 1.0 ? sm1 : 1.0;
  }
  return f * ccsp_norm2(x, n);
}

const ccomp_type ccomp_randomk = {
    .name = "randomk",
    .summary = "random k entries from a shared seed: k fp32 values; summable",
    .flags = CCOMP_SUMMABLE | CCOMP_SHARED_SEED | CCOMP_FIXED_SIZE,
    .params = randomk_params,
    .nparams = sizeof randomk_params / sizeof randomk_params[0],
    .state_size = sizeof(randomk_state),
    .init = randomk_init,
    .clear = NULL,
    .max_wire_bytes = randomk_max_wire_bytes,
    .encode = randomk_encode,
    .decode = randomk_decode,
    .combine = randomk_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = randomk_cost,
    .roundtrip_bound = randomk_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
};
