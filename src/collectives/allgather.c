/* src/collectives/allgather.c — all-gather of compressed payloads, then a
 * local sum: every worker receives every worker's payload, decodes each and
 * adds them up itself.  Nothing is re-encoded on the way, so any compressor
 * works (signSGD's majority vote, top-k's index lists, EF-signSGD's scaled
 * signs) and no error cascades; the price is bandwidth: each worker receives
 * N - 1 whole payloads.
 *
 *   allgather/ring   N - 1 steps; at step s worker r forwards the payload of
 *                    worker (r - s) mod N to r + 1, byte for byte.
 *                    Time (crossbar, payload S_i): (N - 1)(alpha + S_i / B).
 *   allgather/rd     recursive doubling: log2 N steps; at step k worker r
 *                    swaps everything it holds (2^k payloads) with r XOR 2^k.
 *                    Time: log2(N) alpha + (N - 1) S_i / B.  N must be a
 *                    power of two (otherwise use allgather/ring).
 *
 * Payloads are immutable and shared by reference between the workers that
 * hold them.  Every worker ends with the same N payloads, so with a shared
 * output (the normal run) only worker 0 decodes and sums; hops.csv reports,
 * as seen by worker 0, the error of the partial sum of the payloads it has
 * received so far (hop h: h + 1 workers for the ring, 2^h for rd) against the
 * exact sum over the same workers.  Each payload carries its worker's input
 * as an exact shadow until worker 0 has used it: memory N x elements x 8
 * bytes at most, on top of the payloads themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"

typedef struct gather {
  coll_ctx *ctx;
  int measure;   /* this worker decodes, sums and measures */
  int decode;    /* this worker decodes and sums (measure, or private output) */
  float *acc;    /* [n] sum of decoded payloads */
  float *y;      /* [n] scratch */
  double *exact; /* [n] exact sum of the same payloads (measuring worker) */
  double *ideal; /* [n] their own-decoded sum (NULL unless measured) */
  uint32_t workers;
} gather;

static void gather_init(gather *g, coll_ctx *ctx) {
  memset(g, 0, sizeof *g);
  g->ctx = ctx;
  g->measure = ctx->rank == 0;
  g->decode = g->measure || !ctx->out_shared;
  if (g->decode) {
    g->acc = coll_alloc(ctx, ctx->n + 1, sizeof *g->acc, 1, "all-gather's acc");
    g->y = coll_alloc(ctx, ctx->n + 1, sizeof *g->y, 0, "all-gather's y");
  }
  if (g->measure) g->exact = coll_alloc(ctx, ctx->n + 1, sizeof *g->exact, 1, "all-gather's exact");
  if (g->measure && ctx->measure_cascade) g->ideal = coll_alloc(ctx, ctx->n + 1, sizeof *g->ideal, 1, "all-gather's ideal");
}

/* The arithmetic of gather_add (comm_work: this worker's sums and the
 * payload it holds; the figures go to parts added on the executor's
 * thread). */
typedef struct gather_work {
  gather *g;
  const coll_msg *m;
  int measure_hop;
  err_acc e, c;
} gather_work;

static void gather_work_run(void *arg, int thread) {
  (void)thread;
  gather_work *k = arg;
  gather *g = k->g;
  const coll_msg *m = k->m;
  coll_ctx *ctx = g->ctx;
  ccomp_call call = coll_call(ctx, 0, 0xF1);
  ccomp_decode(ctx->comp, m->bytes, m->nbytes, m->n, m->enc_workers, &call, g->y);
  for (size_t i = 0; i < m->n; i++) g->acc[i] += g->y[i];
  if (!g->measure) return;
  for (size_t i = 0; i < m->n; i++) g->exact[i] += m->exact[i];
  if (g->ideal && m->ideal)
    for (size_t i = 0; i < m->n; i++) g->ideal[i] += m->ideal[i];
  if (k->measure_hop) {
    err_acc_add(&k->e, g->acc, g->exact, ctx->n, 1.0);
    if (g->ideal) err_acc_add(&k->c, g->acc, g->ideal, ctx->n, 1.0);
  }
}

/* Add payload m to the local sum; hop h (0-based) is measured after it when
 * h is not (size_t)-1. */
static void gather_add(gather *g, coll_msg *m, size_t h) {
  coll_ctx *ctx = g->ctx;
  if (ctx->io.device) ctx->io.device(ctx->io.arg, CCOMP_DECODE, m->n); /* every worker decodes all */
  if (!g->decode) return;
  gather_work k = {.g = g, .m = m, .measure_hop = g->measure && h != (size_t)-1 && h < ctx->metrics->nhops};
  comm_work(gather_work_run, &k, ctx->n);
  g->workers += m->workers;
  if (!g->measure) return;
  coll_drop_shadows(m); /* nobody else needs them */
  if (k.measure_hop) {
    coll_metrics_add(ctx->metrics, &ctx->metrics->hops[h], &k.e, g->workers);
    if (g->ideal) coll_metrics_add(ctx->metrics, &ctx->metrics->cascade[h], &k.c, g->workers);
  }
}

