/* src/gradients.c — deterministic synthetic gradients.
 *
 * Normal variates use the ziggurat method of G. Marsaglia and W. W. Tsang,
 * "The Ziggurat Method for Generating Random Variables", J. Stat. Softw. 5(8),
 * 2000 (128 strips, r = 3.442619855899), with the 32-bit draws taken from the
 * counter-based generator so that element t needs no state: the fast path
 * (about 98.8% of draws) costs one 64-bit mix and one multiply. */
#include "gradients.h"

#include <math.h>

#include "rng.h"

static uint32_t zig_k[128];
static double zig_w[128], zig_f[128];
static int zig_ready;

static void zig_init(void) {
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
  zig_ready = 1;
}

/* Uniform in the open interval (0, 1), for logarithms. */
static inline double open_unit(uint64_t key, uint64_t ctr) {
  return ((double)(ccr_u64(key, ctr) >> 11) + 0.5) * 0x1.0p-53;
}

static inline uint32_t abs32(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* The slow path: the base strip's tail, or a wedge test.  Extra draws come
 * from a second stream at counters (index, attempt). */
static double zig_fix(uint64_t key, uint64_t index, int32_t hz, uint32_t iz) {
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

static inline double normal_fast(uint64_t key, uint64_t index) {
  const int32_t hz = (int32_t)(uint32_t)(ccr_u64(key, index) >> 32);
  const uint32_t iz = (uint32_t)hz & 127;
  if (__builtin_expect(abs32(hz) < zig_k[iz], 1)) return hz * zig_w[iz];
  return zig_fix(key, index, hz, iz);
}

double grad_normal(uint64_t key, uint64_t index) {
  if (!zig_ready) zig_init();
  return normal_fast(key, index);
}

static inline double draw(enum grad_distribution d, uint64_t key, uint64_t t) {
  switch (d) {
  case GRAD_NORMAL:
    return normal_fast(key, t);
  case GRAD_LAPLACE: { /* unit variance: b = 1/sqrt(2) */
    double u = open_unit(key, t) - 0.5;
    double m = -log1p(-2.0 * fabs(u)) * M_SQRT1_2;
    return u < 0 ? -m : m;
  }
  case GRAD_UNIFORM: /* unit variance on [-sqrt 3, sqrt 3] */
    return (2.0 * ccr_unit(key, t) - 1.0) * 1.7320508075688772;
  }
  return 0;
}

void grad_source_init(grad_source *g, const experiment *e) {
  if (!zig_ready) zig_init();
  g->distribution = e->gradients.distribution;
  g->scale = e->gradients.scale;
  g->correlation = e->gradients.correlation;
  g->seed = e->seed;
}

/* The streams of worker `worker` at iteration `iteration`, and the weights
 * of the shared and the private part. */
typedef struct grad_stream {
  uint64_t wkey, ckey;
  double a, b;
} grad_stream;

static grad_stream stream_of(const grad_source *g, uint32_t worker, uint32_t iteration) {
  const uint64_t it_key = ccr_key(ccr_key(g->seed, 0x67726164 /* "grad" */), iteration);
  grad_stream st = {
      .wkey = ccr_key(it_key, worker),
      .ckey = ccr_key(it_key, 0xC0FFEEull << 32), /* no worker id collides */
      .a = g->scale * sqrt(g->correlation),
      .b = g->scale * sqrt(1.0 - g->correlation),
  };
  return st;
}

/* Element t of the stream. */
static inline float element(const grad_source *g, const grad_stream *st, uint64_t t) {
  if (g->correlation <= 0) return (float)(g->scale * draw(g->distribution, st->wkey, t));
  return (float)(st->a * draw(g->distribution, st->ckey, t) + st->b * draw(g->distribution, st->wkey, t));
}

void grad_fill(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo, size_t hi,
               float *out) {
  if (!zig_ready) zig_init();
  const grad_stream st = stream_of(g, worker, iteration);
  if (g->correlation <= 0 && g->distribution == GRAD_NORMAL) { /* the common case, branch-free */
    const double scale = g->scale;
    for (size_t t = lo; t < hi; t++) out[t - lo] = (float)(scale * normal_fast(st.wkey, t));
    return;
  }
  for (size_t t = lo; t < hi; t++) out[t - lo] = element(g, &st, t);
}

void grad_fill_sampled(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                       size_t hi, size_t base, size_t full, size_t sample, float *out) {
  if (!zig_ready) zig_init();
  const grad_stream st = stream_of(g, worker, iteration);
  for (size_t j = lo; j < hi; j++)
    out[j - lo] = element(g, &st, base + (uint64_t)((unsigned __int128)j * full / sample));
}
