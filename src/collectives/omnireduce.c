/* src/collectives/omnireduce.c — a block-sparse all-reduce in the style of
 * OmniReduce (Fei et al., SIGCOMM'21, "Efficient Sparse Collective
 * Communication and its application to Accelerate Distributed Deep
 * Learning"): the gradient is cut into blocks of `block` elements; a worker
 * sends only its non-zero blocks, each with its block index, to the
 * aggregator that owns them; the aggregators sum and send the non-zero
 * blocks of the sum back to every worker.
 *
 * [reconstructed] OmniReduce streams blocks through dedicated aggregators
 * with a per-block "next non-zero" pointer and pipelining; here aggregators
 * are co-located with the workers as in ccsim's `ps` (K shards of the block
 * range, shard s on worker s), and every push and answer is one message:
 * the data volume is exact, the pipelining is not modelled.  Wire format of
 * one message (a shard's blocks):
 *
 *   u32 m, then m times: u32 block index, the block's fp32 values
 *   (4 + sum over sent blocks of (4 + 4 x its length) bytes; the last block
 *   of the tensor may be short).
 *
 * A block is sent when any of its elements is non-zero; the answer carries
 * the blocks that at least one worker sent (their sum, zeros included if
 * they cancel).  What is reduced is each worker's decode(encode(p)), as in
 * allreduce/sparcml: the compressor decides the values, the collective the
 * format.  The aggregator adds the workers' blocks in fp32 in rank order.
 * Dense input costs 2 (N - 1) (4 K + 4 B + 4 n) bytes for B blocks: the
 * ring's 2 (N - 1) / N x 4n per worker plus the block headers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"

static const ccomp_param omni_params[] = {
    {"block", CCOMP_INT, 256, 1, 1 << 24, "elements per block"},
    {"servers", CCOMP_INT, 0, 0, 1 << 20, "aggregator shards K, on workers 0 .. K-1; 0 = every worker"},
};

typedef struct omniwire {
  size_t nbytes;
  uint8_t *bytes;
} omniwire;

static int omni_servers(int n, const double *params) { return params[1] > 0 ? (int)params[1] : n; }

static int omni_check(int n, const double *params, ccsim_error *err) {
  if (omni_servers(n, params) > n) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allreduce/omnireduce: %d servers but only %d workers to host them; give servers <= %d",
                      omni_servers(n, params), n, n);
  }
  return 0;
}

/* The blocks of shard s: [*b0, *b1) of nb blocks of `bs` over n elements. */
static void shard_blocks(size_t nb, int K, int s, size_t *b0, size_t *b1) { coll_chunk(nb, K, s, b0, b1); }

/* Blocks [b0, b1) for which keep[b] holds, as a message; x[i - base] is
 * element i. */
static omniwire *blocks_encode(const coll_ctx *ctx, const float *x, size_t base, size_t n, size_t bs, size_t b0,
                               size_t b1, const uint8_t *keep) {
  size_t m = 0, bytes = 4;
  for (size_t b = b0; b < b1; b++)
    if (keep[b]) {
      const size_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
      m++, bytes += 4 + 4 * (hi - lo);
    }
  omniwire *w = coll_alloc(ctx, 1, sizeof *w, 0, "omnireduce's w");
  w->nbytes = bytes;
  w->bytes = coll_alloc(ctx, bytes, 1, 0, "omnireduce's wire bytes");
  const uint32_t head = (uint32_t)m;
  memcpy(w->bytes, &head, 4);
  uint8_t *p = w->bytes + 4;
  for (size_t b = b0; b < b1; b++)
    if (keep[b]) {
      const size_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
      const uint32_t id = (uint32_t)b;
      memcpy(p, &id, 4);
      memcpy(p + 4, x + (lo - base), 4 * (hi - lo));
      p += 4 + 4 * (hi - lo);
    }
  return w;
}

/* acc += the blocks of w (or acc = them when `assign`), acc[i - base]
 * holding element i; seen[b] set for each block carried (when seen is not
 * NULL).  Consumes w. */
static void blocks_decode(omniwire *w, float *acc, size_t base, size_t n, size_t bs, uint8_t *seen,
                          int assign) {
  uint32_t m;
  memcpy(&m, w->bytes, 4);
  const uint8_t *p = w->bytes + 4;
  for (uint32_t j = 0; j < m; j++) {
    uint32_t b;
    memcpy(&b, p, 4);
    const size_t lo = (size_t)b * bs, hi = lo + bs < n ? lo + bs : n;
    const float *v = (const float *)(const void *)(p + 4);
    if (assign) {
      memcpy(acc + (lo - base), v, 4 * (hi - lo));
    } else {
      for (size_t i = lo; i < hi; i++) {
        float f;
        memcpy(&f, v + (i - lo), 4);
        acc[i - base] += f;
      }
    }
    if (seen) seen[b] = 1;
    p += 4 + 4 * (hi - lo);
  }
  free(w->bytes);
  free(w);
}

