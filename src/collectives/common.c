/* src/collectives/common.c — what every collective shares: payload messages
 * and bundles, own encoding with its exact shadow, summable combination
 * (its measurement: err_acc.c); the ring and binomial-tree building blocks
 * the algorithms are made of are in steps.c. */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "collectives/collective.h"
#include "collectives/common_internal.h"
#include "collectives/err_acc.h"
#include "collectives/numcheck.h"
#include "comm/comm.h"
#include "lanepool.h"

comm_req *coll_isend_hinted(coll_ctx *ctx, int dst, void *msg, double bytes, void (*ahead)(const void *, int)) {
  coll_metrics_bytes(ctx->metrics, bytes);
  return comm_isend_ahead(ctx->rank, dst, msg, bytes, ahead);
}

comm_req *coll_isend(coll_ctx *ctx, int dst, void *msg, double bytes) { return coll_isend_hinted(ctx, dst, msg, bytes, NULL); }

void coll_out_of_memory(const coll_ctx *ctx, size_t bytes, const char *what) {
  char msg[512];
  if (bytes == SIZE_MAX)
    snprintf(msg, sizeof msg, "iteration %u, worker %d: out of memory: %s needs more than %zu bytes",
             ctx->iteration, ctx->rank, what, SIZE_MAX);
  else
    snprintf(msg, sizeof msg, "iteration %u, worker %d: out of memory allocating %zu bytes for %s",
             ctx->iteration, ctx->rank, bytes, what);
  if (ctx->io.out_of_memory) ctx->io.out_of_memory(ctx->io.arg, msg);
  abort(); /* never go on with a NULL buffer */
}

void *coll_alloc(const coll_ctx *ctx, size_t count, size_t size, int zero, const char *what) {
  if (count == 0) count = 1;
  if (size && count > SIZE_MAX / size) coll_out_of_memory(ctx, SIZE_MAX, what);
  /* a small zeroed block from malloc and memset: calloc never takes one
   * from glibc's per-thread cache, and payloads are made and freed by the
   * million */
  void *p = zero && count * size > 1024 ? calloc(count, size) : malloc(count * size);
  if (!p) coll_out_of_memory(ctx, count * size, what);
  if (zero && count * size <= 1024) memset(p, 0, count * size);
  return p;
}

void *coll_pool_alloc(const coll_ctx *ctx, size_t count, size_t size, int zero, const char *what) {
  if (count == 0) count = 1;
  if (size && count > SIZE_MAX / size) coll_out_of_memory(ctx, SIZE_MAX, what);
  void *p = lanepool_alloc(count * size);
  if (!p) coll_out_of_memory(ctx, count * size, what);
  if (zero) memset(p, 0, count * size);
  return p;
}

void coll_pool_free(void *p) { lanepool_free(p); }

coll_msg *coll_msg_new(const coll_ctx *ctx, int chunk, uint32_t workers, size_t n, int exact) {
  return coll_msg_new_wire(ctx, chunk, workers, n, ccomp_max_wire_bytes(ctx->comp, n), exact);
}

coll_msg *coll_msg_new_wire(const coll_ctx *ctx, int chunk, uint32_t workers, size_t n, size_t wire, int exact) {
  if (wire >= SIZE_MAX - sizeof(coll_msg) - 1) coll_out_of_memory(ctx, SIZE_MAX, "a payload's wire bytes");
  coll_msg *m = lanepool_alloc(sizeof *m + wire + 1);
  if (!m) coll_out_of_memory(ctx, sizeof *m + wire + 1, "a payload and its wire bytes");
  *m = (coll_msg){.refs = 1, .chunk = chunk, .workers = workers, .enc_workers = workers, .n = n};
  m->bytes = m->inl;
  if (exact) {
    m->exact = n <= SIZE_MAX / sizeof *m->exact ? lanepool_alloc((n ? n : 1) * sizeof *m->exact) : NULL;
    if (m->exact) memset(m->exact, 0, (n ? n : 1) * sizeof *m->exact);
    if (!m->exact) {
      lanepool_free(m); /* freed before reporting, so nothing is lost when the report returns to a test */
      coll_out_of_memory(ctx, n <= SIZE_MAX / sizeof(double) ? n * sizeof(double) : SIZE_MAX,
                         "a payload's exact shadow");
    }
  }
  return m;
}

