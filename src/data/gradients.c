/* src/data/gradients.c — deterministic synthetic gradients.
 *
 * Normal variates use the ziggurat method of G. Marsaglia and W. W. Tsang,
 * "The Ziggurat Method for Generating Random Variables", J. Stat. Softw. 5(8),
 * 2000 (128 strips, r = 3.442619855899), with the 32-bit draws taken from the
 * counter-based generator so that element t needs no state: the fast path
 * (about 98.8% of draws) costs one 64-bit mix and one multiply. */
#include "gradients.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "source.h"

static uint32_t zig_k[128];
static double zig_w[128], zig_f[128];
static uint64_t zig_k64[128]; /* zig_k widened, for 64-bit gathers */
static int zig_avx512;        /* the CPU has AVX-512 F and DQ (normal_block) */
static int zig_ready;
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_fill(void);
/* The tables, made once however many threads draw at the same time. */
static void zig_init(void) { pthread_once(&zig_once, zig_fill); }

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
#if defined(__x86_64__) && !defined(CCSIM_NO_AVX512)
  __builtin_cpu_init();
  zig_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               !getenv("CCSIM_NO_AVX512");
#endif
  __atomic_store_n(&zig_ready, 1, __ATOMIC_RELEASE);
}

/* Uniform in the open interval (0, 1), for logarithms. */
static inline double open_unit(uint64_t key, uint64_t ctr) {
  return ((double)(ccr_u64(key, ctr) >> 11) + 0.5) * 0x1.0p-53;
}

static inline uint32_t abs32(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* The slow path: the base strip's tail, or a wedge test.  Extra draws come
 * from a second stream at counters (index, attempt). */
static double zig_fix_k2(uint64_t k2, uint64_t index, int32_t hz, uint32_t iz);
static double zig_fix(uint64_t key, uint64_t index, int32_t hz, uint32_t iz) {
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

static inline double normal_fast(uint64_t key, uint64_t index) {
  const int32_t hz = (int32_t)(uint32_t)(ccr_u64(key, index) >> 32);
  const uint32_t iz = (uint32_t)hz & 127;
  if (__builtin_expect(abs32(hz) < zig_k[iz], 1)) return hz * zig_w[iz];
  return zig_fix(key, index, hz, iz);
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
 * that miss it (about 1.2%) listed and finished by zig_fix, its second key
 * made once a block.  The same IEEE operations on the same numbers, so the
 * stream, and every float made from it, is unchanged bit for bit
 * (test_gradients compares both with grad_normal).  Measured on a 2-core
 * AMD EPYC (AVX-512), 64M draws in fills of 4096: 2.1-2.4 ns a draw
 * against 2.8-3.0 for the loop over normal_fast; gathering the tables with
 * AVX-512 (2.8) or permuting them in registers (3.9) was slower. */
#define ZB 64

/* z[0 .. m) from the top halves hz[0 .. m) of counters t (or base + j):
 * normal_fast's fast path for all, without a branch, then zig_fix for the
 * misses, with its second key made once. */
static inline void zig_tables(uint64_t key, uint64_t base, const uint64_t *t, size_t m, const int32_t *hz,
                              double *z) {
  size_t j;
  uint32_t miss[ZB];
  size_t nm = 0;
  for (j = 0; j < m; j++) {
    const int32_t h = hz[j];
    const uint32_t iz = (uint32_t)h & 127;
    z[j] = h * zig_w[iz];
    miss[nm] = (uint32_t)j;
    nm += abs32(h) >= zig_k[iz];
  }
  if (nm) {
    const uint64_t k2 = ccr_key(key, 0x7a16);
    for (size_t i = 0; i < nm; i++) {
      const uint32_t at = miss[i];
      z[at] = zig_fix_k2(k2, t ? t[at] : base + at, hz[at], (uint32_t)hz[at] & 127);
    }
  }
}

#if defined(__x86_64__) && !defined(CCSIM_NO_AVX512)
#include <immintrin.h>
#define ZIG_VECTOR 1
__attribute__((target("avx512f,avx512dq"))) static void normal_block_avx512(uint64_t key, uint64_t base,
                                                                             const uint64_t *t, size_t m,
                                                                             double *z) {
  const __m512i K = _mm512_set1_epi64((long long)key), G = _mm512_set1_epi64((long long)CCR_GAMMA);
  const __m512i M1 = _mm512_set1_epi64((long long)0xBF58476D1CE4E5B9ull);
  const __m512i M2 = _mm512_set1_epi64((long long)0x94D049BB133111EBull);
  const __m512i step = _mm512_set1_epi64(8);
  int32_t hz[ZB];
  __m512i c = _mm512_add_epi64(_mm512_set1_epi64((long long)base + 1), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  size_t j = 0;
  for (; j + 8 <= m; j += 8) {
    const __m512i ctr = t ? _mm512_add_epi64(_mm512_loadu_si512((const void *)(t + j)), _mm512_set1_epi64(1)) : c;
    c = _mm512_add_epi64(c, step);
    __m512i x = _mm512_add_epi64(K, _mm512_mullo_epi64(ctr, G)); /* ccr_u64: key + (t + 1) gamma */
    x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 30)), M1);
    x = _mm512_mullo_epi64(_mm512_xor_si512(x, _mm512_srli_epi64(x, 27)), M2);
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
    _mm256_storeu_si256((__m256i *)(hz + j), _mm512_cvtepi64_epi32(_mm512_srli_epi64(x, 32)));
  }
  for (; j < m; j++) hz[j] = (int32_t)(uint32_t)(ccr_u64(key, t ? t[j] : base + j) >> 32);
  zig_tables(key, base, t, m, hz, z);
}
#endif

/* z[0 .. m) = the normals of stream key at counters t[0 .. m) (t NULL:
 * base, base + 1, ...), m <= ZB. */
static void normal_block(uint64_t key, uint64_t base, const uint64_t *t, size_t m, double *z) {
#ifdef ZIG_VECTOR
  if (zig_avx512) {
    normal_block_avx512(key, base, t, m, z);
    return;
  }
#endif
  int32_t hz[ZB];
  for (size_t j = 0; j < m; j++) hz[j] = (int32_t)(uint32_t)(ccr_u64(key, t ? t[j] : base + j) >> 32);
  zig_tables(key, base, t, m, hz, z);
}

void grad_normal_block(uint64_t key, const uint64_t *t, size_t m, double *z) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  for (size_t j = 0; j < m; j += ZB) normal_block(key, 0, t + j, m - j < ZB ? m - j : ZB, z + j);
}

