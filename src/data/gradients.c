/* src/data/gradients.c — deterministic synthetic gradients, drawn from the
 * counter-based variates of variates.h (normal: the ziggurat's fast path
 * inline, one 64-bit mix and one multiply per element, or blocks of them:
 * grad_normal_block; Zipf rows). */
#include "data/gradients.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "data/source.h"
#include "qbits.h" /* QB_CLONES */
#include "variates.h"

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

/* stream_of for grad_fill and grad_fill_sampled, which read ckey, a and b
 * only with a correlation: without one, the worker's key alone (they are
 * made once a payload in a sampled run, two square roots and two mixes
 * that nothing read) */
static grad_stream stream_own(const grad_source *g, uint32_t worker, uint32_t iteration) {
  if (g->correlation > 0) return stream_of(g, worker, iteration);
  const uint64_t it_key = ccr_key(ccr_key(g->seed, 0x67726164 /* "grad" */), iteration);
  return (grad_stream){.wkey = ccr_key(it_key, worker)};
}

/* out[0 .. m) = element()'s floats at counters t[0 .. m) (t NULL: base +
 * j stride + cy[j], cy NULL: 0), m <= ZIG_BLOCK, normal distribution: the
 * same products and sum of the same doubles, in the same order. */
QB_CLONES static void normal_floats(const grad_source *g, const grad_stream *st, uint64_t base, uint64_t stride,
                                    const uint64_t *t, const uint32_t *cy, size_t m, float *out) {
  double z[ZIG_BLOCK], zc[ZIG_BLOCK];
  zig_normal_block(st->wkey, base, stride, t, cy, m, z);
  if (g->correlation <= 0) {
    const double scale = g->scale;
    for (size_t j = 0; j < m; j++) out[j] = (float)(scale * z[j]);
    return;
  }
  zig_normal_block(st->ckey, base, stride, t, cy, m, zc);
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
  const grad_stream st = stream_own(g, worker, iteration);
  if (g->distribution == GRAD_NORMAL) { /* the common case, in blocks */
    for (size_t t = lo; t < hi; t += ZIG_BLOCK) {
      const size_t m = hi - t < ZIG_BLOCK ? hi - t : ZIG_BLOCK;
      normal_floats(g, &st, t, 1, NULL, NULL, m, out + (t - lo));
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
  /* with the layer's carries (grad_sample_carries): coordinate j's counter
   * is base + j q + carry[j], j the next coordinate's index (sample_counters
   * then moves only j) */
  const uint32_t *carry;
  uint64_t base, j;
} sample_step;

static sample_step sample_at(size_t lo, size_t base, size_t full, size_t sample, const uint32_t *carry) {
  /* the same integers in 64 bits when the products fit (a 128-bit
   * division is a library call, once a payload in a sampled run) */
  sample_step s = {.q = full / sample, .rem = full % sample, .sample = sample, .base = base, .j = lo,
                   .carry = sample <= UINT32_MAX ? carry : NULL};
  if (full == 0 || lo <= UINT64_MAX / full) {
    s.t = base + (uint64_t)lo * full / sample;
    s.frac = (uint64_t)lo * (full % sample) % sample;
  } else {
    s.t = base + (uint64_t)((unsigned __int128)lo * full / sample);
    s.frac = (uint64_t)((unsigned __int128)lo * (full % sample) % sample);
  }
  return s;
}

static inline void sample_next(sample_step *s) {
  s->t += s->q, s->frac += s->rem, s->j++;
  if (s->frac >= s->sample) s->t++, s->frac -= s->sample;
}

/* t[0 .. m) = the counters of the next m sampled coordinates; s advances. */
static void sample_block(sample_step *s, size_t m, uint64_t *t) {
  for (size_t j = 0; j < m; j++, sample_next(s)) t[j] = s->t;
}

int grad_sample_carries(size_t full, size_t sample, uint32_t *carry) {
  if (sample == 0 || sample > UINT32_MAX) return -1;
  sample_step s = sample_at(0, 0, full, sample, NULL);
  for (size_t j = 0; j < sample; j++, sample_next(&s)) carry[j] = (uint32_t)(s.t - j * s.q); /* floor(j rem / sample) */
  return 0;
}

/* The counters of the next m sampled coordinates, for zig_normal_block:
 * where the sample divides the tensor (full = q sample) they are base + j q
 * and are not written out (NULL, *base, *stride = q); with the layer's
 * carries base + j q + cy[j] (NULL, *cy: the carries from here), which
 * makes each on its own where stepping them one at a time waited on the
 * last and on a branch that follows the carries (a twentieth of a sampled
 * ResNet-50 run); else t, made by sample_block.  s advances either way. */
static const uint64_t *sample_counters(sample_step *s, size_t m, uint64_t *t, uint64_t *base,
                                       uint64_t *stride, const uint32_t **cy) {
  *cy = NULL;
  if (s->rem == 0) {
    *base = s->t, *stride = s->q;
    s->t += (uint64_t)m * s->q, s->j += m;
    return NULL;
  }
  if (s->carry) { /* every counter from its index: only j moves (t and frac are left behind) */
    *base = s->base + s->j * s->q, *stride = s->q, *cy = s->carry + s->j;
    s->j += m;
    return NULL;
  }
  *base = 0, *stride = 1;
  sample_block(s, m, t);
  return t;
}

void grad_fill_sampled(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                       size_t hi, size_t base, size_t full, size_t sample, const uint32_t *carry, float *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  if (g->sparse) {
    sparse_draw d = sparse_of(g, worker, iteration);
    for (size_t j = lo; j < hi; j++)
      out[j - lo] = d.rows ? sparse_element(g, &d, base + (uint64_t)((unsigned __int128)j * full / sample))
                           : 0.0f;
    free(d.rows);
    return;
  }
  const grad_stream st = stream_own(g, worker, iteration);
  sample_step s = sample_at(lo, base, full, sample, carry);
  if (g->distribution == GRAD_NORMAL) { /* the common case, in blocks, as in grad_fill */
    uint64_t t[ZIG_BLOCK];
    for (size_t j = lo; j < hi; j += ZIG_BLOCK) {
      const size_t m = hi - j < ZIG_BLOCK ? hi - j : ZIG_BLOCK;
      uint64_t b0, st0;
      const uint32_t *cy;
      const uint64_t *tc = sample_counters(&s, m, t, &b0, &st0, &cy);
      normal_floats(g, &st, b0, st0, tc, cy, m, out + (j - lo));
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
                         size_t full, size_t sample, const uint32_t *carry, double *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  const grad_stream st = stream_of(g, 0, iteration); /* ckey and a do not depend on the worker */
  sample_step s = sample_at(lo, base, full, sample, carry);
  if (g->distribution == GRAD_NORMAL) {
    uint64_t t[ZIG_BLOCK];
    double z[ZIG_BLOCK];
    for (size_t j = lo; j < hi; j += ZIG_BLOCK) {
      const size_t m = hi - j < ZIG_BLOCK ? hi - j : ZIG_BLOCK;
      uint64_t b0, st0;
      const uint32_t *cy;
      const uint64_t *tc = sample_counters(&s, m, t, &b0, &st0, &cy);
      zig_normal_block(st.ckey, b0, st0, tc, cy, m, z);
      for (size_t i = 0; i < m; i++) out[j - lo + i] = st.a * z[i];
    }
    return;
  }
  for (size_t j = lo; j < hi; j++, sample_next(&s)) out[j - lo] = st.a * draw(g->distribution, st.ckey, s.t);
}

void grad_fill_sampled_shared(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                              size_t hi, size_t base, size_t full, size_t sample, const uint32_t *carry,
                              const double *shared, float *out) {
  if (!__atomic_load_n(&zig_ready, __ATOMIC_ACQUIRE)) zig_init();
  const grad_stream st = stream_of(g, worker, iteration);
  sample_step s = sample_at(lo, base, full, sample, carry);
  /* element()'s sum with its first product already made: the same two
   * roundings, so the same float */
  if (g->distribution == GRAD_NORMAL) {
    uint64_t t[ZIG_BLOCK];
    double z[ZIG_BLOCK];
    for (size_t j = lo; j < hi; j += ZIG_BLOCK) {
      const size_t m = hi - j < ZIG_BLOCK ? hi - j : ZIG_BLOCK;
      uint64_t b0, st0;
      const uint32_t *cy;
      const uint64_t *tc = sample_counters(&s, m, t, &b0, &st0, &cy);
      zig_normal_block(st.wkey, b0, st0, tc, cy, m, z);
      for (size_t i = 0; i < m; i++) out[j - lo + i] = (float)(shared[j - lo + i] + st.b * z[i]);
    }
  } else
    for (size_t j = lo; j < hi; j++, sample_next(&s))
      out[j - lo] = (float)(shared[j - lo] + st.b * draw(g->distribution, st.wkey, s.t));
}
