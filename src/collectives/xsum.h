/* src/collectives/xsum.h — exact sums of doubles, whatever the order.
 *
 * A long accumulator: every finite double is an integer times 2^-1074, and
 * its 53-bit integer is added, split at 32-bit boundaries, to 64-bit limbs
 * of weight 2^(32k - 1074).  Integer additions commute, so the limbs, and
 * the double read from them, do not depend on the order of the additions:
 * the hop sums that workers add from several threads come out the same
 * bits with one thread as with many.  The value read is the exact sum
 * rounded once (to 96 bits, then to a double), closer to the true sum than
 * any sequence of double additions.  Infinities and NaNs are summed apart
 * and added at the end (their sum does not depend on order either).
 * 552 bytes; an addition costs a few integer operations. */
#ifndef CCSIM_XSUM_H
#define CCSIM_XSUM_H

#include <stddef.h>
#include <stdint.h>

/* Limb k weighs 2^(32k - 1074): a double's integer (at most 2^53 times
 * 2^971) shifted by up to 31 bits reaches limb 65; two more absorb carries
 * from 2^30 additions between normalisations. */
#define XSUM_LIMBS 68

typedef struct xsum {
  int64_t limb[XSUM_LIMBS];
  double special; /* the sum of the non-finite terms */
  uint32_t adds;  /* additions since the limbs were last normalised */
} xsum;

/* s += v, exactly. */
void xsum_add(xsum *s, double v);
/* s += the n doubles at first, first + stride bytes, ..., first + (n - 1)
 * stride bytes, exactly: the same sum as n calls of xsum_add (so the same
 * value read), at a fraction of their cost where the terms are of similar
 * size (most share one 128-bit accumulator). */
void xsum_add_strided(xsum *s, const void *first, size_t n, size_t stride);
/* s += t, exactly. */
void xsum_merge(xsum *s, const xsum *t);

/* ---- Windows: a sum's terms as they come, one at a time ---------------
 * Four running sums (a metrics slot's err2, ref2, out2 and dot), each a
 * window of one 128-bit integer counting 2^(pa - 1074): a term whose
 * binary exponent lies within XWIN_SPAN of pa is added to it exactly, a
 * few integer operations and no memory beyond the window's 80 bytes, where
 * an xsum would touch its 552.  A term that does not fit (smaller than the
 * window, larger, the window full, or not finite) goes to an xsum through
 * xwin_spill; xwin_flush moves what a window holds to an xsum.  The
 * xsum then holds exactly the sum of every term, however they were
 * split between window and limbs, so its value is the one xsum_add would
 * give term by term. */
typedef struct xwin4 {
  __int128 acc[4];
  uint16_t pa[4]; /* the window's base: term exponent p (xsum_add's) at shift 0 */
  uint16_t n[4];  /* terms in acc; 0: empty (pa not yet chosen) */
} xwin4;
/* A term is below 2^(53 + XWIN_SPAN) in the window's units, XWIN_TERMS of
 * them below 2^126: acc never overflows.  A new window puts its first term
 * XWIN_BELOW above its base: terms 2^45 times smaller and 2^18 larger fit. */
enum { XWIN_SPAN = 63, XWIN_TERMS = 1024, XWIN_BELOW = 45 };

/* Window q of w += v, exactly: 1, or 0 (nothing added) when v does not
 * fit, for xwin_spill. */
static inline int xwin_add(xwin4 *w, int q, double v) {
  uint64_t bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  const unsigned ex = (unsigned)(bits >> 52) & 0x7ff;
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  if (ex == 0x7ff) return 0;
  if (ex) m |= UINT64_C(1) << 52;
  if (!m) return 1; /* a zero adds nothing */
  const unsigned p = ex ? ex - 1 : 0;
  if (!w->n[q]) w->pa[q] = (uint16_t)(p > XWIN_BELOW ? p - XWIN_BELOW : 0);
  const unsigned sh = p - w->pa[q]; /* below the window: a shift past the span, unsigned */
  if (sh > XWIN_SPAN || w->n[q] == XWIN_TERMS) return 0;
  /* m << sh in two words (sh < 64: no 128-bit shift's test of bit 6),
   * negated without a branch where v < 0: (t ^ s) - s, s all ones */
  const uint64_t lo = m << sh, hi = (m >> 1) >> (63 - sh), sg = (uint64_t)0 - (bits >> 63);
  const unsigned __int128 s = (unsigned __int128)sg << 64 | sg;
  const unsigned __int128 t = (((unsigned __int128)hi << 64 | lo) ^ s) - s;
  w->acc[q] = (__int128)((unsigned __int128)w->acc[q] + t);
  w->n[q]++;
  return 1;
}
/* The term v that window q did not take, added exactly: to s when it is
 * smaller than the window or not finite, else (larger, or the window
 * full) the window moved to s and v begun a new one. */
void xwin_spill(xsum *s, xwin4 *w, int q, double v);
/* Window q's sum moved to s, exactly; the window empties. */
void xwin_flush(xsum *s, xwin4 *w, int q);
/* The sum, rounded to a double. */
double xsum_value(const xsum *s);

#endif