void coll_msg_set_bytes(const coll_ctx *ctx, coll_msg *m, size_t count, size_t size, const char *what) {
  uint8_t *b = coll_alloc(ctx, count, size, 0, what);
  if (m->bytes != m->inl) free(m->bytes);
  m->bytes = b;
}

void coll_wait_sends(comm_req **reqs, int n) {
  if (!reqs) return;
  for (int i = 0; i < n; i++)
    if (reqs[i]) comm_wait(reqs[i]);
  free(reqs);
}

void coll_drop_shadows(coll_msg *m) {
  lanepool_free(m->exact);
  lanepool_free(m->ideal);
  lanepool_free(m->uexact);
  m->exact = NULL;
  m->ideal = NULL;
  m->uexact = NULL;
}

void coll_msg_free(coll_msg *m) {
  if (!m) return;
  /* Its one holder (refs read as 1, with acquire: other holders' releases
   * of their references came before) frees it without a locked decrement,
   * which on x86 also waits for every store before it to drain (87% of
   * this function's samples in a 1024-worker Marsit run, about 2% of the
   * run's, most payloads having one holder).  Nobody else can take a
   * reference meanwhile: that needs one. */
  if (__atomic_load_n(&m->refs, __ATOMIC_ACQUIRE) != 1 && __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL) > 0)
    return;
  if (m->bytes != m->inl) free(m->bytes);
  lanepool_free(m->exact);
  lanepool_free(m->ideal);
  lanepool_free(m->uexact);
  lanepool_free(m);
}

coll_bundle *coll_bundle_new(const coll_ctx *ctx, int chunk, size_t count) {
  if (count > (SIZE_MAX - sizeof(coll_bundle)) / sizeof(coll_msg *)) coll_out_of_memory(ctx, SIZE_MAX, "a bundle of payloads");
  coll_bundle *b = coll_pool_alloc(ctx, 1, sizeof *b + count * sizeof *b->slot, 0, "a bundle of payloads");
  b->chunk = chunk;
  b->count = count;
  b->m = b->slot;
  for (size_t k = 0; k < count; k++) b->slot[k] = NULL;
  return b;
}

void coll_bundle_free(coll_bundle *b) {
  if (!b) return;
  for (size_t k = 0; k < b->count; k++) coll_msg_free(b->m[k]);
  lanepool_free(b);
}

double coll_charge_of(const coll_ctx *ctx, size_t n, size_t nbytes) {
  if (ctx->n_full <= ctx->n || ctx->n == 0) return (double)nbytes;
  const double f = (double)ctx->n_full / (double)ctx->n;
  const size_t full = (size_t)((double)n * f + 0.5);
  /* a slice of a whole payload: its share of the full tensor's payload */
  if (ctx->whole_mode)
    return (double)nbytes * (double)ccomp_max_wire_bytes(ctx->comp, ctx->n_full) /
           (double)ccomp_max_wire_bytes(ctx->comp, ctx->n);
  if (ctx->comp->type->flags & CCOMP_FIXED_SIZE) return (double)ccomp_max_wire_bytes(ctx->comp, full);
  return n ? (double)nbytes * (double)full / (double)n : (double)nbytes;
}

double coll_msg_charge(const coll_ctx *ctx, const coll_msg *m) { return coll_charge_of(ctx, m->n, m->nbytes); }

double coll_bundle_charge(const coll_ctx *ctx, const coll_bundle *b) {
  double s = 0;
  for (size_t k = 0; k < b->count; k++) s += coll_msg_charge(ctx, b->m[k]);
  return s;
}

ccomp_call coll_call(const coll_ctx *ctx, size_t offset, uint64_t salt) {
  ccomp_call c = {
      .key = ccr_key(ctx->key, salt),
      .shared_key = ctx->shared_key,
      .offset = ctx->offset + offset,
      .iteration = ctx->iteration,
      .global_max = ctx->global_max,
  };
  return c;
}

void coll_cover(const coll_ctx *ctx, ccomp_call *call, const float *x, size_t n) {
  if (!(ctx->comp->type->flags & CCOMP_GLOBAL_MAX)) return;
  const float s = ctx->comp->type->local_stat(ctx->comp->state, x, n);
  if (s > call->global_max) call->global_max = s;
}

