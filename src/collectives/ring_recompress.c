/* src/collectives/ring_recompress.c — the ring all-reduce that decodes, adds
 * and re-encodes at every hop: the cascading-compression case.
 *
 *   hop:   decode(in) + p_self  ──encode──►  next
 *
 * Same ring, same chunks and same steps as allreduce/ring, so any compressor
 * runs on it: at reduce-scatter step s a worker decodes the partial
 * aggregate it received (a sum over s + 1 workers), adds its own input for
 * that chunk in fp32, and encodes the sum afresh; the payload it sends on is
 * a new encoding of a float sum, so decode() is told it represents one
 * "worker" (for the compressor it is one tensor) while hops.csv counts the
 * workers it really sums.  Every re-encoding loses information again: that
 * is the error hops.csv shows growing hop by hop.  The all-gather forwards
 * the final payloads unchanged, as in allreduce/ring, and finish() turns
 * the decoded sum over N into the aggregate (the mean, or the majority
 * vote's sign).
 *
 * Error feedback: a worker encodes every element range exactly once per
 * iteration (its own chunk alone at step 0, the others as partial sums), and
 * its memory is told what it encoded and what that decodes to: the
 * compression error of a partial sum is kept by the worker that made it and
 * fed back into its next gradient ("hop-wise" error feedback).  The total
 * error the ring drops is therefore carried forward, not lost.
 *
 * Time: as allreduce/ring, with the bytes each re-encoding produces. */
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"

/* The arithmetic of recompress (comm_work: this worker's compressor,
 * memory and scratch, the payload it received and the new one). */
typedef struct recompress_work {
  coll_ctx *ctx;
  coll_msg *in, *out;
  size_t lo, hi;
  uint64_t salt;
  float *y, *p;
  uint8_t *alone; /* measuring the ideal shadow: scratch allocated on the actor */
  float *own;
} recompress_work;

static void recompress_work_run(void *arg, int thread) {
  (void)thread;
  recompress_work *k = arg;
  coll_ctx *ctx = k->ctx;
  coll_msg *in = k->in, *out = k->out;
  const size_t lo = k->lo, hi = k->hi, n = hi - lo;
  float *y = k->y, *p = k->p;
  ccomp_call dcall = coll_call(ctx, lo, k->salt);
  ccomp_decode(ctx->comp, in->bytes, in->nbytes, n, in->enc_workers, &dcall, y);
  if (out->ideal) {
    /* this worker's payload had it encoded p alone: the one-hop reference
     * (an extra encode, measurement only; stateless compressors only) */
    uint8_t *alone = k->alone;
    float *own = k->own;
    ccomp_call acall = coll_call(ctx, lo, k->salt ^ 0xA1043);
    size_t nb = ccomp_encode(ctx->comp, p, n, &acall, alone);
    ccomp_decode(ctx->comp, alone, nb, n, 1, &acall, own);
    for (size_t i = 0; i < n; i++) out->ideal[i] += own[i];
  }
  for (size_t i = 0; i < n; i++) {
    out->exact[i] += p[i];
    y[i] += p[i];
  }
  ccomp_call ecall = coll_call(ctx, lo, k->salt ^ 0xE0C0DE);
  coll_cover(ctx, &ecall, y, n);
  out->nbytes = ccomp_encode(ctx->comp, y, n, &ecall, out->bytes);
  if (ctx->io.encoded) {
    /* p := what the memory is told was encoded; y := what it decodes to */
    memcpy(p, y, n * sizeof *p);
    ccomp_decode(ctx->comp, out->bytes, out->nbytes, n, 1, &ecall, y);
    ctx->io.encoded(ctx->io.arg, lo, hi, p, ctx->io.wants_own ? y : NULL);
  }
}

