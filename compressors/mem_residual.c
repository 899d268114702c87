/* compressors/mem_residual.c — residual error feedback (Seide et al. 2014;
 * Karimireddy et al., "Error Feedback Fixes SignSGD", ICML 2019):
 *   p = g + e;  send C(p);  e = p - decode(C(p)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/memory.h"

typedef struct {
  float *e;
  size_t n;
} residual;

static int residual_init(void *state, const double *params, size_t n, char *err, size_t errlen) {
  (void)params;
  residual *r = state;
  r->e = ccomp_zeroed(n, sizeof *r->e);
  if (!r->e) {
    snprintf(err, errlen, "memory residual: cannot allocate %zu floats", n);
    return -1;
  }
  r->n = n;
  return 0;
}

static void residual_clear(void *state) { free(((residual *)state)->e); }

static void residual_compensate(void *state, const float *g, size_t n, size_t offset, float *p) {
  const float *e = ((residual *)state)->e + offset;
  for (size_t i = 0; i < n; i++) p[i] = g[i] + e[i];
}

static void residual_encoded(void *state, const float *p, const float *own, size_t n,
                             size_t offset) {
  float *e = ((residual *)state)->e + offset;
  for (size_t i = 0; i < n; i++) e[i] = p[i] - own[i];
}

static void residual_prefetch(const void *state, size_t n, size_t offset) {
  const residual *m = state;
  ccomp_prefetch(m->e + offset, n * sizeof *m->e);
}

const ccomp_memory_type ccomp_memory_residual = {
    .name = "residual",
    .summary = "error feedback: p = g + e, e = p - decode(encode(p))",
    .flags = CCOMP_MEM_OWN_DECODE,
    .params = NULL,
    .nparams = 0,
    .state_size = sizeof(residual),
    .init = residual_init,
    .clear = residual_clear,
    .compensate = residual_compensate,
    .encoded = residual_encoded,
    .aggregated = NULL,
    .prefetch = residual_prefetch,
};
