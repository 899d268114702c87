/* compressors/mem_marsit.c — Marsit's global compensation (ALGORITHMS.md
 * 1.1), [reconstructed]: the paper's abstract names a global compensation
 * that corrects the deviation of the aggregated signs; the rule below is our
 * reconstruction.  Per worker i:
 *   p_i = e_i + eta g_i;            b_i = (p_i >= 0)   (the marsit compressor)
 *   s = aggregate(b_1 .. b_n) in {+-1}^d, the same on every worker;
 *   x <- x - gamma s (the optimizer);   e_i <- p_i - gamma s.
 * Unlike residual error feedback, the error is taken against the GLOBAL
 * aggregate s, not against this worker's own payload, so it also absorbs the
 * randomness of Marsit's bit-wise aggregation.  Needs CCOMP_MEM_AGGREGATE.
 * p is recorded in encoded() (compensate() must not change the state), then
 * aggregated() subtracts gamma s.
 *
 * Units and the default gamma = 1.  With eta = 1 the memory counts in
 * gradient units, and ccsim's optimizer moves the model by lr * s, the
 * learning rate it would apply to a gradient.  The step the model took is
 * then s in gradient units, and gamma = 1 is the value for which the memory's
 * account of the step is the step really taken: summed over iterations, the
 * applied signs equal the summed gradients up to the bounded residual e (a
 * first-order sigma-delta modulator per coordinate), which is what lets
 * Marsit follow SGD.  A gamma below the typical |g| lets e grow without bound
 * (the signs cannot keep up); any gamma != 1 makes e wrong by the factor
 * gamma unless the optimizer scales the sign aggregate by gamma too.  So:
 * leave gamma = 1 and choose the sign step with the optimizer's learning
 * rate; set gamma = c only if the optimizer multiplies the aggregate by c. */
#include <stdio.h>
#include <stdlib.h>

#include "memory.h"

typedef struct {
  float *e; /* after encoded(): p; after aggregated(): p - gamma s */
  size_t n;
  float eta, gamma;
} marsit_mem;

static const ccomp_param marsit_mem_params[] = {
    {"eta", CCOMP_REAL, 1.0, 1e-12, 1e12, "gradient scale in p = e + eta g (1 = gradient units)"},
    {"gamma", CCOMP_REAL, 1.0, 1e-12, 1e12,
     "sign step subtracted from the error, e = p - gamma s; 1 when the optimizer applies its "
     "learning rate to s"},
};

static int marsit_mem_init(void *state, const double *params, size_t n, char *err, size_t errlen) {
  marsit_mem *m = state;
  for (size_t i = 0; i < 2; i++) {
    const double v = params ? params[i] : marsit_mem_params[i].def;
    const ccomp_param *p = &marsit_mem_params[i];
    if (!(v >= p->min && v <= p->max)) {
      snprintf(err, errlen, "memory marsit: parameter '%s' must be in [%g, %g], got %g", p->name,
               p->min, p->max, v);
      return -1;
    }
  }
  m->eta = (float)(params ? params[0] : marsit_mem_params[0].def);
  m->gamma = (float)(params ? params[1] : marsit_mem_params[1].def);
  m->n = n;
  m->e = calloc(n ? n : 1, sizeof *m->e);
  if (!m->e) {
    snprintf(err, errlen, "memory marsit: cannot allocate %zu floats", n);
    return -1;
  }
  return 0;
}

static void marsit_mem_clear(void *state) { free(((marsit_mem *)state)->e); }

static void marsit_mem_compensate(void *state, const float *g, size_t n, size_t offset, float *p) {
  const marsit_mem *m = state;
  const float *e = m->e + offset, eta = m->eta;
  for (size_t i = 0; i < n; i++) p[i] = e[i] + eta * g[i];
}

/* Record p (own is not needed and may be NULL). */
static void marsit_mem_encoded(void *state, const float *p, const float *own, size_t n,
                               size_t offset) {
  (void)own;
  float *e = ((marsit_mem *)state)->e + offset;
  for (size_t i = 0; i < n; i++) e[i] = p[i];
}

static void marsit_mem_aggregated(void *state, const float *agg, size_t n, size_t offset) {
  marsit_mem *m = state;
  float *e = m->e + offset;
  const float gamma = m->gamma;
  for (size_t i = 0; i < n; i++) e[i] -= gamma * agg[i];
}

const ccomp_memory_type ccomp_memory_marsit = {
    .name = "marsit",
    .summary = "Marsit global compensation: p = e + eta g, e = p - gamma * aggregate",
    .flags = CCOMP_MEM_AGGREGATE,
    .params = marsit_mem_params,
    .nparams = sizeof marsit_mem_params / sizeof marsit_mem_params[0],
    .state_size = sizeof(marsit_mem),
    .init = marsit_mem_init,
    .clear = marsit_mem_clear,
    .compensate = marsit_mem_compensate,
    .encoded = marsit_mem_encoded,
    .aggregated = marsit_mem_aggregated,
};
