/* compressors/compressor.c — instances, parameters and the generic operations. */
#include "ccomp/compressor.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *ccomp_zeroed(size_t count, size_t size) {
  if (!count) count = 1;
  if (size && count > SIZE_MAX / size) return NULL;
  void *p = malloc(count * size);
  /* explicit_bzero: GCC folds malloc + memset into the calloc this avoids */
  if (p) explicit_bzero(p, count * size);
  return p;
}

int ccomp_param_index(const ccomp_type *t, const char *name) {
  for (size_t i = 0; i < t->nparams; i++)
    if (strcmp(t->params[i].name, name) == 0) return (int)i;
  return -1;
}

void ccomp_param_defaults(const ccomp_type *t, double *out) {
  for (size_t i = 0; i < t->nparams; i++) out[i] = t->params[i].def;
}

/* The names of a CCOMP_CHOICE list end at the first ':' of help. */
static size_t choices_len(const ccomp_param *p) {
  const char *c = p->help ? strchr(p->help, ':') : NULL;
  return c ? (size_t)(c - p->help) : 0;
}

size_t ccomp_param_nchoices(const ccomp_param *p) {
  const size_t len = choices_len(p);
  size_t k = len ? 1 : 0;
  for (size_t i = 0; i < len; i++) k += p->help[i] == '|';
  return k;
}

int ccomp_param_choice_name(const ccomp_param *p, size_t k, char *out, size_t len) {
  const size_t all = choices_len(p);
  size_t start = 0, idx = 0;
  for (size_t i = 0; i <= all; i++) {
    if (i < all && p->help[i] != '|') continue;
    if (idx++ == k) {
      snprintf(out, len, "%.*s", (int)(i - start), p->help + start);
      return 0;
    }
    start = i + 1;
  }
  return -1;
}

int ccomp_param_choice_index(const ccomp_param *p, const char *name) {
  char one[64];
  for (size_t k = 0; ccomp_param_choice_name(p, k, one, sizeof one) == 0; k++)
    if (strcmp(one, name) == 0) return (int)k;
  return -1;
}

int ccomp_param_check_in(const char *owner, const ccomp_param *params, size_t i, double v,
                         char *err, size_t errlen) {
  const ccomp_param *p = &params[i];
  if (!isfinite(v)) {
    snprintf(err, errlen, "%s: parameter '%s' must be a finite number", owner, p->name);
    return -1;
  }
  if (p->kind == CCOMP_CHOICE && (v != floor(v) || v < 0 || v >= (double)ccomp_param_nchoices(p))) {
    snprintf(err, errlen, "%s: parameter '%s' must be one of %.*s", owner, p->name,
             (int)choices_len(p), p->help);
    return -1;
  }
  if (p->kind == CCOMP_INT && v != floor(v)) {
    snprintf(err, errlen, "%s: parameter '%s' must be an integer, got %g", owner, p->name, v);
    return -1;
  }
  if (p->kind == CCOMP_BOOL && v != 0 && v != 1) {
    snprintf(err, errlen, "%s: parameter '%s' must be true or false", owner, p->name);
    return -1;
  }
  if (v < p->min || v > p->max) {
    snprintf(err, errlen, "%s: parameter '%s' must be in [%g, %g], got %g", owner, p->name,
             p->min, p->max, v);
    return -1;
  }
  return 0;
}

int ccomp_param_check(const ccomp_type *t, size_t i, double v, char *err, size_t errlen) {
  return ccomp_param_check_in(t->name, t->params, i, v, err, errlen);
}

ccomp *ccomp_new(const ccomp_type *t, const double *params, const ccomp_setup *setup, char *err,
                 size_t errlen) {
  double defaults[64];
  if (t->nparams > 64) {
    snprintf(err, errlen, "%s: too many parameters", t->name);
    return NULL;
  }
  if (!params) {
    ccomp_param_defaults(t, defaults);
    params = defaults;
  }
  for (size_t i = 0; i < t->nparams; i++)
    if (ccomp_param_check(t, i, params[i], err, errlen)) return NULL;
  ccomp *c = calloc(1, sizeof *c);
  if (!c) {
    snprintf(err, errlen, "%s: out of memory", t->name);
    return NULL;
  }
  c->type = t;
  c->setup = *setup;
  c->state = calloc(1, t->state_size ? t->state_size : 1);
  if (!c->state) {
    free(c);
    snprintf(err, errlen, "%s: out of memory", t->name);
    return NULL;
  }
  if (t->init && t->init(c->state, params, setup, err, errlen) != 0) {
    free(c->state);
    free(c);
    return NULL;
  }
  return c;
}

void ccomp_free(ccomp *c) {
  if (!c) return;
  if (c->type->clear) c->type->clear(c->state);
  free(c->state);
  free(c);
}

size_t ccomp_combine(const ccomp *c, const uint8_t *a, size_t na, uint32_t ka, const uint8_t *b,
                     size_t nb, uint32_t kb, size_t n, const ccomp_call *call, uint8_t *out) {
  return c->type->combine(c->state, a, na, ka, b, nb, kb, n, call, out);
}

void ccomp_finish(const ccomp *c, float *y, size_t n, uint32_t workers) {
  if (c->type->finish) {
    c->type->finish(c->state, y, n, workers);
    return;
  }
  const float inv = 1.0f / (float)workers;
  for (size_t i = 0; i < n; i++) y[i] *= inv;
}

void ccomp_cost_of(const ccomp *c, size_t n, enum ccomp_op op, ccomp_cost *cost) {
  memset(cost, 0, sizeof *cost);
  if (c->type->cost) c->type->cost(c->state, n, op, cost);
}

double ccomp_rounding_bound(const float *x, size_t n, double rel, double floor) {
  double s = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fmax(fabs((double)x[i]) * rel, floor);
    s += e * e;
  }
  return sqrt(s);
}
