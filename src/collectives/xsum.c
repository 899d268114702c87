/* src/collectives/xsum.c — exact, order-independent sums of doubles (see
 * xsum.h). */
#include "collectives/xsum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every limb but the last into [0, 2^32), the carries moved up: the same
 * value, with room for 2^30 more additions. */
static void normalise(xsum *s) {
  for (int k = 0; k + 1 < XSUM_LIMBS; k++) {
    const int64_t c = s->limb[k] >> 32; /* floor division: GCC shifts signed values arithmetically */
    s->limb[k] -= (int64_t)((uint64_t)c << 32);
    s->limb[k + 1] += c;
  }
  s->adds = 0;
}

void xsum_add(xsum *s, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  if (ex == 0x7ff) { /* infinity or NaN */
    s->special += v;
    return;
  }
  if (ex) m |= UINT64_C(1) << 52;
  if (!m) return;
  /* v = +-m 2^(ex - 1075) (subnormals: 2^-1074) = +-m 2^(p - 1074) */
  const unsigned p = ex ? ex - 1 : 0;
  const unsigned __int128 t = (unsigned __int128)m << (p & 31);
  int64_t a0 = (int64_t)(uint32_t)t, a1 = (int64_t)(uint32_t)(t >> 32), a2 = (int64_t)(uint64_t)(t >> 64);
  if (bits >> 63) a0 = -a0, a1 = -a1, a2 = -a2;
  int64_t *l = s->limb + (p >> 5);
  l[0] += a0;
  l[1] += a1;
  l[2] += a2;
  if (++s->adds >= 1u << 30) normalise(s);
}

/* s += acc 2^(pa - 1074), |acc| < 2^126, exactly. */
static void add_scaled(xsum *s, __int128 acc, unsigned pa) {
  if (!acc) return;
  /* acc 2^(pa - 1074): its magnitude, shifted by pa mod 32, in 32-bit
   * pieces to limbs pa / 32 and up (five at most: 126 + 31 bits) */
  const int neg = acc < 0;
  const unsigned __int128 u = neg ? -(unsigned __int128)acc : (unsigned __int128)acc;
  const unsigned r = pa & 31;
  const unsigned __int128 lo = u << r;
  const uint64_t hi = r ? (uint64_t)(u >> (128 - r)) : 0;
  const int64_t piece[5] = {(int64_t)(uint32_t)lo, (int64_t)(uint32_t)(lo >> 32), (int64_t)(uint32_t)(lo >> 64),
                            (int64_t)(uint32_t)(lo >> 96), (int64_t)hi};
  int64_t *l = s->limb + (pa >> 5);
  for (int k = 0; k < 5; k++) l[k] += neg ? -piece[k] : piece[k];
  if (++s->adds >= 1u << 30) normalise(s);
}

/* Up to 2^15 terms at once: each finite term within 2^58 of the largest
 * one's binary exponent is added, as an integer times 2^(pa - 1074), to
 * one 128-bit accumulator (a term is below 2^(53 + 58), so 2^15 of them
 * stay below 2^126), which then goes to the limbs once; the rest (smaller
 * terms, infinities, NaNs) through xsum_add.  Every term is added exactly
 * either way, so the limbs hold the same sum as xsum_add term by term. */
static void add_run(xsum *s, const unsigned char *v, size_t n, size_t stride) {
  enum { WINDOW = 58 };
  unsigned pmax = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, v + i * stride, sizeof bits);
    const unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
    if (ex != 0x7ff && ex > pmax) pmax = ex;
  }
  /* the largest term's p (xsum_add's v = +-m 2^(p - 1074)) is pmax - 1 (or 0) */
  const unsigned ptop = pmax ? pmax - 1 : 0, pa = ptop > WINDOW ? ptop - WINDOW : 0;
  __int128 acc = 0;
  for (size_t i = 0; i < n; i++) {
    double x;
    uint64_t bits;
    memcpy(&x, v + i * stride, sizeof x);
    memcpy(&bits, &x, sizeof bits);
    const unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
    uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
    const unsigned p = ex ? ex - 1 : 0;
    if (ex == 0x7ff || p < pa) {
      xsum_add(s, x);
      continue;
    }
    if (ex) m |= UINT64_C(1) << 52;
    const __int128 t = (__int128)((unsigned __int128)m << (p - pa));
    acc += bits >> 63 ? -t : t;
  }
  add_scaled(s, acc, pa);
}

void xwin_flush(xsum *s, xwin4 *w, int q) {
  if (w->n[q]) add_scaled(s, w->acc[q], w->pa[q]);
  w->acc[q] = 0;
  w->n[q] = 0;
}

void xwin_spill(xsum *s, xwin4 *w, int q, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  const unsigned ex = (unsigned)(bits >> 52) & 0x7ff, p = ex ? ex - 1 : 0;
  if (ex == 0x7ff || (w->n[q] && p < w->pa[q])) {
    xsum_add(s, v);
    return;
  }
  xwin_flush(s, w, q);
  if (!xwin_add(w, q, v)) abort(); /* an empty window takes every finite term */
}

void xsum_add_strided(xsum *s, const void *first, size_t n, size_t stride) {
  const unsigned char *v = first;
  for (size_t i = 0; i < n; i += (size_t)1 << 15) {
    const size_t m = n - i < ((size_t)1 << 15) ? n - i : (size_t)1 << 15;
    add_run(s, v + i * stride, m, stride);
  }
}

void xsum_merge(xsum *s, const xsum *t) {
  xsum u = *t;
  normalise(&u);
  normalise(s);
  for (int k = 0; k < XSUM_LIMBS; k++) s->limb[k] += u.limb[k];
  s->special += t->special;
}

double xsum_value(const xsum *s) {
  xsum t = *s;
  normalise(&t);
  const int neg = t.limb[XSUM_LIMBS - 1] < 0;
  if (neg) {
    for (int k = 0; k < XSUM_LIMBS; k++) t.limb[k] = -t.limb[k];
    normalise(&t);
  }
  int k = XSUM_LIMBS - 1;
  while (k >= 0 && !t.limb[k]) k--;
  if (k < 0) return 0.0 + s->special;
  /* the top 96 bits (the top limb may hold more than 32) */
  const int b = k >= 2 ? k - 2 : 0;
  unsigned __int128 u = 0;
  for (int j = k; j >= b; j--) u = (u << 32) | (uint64_t)t.limb[j];
  double d = ldexp((double)u, 32 * b - 1074);
  return (neg ? -d : d) + s->special;
}
