/* src/collectives/rhd.c — recursive halving (reduce-scatter) and recursive
 * doubling (all-gather), Rabenseifner's all-reduce as MPICH implements it.
 *
 * With P = N a power of two, the tensor is cut into P chunks.  Halving: at
 * step k (distance d = P/2, P/4, .., 1) worker r swaps half of the chunks it
 * is still responsible for with r XOR d (it keeps the lower half when its
 * bit d is clear, the upper half otherwise) and combines what it receives
 * with its own; after log2 P steps worker r holds chunk r summed over all.
 * Doubling retraces the steps (d = 1, 2, .., P/2), swapping everything held,
 * forwarded unchanged.  Crossbar time: 2 log2(P) alpha + 2 (P-1)/P S / B.
 *
 * N not a power of two (MPICH's way): let P be the largest power of two
 * below N and R = N - P.  Among the first 2R workers, each even one sends
 * its whole tensor to the odd one after it, which combines (one extra hop)
 * and takes part as worker r/2; workers from 2R on take part as r - R.  At
 * the end each odd worker sends the whole result back to its even partner.
 * This adds 2 (alpha + S / B).
 *
 * Hop h of hops.csv is the h-th combination a payload goes through (the
 * extra first one when N is not a power of two, then one per halving step). */
#include <stdlib.h>

#include "collectives/collective.h"
#include "comm/comm.h"

typedef struct rhd {
  coll_ctx *ctx;
  int P, R;
  int vrank; /* rank among the P, or -1 for an even worker of the first 2R */
  float *y;
  size_t cap;
} rhd;

static int real_rank(const rhd *s, int v) { return v < s->R ? 2 * v + 1 : v + s->R; }

static size_t chunk_lo(const rhd *s, int c) {
  size_t lo, hi;
  coll_chunk(s->ctx->n, s->P, c, &lo, &hi);
  return lo;
}

static float *scratch(rhd *s, size_t n) {
  if (n + 1 > s->cap) {
    free(s->y);
    s->cap = n + 1;
    s->y = coll_alloc(s->ctx, s->cap, sizeof *s->y, 0, "rhd's decode buffer");
  }
  return s->y;
}

/* held[c0 .. c1) += in (chunks from in->chunk), measured as hop h. */
static void absorb(rhd *s, coll_msg **held, coll_bundle *in, size_t h) {
  coll_ctx *ctx = s->ctx;
  for (size_t k = 0; k < in->count; k++) {
    const int c = in->chunk + (int)k;
    const size_t lo = chunk_lo(s, c);
    float *y = h < ctx->metrics->nhops ? scratch(s, held[c]->n) : NULL;
    held[c] = coll_combine_measure(ctx, held[c], in->m[k], lo, 1 + (uint64_t)h, h, y);
    in->m[k] = NULL;
  }
  coll_bundle_free(in);
}

/* A bundle of held[c0 .. c1): moved out when `move`, else shared. */
static coll_bundle *pack(const coll_ctx *ctx, coll_msg **held, int c0, int c1, int move) {
  coll_bundle *b = coll_bundle_new(ctx, c0, (size_t)(c1 - c0));
  for (int c = c0; c < c1; c++) {
    b->m[c - c0] = move ? held[c] : coll_msg_ref(held[c]);
    if (move) held[c] = NULL;
  }
  return b;
}