int grad_normal_vectorized(void) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  return zig_avx512;
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
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  g->distribution = e->gradients.distribution;
  g->scale = e->gradients.scale;
  g->correlation = e->gradients.correlation;
  g->seed = e->seed;
  g->sparse = e->gradients.tokens > 0; /* set by the "sparse" source's reader only */
  if (g->sparse) {
    g->width = e->gradients.row_width;
    g->tokens = e->gradients.tokens;
    g->zipf = e->gradients.zipf;
    g->rows = (e->model.elements + g->width - 1) / g->width;
    if (g->rows > UINT32_MAX) g->rows = UINT32_MAX; /* row ids are 32-bit */
  }
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

static int cmp_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

void grad_sparse_rows(const grad_source *g, uint32_t worker, uint32_t iteration, uint32_t *rows,
                      uint32_t *counts, size_t *nu) {
  const uint64_t key = ccr_key(ccr_key(ccr_key(g->seed, 0x73707273 /* "sprs" */), iteration), worker);
  for (size_t j = 0; j < g->tokens; j++) rows[j] = (uint32_t)(grad_zipf(key, j, g->rows, g->zipf) - 1);
  qsort(rows, g->tokens, sizeof *rows, cmp_u32);
  size_t u = 0;
  for (size_t j = 0; j < g->tokens; j++) {
    if (u && rows[u - 1] == rows[j]) {
      counts[u - 1]++;
    } else {
      rows[u] = rows[j];
      counts[u++] = 1;
    }
  }
  *nu = u;
}

