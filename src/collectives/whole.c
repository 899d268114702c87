/* src/collectives/whole.c — whole mode: one payload per tensor, cut into
 * units by the collective (collective.h; compressor.h, CCOMP_WHOLE_PAYLOAD).
 *
 * S2 Reducer's reference sketches each embedding tensor once and
 * all-reduces the table.  A collective that cuts the tensor into element
 * chunks and encodes each chunk would build one small sketch per chunk, with
 * rows cut across chunks, and a skewed tensor's non-zeros would collide in
 * the few cells of the chunk that holds them.  Here the worker encodes the
 * whole range once; a chunk [lo, hi) of the elements stands for the units
 * [U lo / n, U hi / n) of that payload, so the collective's own chunking,
 * combining and forwarding move parts of the one sketch. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitstream.h"
#include "collectives/collective.h"
#include "comm/comm.h"

typedef struct coll_whole coll_whole;

/* A delivered range waiting for the whole aggregate. */
typedef struct whole_pend {
  size_t lo, n;          /* written into ctx->out */
  double *exact, *ideal; /* final ranges: the shadows to measure against (owned), or NULL */
} whole_pend;

struct coll_whole {
  size_t n, wire, units, summed;
  uint8_t *own;     /* [wire] this worker's payload */
  uint8_t *sum;     /* [wire] the aggregate, assembled */
  uint8_t *have;    /* [units] assembled */
  size_t nhave;
  uint32_t workers; /* workers the aggregate sums */
  whole_pend *pend; /* ranges delivered, decoded once every unit is in */
  size_t npend, cap;
};

void coll_run(const collective_type *t, coll_ctx *ctx) {
  const ccomp_type *ct = ctx->comp->type;
  ctx->whole_mode = (ct->flags & CCOMP_WHOLE_PAYLOAD) && ct->units && ct->combine_units &&
                    ct->decode_range && (t->requires & COLL_NEEDS_SUMMABLE);
  ctx->whole = NULL;
  t->run(ctx);
  coll_whole *w = ctx->whole;
  if (w) {
    /* every summable collective delivers every chunk to a rank that has a
     * final one (coll_deliver_all): a range still waiting is a bug */
    if (w->npend) {
      fprintf(stderr, "ccsim: internal error: %s left %zu delivered ranges of a whole payload undecoded "
                      "(%zu of %zu units in)\n", t->name, w->npend, w->nhave, w->units);
      abort();
    }
    free(w->own), free(w->sum), free(w->have), free(w->pend);
    free(w);
  }
  ctx->whole = NULL;
  ctx->whole_mode = 0;
}

/* The units an element range stands for. */
static void unit_range(const coll_whole *w, size_t lo, size_t hi, size_t *u0, size_t *u1) {
  *u0 = w->n ? (size_t)((unsigned __int128)w->units * lo / w->n) : 0;
  *u1 = w->n ? (size_t)((unsigned __int128)w->units * hi / w->n) : 0;
}

/* Bytes of units [u0, u1) (the last unit may be short). */
static size_t slice_bytes(const coll_whole *w, size_t u0, size_t u1) {
  const size_t b0 = 4 * u0, b1 = 4 * u1 < w->wire ? 4 * u1 : w->wire;
  return b1 > b0 ? b1 - b0 : 0;
}

static int is_whole(const coll_ctx *ctx, const coll_msg *m, size_t lo) { return lo == 0 && m->n == ctx->n; }

typedef struct enc_work {
  coll_ctx *ctx;
  coll_whole *w;
  const float *p;
} enc_work;

static void enc_work_run(void *arg, int thread) {
  (void)thread;
  enc_work *k = arg;
  ccomp_call call = coll_call(k->ctx, 0, 0);
  const size_t nb = ccomp_encode(k->ctx->comp, k->p, k->w->n, &call, k->w->own);
  assert(nb == k->w->wire); /* CCOMP_WHOLE_PAYLOAD: a fixed size */
  (void)nb;
}

/* This call's state, the whole input encoded at the first use (the input is
 * read again, chunk by chunk, for the shadows: it is not kept). */
static coll_whole *whole_get(coll_ctx *ctx) {
  if (ctx->whole) return ctx->whole;
  coll_whole *w = coll_alloc(ctx, 1, sizeof *w, 1, "a whole payload's state");
  ctx->whole = w;
  w->n = ctx->n;
  w->wire = ccomp_max_wire_bytes(ctx->comp, w->n);
  w->units = ctx->comp->type->units(ctx->comp->state, w->n, &w->summed);
  assert(4 * w->units >= w->wire && 4 * w->summed <= w->wire);
  w->own = coll_alloc(ctx, w->wire + 1, 1, 1, "a whole payload");
  w->sum = coll_alloc(ctx, w->wire + 1, 1, 1, "a whole aggregate payload");
  w->have = coll_alloc(ctx, w->units, 1, 1, "a whole payload's units");
  float *p = coll_alloc(ctx, w->n, sizeof *p, 0, "a compressor input");
  ctx->io.input(ctx->io.arg, 0, w->n, p);
  enc_work k = {ctx, w, p};
  comm_work(enc_work_run, &k, w->n);
  free(p);
  return w;
}