/* The payload side of coll_encode_own (comm_work: this worker's input,
 * compressor and memory, and a new payload nobody else holds yet). */
typedef struct encode_work {
  coll_ctx *ctx;
  coll_msg *m;
  const float *p;
  size_t lo, hi;
  float *own; /* [n] or NULL: the decoded own payload, when wanted */
} encode_work;

static void encode_work_run(void *arg, int thread) {
  (void)thread;
  encode_work *k = arg;
  coll_ctx *ctx = k->ctx;
  coll_msg *m = k->m;
  const float *p = k->p;
  const size_t n = k->hi - k->lo;
  ccomp_call call = coll_call(ctx, k->lo, 0);
  m->nbytes = ccomp_encode(ctx->comp, p, n, &call, m->bytes);
  for (size_t i = 0; i < n; i++) m->exact[i] = p[i];
  float *own = k->own;
  if (own) ccomp_decode(ctx->comp, m->bytes, m->nbytes, n, 1, &call, own);
  if (ctx->measure_cascade)
    for (size_t i = 0; i < n; i++) m->ideal[i] = own[i];
  if (ctx->io.encoded) ctx->io.encoded(ctx->io.arg, k->lo, k->hi, p, ctx->io.wants_own ? own : NULL);
}

coll_msg *coll_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi) {
  if (ctx->whole_mode) return coll_whole_encode_own(ctx, chunk, lo, hi);
  size_t n = hi - lo;
  /* the input and, where wanted, its decoded payload: one block, both
   * given back before this returns */
  const int want_own = (ctx->io.encoded && ctx->io.wants_own) || ctx->measure_cascade;
  float *p = coll_pool_alloc(ctx, n, (want_own ? 2 : 1) * sizeof *p, 0, "a compressor input and its decoding");
  float *own = want_own ? p + n : NULL;
  ctx->io.input(ctx->io.arg, lo, hi, p);
  coll_msg *m = coll_msg_new(ctx, chunk, 1, n, 0);
  /* everything the work writes is allocated here, on the actor: a failure
   * is reported where the run can stop */
  m->exact = coll_pool_alloc(ctx, n, sizeof *m->exact, 0, "a payload's exact shadow");
  if (ctx->measure_cascade) m->ideal = coll_pool_alloc(ctx, n, sizeof *m->ideal, 0, "a payload's ideal shadow");
  encode_work k = {ctx, m, p, lo, hi, own};
  comm_work(encode_work_run, &k, n);
  lanepool_free(p);
  return m;
}

/* The arithmetic of coll_combine (comm_work: reads a and b, which nobody
 * changes while they are held, writes s, new). */
typedef struct combine_work {
  coll_ctx *ctx;
  const coll_msg *a, *b;
  coll_msg *s;
  ccomp_call call;
  int copy_exact, copy_ideal; /* s's shadows start as copies of a's (else taken over) */
  float *y;                   /* coll_combine_measure: s decoded here, then the fused pass */
  err_acc e, c;               /* its figures against the exact and the ideal shadow */
} combine_work;

static void combine_work_run(void *arg, int thread) {
  (void)thread;
  combine_work *k = arg;
  const coll_msg *a = k->a, *b = k->b;
  coll_msg *s = k->s;
  s->nbytes = ccomp_combine(k->ctx->comp, a->bytes, a->nbytes, a->workers, b->bytes, b->nbytes, b->workers,
                            a->n, &k->call, s->bytes);
  if (k->y) {
    ccomp_decode(k->ctx->comp, s->bytes, s->nbytes, s->n, s->enc_workers, &k->call, k->y);
    const fused_pass f = {.y = k->y, .sx = s->exact, .si = s->ideal, .n = s->n,
                          .ax = k->copy_exact ? a->exact : NULL, .ai = k->copy_ideal ? a->ideal : NULL,
                          .bx = b->exact, .bi = b->ideal};
    err_acc_fused(&f, &k->e, &k->c);
    return;
  }
  if (k->copy_exact && a->exact) memcpy(s->exact, a->exact, a->n * sizeof *s->exact);
  if (b->exact)
    for (size_t i = 0; i < s->n; i++) s->exact[i] += b->exact[i];
  if (s->ideal) {
    if (k->copy_ideal) memcpy(s->ideal, a->ideal, a->n * sizeof *s->ideal);
    for (size_t i = 0; i < s->n; i++) s->ideal[i] += b->ideal[i];
  }
}

