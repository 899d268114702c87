/* src/collectives/tree.c — binomial-tree all-reduce: reduce to worker 0,
 * then broadcast back down the same tree (MPICH's binomial reduce and
 * bcast).
 *
 *   step 0:  1 → 0   3 → 2   5 → 4   7 → 6
 *   step 1:  2 → 0   6 → 4                  (each arrow: a whole payload,
 *   step 2:  4 → 0                           combined at the receiver)
 *
 * At level k a worker whose bit k is set sends its subtree's combined
 * payload to r - 2^k and is done; the others receive from r + 2^k (when it
 * exists) and combine.  Any worker count.  The broadcast walks the levels
 * back, forwarding the root's payload unchanged.  Every message carries the
 * whole tensor, so the tree is latency-optimal but not bandwidth-optimal:
 * on a crossbar, 2 ceil(log2 N) (alpha + S / B).  Hop h of hops.csv is level
 * h's combination (up to 2^h workers). */
#include <stdlib.h>

#include "collectives/collective.h"

typedef struct tree_state {
  coll_ctx *ctx;
} tree_state;

static size_t tree_lo(void *arg, int chunk, size_t part) {
  (void)arg, (void)chunk, (void)part;
  return 0;
}

static void tree_run(coll_ctx *ctx) {
  const int N = ctx->nworkers;
  coll_global_max(ctx);
  int *ranks = coll_alloc(ctx, (size_t)N, sizeof *ranks, 0, "tree's ranks");
  coll_ring all = coll_all(ctx, ranks);
  tree_state st = {ctx};
  coll_bundle *mine = coll_bundle_new(ctx, 0, 1);
  mine->m[0] = coll_encode_own(ctx, 0, 0, ctx->n);
  coll_bundle *sum = coll_tree_reduce(ctx, &all, mine, tree_lo, &st, 0);
  if (sum) { /* the root: the sum over all N */
    coll_deliver(ctx, sum->m[0], 0, 1);
    coll_drop_shadows(sum->m[0]);
  }
  coll_bundle *b = coll_tree_bcast(ctx, &all, sum);
  if (ctx->rank != 0 && coll_deliver_all(ctx)) coll_deliver(ctx, b->m[0], 0, 0);
  coll_bundle_free(b);
  free(ranks);
}

static size_t tree_hops(int nworkers, const double *params) {
  (void)params;
  return (size_t)coll_ceil_log2(nworkers);
}

/* N - 1 whole tensors up, N - 1 down. */
static double tree_dense_bytes(size_t n, int nworkers, const double *params) {
  (void)params;
  return 2.0 * (nworkers - 1) * 4.0 * (double)n;
}

/* Whole payloads: every worker encodes the whole tensor at once, and a
 * parent holds its own with the one it receives. */
static double tree_footprint(size_t n, int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * (double)n;
}

/* One message up per worker but the root, one down per worker but the root. */
static double tree_messages(int nworkers, const double *params) {
  (void)params;
  return 2.0 * (nworkers - 1);
}

const collective_type coll_allreduce_tree = {
    .name = "allreduce/tree",
    .description = "binomial-tree reduce to worker 0 + binomial broadcast, whole payloads combined "
                   "at each level",
    .requires = COLL_NEEDS_SUMMABLE,
    .hops = tree_hops,
    .dense_bytes = tree_dense_bytes,
    .footprint = tree_footprint,
    .messages = tree_messages,
    .run = tree_run,
};