/* The drawn rows of (worker, iteration) in malloc'd arrays; NULL rows when
 * out of memory (the fill then writes zeros: callers cannot fail). */
typedef struct sparse_draw {
  uint32_t *rows, *counts;
  size_t nu;
  uint64_t wkey;
} sparse_draw;

static sparse_draw sparse_of(const grad_source *g, uint32_t worker, uint32_t iteration) {
  sparse_draw d = {0};
  d.rows = malloc(2 * g->tokens * sizeof *d.rows);
  if (d.rows) {
    d.counts = d.rows + g->tokens;
    grad_sparse_rows(g, worker, iteration, d.rows, d.counts, &d.nu);
  }
  d.wkey = ccr_key(ccr_key(ccr_key(g->seed, 0x67726164 /* "grad" */), iteration), worker);
  return d;
}

/* Element t under draw d: 0 off the drawn rows. */
static float sparse_element(const grad_source *g, const sparse_draw *d, uint64_t t) {
  const uint32_t r = (uint32_t)(t / g->width);
  size_t lo = 0, hi = d->nu;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (d->rows[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  if (lo == d->nu || d->rows[lo] != r) return 0.0f;
  return (float)(g->scale * sqrt((double)d->counts[lo]) * normal_fast(d->wkey, t));
}

static void sparse_fill(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                        size_t hi, float *out) {
  sparse_draw d = sparse_of(g, worker, iteration);
  memset(out, 0, (hi - lo) * sizeof *out);
  for (size_t k = 0; d.rows && k < d.nu; k++) {
    const size_t a = (size_t)d.rows[k] * g->width, b = a + g->width;
    const size_t from = a > lo ? a : lo, to = b < hi ? b : hi;
    const double sc = g->scale * sqrt((double)d.counts[k]);
    for (size_t t = from; t < to; t++) out[t - lo] = (float)(sc * normal_fast(d.wkey, t));
  }
  free(d.rows);
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

/* out[0 .. m) = element()'s floats at counters t[0 .. m) (t NULL: base,
 * base + 1, ...), m <= ZB, normal distribution: the same products and sum
 * of the same doubles, in the same order. */
static void normal_floats(const grad_source *g, const grad_stream *st, uint64_t base, const uint64_t *t,
                          size_t m, float *out) {
  double z[ZB], zc[ZB];
  normal_block(st->wkey, base, t, m, z);
  if (g->correlation <= 0) {
    const double scale = g->scale;
    for (size_t j = 0; j < m; j++) out[j] = (float)(scale * z[j]);
    return;
  }
  normal_block(st->ckey, base, t, m, zc);
  for (size_t j = 0; j < m; j++) out[j] = (float)(st->a * zc[j] + st->b * z[j]);
}

/* Element t of the stream. */
static inline float element(const grad_source *g, const grad_stream *st, uint64_t t) {
  if (g->correlation <= 0) return (float)(g->scale * draw(g->distribution, st->wkey, t));
  return (float)(st->a * draw(g->distribution, st->ckey, t) + st->b * draw(g->distribution, st->wkey, t));
}

void grad_fill(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo, size_t hi,
               float *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  if (g->sparse) {
    sparse_fill(g, worker, iteration, lo, hi, out);
    return;
  }
  const grad_stream st = stream_of(g, worker, iteration);
  if (g->distribution == GRAD_NORMAL) { /* the common case, in blocks */
    for (size_t t = lo; t < hi; t += ZB) {
      const size_t m = hi - t < ZB ? hi - t : ZB;
      normal_floats(g, &st, t, NULL, m, out + (t - lo));
    }
    return;
  }
  for (size_t t = lo; t < hi; t++) out[t - lo] = element(g, &st, t);
}

/* Coordinate j of an even sample of [base, base + full) stands for element
 * base + floor(j * full / sample): the same integers stepped without a
 * 128-bit division per element (full = q * sample + rem, and the fraction
 * (j * rem) mod sample carries). */
typedef struct sample_step {
  uint64_t t, frac, q, rem, sample;
} sample_step;

static sample_step sample_at(size_t lo, size_t base, size_t full, size_t sample) {
  return (sample_step){.t = base + (uint64_t)((unsigned __int128)lo * full / sample),
                       .frac = (uint64_t)((unsigned __int128)lo * (full % sample) % sample),
                       .q = full / sample,
                       .rem = full % sample,
                       .sample = sample};
}

static inline void sample_next(sample_step *s) {
  s->t += s->q, s->frac += s->rem;
  if (s->frac >= s->sample) s->t++, s->frac -= s->sample;
}

/* t[0 .. m) = the counters of the next m sampled coordinates; s advances. */
static void sample_block(sample_step *s, size_t m, uint64_t *t) {
  for (size_t j = 0; j < m; j++, sample_next(s)) t[j] = s->t;
}

void grad_fill_sampled(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                       size_t hi, size_t base, size_t full, size_t sample, float *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  if (g->sparse) {
    sparse_draw d = sparse_of(g, worker, iteration);
    for (size_t j = lo; j < hi; j++)
      out[j - lo] = d.rows ? sparse_element(g, &d, base + (uint64_t)((unsigned __int128)j * full / sample))
                           : 0.0f;
    free(d.rows);
    return;
  }
  const grad_stream st = stream_of(g, worker, iteration);
  sample_step s = sample_at(lo, base, full, sample);
  if (g->distribution == GRAD_NORMAL) { /* the common case, in blocks, as in grad_fill */
    uint64_t t[ZB];
    for (size_t j = lo; j < hi; j += ZB) {
      const size_t m = hi - j < ZB ? hi - j : ZB;
      sample_block(&s, m, t);
      normal_floats(g, &st, 0, t, m, out + (j - lo));
    }
    return;
  }
  for (size_t j = lo; j < hi; j++, sample_next(&s)) out[j - lo] = element(g, &st, s.t);
}

int grad_has_shared(const grad_source *g) { return !g->sparse && g->correlation > 0; }

int grad_experiment_shares(const experiment *e) {
  grad_source g;
  grad_source_init(&g, e);
  return (e->gradients.source->flags & GSRC_GENERATED) && grad_has_shared(&g);
}

void grad_shared_sampled(const grad_source *g, uint32_t iteration, size_t lo, size_t hi, size_t base,
                         size_t full, size_t sample, double *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  const grad_stream st = stream_of(g, 0, iteration); /* ckey and a do not depend on the worker */
  sample_step s = sample_at(lo, base, full, sample);
  if (g->distribution == GRAD_NORMAL) {
    uint64_t t[ZB];
    double z[ZB];
    for (size_t j = lo; j < hi; j += ZB) {
      const size_t m = hi - j < ZB ? hi - j : ZB;
      sample_block(&s, m, t);
      normal_block(st.ckey, 0, t, m, z);
      for (size_t i = 0; i < m; i++) out[j - lo + i] = st.a * z[i];
    }
    return;
  }
  for (size_t j = lo; j < hi; j++, sample_next(&s)) out[j - lo] = st.a * draw(g->distribution, st.ckey, s.t);
}

void grad_fill_sampled_shared(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                              size_t hi, size_t base, size_t full, size_t sample, const double *shared,
                              float *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  const grad_stream st = stream_of(g, worker, iteration);
  sample_step s = sample_at(lo, base, full, sample);
  /* element()'s sum with its first product already made: the same two
   * roundings, so the same float */
  if (g->distribution == GRAD_NORMAL) {
    uint64_t t[ZB];
    double z[ZB];
    for (size_t j = lo; j < hi; j += ZB) {
      const size_t m = hi - j < ZB ? hi - j : ZB;
      sample_block(&s, m, t);
      normal_block(st.wkey, 0, t, m, z);
      for (size_t i = 0; i < m; i++) out[j - lo + i] = (float)(shared[j - lo + i] + st.b * z[i]);
    }
  } else
    for (size_t j = lo; j < hi; j++, sample_next(&s))
      out[j - lo] = (float)(shared[j - lo] + st.b * draw(g->distribution, st.wkey, s.t));
}
