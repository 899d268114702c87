/* src/collectives/torus2d.c — 2-D torus all-reduce (Marsit's TAR; the
 * hierarchical 2-D ring of Mikami et al. 2018 / Jia et al. 2018).
 *
 * The N workers form a grid of R rows and C columns, worker r at row r / C,
 * column r mod C (set `rows`; 0 picks the most square grid).  The tensor is
 * cut into R x C pieces; row chunk c is pieces c R .. c R + R - 1.
 *
 *   1. reduce-scatter along each row (a ring of C): C - 1 steps, each moving
 *      a row chunk (R pieces); worker (i, j) ends with row chunk (j + 1) mod C
 *      summed over its row;
 *   2. all-reduce along each column (a ring of R) of the R pieces of that
 *      row chunk: reduce-scatter (R - 1 steps), so worker (i, j) holds piece
 *      (i + 1) mod R of it summed over all N, then all-gather (R - 1 steps);
 *   3. all-gather along each row: C - 1 steps forwarding row chunks.
 *
 * A payload is combined C - 1 + R - 1 times instead of the ring's N - 1:
 * fewer hops for an error to cascade over (the point of TAR).  On a crossbar
 * rows and columns do not contend, and the time is
 *   2 (C - 1)(alpha + S / (C B)) + 2 (R - 1)(alpha + S / (N B)).
 * Hops 1 .. C-1 are the row combinations (h + 1 workers), hops C .. C+R-2
 * the column ones (C (h - C + 2) workers). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collectives/collective.h"

static const ccomp_param torus_params[] = {
    {"rows", CCOMP_INT, 0, 0, 1 << 20,
     "grid rows R (must divide the worker count); 0 = the most square grid"},
};

/* Rows of the grid for n workers: the parameter, or the largest divisor of
 * n not above sqrt(n). */
static int torus_rows(int n, const double *params) {
  int R = (int)params[0];
  if (R > 0) return R;
  R = 1;
  for (int d = 1; (long)d * d <= n; d++)
    if (n % d == 0) R = d;
  return R;
}

static int torus_check(int n, const double *params, ccsim_error *err) {
  const int R = torus_rows(n, params);
  if (n % R) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allreduce/torus2d: rows = %d does not divide %d workers; give collective.rows as a "
                      "divisor of the worker count, or 0 for the most square grid",
                      R, n);
  }
  if (R == 1 && n > 3 && params[0] == 0) {
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "allreduce/torus2d: %d workers form no 2-D grid (%d is prime); use allreduce/ring, or "
                      "set collective.rows = 1 to run the torus as one ring",
                      n, n);
  }
  return 0;
}

typedef struct torus {
  coll_ctx *ctx;
  int R, C, i, j;
  int cr;                 /* this worker's row chunk after phase 1 */
  coll_bundle *row_sum;   /* phase 2 input: its R pieces */
  coll_bundle *collected; /* phase 2 output: the R final pieces */
} torus;

static size_t piece_lo(const torus *t, int piece) {
  size_t lo, hi;
  coll_chunk(t->ctx->n, t->R * t->C, piece, &lo, &hi);
  return lo;
}

/* Phase 1: this worker's own pieces of row chunk c. */
static coll_bundle *row_own(void *arg, int c) {
  torus *t = arg;
  coll_bundle *b = coll_bundle_new(t->ctx, c, (size_t)t->R);
  for (int k = 0; k < t->R; k++) {
    const int piece = c * t->R + k;
    size_t lo, hi;
    coll_chunk(t->ctx->n, t->R * t->C, piece, &lo, &hi);
    b->m[k] = coll_encode_own(t->ctx, piece, lo, hi);
  }
  return b;
}

static size_t row_lo(void *arg, int c, size_t k) {
  torus *t = arg;
  return piece_lo(t, c * t->R + (int)k);
}

/* Phase 2: piece k of the row sum, handed over. */
static coll_bundle *col_own(void *arg, int k) {
  torus *t = arg;
  coll_bundle *b = coll_bundle_new(t->ctx, k, 1);
  b->m[0] = t->row_sum->m[k];
  t->row_sum->m[k] = NULL;
  return b;
}

