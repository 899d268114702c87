/* tests/test_xsum.c — exact sums (src/collectives/xsum.c): xsum_add_strided
 * and the windows (xwin_add, xwin_spill, xwin_flush) give the same value
 * as xsum_add term by term, in any order, over terms
 * of every size (subnormals to the largest doubles, cancelling pairs,
 * infinities and NaN), and sums that double arithmetic gets wrong are
 * exact. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "collectives/xsum.h"

static int failures;
#define CHECK(c, ...)                                                                                            \
  do {                                                                                                           \
    if (!(c)) {                                                                                                  \
      failures++;                                                                                                \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
      fprintf(stderr, __VA_ARGS__);                                                                              \
      fputc('\n', stderr);                                                                                       \
    }                                                                                                            \
  } while (0)

static uint64_t drawn;
static uint64_t next(void) { return ccr_u64(0x78737563, drawn++); } /* ccsim's counter-based generator */

/* A double of exponent within [emin, emax] (binary), random sign and bits. */
static double draw(int emin, int emax) {
  const uint64_t u = next();
  const double m = 1.0 + (double)(u >> 12) * 0x1p-52;
  const int e = emin + (int)(next() % (uint64_t)(emax - emin + 1));
  return (u & 1 ? -1 : 1) * ldexp(m, e);
}

static size_t windowed, spills; /* terms through windows, and those spilled */

