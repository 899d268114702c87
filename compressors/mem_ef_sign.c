/* compressors/mem_ef_sign.c — the error feedback of EF-signSGD (Karimireddy,
 * Rebjock, Stich & Jaggi, "Error Feedback Fixes SignSGD and other Gradient
 * Compression Schemes", ICML 2019, Algorithm 1):
 *   p = e + eta g;   send C(p) (ef-signsgd: (||p||_1/d) sign(p));   e = p - C(p).
 * In the paper eta is the learning rate and the model moves by C(p) itself;
 * with eta = 1 (the default) the memory works in gradient units and the
 * optimizer applies its learning rate to the aggregate, which is the same
 * algorithm for a constant rate because C(gamma p) = gamma C(p) for the scaled
 * sign.  eta = 1 makes this memory the 'residual' memory; set eta to the
 * learning rate (and the optimizer's to 1) to run Algorithm 1 literally. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/memory.h"

typedef struct {
  float *e;
  size_t n;
  float eta;
} ef_sign;

static const ccomp_param ef_sign_params[] = {
    {"eta", CCOMP_REAL, 1.0, 1e-12, 1e12,
     "gradient scale in p = e + eta g (Karimireddy et al.: the learning rate; 1 = gradient units)"},
};

static int ef_sign_init(void *state, const double *params, size_t n, char *err, size_t errlen) {
  ef_sign *m = state;
  m->eta = (float)params[0];
  m->n = n;
  m->e = ccomp_zeroed(n, sizeof *m->e);
  if (!m->e) {
    snprintf(err, errlen, "memory ef-sign: cannot allocate %zu floats", n);
    return -1;
  }
  return 0;
}

static void ef_sign_clear(void *state) { free(((ef_sign *)state)->e); }

/* p = e + eta g; the state does not change (memory.h). */
static void ef_sign_compensate(void *state, const float *g, size_t n, size_t offset, float *p) {
  const ef_sign *m = state;
  const float *e = m->e + offset, eta = m->eta;
  for (size_t i = 0; i < n; i++) p[i] = e[i] + eta * g[i];
}

static void ef_sign_encoded(void *state, const float *p, const float *own, size_t n,
                            size_t offset) {
  float *e = ((ef_sign *)state)->e + offset;
  for (size_t i = 0; i < n; i++) e[i] = p[i] - own[i];
}

static void ef_sign_prefetch(const void *state, size_t n, size_t offset) {
  const ef_sign *m = state;
  ccomp_prefetch(m->e + offset, n * sizeof *m->e);
}

const ccomp_memory_type ccomp_memory_ef_sign = {
    .name = "ef-sign",
    .summary = "EF-signSGD error feedback: p = e + eta g, e = p - decode(encode(p))",
    .flags = CCOMP_MEM_OWN_DECODE,
    .params = ef_sign_params,
    .nparams = sizeof ef_sign_params / sizeof ef_sign_params[0],
    .state_size = sizeof(ef_sign),
    .init = ef_sign_init,
    .clear = ef_sign_clear,
    .compensate = ef_sign_compensate,
    .encoded = ef_sign_encoded,
    .aggregated = NULL,
    .prefetch = ef_sign_prefetch,
};