/* Elements [lo, lo + n) of the whole payload `in` decoded into y
 * (comm_work), and finished when `finish` (the aggregate of `workers`). */
typedef struct range_work {
  const coll_ctx *ctx;
  const coll_whole *w;
  const uint8_t *in;
  size_t lo, n;
  uint32_t workers;
  int finish;
  float *y;
} range_work;

static void range_work_run(void *arg, int thread) {
  (void)thread;
  range_work *k = arg;
  const ccomp *c = k->ctx->comp;
  ccomp_call call = coll_call(k->ctx, 0, k->finish ? 0xF1 : 0);
  c->type->decode_range(c->state, k->in, k->w->n, k->lo, k->lo + k->n, k->workers, &call, k->y);
  if (k->finish) ccomp_finish(c, k->y, k->n, k->workers);
}

static void decode_range(const coll_ctx *ctx, const coll_whole *w, const uint8_t *in, size_t lo, size_t n,
                         uint32_t workers, int finish, float *y) {
  range_work k = {ctx, w, in, lo, n, workers, finish, y};
  comm_work(range_work_run, &k, n);
}

/* dst[i] = src[i] as doubles, n of them, in a new buffer. */
static double *widen(const coll_ctx *ctx, const float *src, size_t n, const char *what) {
  double *d = coll_pool_alloc(ctx, n, sizeof *d, 0, what); /* a payload's shadow */
  for (size_t i = 0; i < n; i++) d[i] = src[i];
  return d;
}

/* The summed units among [u0, u1): [u0, t1), t1 = min(u1, summed). */
static size_t summed_in(const coll_whole *w, size_t u0, size_t u1) {
  const size_t t1 = u1 < w->summed ? u1 : w->summed;
  return t1 > u0 ? t1 - u0 : 0;
}

coll_msg *coll_whole_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi) {
  coll_whole *w = whole_get(ctx);
  size_t u0, u1;
  unit_range(w, lo, hi, &u0, &u1);
  const size_t nb = slice_bytes(w, u0, u1), n = hi - lo, ns = summed_in(w, u0, u1);
  coll_msg *m = coll_msg_new_wire(ctx, chunk, 1, n, nb, 0);
  memcpy(m->bytes, w->own + 4 * u0, nb);
  m->nbytes = nb;
  float *p = coll_alloc(ctx, n, sizeof *p, 0, "a compressor input");
  ctx->io.input(ctx->io.arg, lo, hi, p);
  m->exact = widen(ctx, p, n, "a payload's exact shadow");
  float *own = NULL;
  if ((ctx->io.encoded && ctx->io.wants_own) || ctx->measure_cascade) {
    own = coll_alloc(ctx, n, sizeof *own, 0, "a decoded own payload");
    decode_range(ctx, w, w->own, lo, n, 1, 0, own);
    if (ctx->measure_cascade) m->ideal = widen(ctx, own, n, "a payload's ideal shadow");
  }
  m->uexact = coll_pool_alloc(ctx, ns, sizeof *m->uexact, 0, "a payload's exact unit sums");
  for (size_t i = 0; i < ns; i++) m->uexact[i] = ccb_load_f32(w->own + 4 * (u0 + i));
  if (ctx->io.encoded) ctx->io.encoded(ctx->io.arg, lo, hi, p, ctx->io.wants_own ? own : NULL);
  free(own);
  free(p);
  return m;
}

/* out[n] = a[n] + b[n] (NULL if either is NULL). */
static double *add_shadows(const coll_ctx *ctx, const double *a, const double *b, size_t n) {
  if (!a || !b) return NULL;
  double *s = coll_pool_alloc(ctx, n, sizeof *s, 0, "a partial aggregate's shadow");
  for (size_t i = 0; i < n; i++) s[i] = a[i] + b[i];
  return s;
}

typedef struct comb_work {
  const coll_ctx *ctx;
  const coll_msg *a, *b;
  coll_msg *s;
  size_t u0, m;
} comb_work;

static void comb_work_run(void *arg, int thread) {
  (void)thread;
  comb_work *k = arg;
  const ccomp *c = k->ctx->comp;
  c->type->combine_units(c->state, k->ctx->n, k->u0, k->m, k->a->bytes, k->b->bytes, k->s->bytes);
}

coll_msg *coll_whole_combine(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo) {
  coll_whole *w = whole_get(ctx);
  size_t u0, u1;
  unit_range(w, lo, lo + a->n, &u0, &u1);
  const size_t nb = slice_bytes(w, u0, u1), ns = summed_in(w, u0, u1);
  assert(a->nbytes == nb && b->nbytes == nb);
  if (ctx->io.device) ctx->io.device(ctx->io.arg, CCOMP_COMBINE, a->n);
  coll_msg *s = coll_msg_new_wire(ctx, a->chunk, a->workers + b->workers, a->n, nb, 0);
  s->nbytes = nb;
  s->exact = add_shadows(ctx, a->exact, b->exact, a->n);
  s->ideal = add_shadows(ctx, a->ideal, b->ideal, a->n);
  s->uexact = add_shadows(ctx, a->uexact, b->uexact, ns);
  comb_work k = {ctx, a, b, s, u0, u1 - u0};
  comm_work(comb_work_run, &k, a->n);
  coll_msg_free(a);
  coll_msg_free(b);
  return s;
}