static void omni_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, K = omni_servers(N, ctx->params);
  const size_t n = ctx->n, bs = (size_t)ctx->params[0], nb = (n + bs - 1) / bs;
  float *y = coll_alloc(ctx, n + 1, sizeof *y, 0, "omnireduce's y");
  coll_own_dense(ctx, y);
  uint8_t *nz = coll_alloc(ctx, nb + 1, 1, 1, "omnireduce's nz"); /* this worker's non-zero blocks */
  for (size_t i = 0; i < n; i++)
    if (y[i] != 0.0f) nz[i / bs] = 1;

  /* push: every shard's non-zero blocks to its aggregator (own shard kept) */
  comm_req **push = coll_alloc(ctx, (size_t)K, sizeof *push, 1, "omnireduce's push");
  omniwire *self = NULL;
  for (int s = 0; s < K; s++) {
    size_t b0, b1;
    shard_blocks(nb, K, s, &b0, &b1);
    omniwire *w = blocks_encode(ctx, y, 0, n, bs, b0, b1, nz);
    if (s == r) self = w;
    else push[s] = coll_isend(ctx, s, w, coll_scale_charge(ctx, w->nbytes));
  }
  free(y);
  free(nz);

  /* aggregate: sum the N workers' blocks of this shard in rank order */
  comm_req **pull = NULL;
  if (r < K) {
    size_t b0, b1;
    shard_blocks(nb, K, r, &b0, &b1);
    const size_t lo = b0 * bs < n ? b0 * bs : n, hi = b1 * bs < n ? b1 * bs : n;
    comm_rreq **rq = coll_alloc(ctx, (size_t)N, sizeof *rq, 0, "omnireduce's rq");
    for (int w = 0; w < N; w++) rq[w] = w == r ? NULL : comm_irecv(w, r);
    float *acc = coll_alloc(ctx, hi - lo + 1, sizeof *acc, 1, "omnireduce's acc"); /* acc[i - lo]: element i */
    uint8_t *seen = coll_alloc(ctx, nb + 1, 1, 1, "omnireduce's seen");
    for (int w = 0; w < N; w++)
      blocks_decode(w == r ? self : comm_wait_recv(rq[w]), acc, lo, n, bs, seen, 0);
    free(rq);
    ccomp_finish(ctx->comp, acc, hi - lo, (uint32_t)N);
    err_acc fin = {0};
    err_acc_add(&fin, acc, ctx->exact_sum + lo, hi - lo, 1.0 / N);
    coll_metrics_add(ctx->metrics, &ctx->metrics->final, &fin, (uint32_t)N);
    memset(ctx->exact_sum + lo, 0, (hi - lo) * sizeof *ctx->exact_sum);
    memcpy(ctx->out + lo, acc, (hi - lo) * sizeof *acc);
    pull = coll_alloc(ctx, (size_t)N, sizeof *pull, 1, "omnireduce's pull");
    for (int w = 0; w < N; w++)
      if (w != r) {
        omniwire *a = blocks_encode(ctx, acc, lo, n, bs, b0, b1, seen);
        pull[w] = coll_isend(ctx, w, a, coll_scale_charge(ctx, a->nbytes));
      }
    free(acc);
    free(seen);
  }

  /* pull: the summed blocks of the other shards */
  comm_rreq **rq = coll_alloc(ctx, (size_t)K, sizeof *rq, 0, "omnireduce's rq");
  for (int s = 0; s < K; s++) rq[s] = s == r ? NULL : comm_irecv(s, r);
  for (int s = 0; s < K; s++) {
    if (s == r) continue;
    omniwire *w = comm_wait_recv(rq[s]);
    if (ctx->out_shared) {
      free(w->bytes);
      free(w);
      continue;
    }
    size_t b0, b1;
    shard_blocks(nb, K, s, &b0, &b1);
    const size_t lo = b0 * bs < n ? b0 * bs : n, hi = b1 * bs < n ? b1 * bs : n;
    memset(ctx->out + lo, 0, (hi - lo) * sizeof *ctx->out); /* blocks nobody sent are zero */
    blocks_decode(w, ctx->out, 0, n, bs, NULL, 1);
  }
  free(rq);
  coll_wait_sends(push, K);
  coll_wait_sends(pull, N);
}

static size_t omni_hops(int n, const double *params) {
  (void)n, (void)params;
  return 0;
}

/* Every block non-zero: per shard, N - 1 pushes and N - 1 answers, each a
 * header, the shard's block indices and its values. */
static double omni_dense_bytes(size_t n, int N, const double *params) {
  const size_t bs = (size_t)params[0], nb = (n + bs - 1) / bs;
  const int K = omni_servers(N, params);
  return 2.0 * (N - 1) * (4.0 * K + 4.0 * (double)nb + 4.0 * (double)n);
}

/* Every worker's blocks to the aggregators at once, and their answers. */
static double omni_footprint(size_t n, int N, const double *params) {
  (void)params;
  return (double)N * (double)n + (double)n;
}

/* Each of the K aggregators receives from and answers the N - 1 others. */
static double omni_messages(int N, const double *params) {
  return 2.0 * omni_servers(N, params) * (N - 1);
}

const collective_type coll_allreduce_omnireduce = {
    .name = "allreduce/omnireduce",
    .description = "OmniReduce-style block-sparse all-reduce: non-zero blocks with their indices to "
                   "sharded aggregators, summed blocks back; any compressor (its decoded output)",
    .requires = COLL_NEEDS_EXACT_SUM | COLL_ONE_LANE,
    .params = omni_params,
    .nparams = sizeof omni_params / sizeof omni_params[0],
    .hops = omni_hops,
    .dense_bytes = omni_dense_bytes,
    .check = omni_check,
    .footprint = omni_footprint,
    .messages = omni_messages,
    .run = omni_run,
};