/* The arithmetic of gather_finish (comm_work, as gather_work). */
static void finish_work_run(void *arg, int thread) {
  (void)thread;
  gather_work *k = arg;
  gather *g = k->g;
  coll_ctx *ctx = g->ctx;
  ccomp_finish(ctx->comp, g->acc, ctx->n, g->workers);
  if (g->measure) err_acc_add(&k->e, g->acc, g->exact, ctx->n, 1.0 / ctx->nworkers);
  if (g->ideal) err_acc_add(&k->c, g->acc, g->ideal, ctx->n, 1.0 / ctx->nworkers);
}

static void gather_finish(gather *g) {
  coll_ctx *ctx = g->ctx;
  if (g->decode) {
    gather_work k = {.g = g};
    comm_work(finish_work_run, &k, ctx->n);
    if (g->measure) coll_metrics_add(ctx->metrics, &ctx->metrics->final, &k.e, g->workers);
    if (g->ideal) coll_metrics_add(ctx->metrics, &ctx->metrics->final_cascade, &k.c, g->workers);
    /* on the executor's thread: another worker may read a shared output
     * before this one is done with it, at a point the schedule fixes */
    if (g->measure || !ctx->out_shared) memcpy(ctx->out, g->acc, ctx->n * sizeof *g->acc);
  }
  free(g->acc);
  free(g->y);
  free(g->exact);
  free(g->ideal);
}

static coll_msg *own_payload(coll_ctx *ctx) {
  coll_global_max(ctx);
  return coll_encode_own(ctx, ctx->rank, 0, ctx->n);
}

static void ag_ring_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
  gather g;
  gather_init(&g, ctx);
  coll_msg *hold = own_payload(ctx);
  gather_add(&g, hold, (size_t)-1);
  for (int s = 0; s < N - 1; s++) {
    comm_req *req = coll_isend(ctx, next, hold, coll_msg_charge(ctx, hold));
    coll_msg *in = comm_recv(prev, r);
    gather_add(&g, in, (size_t)s);
    comm_wait(req);
    hold = in; /* forwarded unchanged at the next step */
  }
  coll_msg_free(hold);
  gather_finish(&g);
}

static void ag_rd_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank;
  gather g;
  gather_init(&g, ctx);
  coll_msg **held = coll_alloc(ctx, (size_t)N, sizeof *held, 1, "all-gather's held"); /* by origin worker */
  held[r] = own_payload(ctx);
  gather_add(&g, held[r], (size_t)-1);
  size_t h = 0;
  for (int mask = 1; mask < N; mask <<= 1, h++) {
    const int partner = r ^ mask, base = r & ~(mask - 1);
    coll_bundle *out = coll_bundle_new(ctx, base, (size_t)mask);
    for (int k = 0; k < mask; k++) out->m[k] = coll_msg_ref(held[base + k]);
    comm_req *req = coll_isend(ctx, partner, out, coll_bundle_charge(ctx, out));
    coll_bundle *in = comm_recv(partner, r);
    for (size_t k = 0; k < in->count; k++) {
      held[in->chunk + (int)k] = in->m[k];
      in->m[k] = NULL;
      gather_add(&g, held[in->chunk + (int)k], k + 1 == in->count ? h : (size_t)-1);
    }
    coll_bundle_free(in);
    comm_wait(req);
  }
  for (int k = 0; k < N; k++) coll_msg_free(held[k]);
  free(held);
  gather_finish(&g);
}

static size_t ag_ring_hops(int nworkers, const double *params) {
  (void)params;
  return nworkers > 1 ? (size_t)nworkers - 1 : 0;
}

static size_t ag_rd_hops(int nworkers, const double *params) {
  (void)params;
  return (size_t)coll_ceil_log2(nworkers);
}

/* Every worker's fp32 tensor reaches the N - 1 others. */
static double ag_dense_bytes(size_t n, int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * (nworkers - 1) * 4.0 * (double)n;
}

static int ag_rd_check(int nworkers, const double *params, ccsim_error *err) {
  (void)params;
  if (nworkers & (nworkers - 1)) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allgather/rd (recursive doubling) needs a power-of-two worker count, got %d; use "
                      "allgather/ring, which takes any",
                      nworkers);
  }
  return 0;
}

/* Whole payloads, every worker's own and the ones it forwards. */
static double ag_footprint(size_t n, int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * (double)n;
}

/* N - 1 steps, one message per worker each. */
static double ag_ring_messages(int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * (nworkers - 1);
}

/* log2 N steps, one message per worker each. */
static double ag_rd_messages(int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * coll_ceil_log2(nworkers);
}

const collective_type coll_allgather_ring = {
    .name = "allgather/ring",
    .description = "ring all-gather of every worker's payload, decoded and summed locally; any "
                   "compressor",
    .requires = COLL_OUT_FROM_ONE,
    .hops = ag_ring_hops,
    .dense_bytes = ag_dense_bytes,
    .footprint = ag_footprint,
    .messages = ag_ring_messages,
    .run = ag_ring_run,
};

const collective_type coll_allgather_rd = {
    .name = "allgather/rd",
    .description = "recursive-doubling all-gather (power-of-two workers), decoded and summed "
                   "locally; any compressor",
    .requires = COLL_OUT_FROM_ONE,
    .hops = ag_rd_hops,
    .dense_bytes = ag_dense_bytes,
    .check = ag_rd_check,
    .footprint = ag_footprint,
    .messages = ag_rd_messages,
    .run = ag_rd_run,
};