int coll_whole_measure(coll_ctx *ctx, size_t h, const coll_msg *m, size_t lo) {
  if (is_whole(ctx, m, lo)) return 0;
  coll_whole *w = whole_get(ctx);
  size_t u0, u1;
  unit_range(w, lo, lo + m->n, &u0, &u1);
  const size_t ns = summed_in(w, u0, u1);
  err_acc e = {0};
  if (ns && m->uexact) {
    float *y = coll_alloc(ctx, ns, sizeof *y, 0, "a decode buffer");
    size_t bad = ns;
    for (size_t i = 0; i < ns; i++) {
      y[i] = ccb_load_f32(m->bytes + 4 * i);
      if (bad == ns && !isfinite(y[i])) bad = i;
    }
    if (ctx->io.hop_payload && bad < ns) ctx->io.hop_payload(ctx->io.arg, h + 1, y, lo, ns);
    err_acc_add(&e, y, m->uexact, ns, 1.0);
    free(y);
  }
  coll_metrics_add(ctx->metrics, &ctx->metrics->hops[h], &e, m->workers);
  return 1;
}

/* Once every unit is in: decode each range delivered into its place in
 * ctx->out, finish it, and measure the final ones. */
static void complete(coll_ctx *ctx, coll_whole *w) {
  if (w->nhave < w->units) return;
  for (size_t i = 0; i < w->npend; i++) {
    whole_pend *p = &w->pend[i];
    float *y = ctx->out + p->lo;
    decode_range(ctx, w, w->sum, p->lo, p->n, w->workers, 1, y);
    if (p->exact) {
      err_acc e = {0};
      err_acc_add(&e, y, p->exact, p->n, 1.0 / ctx->nworkers);
      coll_metrics_add(ctx->metrics, &ctx->metrics->final, &e, w->workers);
    }
    if (p->ideal) {
      err_acc c = {0};
      err_acc_add(&c, y, p->ideal, p->n, 1.0 / ctx->nworkers);
      coll_metrics_add(ctx->metrics, &ctx->metrics->final_cascade, &c, w->workers);
    }
    free(p->exact), free(p->ideal);
  }
  w->npend = 0;
}

int coll_whole_deliver(coll_ctx *ctx, const coll_msg *m, size_t lo, int final) {
  if (is_whole(ctx, m, lo)) return !final && ctx->out_shared; /* decode it, unless nobody needs it */
  if (m->n == 0) {
    /* an empty chunk (more workers than elements) stands for no unit and
     * waits for none: with a chunk that is the whole tensor beside it, the
     * units never pass through here, and a range waiting for them would
     * wait for ever.  Measured as a decode of no elements is (a count of
     * one, every sum 0), as complete() would. */
    const err_acc none = {.count = 1};
    if (final && m->exact) coll_metrics_add(ctx->metrics, &ctx->metrics->final, &none, m->workers);
    if (final && m->ideal) coll_metrics_add(ctx->metrics, &ctx->metrics->final_cascade, &none, m->workers);
    return 1;
  }
  coll_whole *w = whole_get(ctx);
  size_t u0, u1;
  unit_range(w, lo, lo + m->n, &u0, &u1);
  assert(m->nbytes == slice_bytes(w, u0, u1));
  memcpy(w->sum + 4 * u0, m->bytes, m->nbytes);
  for (size_t u = u0; u < u1; u++) w->nhave += !w->have[u], w->have[u] = 1;
  w->workers = m->workers;
  if (!final && ctx->out_shared) { /* a part this rank needs only to decode its own final range */
    complete(ctx, w);
    return 1;
  }
  if (w->npend == w->cap) {
    const size_t cap = w->cap ? 2 * w->cap : 8;
    whole_pend *p = realloc(w->pend, cap * sizeof *p);
    if (!p) coll_out_of_memory(ctx, cap * sizeof *p, "a whole payload's delivered ranges");
    w->pend = p, w->cap = cap;
  }
  whole_pend *p = &w->pend[w->npend++];
  *p = (whole_pend){.lo = lo, .n = m->n};
  if (final && m->exact) {
    p->exact = coll_alloc(ctx, m->n, sizeof *p->exact, 0, "a payload's exact shadow");
    memcpy(p->exact, m->exact, m->n * sizeof *p->exact);
  }
  if (final && m->ideal) {
    p->ideal = coll_alloc(ctx, m->n, sizeof *p->ideal, 0, "a payload's ideal shadow");
    memcpy(p->ideal, m->ideal, m->n * sizeof *p->ideal);
  }
  complete(ctx, w);
  return 1;
}
