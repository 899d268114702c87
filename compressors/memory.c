/* compressors/memory.c — memory instances. */
#include "ccomp/memory.h"

#include <stdio.h>
#include <stdlib.h>

ccomp_memory *ccomp_memory_new(const ccomp_memory_type *t, const double *params, size_t n,
                               char *err, size_t errlen) {
  double defaults[16];
  char owner[64];
  snprintf(owner, sizeof owner, "memory %s", t->name);
  if (t->nparams > sizeof defaults / sizeof defaults[0]) {
    snprintf(err, errlen, "%s: too many parameters", owner);
    return NULL;
  }
  if (!params) {
    for (size_t i = 0; i < t->nparams; i++) defaults[i] = t->params[i].def;
    params = defaults;
  }
  for (size_t i = 0; i < t->nparams; i++)
    if (ccomp_param_check_in(owner, t->params, i, params[i], err, errlen)) return NULL;
  ccomp_memory *m = calloc(1, sizeof *m);
  if (m) m->state = calloc(1, t->state_size ? t->state_size : 1);
  if (!m || !m->state) {
    if (m) free(m);
    snprintf(err, errlen, "memory %s: out of memory", t->name);
    return NULL;
  }
  m->type = t;
  m->n = n;
  if (t->init && t->init(m->state, params, n, err, errlen) != 0) {
    free(m->state);
    free(m);
    return NULL;
  }
  return m;
}

void ccomp_memory_free(ccomp_memory *m) {
  if (!m) return;
  if (m->type->clear) m->type->clear(m->state);
  free(m->state);
  free(m);
}
