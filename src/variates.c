/* src/variates.c — counter-based variates (variates.h).
 *
 * Normal variates use the ziggurat method of G. Marsaglia and W. W. Tsang,
 * "The Ziggurat Method for Generating Random Variables", J. Stat. Softw. 5(8),
 * 2000 (128 strips, r = 3.442619855899), with the 32-bit draws taken from the
 * counter-based generator so that element t needs no state: the fast path
 * (about 98.8% of draws) costs one 64-bit mix and one multiply. */
#include "variates.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

uint32_t zig_k[128];
double zig_w[128], zig_f[128];
static uint64_t zig_k64[128]; /* zig_k widened, for 64-bit gathers */
/* a strip's wedge starts at |x| = a, the previous strip's edge (0 for the
 * top strip): a squared, for the wedge tests' bounds (zig_misses_avx512) */
static double zig_a2[128];
static int zig_avx512;        /* the CPU has AVX-512 F and DQ (normal_block) */
int zig_ready;
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_fill(void);
/* The tables, made once however many threads draw at the same time. */
void zig_init(void) { pthread_once(&zig_once, zig_fill); }

static void zig_fill(void) {
  const double m1 = 2147483648.0, vn = 9.91256303526217e-3;
  double dn = 3.442619855899, tn = dn;
  const double q = vn / exp(-0.5 * dn * dn);
  zig_k[0] = (uint32_t)((dn / q) * m1);
  zig_k[1] = 0;
  zig_w[0] = q / m1;
  zig_w[127] = dn / m1;
  zig_f[0] = 1.0;
  zig_f[127] = exp(-0.5 * dn * dn);
  for (int i = 126; i >= 1; i--) {
    dn = sqrt(-2.0 * log(vn / dn + exp(-0.5 * dn * dn)));
    zig_k[i + 1] = (uint32_t)((dn / tn) * m1);
    tn = dn;
    zig_f[i] = exp(-0.5 * dn * dn);
    zig_w[i] = dn / m1;
  }
  for (int i = 0; i < 128; i++) zig_k64[i] = zig_k[i];
  for (int i = 2; i < 128; i++) zig_a2[i] = (zig_w[i - 1] * m1) * (zig_w[i - 1] * m1);
#if defined(__x86_64__) && !defined(CCSIM_NO_AVX512)
  __builtin_cpu_init();
  zig_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               !getenv("CCSIM_NO_AVX512");
#endif
  __atomic_store_n(&zig_ready, 1, __ATOMIC_RELEASE);
}

/* The slow path: the base strip's tail, or a wedge test.  Extra draws come
 * from a second stream at counters (index, attempt). */
static double zig_fix_k2(uint64_t k2, uint64_t index, int32_t hz, uint32_t iz);
double zig_fix(uint64_t key, uint64_t index, int32_t hz, uint32_t iz) {
  return zig_fix_k2(ccr_key(key, 0x7a16), index, hz, iz);
}

/* zig_fix with its second stream's key k2 = ccr_key(key, 0x7a16) given. */
static double zig_fix_k2(uint64_t k2, uint64_t index, int32_t hz, uint32_t iz) {
  const double r = 3.442619855899;
  uint64_t ctr = index << 8;
  for (;;) {
    double x = hz * zig_w[iz];
    if (iz == 0) {
      double xx, y;
      do {
        xx = -log(open_unit(k2, ctr++)) / r;
        y = -log(open_unit(k2, ctr++));
      } while (y + y < xx * xx);
      return hz > 0 ? r + xx : -r - xx;
    }
    if (zig_f[iz] + open_unit(k2, ctr++) * (zig_f[iz - 1] - zig_f[iz]) < exp(-0.5 * x * x))
      return x;
    hz = (int32_t)(uint32_t)(ccr_u64(k2, ctr++) >> 32);
    iz = (uint32_t)hz & 127;
    if (abs32(hz) < zig_k[iz]) return hz * zig_w[iz];
  }
}

double grad_normal(uint64_t key, uint64_t index) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  return normal_fast(key, index);
}

/* ---- Normal draws in blocks ---------------------------------------------
 * The same variates as normal_fast, ZB at a time, in two passes: the top
 * halves of the counters' SplitMix64 outputs (with AVX-512 F and DQ, eight
 * at once: 64-bit products in one instruction), then the tables: the fast
 * path's product hz * w[iz] for every draw without a branch, the draws
 * that miss it (2.8%: the top strip's k is 0, so its 1/128 of the draws
 * always do) listed and finished by zig_fix, its second key made once a
 * block.  The same IEEE operations on the same numbers, so the
 * stream, and every float made from it, is unchanged bit for bit
 * (test_gradients compares both with grad_normal).  Measured on a 2-core
 * AMD EPYC (AVX-512), 64M draws in fills of 4096: 2.1-2.4 ns a draw
 * against 2.8-3.0 for the loop over normal_fast; gathering the tables with
 * AVX-512 (2.8; 3.4-3.7 in a later sitting where this took 1.9-2.1) or
 * permuting them in registers (3.9) was slower.  Since, 1.6-1.7: see
 * normal_block_avx512.  The draws that miss the fast path cost about 21 ns
 * each through zig_fix, a third of the total; with AVX-512 they go eight
 * at a time (zig_misses_avx512), in blocks of 256 (ZIG_BLOCK): 1.35-1.45. */