static int same(double a, double b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* the value of v[0 .. n) (stride doubles apart) by xsum_add, by
 * xsum_add_strided, and by xsum_add_strided over a shuffled copy */
static void compare(const char *what, const double *v, size_t n, size_t stride) {
  xsum a, b, c;
  memset(&a, 0, sizeof a), memset(&b, 0, sizeof b), memset(&c, 0, sizeof c);
  for (size_t i = 0; i < n; i++) xsum_add(&a, v[i * stride]);
  xsum_add_strided(&b, v, n, stride * sizeof *v);
  double *w = malloc((n ? n : 1) * sizeof *w);
  for (size_t i = 0; i < n; i++) w[i] = v[i * stride];
  for (size_t i = n; i > 1; i--) {
    const size_t j = next() % i;
    const double t = w[i - 1];
    w[i - 1] = w[j], w[j] = t;
  }
  /* in two parts, the second through the public one-by-one path */
  xsum_add_strided(&c, w, n / 2, sizeof *w);
  for (size_t i = n / 2; i < n; i++) xsum_add(&c, w[i]);
  free(w);
  /* through a window, as the metrics add a slot's parts: the terms it
   * does not take spilled, the rest flushed at the end (window 2 of 4, so
   * that the others' fields are seen to stay apart) */
  xsum d;
  xwin4 win;
  memset(&d, 0, sizeof d), memset(&win, 0, sizeof win);
  size_t spilled = 0;
  for (size_t i = 0; i < n; i++)
    if (!xwin_add(&win, 2, v[i * stride])) xwin_spill(&d, &win, 2, v[i * stride]), spilled++;
  CHECK(win.n[0] == 0 && win.n[1] == 0 && win.n[3] == 0 && win.acc[0] == 0, "%s: window 2 wrote another", what);
  xwin_flush(&d, &win, 2);
  CHECK(win.n[2] == 0 && win.acc[2] == 0, "%s: a flushed window is not empty", what);
  windowed += n, spills += spilled;
  CHECK(same(xsum_value(&a), xsum_value(&d)), "%s: windowed %.17g, one by one %.17g", what, xsum_value(&d),
        xsum_value(&a));
  CHECK(same(xsum_value(&a), xsum_value(&b)), "%s: strided %.17g, one by one %.17g", what, xsum_value(&b),
        xsum_value(&a));
  CHECK(same(xsum_value(&a), xsum_value(&c)), "%s: shuffled %.17g, in order %.17g", what, xsum_value(&c),
        xsum_value(&a));
}

int main(void) {
  enum { N = 100000 };
  double *v = malloc(N * 3 * sizeof *v);
  /* similar sizes (the 128-bit window takes all), then widening spreads
   * that send more and more terms to the limbs one by one */
  const int spread[] = {0, 10, 58, 59, 120, 600, 2000};
  for (size_t k = 0; k < sizeof spread / sizeof *spread; k++) {
    for (size_t i = 0; i < N * 3; i++) v[i] = draw(-20 - spread[k] / 2, -20 + (spread[k] + 1) / 2);
    char what[64];
    snprintf(what, sizeof what, "exponents over %d", spread[k]);
    compare(what, v, N, 1);
    compare(what, v + 1, N, 3); /* every third, as the metrics' log lays its parts out */
  }
  /* the whole range, subnormals and the largest doubles included */
  for (size_t i = 0; i < N; i++) v[i] = draw(-1074, 1023);
  compare("every exponent", v, N, 1);
  for (size_t i = 0; i < N; i++) v[i] = (i & 1 ? -1 : 1) * ldexp((double)(next() >> 12), -1074);
  compare("subnormals", v, N, 1);
  for (size_t i = 0; i < N; i++) v[i] = (i & 1 ? -1 : 1) * 0x1.fffffffffffffp1023;
  compare("the largest doubles, cancelling", v, N, 1);
  v[N / 2] = 0x1.fffffffffffffp1023;
  compare("the largest doubles, one left", v, N, 1);
  /* more terms than one 128-bit run holds (2^15), all at the top of the window */
  for (size_t i = 0; i < N; i++) v[i] = 0x1.fffffffffffffp+60;
  compare("2^15 and more equal terms", v, N, 1);
  {
    xsum s;
    memset(&s, 0, sizeof s);
    xsum_add_strided(&s, v, N, sizeof *v);
    CHECK(xsum_value(&s) == N * 0x1.fffffffffffffp+60, "%d x (2^61 - 2^8): %.17g", N, xsum_value(&s));
  }
  /* exact where doubles are not: 1e300 + 1e-300 - 1e300 = 1e-300 */
  {
    const double t[] = {1e300, 1e-300, -1e300, 3.0, -3.0};
    xsum s;
    memset(&s, 0, sizeof s);
    xsum_add_strided(&s, t, 5, sizeof *t);
    CHECK(xsum_value(&s) == 1e-300, "1e300 + 1e-300 - 1e300 + 3 - 3 = %.17g", xsum_value(&s));
    compare("cancelling giants", t, 5, 1);
  }
  /* infinities and NaN are summed apart */
  {
    const double t[] = {1.0, INFINITY, 2.0};
    xsum s;
    memset(&s, 0, sizeof s);
    xsum_add_strided(&s, t, 3, sizeof *t);
    CHECK(isinf(xsum_value(&s)) && xsum_value(&s) > 0, "1 + inf + 2 = %g", xsum_value(&s));
    const double u[] = {1.0, INFINITY, -INFINITY};
    memset(&s, 0, sizeof s);
    xsum_add_strided(&s, u, 3, sizeof *u);
    CHECK(isnan(xsum_value(&s)), "1 + inf - inf = %g", xsum_value(&s));
    const double w[] = {NAN, 1.0};
    compare("NaN", w, 2, 1);
  }
  {
    xsum s;
    memset(&s, 0, sizeof s);
    xsum_add_strided(&s, v, 0, sizeof *v);
    CHECK(xsum_value(&s) == 0.0, "nothing: %g", xsum_value(&s));
  }
  /* a window takes similar terms without spilling but at its XWIN_TERMS-th */
  {
    xsum s;
    xwin4 w;
    memset(&s, 0, sizeof s), memset(&w, 0, sizeof w);
    size_t sp = 0;
    for (int i = 0; i < 3 * XWIN_TERMS; i++) {
      const double t = draw(-3, 3);
      v[i] = t;
      if (!xwin_add(&w, 0, t)) xwin_spill(&s, &w, 0, t), sp++;
    }
    CHECK(sp == 2, "3 x %d terms within 2^6 of each other: %zu spills, not the 2 a full window makes", XWIN_TERMS,
          sp);
    xwin_flush(&s, &w, 0);
    xsum r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 3 * XWIN_TERMS; i++) xsum_add(&r, v[i]);
    CHECK(same(xsum_value(&r), xsum_value(&s)), "full windows: %.17g, one by one %.17g", xsum_value(&s),
          xsum_value(&r));
  }
  CHECK(spills > 0 && spills < windowed, "windows spilled %zu of %zu terms: the spill path untested", spills,
        windowed);
  free(v);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("xsum: strided, windowed and one-by-one sums agree, in any order (%zu of %zu windowed terms spilled)\n", spills, windowed);
  return failures != 0;
}