coll_msg *coll_recompress(coll_ctx *ctx, coll_msg *in, size_t lo, size_t hi, uint64_t salt,
                            float *y, float *p) {
  const size_t n = hi - lo;
  if (ctx->io.device) {
    ctx->io.device(ctx->io.arg, CCOMP_DECODE, n);
    ctx->io.device(ctx->io.arg, CCOMP_ENCODE, n);
  }
  ctx->io.input(ctx->io.arg, lo, hi, p);
  coll_msg *out = coll_msg_new(ctx, in->chunk, in->workers + 1, n, 0);
  out->enc_workers = 1;
  out->exact = in->exact; /* the receiver owns in: take its shadows */
  in->exact = NULL;
  out->ideal = in->ideal;
  in->ideal = NULL;
  recompress_work k = {ctx, in, out, lo, hi, salt, y, p, NULL, NULL};
  if (out->ideal) { /* allocated here, where a failure can stop the run */
    k.alone = coll_alloc(ctx, ccomp_max_wire_bytes(ctx->comp, n) + 1, 1, 0, "ring-recompress's lone payload");
    k.own = coll_alloc(ctx, n + 1, sizeof *k.own, 0, "ring-recompress's own decoded payload");
  }
  comm_work(recompress_work_run, &k, n);
  free(k.alone);
  free(k.own);
  coll_msg_free(in);
  return out;
}

static void rr_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank, next = (r + 1) % N, prev = (r + N - 1) % N;
  coll_global_max(ctx);
  /* A partial sum over k workers can reach k times the largest input, so a
   * compressor that quantizes against a global max (Global-QSGD) is given
   * N times it: the bound every re-encoding can use, at log2 N bits of
   * resolution, the price of recompressing such a format. */
  ctx->global_max *= (float)N;
  size_t lo, hi, maxchunk = ctx->n / (size_t)N + 2;
  float *y = coll_alloc(ctx, maxchunk, sizeof *y, 0, "ring-recompress's y"), *p = coll_alloc(ctx, maxchunk, sizeof *p, 0, "ring-recompress's p");
  coll_chunk(ctx->n, N, r, &lo, &hi);
  coll_msg *hold = coll_encode_own(ctx, r, lo, hi);
  for (int s = 0; s < N - 1; s++) {
    comm_req *req = coll_isend(ctx, next, hold, coll_msg_charge(ctx, hold));
    coll_msg *in = comm_recv(prev, r);
    coll_chunk(ctx->n, N, in->chunk, &lo, &hi);
    coll_msg *sum = coll_recompress(ctx, in, lo, hi, 1 + (uint64_t)s, y, p);
    coll_measure(ctx, (size_t)s, sum, lo, 0xF1, y);
    comm_wait(req);
    hold = sum;
  }
  /* hold: chunk (r + 1) mod N summed over all N workers. */
  coll_chunk(ctx->n, N, hold->chunk, &lo, &hi);
  coll_deliver(ctx, hold, lo, 1);
  coll_drop_shadows(hold);
  for (int s = 0; s < N - 1; s++) {
    comm_req *req = coll_isend(ctx, next, hold, coll_msg_charge(ctx, hold));
    coll_msg *in = comm_recv(prev, r);
    if (!ctx->out_shared) {
      coll_chunk(ctx->n, N, in->chunk, &lo, &hi);
      coll_deliver(ctx, in, lo, 0);
    }
    comm_wait(req);
    hold = in;
  }
  coll_msg_free(hold);
  free(y);
  free(p);
}

static size_t rr_hops(int nworkers, const double *params) {
  (void)params;
  return nworkers > 1 ? (size_t)nworkers - 1 : 0;
}

static double rr_dense_bytes(size_t n, int nworkers, const double *params) {
  (void)params;
  return 2.0 * (nworkers - 1) * 4.0 * (double)n;
}

/* The ring's chunks of n / N (ring.c), one more re-encoded at each hop. */
static double rr_footprint(size_t n, int nworkers, const double *params) {
  (void)params;
  return 4.0 * (double)n + (double)n / (nworkers > 0 ? nworkers : 1);
}

/* The ring's: 2 (N - 1) steps, one message per worker each. */
static double rr_messages(int nworkers, const double *params) {
  (void)params;
  return 2.0 * nworkers * (nworkers - 1);
}

const collective_type coll_allreduce_ring_recompress = {
    .name = "allreduce/ring-recompress",
    .description = "ring all-reduce that decodes, adds and re-encodes at every hop (cascading "
                   "compression); any compressor",
    .requires = 0,
    .hops = rr_hops,
    .dense_bytes = rr_dense_bytes,
    .footprint = rr_footprint,
    .messages = rr_messages,
    .run = rr_run,
};