#define ZB ZIG_BLOCK

/* Counter j of a block: t[j], or base + j stride (+ cy[j] with cy) without t. */
static inline uint64_t zig_ctr(uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy, size_t j) {
  return t ? t[j] : base + j * stride + (cy ? cy[j] : 0);
}

/* The draws miss[0 .. nm) of a block (hz, z as below) that missed the
 * fast path, finished by zig_fix, its second key made once. */
static inline void zig_misses(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy,
                              const uint32_t *miss, size_t nm, const int32_t *hz, double *z) {
  if (!nm) return;
  const uint64_t k2 = ccr_key(key, 0x7a16);
  for (size_t i = 0; i < nm; i++) {
    const uint32_t at = miss[i];
    z[at] = zig_fix_k2(k2, zig_ctr(base, stride, t, cy, at), hz[at], (uint32_t)hz[at] & 127);
  }
}

/* z[0 .. m) from the top halves hz[0 .. m) of counters zig_ctr:
 * normal_fast's fast path for all, without a branch, then zig_fix for the
 * misses. */
static inline void zig_tables(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy,
                              size_t m, const int32_t *hz, double *z) {
  uint32_t miss[ZB];
  size_t nm = 0;
  for (size_t j = 0; j < m; j++) {
    const int32_t h = hz[j];
    const uint32_t iz = (uint32_t)h & 127;
    z[j] = h * zig_w[iz];
    miss[nm] = (uint32_t)j;
    nm += abs32(h) >= zig_k[iz];
  }
  zig_misses(key, base, stride, t, cy, miss, nm, hz, z);
}

#if defined(__x86_64__) && !defined(CCSIM_NO_AVX512)
#include <immintrin.h>
#define ZIG_VECTOR 1
/* ccr_mix (SplitMix64's finaliser) of eight words at once. */
static inline __attribute__((always_inline, target("avx512f,avx512dq"))) __m512i mix8(__m512i x) {
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)),
                         _mm512_set1_epi64((long long)0xBF58476D1CE4E5B9ull));
  x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)),
                         _mm512_set1_epi64((long long)0x94D049BB133111EBull));
  return _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
}

/* The misses of a block, eight at a time, without exp: a wedge test asks
 * whether y = f[iz] + U (f[iz-1] - f[iz]) < exp(-x^2/2).  With a the
 * wedge's inner edge (f(a) = f[iz-1]) and u = (x^2 - a^2)/2, that exp is
 * f(a) e^-u, and e^-u lies within r = |u|^3/6 (times 1.01) of 1 - u + u^2/2
 * (Taylor's remainder; 0 <= u <= 0.73 over the strips, and u >= -5e-9
 * where zig_k's rounding lets x fall just short of a).  So y below
 * f(a) (p - r) is accepted and y above f(a) (p + r) rejected exactly as
 * the exp would decide, once 1e-12 f(a) is added to r: this code's
 * rounding (fused or not), the tables', the argument's and exp's own
 * (under 1e-14 f(a) together) stay far inside it.  A rejected draw's
 * second try is the fast path of the second stream's next counter, as in
 * zig_fix.  The rest, about 4% of the misses (the base strip, y within
 * the bounds' band, a second try that misses too), are finished by zig_fix
 * from the start.  So every draw is zig_fix's, bit for bit; what is left
 * to exp is the band, decided by exp.  A miss cost about 21 ns this way
 * through zig_fix's branches, exp and a chain of dependent loads; eight
 * at once, with blocks of 256 draws so that about seven misses share a
 * vector, the draws take 1.35-1.45 ns instead of 1.65-1.9 (bench/draws.c). */
