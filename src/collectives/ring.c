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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "comm.h"

static float global_max(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
  float m = 0;
  size_t lo, hi;
  for (int c = 0; c < N; c++) {
    coll_chunk(ctx->n, N, c, &lo, &hi);
    float *p = malloc((hi - lo + 1) * sizeof *p);
    ctx->io.input(ctx->io.arg, lo, hi, p);
    float s = ctx->comp->type->local_stat(ctx->comp->state, p, hi - lo);
    if (s > m) m = s;
    free(p);
  }
  for (int s = 0; s < N - 1; s++) {
    float *out = malloc(sizeof *out);
    *out = m;
    comm_req *req = coll_isend(ctx, next, out, sizeof(float));
    float *in = comm_recv(prev, r);
    if (*in > m) m = *in;
    free(in);
    comm_wait(req);
  }
  return m;
}

static void ring_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
  ctx->global_max = 0;
  if (ctx->comp->type->flags & CCOMP_GLOBAL_MAX) ctx->global_max = global_max(ctx);
  size_t lo, hi, maxchunk = ctx->n / (size_t)N + 1;
  float *y = malloc(maxchunk * sizeof *y);

  coll_msg *hold = NULL; /* the partial aggregate this rank sends next */
  if (N == 1) {
    coll_chunk(ctx->n, 1, 0, &lo, &hi);
    hold = coll_encode_own(ctx, 0, lo, hi);
  }
  for (int s = 0; s < N - 1; s++) {
    if (s == 0) {
      int c = r;
      coll_chunk(ctx->n, N, c, &lo, &hi);
      hold = coll_encode_own(ctx, c, lo, hi);
    }
    comm_req *req = coll_isend(ctx, next, hold, (double)hold->nbytes);
    coll_msg *in = comm_recv(prev, r);
    const int c = in->chunk;
    coll_chunk(ctx->n, N, c, &lo, &hi);
    coll_msg *own = coll_encode_own(ctx, c, lo, hi);
    ccomp_call call = coll_call(ctx, lo, 1 + (uint64_t)s);
    coll_msg *sum = calloc(1, sizeof *sum);
    sum->chunk = c;
    sum->n = in->n;
    sum->workers = in->workers + 1;
    sum->bytes = malloc(ccomp_max_wire_bytes(ctx->comp, in->n) + 1);
    sum->nbytes = ccomp_combine(ctx->comp, in->bytes, in->nbytes, in->workers, own->bytes,
                                own->nbytes, 1, in->n, &call, sum->bytes);
    sum->exact = in->exact;
    in->exact = NULL;
    for (size_t i = 0; i < sum->n; i++) sum->exact[i] += own->exact[i];
    ccomp_decode(ctx->comp, sum->bytes, sum->nbytes, sum->n, sum->workers, &call, y);
    err_acc_add(&ctx->metrics->hops[s], y, sum->exact, sum->n, 1.0);
    ctx->metrics->hops[s].workers = sum->workers;
    coll_msg_free(in);
    coll_msg_free(own);
    comm_wait(req); /* `hold` now belongs to the receiver */
    hold = sum;
  }
  /* hold: chunk (r + 1) mod N summed over all N workers. */
  coll_chunk(ctx->n, N, hold->chunk, &lo, &hi);
  {
    ccomp_call call = coll_call(ctx, lo, 0xF1);
    ccomp_decode(ctx->comp, hold->bytes, hold->nbytes, hold->n, hold->workers, &call, y);
    ccomp_finish(ctx->comp, y, hold->n, hold->workers);
    err_acc_add(&ctx->metrics->final, y, hold->exact, hold->n, 1.0 / N);
    ctx->metrics->final.workers = hold->workers;
    memcpy(ctx->out + lo, y, hold->n * sizeof *y);
    free(hold->exact);
    hold->exact = NULL;
  }
  for (int s = 0; s < N - 1; s++) {
    comm_req *req = coll_isend(ctx, next, hold, (double)hold->nbytes);
    coll_msg *in = comm_recv(prev, r);
    if (!ctx->out_shared) {
      coll_chunk(ctx->n, N, in->chunk, &lo, &hi);
      ccomp_call call = coll_call(ctx, lo, 0xF1);
        ccomp_decode(ctx->comp, in->bytes, in->nbytes, in->n, in->workers, &call, ctx->out + lo);
      ccomp_finish(ctx->comp, ctx->out + lo, in->n, in->workers);
    }
    comm_wait(req);
    hold = in; /* forwarded unchanged at the next step */
  }
  /* Nobody forwards the last payload received (or, with one worker, our own). */
  coll_msg_free(hold);
  free(y);
}

static size_t ring_hops(int nworkers) { return nworkers > 1 ? (size_t)nworkers - 1 : 0; }

/* Uncompressed, every step moves each of the N chunks once: n elements. */
static double ring_dense_bytes(size_t n, int nworkers) {
  return 2.0 * (nworkers - 1) * 4.0 * (double)n;
}

const collective_type coll_allreduce_ring = {
    .name = "allreduce/ring",
    .description = "ring all-reduce: reduce-scatter + all-gather, payloads combined hop by hop",
    .requires = COLL_NEEDS_SUMMABLE,
    .hops = ring_hops,
    .dense_bytes = ring_dense_bytes,
    .check = NULL,
    .run = ring_run,
};