static void rhd_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank;
  rhd s = {.ctx = ctx};
  s.P = 1;
  while (s.P * 2 <= N) s.P *= 2;
  s.R = N - s.P;
  s.vrank = r < 2 * s.R ? (r % 2 ? r / 2 : -1) : r - s.R;
  coll_global_max(ctx);

  coll_msg **held = coll_alloc(ctx, (size_t)s.P, sizeof *held, 1, "rhd's held");
  for (int c = 0; c < s.P; c++) {
    size_t lo, hi;
    coll_chunk(ctx->n, s.P, c, &lo, &hi);
    held[c] = coll_encode_own(ctx, c, lo, hi);
  }
  size_t h = 0;
  if (s.R > 0) {
    if (r < 2 * s.R && r % 2 == 0) { /* hand everything to r + 1, wait for the result */
      coll_bundle *out = pack(ctx, held, 0, s.P, 1);
      comm_wait(coll_isend(ctx, r + 1, out, coll_bundle_charge(ctx, out)));
    } else if (r < 2 * s.R) {
      absorb(&s, held, comm_recv(r - 1, r), h);
    }
    h++;
  }
  if (s.vrank >= 0) {
    const int v = s.vrank;
    int c0 = 0, c1 = s.P;
    for (int d = s.P / 2; d >= 1; d /= 2, h++) {
      const int partner = real_rank(&s, v ^ d), mid = (c0 + c1) / 2;
      int k0, k1; /* the half sent away */
      if (v & d) k0 = c0, k1 = mid, c0 = mid;
      else k0 = mid, k1 = c1, c1 = mid;
      coll_bundle *out = pack(ctx, held, k0, k1, 1);
      comm_req *req = coll_isend(ctx, partner, out, coll_bundle_charge(ctx, out));
      absorb(&s, held, comm_recv(partner, r), h);
      comm_wait(req);
    }
    /* held[v]: chunk v summed over all N */
    coll_deliver(ctx, held[v], chunk_lo(&s, v), 1);
    coll_drop_shadows(held[v]);
    for (int d = 1; d < s.P; d *= 2) {
      const int partner = real_rank(&s, v ^ d);
      const int mine0 = v & ~(d - 1), theirs0 = (v ^ d) & ~(d - 1);
      coll_bundle *out = pack(ctx, held, mine0, mine0 + d, 0);
      comm_req *req = coll_isend(ctx, partner, out, coll_bundle_charge(ctx, out));
      coll_bundle *in = comm_recv(partner, r);
      for (size_t k = 0; k < in->count; k++) {
        const int c = theirs0 + (int)k;
        held[c] = in->m[k];
        in->m[k] = NULL;
        if (coll_deliver_all(ctx)) coll_deliver(ctx, held[c], chunk_lo(&s, c), 0);
      }
      coll_bundle_free(in);
      comm_wait(req);
    }
    if (s.R > 0 && r < 2 * s.R) { /* odd: the result back to r - 1 */
      coll_bundle *out = pack(ctx, held, 0, s.P, 0);
      comm_wait(coll_isend(ctx, r - 1, out, coll_bundle_charge(ctx, out)));
    }
  } else {
    coll_bundle *in = comm_recv(r + 1, r);
    for (size_t k = 0; k < in->count; k++) {
      held[k] = in->m[k];
      in->m[k] = NULL;
      if (coll_deliver_all(ctx)) coll_deliver(ctx, held[k], chunk_lo(&s, (int)k), 0);
    }
    coll_bundle_free(in);
  }
  for (int c = 0; c < s.P; c++) coll_msg_free(held[c]);
  free(held);
  free(s.y);
}

static int pow2_floor(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

static size_t rhd_hops(int nworkers, const double *params) {
  (void)params;
  const int P = pow2_floor(nworkers);
  return (size_t)coll_ceil_log2(P) + (nworkers > P);
}

static double rhd_dense_bytes(size_t n, int nworkers, const double *params) {
  (void)params;
  const int P = pow2_floor(nworkers), R = nworkers - P;
  return 4.0 * (double)n * (2.0 * (P - 1) + 2.0 * R);
}

/* Every worker encodes all its chunks first and swaps half of the tensor
 * at the first halving step (the whole tensor in the pre step when N is no
 * power of two): the whole tensor per worker. */
static double rhd_footprint(size_t n, int nworkers, const double *params) {
  (void)params;
  return (double)nworkers * (double)n;
}

/* With P the largest power of two <= N: log2 P halving and log2 P doubling
 * steps of P messages, and the pre and post steps' N - P each. */
static double rhd_messages(int nworkers, const double *params) {
  (void)params;
  int P = 1, l = 0;
  while (2 * P <= nworkers) P *= 2, l++;
  return 2.0 * P * l + 2.0 * (nworkers - P);
}

const collective_type coll_allreduce_rhd = {
    .name = "allreduce/rhd",
    .description = "recursive halving reduce-scatter + recursive doubling all-gather "
                   "(Rabenseifner; any N, MPICH's pre/post step when not a power of two)",
    .requires = COLL_NEEDS_SUMMABLE,
    .hops = rhd_hops,
    .dense_bytes = rhd_dense_bytes,
    .footprint = rhd_footprint,
    .messages = rhd_messages,
    .run = rhd_run,
};
