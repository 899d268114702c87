/* src/cli/bench_core.c — encode, decode and combine throughput of every compressor,
 * beside memcpy measured in the same run, on one core.
 *
 * Each figure is the best of `repeat` timed runs (the least disturbed by the
 * rest of the machine), over a Gaussian input from the gradient generator.
 * Throughput is given in G elements/s and in GB/s of fp32 input (4 bytes per
 * element); `memcpy` copies the same 4n bytes.  These are benchmarks, not
 * tests: they print, they do not assert. */
#include "cli/bench_core.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/compressor.h"
#include "data/gradients.h"
#include "hostclock.h"
#include "ccomp/rng.h"

typedef struct row {
  const char *name, *op;
  size_t n;
  double seconds;
} row;

static volatile uint8_t sink;

static double time_memcpy(const float *x, float *y, size_t n, int repeat) {
  double best = INFINITY;
  for (int r = 0; r < repeat; r++) {
    double t0 = host_clock();
    memcpy(y, x, n * sizeof *x);
    double t = host_clock() - t0;
    sink ^= ((const uint8_t *)y)[n / 2];
    if (t < best) best = t;
  }
  return best;
}

/* Time encode, decode and (summable) combine of t on n elements. */
static int bench_type(const ccomp_type *t, const float *x, const float *x2, float *y, size_t n,
                      int repeat, row *rows, int *nrows) {
  char err[CCOMP_ERRLEN];
  ccomp_setup su = {.n = n, .workers = 16, .rank = 0, .seed = 1};
  ccomp *c = ccomp_new(t, NULL, &su, err, sizeof err);
  if (!c) {
    fprintf(stderr, "ccsim bench: %s: %s\n", t->name, err);
    return -1;
  }
  size_t cap = ccomp_max_wire_bytes(c, n);
  uint8_t *a = malloc(cap + 1), *b = malloc(cap + 1), *s = malloc(cap + 1);
  ccomp_call call = {.key = ccr_key(1, 2), .shared_key = ccr_key(3, 4), .offset = 0, .iteration = 0};
  if (t->flags & CCOMP_GLOBAL_MAX)
    call.global_max = fmaxf(t->local_stat(c->state, x, n), t->local_stat(c->state, x2, n));
  double enc = INFINITY, dec = INFINITY, com = INFINITY;
  size_t na = 0, nb = 0;
  for (int r = 0; r < repeat; r++) {
    double t0 = host_clock();
    na = ccomp_encode(c, x, n, &call, a);
    double t1 = host_clock();
    ccomp_decode(c, a, na, n, 1, &call, y);
    double t2 = host_clock();
    enc = fmin(enc, t1 - t0);
    dec = fmin(dec, t2 - t1);
  }
  rows[(*nrows)++] = (row){t->name, "encode", n, enc};
  rows[(*nrows)++] = (row){t->name, "decode", n, dec};
  if ((t->flags & CCOMP_SUMMABLE) && t->combine) {
    ccomp_call call2 = call;
    call2.key = ccr_key(5, 6);
    nb = ccomp_encode(c, x2, n, &call2, b);
    for (int r = 0; r < repeat; r++) {
      double t0 = host_clock();
      size_t ns = ccomp_combine(c, a, na, 1, b, nb, 1, n, &call, s);
      com = fmin(com, host_clock() - t0);
      sink ^= s[ns / 2];
    }
    rows[(*nrows)++] = (row){t->name, "combine", n, com};
  }
  sink ^= (uint8_t)y[n / 3];
  free(a), free(b), free(s);
  ccomp_free(c);
  return 0;
}

int bench_run(const bench_opts *o) {
  const char *only = o->compressor;
  const size_t *sizes = o->sizes;
  const int nsizes = o->nsizes, json = o->json, repeat = o->repeat;
  if (only && !ccomp_find(only)) {
    fprintf(stderr, "ccsim bench: unknown compressor \"%s\" (known: %s)\n", only, ccomp_names());
    return 2;
  }
  size_t count, maxn = 0;
  const ccomp_type *const *reg = ccomp_registry(&count);
  for (int k = 0; k < nsizes; k++) maxn = sizes[k] > maxn ? sizes[k] : maxn;
  float *x = malloc(maxn * sizeof *x), *x2 = malloc(maxn * sizeof *x2), *y = malloc(maxn * sizeof *y);
  row *rows = calloc((count * 3 + 1) * (size_t)nsizes, sizeof *rows);
  if (!x || !x2 || !y || !rows) {
    fprintf(stderr, "ccsim bench: out of memory for %zu elements\n", maxn);
    free(x), free(x2), free(y), free(rows);
    return 1;
  }
  grad_source g = {.distribution = GRAD_NORMAL, .scale = 0.01, .correlation = 0, .seed = 7};
  grad_fill(&g, 0, 0, 0, maxn, x);
  grad_fill(&g, 1, 0, 0, maxn, x2);
  int nrows = 0;
  for (int k = 0; k < nsizes; k++) {
    rows[nrows++] = (row){"memcpy", "copy", sizes[k], time_memcpy(x, y, sizes[k], repeat)};
    for (size_t i = 0; i < count; i++)
      if (!only || !strcmp(only, reg[i]->name))
        if (bench_type(reg[i], x, x2, y, sizes[k], repeat, rows, &nrows)) {
          free(x), free(x2), free(y), free(rows);
          return 1;
        }
  }
  json_t *out = json ? json_array() : NULL;
  if (!json) printf("%-14s %-8s %10s %12s %10s %9s %9s\n", "compressor", "op", "elements", "seconds",
                    "Gelem/s", "GB/s", "%memcpy");
  /* a time below the clock's resolution (0) has no rate: null / n/a, not inf */
  double ref = NAN;
  for (int r = 0; r < nrows; r++) {
    const row *w = &rows[r];
    const double rate = w->seconds > 0 ? w->n / w->seconds : NAN;
    if (!strcmp(w->name, "memcpy")) ref = rate;
    const double frac = rate / ref;
    if (json) {
      json_t *o = json_pack("{s:s,s:s,s:I,s:f}", "compressor", w->name, "op", w->op, "elements",
                            (json_int_t)w->n, "seconds", w->seconds);
      json_object_set_new(o, "gelem_per_s", isfinite(rate) ? json_real(rate / 1e9) : json_null());
      json_object_set_new(o, "gbytes_per_s", isfinite(rate) ? json_real(4 * rate / 1e9) : json_null());
      json_object_set_new(o, "fraction_of_memcpy", isfinite(frac) ? json_real(frac) : json_null());
      json_array_append_new(out, o);
    } else if (isfinite(rate)) {
      char pct[16] = "n/a";
      if (isfinite(frac)) snprintf(pct, sizeof pct, "%.1f%%", 100 * frac);
      printf("%-14s %-8s %10zu %12.6f %10.3f %9.2f %9s\n", w->name, w->op, w->n, w->seconds, rate / 1e9,
             4 * rate / 1e9, pct);
    } else {
      printf("%-14s %-8s %10zu %12.6f %10s %9s %9s\n", w->name, w->op, w->n, w->seconds, "n/a", "n/a", "n/a");
    }
  }
  if (json) {
    json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
    json_decref(out);
  }
  free(x), free(x2), free(y), free(rows);
  return 0;
}
