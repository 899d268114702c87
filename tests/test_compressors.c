/* tests/test_compressors.c — one generic test over every registered compressor
 * (the pattern of GSL's rng/test.c): a compressor is covered the moment it is
 * registered.  For each, with default parameters, at several sizes:
 *   - encode writes <= max_wire_bytes(n) bytes (== for CCOMP_FIXED_SIZE);
 *   - same keys, fresh instance => identical bytes (determinism);
 *   - ||decode(encode(x)) - x|| <= the compressor's stated roundtrip_bound;
 *   - summable: decode(combine(E(a), E(b)), 2) is within the bound of
 *     decode(E(a)) + decode(E(b)) computed in fp32;
 *   - cost() reports non-negative figures.
 * Inputs are Gaussian (the synthetic gradient generator's own distribution is
 * tested in test_gradients.c), drawn from compressors/rng.h.  Chunked
 * encoding at offsets is checked per compressor family in test_quantizers.c,
 * test_signs.c and test_sparsifiers.c, where its meaning differs (per-element
 * randomness vs per-chunk statistics). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ccomp/compressor.h"
#include "ccomp/rng.h"

static void gaussian(float *x, size_t n, uint64_t key, double scale) {
  for (size_t i = 0; i < n; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    x[i] = (float)(scale * sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

static double l2diff(const float *a, const float *b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
  return sqrt(s);
}

static ccomp *fresh(const ccomp_type *t, size_t n) {
  char err[CCOMP_ERRLEN];
  ccomp_setup su = {.n = n, .workers = 4, .rank = 1, .seed = 42};
  ccomp *c = ccomp_new(t, NULL, &su, err, sizeof err);
  CHECK(c != NULL, "%s: ccomp_new failed: %s", t->name, err);
  return c;
}

static void test_type(const ccomp_type *t) {
  static const size_t sizes[] = {1, 7, 64, 1000, 4099};
  CHECK(t->name && t->summary && t->encode && t->decode && t->max_wire_bytes && t->cost &&
            t->roundtrip_bound,
        "%s: descriptor has an empty mandatory slot", t->name);
  CHECK(!(t->flags & CCOMP_SUMMABLE) || t->combine, "%s: summable without combine", t->name);
  CHECK(t->phases < 2 || (t->phase_bytes && t->phase_encode && t->phase_decode && t->phase_cost),
        "%s: %u phases without the phase slots", t->name, t->phases);
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t n = sizes[si];
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
    gaussian(x, n, ccr_key(7, n), 1e-2);
    ccomp *c = fresh(t, n);
    if (!c) return;
    size_t cap = ccomp_max_wire_bytes(c, n);
    uint8_t *w1 = malloc(cap + 1), *w2 = malloc(cap + 1);
    ccomp_call call = {.key = ccr_key(1, n), .shared_key = ccr_key(2, n), .offset = 0, .iteration = 0};
    if (t->flags & CCOMP_GLOBAL_MAX) call.global_max = t->local_stat(c->state, x, n);
    size_t nb = ccomp_encode(c, x, n, &call, w1);
    CHECK(nb <= cap, "%s n=%zu: encode wrote %zu > max_wire_bytes %zu", t->name, n, nb, cap);
    if (t->flags & CCOMP_FIXED_SIZE)
      CHECK(nb == cap, "%s n=%zu: fixed-size type wrote %zu, max %zu", t->name, n, nb, cap);

    ccomp *c2 = fresh(t, n);
    size_t nb2 = ccomp_encode(c2, x, n, &call, w2);
    CHECK(nb2 == nb && memcmp(w1, w2, nb) == 0, "%s n=%zu: same seed, different bytes", t->name, n);

    ccomp_decode(c, w1, nb, n, 1, &call, y);
    double bound = t->roundtrip_bound(c->state, x, n);
    double err = l2diff(x, y, n);
    CHECK(err <= bound * (1 + 1e-6) + 1e-30, "%s n=%zu: round trip error %.4g > stated bound %.4g",
          t->name, n, err, bound);
    if (t->flags & CCOMP_LOSSLESS) CHECK(err == 0, "%s: lossless but error %g", t->name, err);

    if ((t->flags & CCOMP_SUMMABLE) && t->combine) {
      float *b = malloc(n * sizeof *b), *s = malloc(n * sizeof *s);
      gaussian(b, n, ccr_key(8, n), 1e-2);
      uint8_t *wb = malloc(cap), *wc = malloc(cap);
      ccomp_call cb = call;
      cb.key = ccr_key(3, n);
      if (t->flags & CCOMP_GLOBAL_MAX) {
        float mb = t->local_stat(c->state, b, n);
        call.global_max = cb.global_max = fmaxf(call.global_max, mb);
        nb = ccomp_encode(c2, x, n, &call, w1);
      }
      size_t nbb = ccomp_encode(c2, b, n, &cb, wb);
      size_t nbc = ccomp_combine(c, w1, nb, 1, wb, nbb, 1, n, &call, wc);
      CHECK(nbc <= cap, "%s n=%zu: combine wrote %zu > %zu", t->name, n, nbc, cap);
      ccomp_decode(c, w1, nb, n, 1, &call, y);
      ccomp_decode(c, wb, nbb, n, 1, &cb, z);
      for (size_t i = 0; i < n; i++) s[i] = y[i] + z[i];
      ccomp_decode(c, wc, nbc, n, 2, &call, z);
      double cerr = l2diff(s, z, n), cbound = t->roundtrip_bound(c->state, s, n);
      CHECK(cerr <= cbound * (1 + 1e-6) + 1e-30, "%s n=%zu: combine error %.4g > bound %.4g",
            t->name, n, cerr, cbound);
      free(b), free(s), free(wb), free(wc);
    }

    static const enum ccomp_op ops[] = {CCOMP_ENCODE, CCOMP_DECODE, CCOMP_COMBINE};
    for (int k = 0; k < 3; k++) {
      ccomp_cost co;
      ccomp_cost_of(c, n, ops[k], &co);
      CHECK(co.launches >= 0 && co.bytes_read >= 0 && co.bytes_written >= 0 && co.flops >= 0,
            "%s: negative cost", t->name);
    }
    ccomp_free(c), ccomp_free(c2);
    free(x), free(y), free(z), free(w1), free(w2);
  }
}

/* Parameters are range-checked before init, with a message naming them. */
static void test_param_checks(void) {
  size_t count;
  const ccomp_type *const *reg = ccomp_registry(&count);
  for (size_t k = 0; k < count; k++) {
    const ccomp_type *t = reg[k];
    for (size_t i = 0; i < t->nparams; i++) {
      char err[CCOMP_ERRLEN] = "";
      double below = t->params[i].min - 1;
      if (isfinite(below)) {
        CHECK(ccomp_param_check(t, i, below, err, sizeof err) == -1, "%s.%s accepted %g", t->name,
              t->params[i].name, below);
        CHECK(strstr(err, t->params[i].name) != NULL, "error does not name the parameter: %s", err);
      }
      CHECK(ccomp_param_check(t, i, t->params[i].def, err, sizeof err) == 0,
            "%s.%s rejects its own default: %s", t->name, t->params[i].name, err);
    }
  }
  CHECK(ccomp_find("no-such-compressor") == NULL, "found a compressor that does not exist");
  CHECK(strstr(ccomp_names(), "none") && strstr(ccomp_names(), "fp16"), "names: %s", ccomp_names());
}

int main(void) {
  size_t count;
  const ccomp_type *const *reg = ccomp_registry(&count);
  CHECK(count >= 2, "registry has %zu compressors", count);
  for (size_t k = 0; k < count; k++) test_type(reg[k]);
  test_param_checks();
  return check_status("test_compressors");
}
