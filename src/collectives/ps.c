/* src/collectives/ps.c — sharded parameter server, co-located with the
 * workers (BytePS-style): the tensor is cut into K shards and worker s
 * (s < K) serves shard s.
 *
 *   push:  every worker encodes each shard and sends it to its server;
 *   serve: server s decodes the N payloads of its shard, sums them in fp32
 *          and finishes the sum (the mean, or signSGD's majority vote);
 *   pull:  server s sends the result to every worker: fp32 by default, or,
 *          with downlink = true, encoded again by the same compressor (the
 *          "compressed both ways" PS; the second compression is hop 2).
 *
 * Any compressor: nothing is combined on the way.  All pushes and pulls are
 * posted at once, so the network shares links as the flows overlap.  On a
 * crossbar (all flows of a phase concurrent, the server's link the
 * bottleneck) a phase takes alpha + (N - 1) S / (K B): with K = N,
 * 2 (alpha + (N - 1) S / (N B)) in all, as the ring's bandwidth term.
 * Hop 1 is the server's aggregate against the exact sum; hop 2 (downlink)
 * what the workers decode against the exact mean. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"

static const ccomp_param ps_params[] = {
    {"servers", CCOMP_INT, 0, 0, 1 << 20, "server shards K, on workers 0 .. K-1; 0 = every worker"},
    {"downlink", CCOMP_BOOL, 0, 0, 1,
     "compress the servers' answers with the same compressor (false: fp32)"},
};

static int ps_servers(int n, const double *params) {
  return params[0] > 0 ? (int)params[0] : n;
}

static int ps_check(int n, const double *params, ccsim_error *err) {
  if (ps_servers(n, params) > n) {
    return ccsim_fail(err, CCSIM_ERR_INPUT, "ps: %d servers but only %d workers to host them; give servers <= %d",
                      ps_servers(n, params), n, n);
  }
  return 0;
}

/* The servers' answer for shard [lo, hi) into y. */
static void answer_decode(coll_ctx *ctx, const coll_msg *m, size_t lo, float *y) {
  if (ctx->params[1] != 0) {
    ccomp_call call = coll_call(ctx, lo, 0xD0);
    ccomp_decode(ctx->comp, m->bytes, m->nbytes, m->n, 1, &call, y);
  } else {
    memcpy(y, m->bytes, m->n * sizeof *y);
  }
}

/* A server's arithmetic (comm_work: its shard's sums, scratch and answer,
 * the payloads it holds; the figures go to parts, e[0] hop 1, e[1] hop 2,
 * e[2] the aggregate, added on the executor's thread). */
typedef struct serve_work {
  coll_ctx *ctx;
  ccomp_call call;
  size_t lo, n;
  float *acc, *y;
  coll_msg *m;         /* serve_add: the payload to add */
  const double *exact; /* serve_answer: the shard's exact sum */
  coll_msg *ans;
  int downlink, N;
  err_acc e[3];
} serve_work;

/* acc += decode(m) */
static void serve_add_run(void *arg, int thread) {
  (void)thread;
  serve_work *k = arg;
  ccomp_decode(k->ctx->comp, k->m->bytes, k->m->nbytes, k->n, 1, &k->call, k->y);
  for (size_t i = 0; i < k->n; i++) k->acc[i] += k->y[i];
}

/* The finished sum, its answer, and y = what the workers decode from it. */
static void serve_answer_run(void *arg, int thread) {
  (void)thread;
  serve_work *k = arg;
  coll_ctx *ctx = k->ctx;
  const size_t n = k->n;
  const int N = k->N;
  float *acc = k->acc, *y = k->y;
  err_acc_add(&k->e[0], acc, k->exact, n, 1.0);
  ccomp_finish(ctx->comp, acc, n, (uint32_t)N);
  coll_msg *ans = k->ans;
  if (k->downlink) {
    ccomp_call ecall = coll_call(ctx, k->lo, 0xD0);
    coll_cover(ctx, &ecall, acc, n);
    ans->nbytes = ccomp_encode(ctx->comp, acc, n, &ecall, ans->bytes);
  } else {
    memcpy(ans->bytes, acc, n * sizeof *acc);
    ans->nbytes = n * sizeof *acc;
  }
  answer_decode(ctx, ans, k->lo, y);
  if (k->downlink && ctx->metrics->nhops > 1) err_acc_add(&k->e[1], y, k->exact, n, 1.0 / N);
  err_acc_add(&k->e[2], y, k->exact, n, 1.0 / N);
}

