/* src/collectives/xsum.c — exact, order-independent sums of doubles (see
 * xsum.h). */
#include "collectives/xsum.h"

#include <math.h>
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