/* Hop h's figures of the payload m decoded into y (e against its exact
 * shadow, c against its ideal one); a non-finite number in y stops the run. */
static void measured(coll_ctx *ctx, size_t h, const coll_msg *m, size_t lo, const float *y, const err_acc *e,
                     const err_acc *c) {
  if (ctx->io.hop_payload && !isfinite(e->out2) && numcheck_first_bad(y, m->n) < m->n)
    ctx->io.hop_payload(ctx->io.arg, h + 1, y, lo, m->n);
  coll_metrics_add(ctx->metrics, &ctx->metrics->hops[h], e, m->workers);
  if (m->ideal) coll_metrics_add(ctx->metrics, &ctx->metrics->cascade[h], c, m->workers);
}

/* coll_combine, and with y (not NULL) s measured as hop h there too. */
static coll_msg *combine(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo, uint64_t salt, size_t h, float *y) {
  combine_work k = {.ctx = ctx, .a = a, .b = b, .call = coll_call(ctx, lo, salt), .y = y};
  if (ctx->io.device) ctx->io.device(ctx->io.arg, CCOMP_COMBINE, a->n);
  coll_msg *s = coll_msg_new(ctx, a->chunk, a->workers + b->workers, a->n, 0);
  k.s = s;
  if (a->exact && coll_msg_alone(a)) {
    s->exact = a->exact; /* a is about to go: take its shadow */
    a->exact = NULL;
  } else {
    s->exact = coll_pool_alloc(ctx, a->n, sizeof *s->exact, 1, "a partial aggregate's exact shadow");
    k.copy_exact = 1;
  }
  if (a->ideal && b->ideal) {
    if (coll_msg_alone(a)) {
      s->ideal = a->ideal;
      a->ideal = NULL;
    } else {
      s->ideal = coll_pool_alloc(ctx, a->n, sizeof *s->ideal, 0, "a partial aggregate's ideal shadow");
      k.copy_ideal = 1;
    }
  }
  comm_work(combine_work_run, &k, a->n);
  coll_msg_free(a);
  coll_msg_free(b);
  if (y) measured(ctx, h, s, lo, y, &k.e, &k.c);
  return s;
}

coll_msg *coll_combine(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo, uint64_t salt) {
  assert(a->n == b->n);
  if (ctx->whole_mode) return coll_whole_combine(ctx, a, b, lo);
  return combine(ctx, a, b, lo, salt, 0, NULL);
}

coll_msg *coll_combine_measure(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo, uint64_t salt, size_t h,
                               float *y) {
  assert(a->n == b->n);
  if (h >= ctx->metrics->nhops) return coll_combine(ctx, a, b, lo, salt);
  if (ctx->whole_mode) {
    coll_msg *s = coll_whole_combine(ctx, a, b, lo);
    coll_measure(ctx, h, s, lo, salt, y);
    return s;
  }
  return combine(ctx, a, b, lo, salt, h, y);
}

/* Decode a payload and measure it against its shadows (comm_work: the
 * figures go to err_acc parts that the caller adds to the shared ones). */
typedef struct measure_work {
  const coll_ctx *ctx;
  const coll_msg *m;
  ccomp_call call;
  float *y;
  double scale;
  const double *exact, *ideal; /* NULL: not measured */
  err_acc e, c;
  int finish; /* coll_deliver: finish the decoded sum (workers m->workers) */
  size_t bad; /* first non-finite element of y (before finish), or n */
} measure_work;

