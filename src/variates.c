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

uint32_t zig_k[128];
double zig_w[128], zig_f[128];
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
  __atomic_store_n(&zig_ready, 1, __ATOMIC_RELEASE);
}

/* The slow path: the base strip's tail, or a wedge test.  Extra draws come
 * from a second stream at counters (index, attempt). */
double zig_fix(uint64_t key, uint64_t index, int32_t hz, uint32_t iz) {
  const double r = 3.442619855899;
  const uint64_t k2 = ccr_key(key, 0x7a16);
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
