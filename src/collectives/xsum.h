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
/* The sum, rounded to a double. */
double xsum_value(const xsum *s);

#endif