static void ps_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, K = ps_servers(N, ctx->params);
  const int downlink = ctx->params[1] != 0;
  coll_global_max(ctx);

  /* push */
  comm_req **push = coll_alloc(ctx, (size_t)K, sizeof *push, 1, "ps's push");
  coll_msg *self = NULL;
  for (int s = 0; s < K; s++) {
    size_t lo, hi;
    coll_chunk(ctx->n, K, s, &lo, &hi);
    coll_msg *m = coll_encode_own(ctx, s, lo, hi);
    for (size_t i = 0; i < m->n; i++) ctx->exact_sum[lo + i] += m->exact[i];
    coll_drop_shadows(m); /* the server sums decoded payloads: no cascade to measure */
    if (s == r) self = m;
    else push[s] = coll_isend(ctx, s, m, coll_msg_charge(ctx, m));
  }

  /* serve */
  comm_req **pull = NULL;
  if (r < K) {
    size_t lo, hi;
    coll_chunk(ctx->n, K, r, &lo, &hi);
    const size_t n = hi - lo;
    comm_rreq **rq = coll_alloc(ctx, (size_t)N, sizeof *rq, 0, "ps's rq");
    for (int w = 0; w < N; w++) rq[w] = w == r ? NULL : comm_irecv(w, r);
    float *acc = coll_alloc(ctx, n + 1, sizeof *acc, 1, "ps's acc"), *y = coll_alloc(ctx, n + 1, sizeof *y, 0, "ps's y");
    serve_work k = {.ctx = ctx, .call = coll_call(ctx, lo, 0xF1), .lo = lo, .n = n, .acc = acc, .y = y};
    for (int w = 0; w < N; w++) {
      k.m = w == r ? self : comm_wait_recv(rq[w]);
      if (ctx->io.device) ctx->io.device(ctx->io.arg, CCOMP_DECODE, n);
      comm_work(serve_add_run, &k, n);
      coll_msg_free(k.m);
    }
    free(rq);
    coll_msg *ans = coll_msg_new(ctx, r, (uint32_t)N, n, 0);
    if (!downlink) coll_msg_set_bytes(ctx, ans, n + 1, sizeof *acc, "ps's answer bytes");
    k.exact = ctx->exact_sum + lo; /* every push to this shard was added before it was sent */
    k.ans = ans;
    k.downlink = downlink;
    k.N = N;
    comm_work(serve_answer_run, &k, n);
    coll_metrics_add(ctx->metrics, &ctx->metrics->hops[0], &k.e[0], (uint32_t)N);
    if (downlink && ctx->metrics->nhops > 1) coll_metrics_add(ctx->metrics, &ctx->metrics->hops[1], &k.e[1], (uint32_t)N);
    coll_metrics_add(ctx->metrics, &ctx->metrics->final, &k.e[2], (uint32_t)N);
    memcpy(ctx->out + lo, y, n * sizeof *y);
    memset(ctx->exact_sum + lo, 0, n * sizeof *ctx->exact_sum);
    free(acc);
    free(y);
    /* fp32 answers: 4 bytes per element of the full shard */
    const double charge = downlink ? coll_msg_charge(ctx, ans)
                                   : 4.0 * (double)n * (double)(ctx->n_full > ctx->n ? ctx->n_full : ctx->n) /
                                         (double)(ctx->n ? ctx->n : 1);
    pull = coll_alloc(ctx, (size_t)N, sizeof *pull, 0, "ps's pull");
    for (int w = 0; w < N; w++)
      pull[w] = w == r ? NULL : coll_isend(ctx, w, coll_msg_ref(ans), charge);
    coll_msg_free(ans);
  }

  /* pull */
  comm_rreq **rq = coll_alloc(ctx, (size_t)K, sizeof *rq, 0, "ps's rq");
  for (int s = 0; s < K; s++) rq[s] = s == r ? NULL : comm_irecv(s, r);
  for (int s = 0; s < K; s++) {
    if (s == r) continue;
    coll_msg *m = comm_wait_recv(rq[s]);
    if (!ctx->out_shared) {
      size_t lo, hi;
      coll_chunk(ctx->n, K, s, &lo, &hi);
      answer_decode(ctx, m, lo, ctx->out + lo);
    }
    coll_msg_free(m);
  }
  free(rq);
  coll_wait_sends(push, K);
  coll_wait_sends(pull, N);
}

static size_t ps_hops(int n, const double *params) {
  (void)n;
  return params[1] != 0 ? 2 : 1;
}

/* N - 1 shard-sized pushes per server and as many answers. */
static double ps_dense_bytes(size_t n, int N, const double *params) {
  (void)params;
  return 2.0 * (N - 1) * 4.0 * (double)n;
}

/* Every worker's push (the whole tensor, in shards) in flight at once, and
 * the servers' answers. */
static double ps_footprint(size_t n, int N, const double *params) {
  (void)params;
  return (double)N * (double)n + (double)n;
}

/* Each of the K servers receives from and answers the N - 1 others. */
static double ps_messages(int N, const double *params) {
  return 2.0 * ps_servers(N, params) * (N - 1);
}

const collective_type coll_ps = {
    .name = "ps",
    .description = "sharded parameter server on the workers: push, decode and sum at the server, "
                   "pull (fp32 or recompressed); any compressor",
    .requires = COLL_NEEDS_EXACT_SUM | COLL_ONE_LANE,
    .params = ps_params,
    .nparams = sizeof ps_params / sizeof ps_params[0],
    .hops = ps_hops,
    .dense_bytes = ps_dense_bytes,
    .check = ps_check,
    .footprint = ps_footprint,
    .messages = ps_messages,
    .run = ps_run,
};
