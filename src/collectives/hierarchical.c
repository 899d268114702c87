/* src/collectives/hierarchical.c — two-level all-reduce for multi-GPU nodes:
 * reduce inside each node to its leader, ring all-reduce among the leaders,
 * broadcast inside each node.
 *
 *   node 0: w0 w1 w2 w3      node 1: w4 w5 w6 w7     (node_size G = 4)
 *           └─binomial─┘ leader w0     leader w4
 *                 w0 ◄──── ring over leaders ────► w4
 *           ┌─binomial─┐                               and back down
 *
 * Workers are placed on hosts in order, so with a multi-GPU platform the G
 * workers of a node are its G GPUs (node_size must divide N).  Inside a node
 * the whole tensor travels (cut into M = N / G pieces, one per leader-ring
 * chunk) over the fast intra-node fabric; between nodes, the ring moves
 * 1/M of it per step over the NICs.  Crossbar time, all links alike:
 *   2 ceil(log2 G)(alpha + S / B) + 2 (M - 1)(alpha + S / (M B)).
 * Hops 1 .. ceil(log2 G) are the in-node tree levels, then M - 1 ring hops. */
#include <stdio.h>
#include <stdlib.h>

#include "collectives/collective.h"

static const ccomp_param hier_params[] = {
    {"node_size", CCOMP_INT, 0, 0, 1 << 20,
     "workers per node (GPUs of one host group); 0 = the platform's gpus_per_node"},
};

static int hier_check(int n, const double *params, ccsim_error *err) {
  const int G = (int)params[0];
  if (G < 1) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allreduce/hierarchical needs collective.node_size (workers per node), or a "
                      "generated multigpu platform that sets it");
  }
  if (n % G) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allreduce/hierarchical: node_size %d does not divide %d workers; give a divisor", G,
                      n);
  }
  return 0;
}

typedef struct hier {
  coll_ctx *ctx;
  int G, M;
  coll_bundle *node_sum; /* the leader's: M pieces summed over its node */
  coll_bundle *all;      /* the M final pieces */
} hier;

static size_t piece_lo(const hier *h, int piece) {
  size_t lo, hi;
  coll_chunk(h->ctx->n, h->M, piece, &lo, &hi);
  return lo;
}

/* In the node, one bundle carries all M pieces; on the leader ring, bundle
 * c carries piece c. */
static size_t tree_lo(void *arg, int chunk, size_t part) {
  (void)chunk;
  return piece_lo(arg, (int)part);
}

static size_t hier_lo(void *arg, int chunk, size_t part) {
  (void)part;
  return piece_lo(arg, chunk);
}

/* Leader ring chunk c: piece c of the node sum, handed over. */
static coll_bundle *leader_own(void *arg, int c) {
  hier *h = arg;
  coll_bundle *b = coll_bundle_new(h->ctx, c, 1);
  b->m[0] = h->node_sum->m[c];
  h->node_sum->m[c] = NULL;
  return b;
}

static void leader_got(void *arg, const coll_bundle *b) {
  hier *h = arg;
  h->all->m[b->chunk] = coll_msg_ref(b->m[0]);
  if (coll_deliver_all(h->ctx)) coll_deliver(h->ctx, b->m[0], hier_lo(h, b->chunk, 0), 0);
}

static void hier_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank;
  hier h = {.ctx = ctx, .G = (int)ctx->params[0]};
  h.M = N / h.G;
  const int node = r / h.G, local = r % h.G;
  coll_global_max(ctx);
  int *members = coll_alloc(ctx, (size_t)h.G, sizeof *members, 0, "hierarchical's members"), *leaders = coll_alloc(ctx, (size_t)h.M, sizeof *leaders, 0, "hierarchical's leaders");
  for (int k = 0; k < h.G; k++) members[k] = node * h.G + k;
  for (int k = 0; k < h.M; k++) leaders[k] = k * h.G;
  coll_ring in_node = {.ranks = members, .size = h.G, .pos = local};
  coll_ring ring = {.ranks = leaders, .size = h.M, .pos = node};

  /* 1. reduce inside the node; parts are the M leader-ring chunks */
  coll_bundle *mine = coll_bundle_new(ctx, 0, (size_t)h.M);
  for (int c = 0; c < h.M; c++) {
    size_t lo, hi;
    coll_chunk(ctx->n, h.M, c, &lo, &hi);
    mine->m[c] = coll_encode_own(ctx, c, lo, hi);
  }
  const size_t tree_hops = (size_t)coll_ceil_log2(h.G);
  coll_bundle *sum = coll_tree_reduce(ctx, &in_node, mine, tree_lo, &h, 0);
  coll_bundle *all = NULL;
  if (local == 0) {
    /* 2. ring all-reduce among the leaders */
    h.node_sum = sum;
    h.all = coll_bundle_new(ctx, 0, (size_t)h.M);
    coll_bundle *fin = coll_ring_reduce_scatter(ctx, &ring, leader_own, hier_lo, &h, tree_hops);
    coll_bundle_free(h.node_sum);
    h.node_sum = NULL;
    coll_deliver(ctx, fin->m[0], hier_lo(&h, fin->chunk, 0), 1);
    coll_drop_shadows(fin->m[0]);
    h.all->m[fin->chunk] = coll_msg_ref(fin->m[0]);
    coll_ring_allgather(ctx, &ring, fin, leader_got, &h);
    all = h.all;
  }
  /* 3. broadcast inside the node */
  all = coll_tree_bcast(ctx, &in_node, all);
  if (local != 0 && coll_deliver_all(ctx))
    for (int c = 0; c < h.M; c++) coll_deliver(ctx, all->m[c], piece_lo(&h, c), 0);
  coll_bundle_free(all);
  free(members);
  free(leaders);
}

static size_t hier_hops(int n, const double *params) {
  const int G = (int)params[0];
  return (size_t)coll_ceil_log2(G) + (size_t)(n / G - 1);
}

static double hier_dense_bytes(size_t n, int N, const double *params) {
  const int G = (int)params[0], M = N / G;
  const double S = 4.0 * (double)n;
  return 2.0 * M * (G - 1) * S + 2.0 * (M - 1) * S;
}

/* The binomial reduce inside a node moves whole payloads (tree.c's). */
static double hier_footprint(size_t n, int N, const double *params) {
  (void)params;
  return (double)N * (double)n;
}

/* Per node of G workers, G - 1 messages up and G - 1 down; the ring of the
 * M = N / G leaders, 2 M (M - 1). */
static double hier_messages(int N, const double *params) {
  const int G = (int)params[0];
  if (G < 1) return 0;
  const double M = N / G;
  return 2.0 * M * (G - 1) + 2.0 * M * (M - 1);
}

const collective_type coll_allreduce_hierarchical = {
    .name = "allreduce/hierarchical",
    .description = "binomial reduce inside each node, ring all-reduce among node leaders, "
                   "binomial broadcast inside each node",
    .requires = COLL_NEEDS_SUMMABLE,
    .params = hier_params,
    .nparams = sizeof hier_params / sizeof hier_params[0],
    .hops = hier_hops,
    .dense_bytes = hier_dense_bytes,
    .check = hier_check,
    .footprint = hier_footprint,
    .messages = hier_messages,
    .run = hier_run,
};
