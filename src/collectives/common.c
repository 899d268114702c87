/* src/collectives/common.c — what every collective shares: payload messages,
 * own encoding with its exact shadow, and error accumulation. */
#include <math.h>
#include <stdlib.h>

#include "collective.h"
#include "comm.h"
#include "rng.h"

void err_acc_add(err_acc *a, const float *y, const double *ref, size_t n, double ref_scale) {
  double e2 = 0, r2 = 0, o2 = 0, d = 0;
  for (size_t i = 0; i < n; i++) {
    double r = ref[i] * ref_scale, v = y[i];
    e2 += (v - r) * (v - r);
    r2 += r * r;
    o2 += v * v;
    d += v * r;
  }
  a->err2 += e2, a->ref2 += r2, a->out2 += o2, a->dot += d;
  a->count += 1;
}

double err_acc_rel(const err_acc *a) { return a->ref2 > 0 ? sqrt(a->err2 / a->ref2) : 0.0; }

double err_acc_cos(const err_acc *a) {
  return a->ref2 > 0 && a->out2 > 0 ? a->dot / sqrt(a->ref2 * a->out2) : 1.0;
}

comm_req *coll_isend(coll_ctx *ctx, int dst, void *msg, double bytes) {
  ctx->metrics->bytes += bytes;
  return comm_isend(ctx->rank, dst, msg, bytes);
}

void coll_msg_free(coll_msg *m) {
  if (!m) return;
  free(m->bytes);
  free(m->exact);
  free(m);
}

ccomp_call coll_call(const coll_ctx *ctx, size_t offset, uint64_t salt) {
  ccomp_call c = {
      .key = ccr_key(ctx->key, salt),
      .shared_key = ctx->shared_key,
      .offset = offset,
      .iteration = ctx->iteration,
      .global_max = ctx->global_max,
  };
  return c;
}

coll_msg *coll_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi) {
  size_t n = hi - lo;
  float *p = malloc((n ? n : 1) * sizeof *p);
  ctx->io.input(ctx->io.arg, lo, hi, p);
  coll_msg *m = calloc(1, sizeof *m);
  m->chunk = chunk;
  m->workers = 1;
  m->n = n;
  m->bytes = malloc(ccomp_max_wire_bytes(ctx->comp, n) + 1);
  ccomp_call call = coll_call(ctx, lo, 0);
  m->nbytes = ccomp_encode(ctx->comp, p, n, &call, m->bytes);
  m->exact = malloc((n ? n : 1) * sizeof *m->exact);
  for (size_t i = 0; i < n; i++) m->exact[i] = p[i];
  if (ctx->io.encoded) {
    float *own = NULL;
    if (ctx->io.wants_own) {
      own = malloc((n ? n : 1) * sizeof *own);
      ccomp_decode(ctx->comp, m->bytes, m->nbytes, n, 1, &call, own);
    }
    ctx->io.encoded(ctx->io.arg, lo, hi, p, own);
    free(own);
  }
  free(p);
  return m;
}
