/* compressors/mem_dgc.c — Deep Gradient Compression's memory (Lin et al.,
 * ICLR 2018, sec. 3.2): momentum correction and momentum factor masking.
 *
 * Momentum correction accumulates the velocity, not the gradient, so that a
 * sparse update still follows momentum SGD:
 *     u <- m u + g            (velocity)
 *     v <- v + u              (accumulated velocity; the compressor's input)
 * and after v's largest entries are sent, momentum factor masking clears both
 * accumulators where something was sent, so that stale momentum does not push
 * a coordinate again (sec. 3.3):
 *     v <- v - sent,  u <- u * (sent == 0).
 * The optimizer applying the aggregate must not add momentum again.  GRACE's
 * DgcMemory does the same, with the same default m = 0.9.
 *
 * Memory contract (memory.h): compensate() must not change the state, so it
 * returns p = v + (m u + g) and encoded() recovers the new velocity as p - v,
 * which differs from m u + g only by the rounding of the fp32 sum, a relative
 * 2^-24 of v per step.  "Sent" is read from own = decode(encode(p)): an entry
 * is sent iff its decoded value is non-zero (an entry sent with value exactly
 * 0 leaves the velocity unmasked, and changes nothing else).
 * Not implemented: the Nesterov variant and local gradient clipping.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/memory.h"

static const ccomp_param mem_dgc_params[] = {
    {"momentum", CCOMP_REAL, 0.9, 0.0, 0.9999, "momentum m of the velocity u = m u + g"},
};

typedef struct {
  float m;
  float *u, *v;
  size_t n;
} mem_dgc;

static int mem_dgc_init(void *state, const double *params, size_t n, char *err, size_t errlen) {
  mem_dgc *d = state;
  d->m = (float)params[0];
  d->u = ccomp_zeroed(n, sizeof *d->u);
  d->v = ccomp_zeroed(n, sizeof *d->v);
  if (!d->u || !d->v) {
    free(d->u), free(d->v);
    d->u = d->v = NULL;
    snprintf(err, errlen, "memory dgc: cannot allocate 2 x %zu floats", n);
    return -1;
  }
  d->n = n;
  return 0;
}

static void mem_dgc_clear(void *state) {
  mem_dgc *d = state;
  free(d->u), free(d->v);
}

static void mem_dgc_compensate(void *state, const float *g, size_t n, size_t offset, float *p) {
  const mem_dgc *d = state;
  const float *u = d->u + offset, *v = d->v + offset;
  for (size_t i = 0; i < n; i++) p[i] = v[i] + (d->m * u[i] + g[i]);
}

static void mem_dgc_encoded(void *state, const float *p, const float *own, size_t n,
                            size_t offset) {
  mem_dgc *d = state;
  float *u = d->u + offset, *v = d->v + offset;
  for (size_t i = 0; i < n; i++) {
    float unew = p[i] - v[i];
    v[i] = p[i] - own[i];
    u[i] = own[i] != 0.0f ? 0.0f : unew;
  }
}

static void mem_dgc_prefetch(const void *state, size_t n, size_t offset) {
  const mem_dgc *m = state;
  ccomp_prefetch(m->u + offset, n * sizeof *m->u);
  ccomp_prefetch(m->v + offset, n * sizeof *m->v);
}

const ccomp_memory_type ccomp_memory_dgc = {
    .name = "dgc",
    .summary = "DGC momentum correction + momentum factor masking (momentum m = 0.9)",
    .flags = CCOMP_MEM_OWN_DECODE,
    .params = mem_dgc_params,
    .nparams = sizeof mem_dgc_params / sizeof mem_dgc_params[0],
    .state_size = sizeof(mem_dgc),
    .init = mem_dgc_init,
    .clear = mem_dgc_clear,
    .compensate = mem_dgc_compensate,
    .encoded = mem_dgc_encoded,
    .aggregated = NULL,
    .prefetch = mem_dgc_prefetch,
};