static size_t col_lo(void *arg, int k, size_t part) {
  (void)part;
  torus *t = arg;
  return piece_lo(t, t->cr * t->R + k);
}

static void col_got(void *arg, const coll_bundle *b) {
  torus *t = arg;
  t->collected->m[b->chunk] = coll_msg_ref(b->m[0]);
  if (coll_deliver_all(t->ctx)) coll_deliver(t->ctx, b->m[0], col_lo(t, b->chunk, 0), 0);
}

static void row_got(void *arg, const coll_bundle *b) {
  torus *t = arg;
  if (!coll_deliver_all(t->ctx)) return;
  for (size_t k = 0; k < b->count; k++) coll_deliver(t->ctx, b->m[k], row_lo(t, b->chunk, k), 0);
}

static void torus_run(coll_ctx *ctx) {
  const int N = ctx->nworkers;
  torus t = {.ctx = ctx};
  t.R = torus_rows(N, ctx->params);
  t.C = N / t.R;
  t.i = ctx->rank / t.C;
  t.j = ctx->rank % t.C;
  coll_global_max(ctx);
  int *row = coll_alloc(ctx, (size_t)t.C, sizeof *row, 0, "torus2d's row"), *col = coll_alloc(ctx, (size_t)t.R, sizeof *col, 0, "torus2d's col");
  for (int k = 0; k < t.C; k++) row[k] = t.i * t.C + k;
  for (int k = 0; k < t.R; k++) col[k] = k * t.C + t.j;
  coll_ring rring = {.ranks = row, .size = t.C, .pos = t.j};
  coll_ring cring = {.ranks = col, .size = t.R, .pos = t.i};

  t.row_sum = coll_ring_reduce_scatter(ctx, &rring, row_own, row_lo, &t, 0);
  t.cr = t.row_sum->chunk;
  t.collected = coll_bundle_new(ctx, t.cr, (size_t)t.R);
  coll_bundle *mine = coll_ring_reduce_scatter(ctx, &cring, col_own, col_lo, &t, (size_t)(t.C - 1));
  coll_bundle_free(t.row_sum);
  /* mine: piece (i + 1) mod R of row chunk cr, summed over all N */
  coll_deliver(ctx, mine->m[0], col_lo(&t, mine->chunk, 0), 1);
  coll_drop_shadows(mine->m[0]);
  t.collected->m[mine->chunk] = coll_msg_ref(mine->m[0]);
  coll_ring_allgather(ctx, &cring, mine, col_got, &t);
  coll_ring_allgather(ctx, &rring, t.collected, row_got, &t);
  free(row);
  free(col);
}

static size_t torus_hops(int n, const double *params) {
  const int R = torus_rows(n, params), C = n / R;
  return (size_t)(C - 1 + R - 1);
}

static double torus_dense_bytes(size_t n, int N, const double *params) {
  const int R = torus_rows(N, params), C = N / R;
  const double S = 4.0 * (double)n;
  return N * (2.0 * (C - 1) * S / C + 2.0 * (R - 1) * S / N);
}

/* Rings of the rows over chunks of n / C (C = N / R columns): four such
 * chunks per worker, N 4 n / C = 4 n R in all. */
static double torus_footprint(size_t n, int N, const double *params) {
  return 4.0 * (double)n * torus_rows(N, params);
}

/* Row reduce-scatter and all-gather (C - 1 steps each, every worker), the
 * columns' ring all-reduce (2 (R - 1) steps, every worker). */
static double torus_messages(int N, const double *params) {
  const int R = torus_rows(N, params), C = N / (R > 0 ? R : 1);
  return 2.0 * N * (C - 1) + 2.0 * N * (R - 1);
}

const collective_type coll_allreduce_torus2d = {
    .name = "allreduce/torus2d",
    .description = "2-D torus all-reduce: ring reduce-scatter along rows, ring all-reduce along "
                   "columns, all-gather along rows (Marsit's TAR)",
    .requires = COLL_NEEDS_SUMMABLE,
    .params = torus_params,
    .nparams = sizeof torus_params / sizeof torus_params[0],
    .hops = torus_hops,
    .dense_bytes = torus_dense_bytes,
    .check = torus_check,
    .footprint = torus_footprint,
    .messages = torus_messages,
    .run = torus_run,
};
