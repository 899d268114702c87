/* src/collectives/ring.c — ring all-reduce: reduce-scatter, then all-gather.
 *
 *   rank:      0 ──► 1 ──► 2 ──► ... ──► N-1 ──┐
 *              ▲───────────────────────────────┘
 *
 * The tensor is cut into N chunks (sizes differ by at most one element, so
 * any element count works).  Reduce-scatter: at step s = 0 .. N-2, rank r
 * sends the partial aggregate of chunk (r - s) mod N to r + 1 and receives
 * chunk (r - s - 1) mod N from r - 1, to which it combines its own encoded
 * chunk: a payload that has crossed h links sums h + 1 workers.  After N - 1
 * steps rank r holds chunk (r + 1) mod N summed over all N workers.
 * All-gather: N - 1 more steps forward those payloads unchanged, byte for
 * byte, so every rank ends with the same aggregate.
 *
 * Payloads combine without decoding (the compressor must be summable); the
 * network is charged the bytes each payload really has.  Hop h's error is
 * measured on the combined payload that has crossed h links.  Time on a
 * crossbar with per-hop latency a and bandwidth B: 2(N-1)(a + S/(N B)).
 *
 * Compressors that need a global max (Global-QSGD's norm) get it first from
 * a ring max-reduction of one float per worker: N - 1 steps of 4 bytes. */
#include <stdlib.h>

#include "collectives/collective.h"

typedef struct ring_state {
  coll_ctx *ctx;
} ring_state;

/* Chunk c: this worker's encoded share, one payload. */
static coll_bundle *ring_own(void *arg, int c) {
  coll_ctx *ctx = ((ring_state *)arg)->ctx;
  size_t lo, hi;
  coll_chunk(ctx->n, ctx->nworkers, c, &lo, &hi);
  coll_bundle *b = coll_bundle_new(ctx, c, 1);
  b->m[0] = coll_encode_own(ctx, c, lo, hi);
  return b;
}

static size_t ring_lo(void *arg, int c, size_t part) {
  (void)part;
  coll_ctx *ctx = ((ring_state *)arg)->ctx;
  size_t lo, hi;
  coll_chunk(ctx->n, ctx->nworkers, c, &lo, &hi);
  return lo;
}

/* Chunk c's elements. */
static size_t ring_n(void *arg, int c) {
  coll_ctx *ctx = ((ring_state *)arg)->ctx;
  size_t lo, hi;
  coll_chunk(ctx->n, ctx->nworkers, c, &lo, &hi);
  return hi - lo;
}

static void ring_got(void *arg, const coll_bundle *b) {
  coll_ctx *ctx = ((ring_state *)arg)->ctx;
  if (coll_deliver_all(ctx)) coll_deliver(ctx, b->m[0], ring_lo(arg, b->chunk, 0), 0);
}

static void ring_run(coll_ctx *ctx) {
  coll_global_max(ctx);
  int *ranks = coll_alloc(ctx, (size_t)ctx->nworkers, sizeof *ranks, 0, "ring's ranks");
  coll_ring ring = coll_all(ctx, ranks);
  ring_state st = {ctx};
  coll_bundle *mine = coll_ring_reduce_scatter(ctx, &ring, ring_own, ring_lo, &st, 0);
  /* mine: chunk (rank + 1) mod N summed over all N workers. */
  coll_deliver(ctx, mine->m[0], ring_lo(&st, mine->chunk, 0), 1);
  coll_drop_shadows(mine->m[0]);
  if (coll_ring_allgather_unread_ok(ctx, &ring)) coll_ring_allgather_unread(ctx, &ring, mine, ring_n, &st);
  else coll_ring_allgather(ctx, &ring, mine, ring_got, &st);
  free(ranks);
}

static size_t ring_hops(int nworkers, const double *params) {
  (void)params;
  return nworkers > 1 ? (size_t)nworkers - 1 : 0;
}

/* Uncompressed, every step moves each of the N chunks once: n elements. */
static double ring_dense_bytes(size_t n, int nworkers, const double *params) {
  (void)params;
  return 2.0 * (nworkers - 1) * 4.0 * (double)n;
}

/* Chunks of n / N: each worker holds its own, the one it sends and the one
 * it receives, twice buffered. */
static double ring_footprint(size_t n, int nworkers, const double *params) {
  (void)nworkers, (void)params;
  return 4.0 * (double)n;
}

/* N - 1 steps of reduce-scatter and N - 1 of all-gather, one message per
 * worker each. */
static double ring_messages(int nworkers, const double *params) {
  (void)params;
  return 2.0 * nworkers * (nworkers - 1);
}

const collective_type coll_allreduce_ring = {
    .name = "allreduce/ring",
    .description = "ring all-reduce: reduce-scatter + all-gather, payloads combined hop by hop",
    .requires = COLL_NEEDS_SUMMABLE,
    .hops = ring_hops,
    .dense_bytes = ring_dense_bytes,
    .check = NULL,
    .footprint = ring_footprint,
    .messages = ring_messages,
    .run = ring_run,
};