__attribute__((target("avx512f,avx512dq"))) static void
zig_misses_avx512(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy,
                  const uint32_t *miss, size_t nm, const int32_t *hz, double *z) {
  if (!nm) return;
  const uint64_t k2 = ccr_key(key, 0x7a16);
  const __m512i K2 = _mm512_set1_epi64((long long)k2), G = _mm512_set1_epi64((long long)CCR_GAMMA);
  const __m512i M127 = _mm512_set1_epi64(127), ONE = _mm512_set1_epi64(1), TWO = _mm512_set1_epi64(2);
  uint32_t slow[ZB];
  size_t ns = 0;
  for (size_t i = 0; i < nm; i += 8) {
    const size_t cnt = nm - i < 8 ? nm - i : 8;
    const __mmask8 in = (__mmask8)((1u << cnt) - 1);
    int64_t hv[8] = {0}, cv[8] = {0};
    uint32_t av[8] = {0};
    for (size_t q = 0; q < cnt; q++) {
      const uint32_t a = miss[i + q];
      av[q] = a, hv[q] = hz[a], cv[q] = (int64_t)zig_ctr(base, stride, t, cy, a);
    }
    const __m256i at = _mm256_loadu_si256((const __m256i *)av);
    const __m512i h = _mm512_loadu_si512(hv), iz = _mm512_and_si512(h, M127);
    const __m512i c8 = _mm512_slli_epi64(_mm512_loadu_si512(cv), 8); /* zig_fix's first counter */
    const __m512d x = _mm512_mul_pd(_mm512_cvtepi64_pd(h), _mm512_i64gather_pd(iz, zig_w, 8));
    const __m512d fa = _mm512_i64gather_pd(_mm512_and_si512(_mm512_sub_epi64(iz, ONE), M127), zig_f, 8);
    const __m512d fb = _mm512_i64gather_pd(iz, zig_f, 8);
    /* open_unit(k2, c8) and the top half of ccr_u64(k2, c8 + 1) */
    const __m512i r1 = mix8(_mm512_add_epi64(K2, _mm512_mullo_epi64(_mm512_add_epi64(c8, ONE), G)));
    const __m512i r2 = mix8(_mm512_add_epi64(K2, _mm512_mullo_epi64(_mm512_add_epi64(c8, TWO), G)));
    const __m512d U = _mm512_mul_pd(_mm512_add_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(r1, 11)), _mm512_set1_pd(0.5)),
                                    _mm512_set1_pd(0x1.0p-53));
    const __m512d y = _mm512_add_pd(fb, _mm512_mul_pd(U, _mm512_sub_pd(fa, fb)));
    const __m512d u = _mm512_mul_pd(_mm512_set1_pd(0.5),
                                    _mm512_sub_pd(_mm512_mul_pd(x, x), _mm512_i64gather_pd(iz, zig_a2, 8)));
    const __m512d p = _mm512_sub_pd(_mm512_set1_pd(1.0),
                                    _mm512_mul_pd(u, _mm512_sub_pd(_mm512_set1_pd(1.0), _mm512_mul_pd(u, _mm512_set1_pd(0.5)))));
    const __m512d r = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(u, u), _mm512_abs_pd(u)),
                                                  _mm512_set1_pd(1.01 / 6)),
                                    _mm512_set1_pd(1e-12));
    const __m512d lo = _mm512_mul_pd(fa, _mm512_sub_pd(p, r)), hi = _mm512_mul_pd(fa, _mm512_add_pd(p, r));
    const __m512i h2 = _mm512_srai_epi64(r2, 32); /* the int32 of its top half, widened */
    const __m512i iz2 = _mm512_and_si512(h2, M127);
    const __mmask8 fast2 = _mm512_cmplt_epu64_mask(_mm512_abs_epi64(h2),
                                                   _mm512_i64gather_epi64(iz2, (const long long *)zig_k64, 8));
    const __m512d x2 = _mm512_mul_pd(_mm512_cvtepi64_pd(h2), _mm512_i64gather_pd(iz2, zig_w, 8));
    const __mmask8 acc = _mm512_cmp_pd_mask(y, lo, _CMP_LT_OQ), rej = _mm512_cmp_pd_mask(y, hi, _CMP_GT_OQ);
    const __mmask8 ok = in & _mm512_test_epi64_mask(iz, iz) & (acc | (rej & fast2));
    _mm512_mask_i32scatter_pd(z, ok, at, _mm512_mask_blend_pd(acc, x2, x), 8);
    for (unsigned left = in & (unsigned)~ok; left; left &= left - 1) slow[ns++] = av[__builtin_ctz(left)];
  }
  zig_misses(key, base, stride, t, cy, slow, ns, hz, z);
}

/* The mix, |hz| and the products vectorised; the tables read by a scalar
 * loop that touches only integer registers (the loop over zig_tables'
 * int32 had moved each draw to a vector register and back for its
 * absolute value: 1.9-2.1 ns a draw, 1.6-1.7 this way, AMD EPYC). */
