/* compressors/gqsgd_exp.c — exponential dithering for Global-QSGD
 * (gqsgd_exp.h; the paper's second variant, arXiv 2305.18627, and the
 * kernels of the public global-qsgd code, re-derived here).
 *
 * Rounding, one worker.  r = |x| / M in (0, 1] lies in [2^(t-1), 2^t) for
 * one integer t <= 0 (or r = 1 = 2^0); it becomes 2^t with probability
 * p = r / 2^(t-1) - 1, else 2^(t-1): E = 2^(t-1) (1 + p) = r, unbiased.
 * Below the smallest level F = 2^(head - emax) it becomes F with
 * probability r / F, else 0: unbiased too.  (The public code clamps such
 * values up to its smallest level and maps r = 1 to code 0, i.e. to zero;
 * neither happens here.)
 *
 * Combine (the public code's randomized exponent rule).  Two nonzero
 * elements with codes ea <= eb (a the larger magnitude, 2^-ea in units of
 * 2^head M) and d = eb - ea:
 *   same sign:  |a + b| = 2^-ea (1 + 2^-d), between 2^-ea and 2^-(ea-1):
 *               code ea - 1 with probability 2^-d, else ea;
 *               E = 2^-ea (1 + 2^-d) exactly (d = 0: always ea - 1, exact);
 *   opposite:   d = 0 gives 0 exactly; else |a + b| = 2^-ea (1 - 2^-d),
 *               between 2^-(ea+1) and 2^-ea: code ea + 1 with probability
 *               2^-(d-1), else ea; E = 2^-ea (1 - 2^-(d-1) / 2) = 2^-ea
 *               (1 - 2^-d) exactly, with a's sign (d = 1: exact);
 *   a zero:     the other, exactly.
 * The coin of probability 2^-k is "the first k random bits are all zero",
 * exact for any k.  Given the two inputs the output's expectation is their
 * sum, and each combine's bits are independent of everything before it, so
 * by the tower rule a sum built by any tree of combines is unbiased.  The
 * price is variance: each combine adds a rounding (measured as
 * agg_cascade_rel_error by the collectives); standard dithering adds none.
 *
 * Headroom.  A combine's result code is at least min(ea, eb) - 1, so a
 * payload of k workers (a combine tree of depth <= k - 1) keeps codes >=
 * head - (k - 1).  With head = workers no sum can reach code 0, for any
 * collective; the public code scales by 2 n max instead (head = log2(2 n)),
 * enough for its binary tree, not for a ring's chain of n - 1 combines. */
#include "gqsgd_exp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"

int gqx_round(const float *x, size_t m, float M, int32_t head, int32_t emax, uint64_t key,
              uint64_t g0, int32_t *q) {
  const double F = ldexp(1.0, head - emax); /* 0 in double when emax - head > 1074: never used */
  const int below_scale = emax - head + 53;
  int over = 0;
  for (size_t i = 0; i < m; i++) {
    const float xi = x[i];
    const double r = fabs((double)xi) / (double)M; /* correctly rounded: relative error 2^-53 */
    int32_t e;
    if (r == 0) {
      q[i] = 0;
      continue;
    } else if (!(r <= 1.0)) { /* NaN, or |x| > M */
      over |= !isnan(r);
      e = head;
    } else if (r < F) { /* below the smallest level: F or 0 */
      const uint64_t u = ccr_u64(key, g0 + i) >> 11;
      e = (double)u < ldexp(r, below_scale) ? emax : 0;
    } else {
      /* r is a normal double (>= 2^-149 / 2^128): r = 1.f x 2^(E - 1023),
       * so t = E - 1022, the lower level's code is head - t + 1 and
       * p = 2 (1.f / 2) - 1 = f / 2^52: up when u53 < 2 f, exactly. */
      uint64_t bits;
      memcpy(&bits, &r, sizeof bits);
      const int32_t E = (int32_t)(bits >> 52 & 0x7ff);
      const uint64_t frac = bits & ((1ull << 52) - 1);
      const uint64_t u = ccr_u64(key, g0 + i) >> 11;
      e = head + 1023 - E - (u < 2 * frac);
    }
    q[i] = signbit(xi) && !isnan(xi) ? -e : e;
  }
  return over;
}

void gqx_values(const int32_t *q, size_t m, float M, int32_t head, int32_t emax, float *y) {
  float tab[256];
  const int small = emax < 256;
  if (small)
    for (int32_t e = 1; e <= emax; e++) tab[e] = (float)ldexp((double)M, head - e);
  for (size_t i = 0; i < m; i++) {
    const int32_t e = abs(q[i]);
    const float v = e == 0 ? 0.0f : small ? tab[e] : (float)ldexp((double)M, head - e);
    y[i] = q[i] < 0 ? -v : v;
  }
}

/* 1 with probability 2^-k exactly: the first k bits of the stream at g are 0. */
static int coin_pow2(uint64_t key, uint64_t g, int32_t k) {
  for (uint64_t w = 0;; w++, k -= 64) {
    if (k <= 0) return 1;
    const uint64_t u = ccr_u64(w ? ccr_key(key, w) : key, g);
    if (k < 64) return (u >> (64 - k)) == 0;
    if (u) return 0;
  }
}

int gqx_add(int32_t *qa, const int32_t *qb, size_t m, uint64_t key, uint64_t g0) {
  int over = 0;
  for (size_t i = 0; i < m; i++) {
    const int32_t a = qa[i], b = qb[i];
    if (a == 0 || b == 0) {
      qa[i] = a ? a : b;
      continue;
    }
    const int32_t ea = abs(a), eb = abs(b);
    const int32_t big = ea <= eb ? a : b, el = ea <= eb ? ea : eb, d = abs(ea - eb);
    const int same = (a > 0) == (b > 0);
    if (!same && d == 0) {
      qa[i] = 0;
      continue;
    }
    const int32_t k = same ? d : d - 1;
    const int move = coin_pow2(key, g0 + i, k);
    const int32_t e = el + (move ? (same ? -1 : 1) : 0);
    over |= e < 1;
    qa[i] = big > 0 ? e : -e;
  }
  return over;
}