static void measure_work_run(void *arg, int thread) {
  (void)thread;
  measure_work *k = arg;
  const coll_msg *m = k->m;
  ccomp_decode(k->ctx->comp, m->bytes, m->nbytes, m->n, m->enc_workers, &k->call, k->y);
  if (k->finish) { /* coll_deliver: nothing checks y (the run checks the aggregate) */
    ccomp_finish(k->ctx->comp, k->y, m->n, m->workers);
    k->bad = m->n;
  } else if (!k->exact) {
    k->bad = numcheck_first_bad(k->y, m->n);
  }
  if (k->exact) err_acc_add(&k->e, k->y, k->exact, m->n, k->scale);
  if (k->ideal) err_acc_add(&k->c, k->y, k->ideal, m->n, k->scale);
  /* the sum of squares of finite floats is finite (n (2^128)^2 is far below
   * a double's range), of any NaN or infinity not: the measurement is the
   * check, and a bad one is looked for only then */
  if (!k->finish && k->exact) k->bad = isfinite(k->e.out2) ? m->n : numcheck_first_bad(k->y, m->n);
}

void coll_measure(coll_ctx *ctx, size_t h, const coll_msg *m, size_t lo, uint64_t salt, float *y) {
  if (h >= ctx->metrics->nhops) return;
  if (ctx->whole_mode && coll_whole_measure(ctx, h, m, lo)) return;
  measure_work k = {.ctx = ctx, .m = m, .call = coll_call(ctx, lo, salt), .y = y, .scale = 1.0,
                    .exact = m->exact, .ideal = m->ideal};
  comm_work(measure_work_run, &k, m->n);
  /* only a payload with a non-finite number can stop the run */
  if (ctx->io.hop_payload && k.bad < m->n) ctx->io.hop_payload(ctx->io.arg, h + 1, y, lo, m->n);
  coll_metrics_add(ctx->metrics, &ctx->metrics->hops[h], &k.e, m->workers);
  if (m->ideal) coll_metrics_add(ctx->metrics, &ctx->metrics->cascade[h], &k.c, m->workers);
}

void coll_deliver(coll_ctx *ctx, const coll_msg *m, size_t lo, int final) {
  if (ctx->whole_mode && coll_whole_deliver(ctx, m, lo, final)) return;
  measure_work k = {.ctx = ctx, .m = m, .call = coll_call(ctx, lo, 0xF1), .y = ctx->out + lo,
                    .scale = 1.0 / ctx->nworkers, .finish = 1,
                    .exact = final ? m->exact : NULL, .ideal = final ? m->ideal : NULL};
  comm_work(measure_work_run, &k, m->n);
  if (final && m->exact) coll_metrics_add(ctx->metrics, &ctx->metrics->final, &k.e, m->workers);
  if (final && m->ideal) {
    coll_metrics_add(ctx->metrics, &ctx->metrics->final_cascade, &k.c, m->workers);
  }
}

void coll_global_max(coll_ctx *ctx) {
  ctx->global_max = 0;
  if (!(ctx->comp->type->flags & CCOMP_GLOBAL_MAX)) return;
  const int N = ctx->nworkers, r = ctx->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
  float m = 0;
  size_t lo, hi;
  for (int c = 0; c < N; c++) {
    coll_chunk(ctx->n, N, c, &lo, &hi);
    float *p = coll_alloc(ctx, hi - lo, sizeof *p, 0, "a compressor input");
    ctx->io.input(ctx->io.arg, lo, hi, p);
    float s = ctx->comp->type->local_stat(ctx->comp->state, p, hi - lo);
    if (s > m) m = s;
    free(p);
  }
  for (int s = 0; s < N - 1; s++) {
    float *out = coll_alloc(ctx, 1, sizeof *out, 0, "a global-max message");
    *out = m;
    comm_req *req = coll_isend(ctx, next, out, sizeof(float));
    float *in = comm_recv(prev, r);
    if (*in > m) m = *in;
    free(in);
    comm_wait(req);
  }
  ctx->global_max = m;
}

void coll_own_dense(coll_ctx *ctx, float *y) {
  coll_global_max(ctx);
  coll_msg *m = coll_encode_own(ctx, ctx->rank, 0, ctx->n);
  ccomp_call call = coll_call(ctx, 0, 0);
  ccomp_decode(ctx->comp, m->bytes, m->nbytes, ctx->n, 1, &call, y);
  for (size_t i = 0; i < ctx->n; i++) ctx->exact_sum[i] += m->exact[i];
  coll_msg_free(m);
}

double coll_scale_charge(const coll_ctx *ctx, size_t nbytes) {
  if (ctx->n_full <= ctx->n || ctx->n == 0) return (double)nbytes;
  return (double)nbytes * (double)ctx->n_full / (double)ctx->n;
}