__attribute__((target("avx512f,avx512dq"))) static void
normal_block_avx512(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy, size_t m,
                    double *z) {
  const __m512i K = _mm512_set1_epi64((long long)key), G = _mm512_set1_epi64((long long)CCR_GAMMA);
  const __m512i step = _mm512_set1_epi64((long long)(8 * stride));
  int32_t hz[ZB];
  uint32_t ha[ZB];
  __m512i c = _mm512_add_epi64(_mm512_set1_epi64((long long)base + 1),
                               _mm512_mullo_epi64(_mm512_set1_epi64((long long)stride),
                                                  _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)));
  size_t j = 0;
  for (; j + 8 <= m; j += 8) {
    const __m512i ctr = t    ? _mm512_add_epi64(_mm512_loadu_si512((const void *)(t + j)), _mm512_set1_epi64(1))
                        : cy ? _mm512_add_epi64(c, _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(cy + j))))
                             : c;
    c = _mm512_add_epi64(c, step);
    const __m512i x = mix8(_mm512_add_epi64(K, _mm512_mullo_epi64(ctr, G))); /* ccr_u64: key + (t + 1) gamma */
    const __m256i h = _mm512_cvtepi64_epi32(_mm512_srli_epi64(x, 32));
    _mm256_storeu_si256((__m256i *)(hz + j), h);
    _mm256_storeu_si256((__m256i *)(ha + j), _mm256_abs_epi32(h));
  }
  const size_t mv = j;
  for (; j < m; j++)
    hz[j] = (int32_t)(uint32_t)(ccr_u64(key, zig_ctr(base, stride, t, cy, j)) >> 32), ha[j] = abs32(hz[j]);
  uint32_t miss[ZB];
  size_t nm = 0;
  for (j = 0; j < m; j++) {
    const uint32_t iz = (uint32_t)hz[j] & 127;
    z[j] = zig_w[iz]; /* w, multiplied by hz below */
    miss[nm] = (uint32_t)j;
    nm += ha[j] >= zig_k[iz];
  }
  for (j = 0; j < mv; j += 8)
    _mm512_storeu_pd(z + j, _mm512_mul_pd(_mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(hz + j))),
                                          _mm512_loadu_pd(z + j)));
  for (; j < m; j++) z[j] = hz[j] * z[j];
  zig_misses_avx512(key, base, stride, t, cy, miss, nm, hz, z);
}
#endif

/* z[0 .. m) = the normals of stream key at counters t[0 .. m) (t NULL:
 * base + j stride, plus cy[j] where cy is not NULL), m <= ZB. */
void zig_normal_block(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy, size_t m,
                      double *z) {
#ifdef ZIG_VECTOR
  if (zig_avx512) {
    normal_block_avx512(key, base, stride, t, cy, m, z);
    return;
  }
#endif
  int32_t hz[ZB];
  for (size_t j = 0; j < m; j++) hz[j] = (int32_t)(uint32_t)(ccr_u64(key, zig_ctr(base, stride, t, cy, j)) >> 32);
  zig_tables(key, base, stride, t, cy, m, hz, z);
}

void grad_normal_block(uint64_t key, const uint64_t *t, size_t m, double *z) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  for (size_t j = 0; j < m; j += ZB) zig_normal_block(key, 0, 1, t + j, NULL, m - j < ZB ? m - j : ZB, z + j);
}

int grad_normal_vectorized(void) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  return zig_avx512;
}

/* ---- Zipf by rejection-inversion (Hormann & Derflinger 1996), as in Apache
 * Commons RNG's RejectionInversionZipfSampler ---------------------------- */

/* log1p(x) / x, continuous at 0 */
static double helper1(double x) { return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x / 3); }
/* expm1(x) / x, continuous at 0 */
static double helper2(double x) { return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3); }
/* H(x) = integral of x^-s: ((x^(1-s) - 1) / (1 - s), log x at s = 1) */
static double zipf_H(double x, double s) {
  const double lx = log(x);
  return helper2((1 - s) * lx) * lx;
}
static double zipf_Hinv(double x, double s) {
  double t = x * (1 - s);
  if (t < -1) t = -1; /* rounding at the domain's edge */
  return exp(helper1(t) * x);
}

uint64_t grad_zipf(uint64_t key, uint64_t ctr, uint64_t N, double s) {
  const double hx1 = zipf_H(1.5, s) - 1.0, hN = zipf_H((double)N + 0.5, s);
  const double ss = 2 - zipf_Hinv(zipf_H(2.5, s) - exp(-s * log(2.0)), s);
  for (uint64_t a = 0;; a++) {
    const double u = hN + ccr_unit(key, (ctr << 8) + (a & 0xff)) * (hx1 - hN);
    const double x = zipf_Hinv(u, s);
    double kf = floor(x + 0.5);
    if (kf < 1) kf = 1;
    if (kf > (double)N) kf = (double)N;
    if (kf - x <= ss || u >= zipf_H(kf + 0.5, s) - exp(-s * log(kf))) return (uint64_t)kf;
  }
}
