/* src/collectives/sparcml.c — a sparse all-reduce in the style of SparCML
 * (Renggli et al., SC'19, "SparCML: High-Performance Sparse Communication
 * for Machine Learning"): recursive doubling over sparse (index, value)
 * sets that are merged at every step, switching to a dense representation
 * once the merged set is denser than the break-even (SparCML's SSAR
 * recursive-doubling algorithm with its switch to dense, DSAR).
 *
 * What is reduced is each worker's decode(encode(p)): with `none` the raw
 * gradient (SparCML on naturally sparse gradients, e.g. an embedding's),
 * with `topk` SparCML's Top-k SGD.  The compressor decides the values; the
 * collective decides the wire format, which is its own:
 *
 *   sparse:  u32 k, then k u32 indices (ascending), then k fp32 values
 *            (4 + 8k bytes);
 *   dense:   u32 0xFFFFFFFF, then n fp32 values (4 + 4n bytes).
 *
 * A set goes dense when its sparse form would be larger than dense_at x the
 * dense one (dense_at = 1: the byte break-even 8k > 4n, SparCML's delta);
 * once dense it stays dense.  Zeros that a sum cancels exactly stay in the
 * index set (as in SparCML, which merges index sets).
 *
 * P = the largest power of two <= N, R = N - P (MPICH's way, as rhd.c):
 * among the first 2R workers each even one sends its set to the odd one
 * after it, which merges and takes part as worker r/2; workers from 2R on
 * take part as r - R.  Recursive doubling: at step j worker v swaps its
 * whole set with v XOR 2^j and merges; after log2 P steps every one holds
 * the sum.  Odd workers of the first 2R send it back to their even partner.
 * a + b == b + a in IEEE arithmetic, so both partners of a step compute
 * the same bits and every worker ends with the same sum.
 *
 * Dense input (every entry non-zero) costs P log2(P) (4 + 4n) + 2R (4 + 4n)
 * bytes: more than a ring (recursive doubling moves the whole vector at
 * every step); SparCML pays that to gain on sparse sets.  No hops.csv: the
 * merge is exact fp32 addition; the final error against the exact mean is
 * measured. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"

#define SP_DENSE 0xFFFFFFFFu

static const ccomp_param sparcml_params[] = {
    {"dense_at", CCOMP_REAL, 1.0, 0.0, 1.0,
     "go dense when the sparse form exceeds this share of the dense one's bytes (1: break-even)"},
};

/* A set: dense (val[n]) or sparse (idx[k], val[k], idx ascending). */
typedef struct spset {
  int dense;
  size_t k;
  uint32_t *idx;
  float *val;
} spset;

/* A message on the wire: its bytes. */
typedef struct spwire {
  size_t nbytes;
  uint8_t *bytes;
} spwire;

static void spset_clear(spset *s) {
  free(s->idx);
  free(s->val);
  memset(s, 0, sizeof *s);
}

/* Whether a sparse set of k entries of n goes dense under dense_at. */
static int too_dense(size_t k, size_t n, double dense_at) {
  if (n >= SP_DENSE) return 1; /* u32 indices cannot address it: dense only */
  return 4.0 + 8.0 * (double)k > dense_at * (4.0 + 4.0 * (double)n);
}

static void to_dense(const coll_ctx *ctx, spset *s, size_t n) {
  float *d = coll_alloc(ctx, n + 1, sizeof *d, 1, "sparcml's d");
  for (size_t j = 0; j < s->k; j++) d[s->idx[j]] = s->val[j];
  free(s->idx);
  free(s->val);
  s->idx = NULL;
  s->val = d;
  s->k = n;
  s->dense = 1;
}

/* The set of the non-zeros of y[0 .. n). */
static void spset_from(const coll_ctx *ctx, spset *s, const float *y, size_t n, double dense_at) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += y[i] != 0.0f;
  memset(s, 0, sizeof *s);
  if (too_dense(k, n, dense_at)) {
    s->dense = 1;
    s->k = n;
    s->val = coll_alloc(ctx, n + 1, sizeof *s->val, 0, "sparcml's val");
    memcpy(s->val, y, n * sizeof *y);
    return;
  }
  s->k = k;
  s->idx = coll_alloc(ctx, k + 1, sizeof *s->idx, 0, "sparcml's idx");
  s->val = coll_alloc(ctx, k + 1, sizeof *s->val, 0, "sparcml's val");
  for (size_t i = 0, j = 0; i < n; i++)
    if (y[i] != 0.0f) s->idx[j] = (uint32_t)i, s->val[j++] = y[i];
}

/* The wire form of s (a new message). */
static spwire *spset_encode(const coll_ctx *ctx, const spset *s, size_t n) {
  spwire *w = coll_alloc(ctx, 1, sizeof *w, 0, "sparcml's w");
  const uint32_t head = s->dense ? SP_DENSE : (uint32_t)s->k;
  w->nbytes = s->dense ? 4 + 4 * n : 4 + 8 * s->k;
  w->bytes = coll_alloc(ctx, w->nbytes, 1, 0, "sparcml's wire bytes");
  memcpy(w->bytes, &head, 4);
  if (s->dense) {
    memcpy(w->bytes + 4, s->val, 4 * n);
  } else {
    memcpy(w->bytes + 4, s->idx, 4 * s->k);
    memcpy(w->bytes + 4 + 4 * s->k, s->val, 4 * s->k);
  }
  return w;
}

/* The set a message carries (consumes it). */
static void spset_decode(const coll_ctx *ctx, spset *s, spwire *w, size_t n) {
  uint32_t head;
  memcpy(&head, w->bytes, 4);
  memset(s, 0, sizeof *s);
  if (head == SP_DENSE) {
    s->dense = 1;
    s->k = n;
    s->val = coll_alloc(ctx, n + 1, sizeof *s->val, 0, "sparcml's val");
    memcpy(s->val, w->bytes + 4, 4 * n);
  } else {
    s->k = head;
    s->idx = coll_alloc(ctx, s->k + 1, sizeof *s->idx, 0, "sparcml's idx");
    s->val = coll_alloc(ctx, s->k + 1, sizeof *s->val, 0, "sparcml's val");
    memcpy(s->idx, w->bytes + 4, 4 * s->k);
    memcpy(s->val, w->bytes + 4 + 4 * s->k, 4 * s->k);
  }
  free(w->bytes);
  free(w);
}

/* a = a + b (b cleared): a sorted merge of two sparse sets, or a dense sum;
 * goes dense when the union passes the break-even. */
static void spset_merge(const coll_ctx *ctx, spset *a, spset *b, size_t n, double dense_at) {
  if (!a->dense && !b->dense) {
    uint32_t *idx = coll_alloc(ctx, a->k + b->k + 1, sizeof *idx, 0, "sparcml's idx");
    float *val = coll_alloc(ctx, a->k + b->k + 1, sizeof *val, 0, "sparcml's val");
    size_t i = 0, j = 0, k = 0;
    while (i < a->k || j < b->k) {
      if (j == b->k || (i < a->k && a->idx[i] < b->idx[j])) idx[k] = a->idx[i], val[k++] = a->val[i++];
      else if (i == a->k || b->idx[j] < a->idx[i]) idx[k] = b->idx[j], val[k++] = b->val[j++];
      else idx[k] = a->idx[i], val[k++] = a->val[i++] + b->val[j++];
    }
    spset_clear(a);
    spset_clear(b);
    a->idx = idx, a->val = val, a->k = k;
    if (too_dense(k, n, dense_at)) to_dense(ctx, a, n);
    return;
  }
  if (!a->dense) to_dense(ctx, a, n);
  if (b->dense) {
    for (size_t i = 0; i < n; i++) a->val[i] += b->val[i];
  } else {
    for (size_t j = 0; j < b->k; j++) a->val[b->idx[j]] += b->val[j];
  }
  spset_clear(b);
}

/* Send s to dst (a copy on the wire), receive the partner's set from src. */
static void swap_merge(coll_ctx *ctx, spset *s, int dst, int src, double dense_at) {
  spwire *w = spset_encode(ctx, s, ctx->n);
  comm_req *req = coll_isend(ctx, dst, w, coll_scale_charge(ctx, w->nbytes));
  spset in;
  spset_decode(ctx, &in, comm_recv(src, ctx->rank), ctx->n);
  spset_merge(ctx, s, &in, ctx->n, dense_at);
  comm_wait(req);
}

static void sparcml_run(coll_ctx *ctx) {
  const int N = ctx->nworkers, r = ctx->rank;
  const size_t n = ctx->n;
  const double dense_at = ctx->params[0];
  int P = 1;
  while (P * 2 <= N) P *= 2;
  const int R = N - P;
  const int vrank = r < 2 * R ? (r % 2 ? r / 2 : -1) : r - R;

  float *y = coll_alloc(ctx, n + 1, sizeof *y, 0, "sparcml's y");
  coll_own_dense(ctx, y);
  spset s;
  spset_from(ctx, &s, y, n, dense_at);
  free(y);

  if (vrank < 0) { /* an even worker of the first 2R: hand over, get the sum back */
    spwire *w = spset_encode(ctx, &s, n);
    comm_wait(coll_isend(ctx, r + 1, w, coll_scale_charge(ctx, w->nbytes)));
    spset_clear(&s);
    spset_decode(ctx, &s, comm_recv(r + 1, r), n);
  } else {
    if (r < 2 * R) { /* merge the even partner's set first */
      spset in;
      spset_decode(ctx, &in, comm_recv(r - 1, r), n);
      spset_merge(ctx, &in, &s, n, dense_at); /* in = partner + own: the partner's order */
      s = in;
    }
    for (int mask = 1; mask < P; mask <<= 1) {
      const int pv = vrank ^ mask, partner = pv < R ? 2 * pv + 1 : pv + R;
      swap_merge(ctx, &s, partner, partner, dense_at);
    }
    if (r < 2 * R) {
      spwire *w = spset_encode(ctx, &s, n);
      comm_wait(coll_isend(ctx, r - 1, w, coll_scale_charge(ctx, w->nbytes)));
    }
  }

  /* s: the sum over all N, the same bits on every worker */
  if (!ctx->out_shared || r == 0) {
    if (s.dense) {
      memcpy(ctx->out, s.val, n * sizeof *ctx->out);
    } else {
      memset(ctx->out, 0, n * sizeof *ctx->out);
      for (size_t j = 0; j < s.k; j++) ctx->out[s.idx[j]] = s.val[j];
    }
    ccomp_finish(ctx->comp, ctx->out, n, (uint32_t)N);
  }
  if (r == 0) {
    err_acc fin = {0};
    err_acc_add(&fin, ctx->out, ctx->exact_sum, n, 1.0 / N);
    coll_metrics_add(ctx->metrics, &ctx->metrics->final, &fin, (uint32_t)N);
    /* every worker added its input before its first send, which reached
     * worker 0 through the merges: the sum is complete, and nobody adds to
     * this range again in this iteration */
    memset(ctx->exact_sum, 0, n * sizeof *ctx->exact_sum);
  }
  spset_clear(&s);
}

static size_t sparcml_hops(int nworkers, const double *params) {
  (void)nworkers, (void)params;
  return 0;
}

/* Every set dense from the start: P log2 P swaps plus the 2R fold messages. */
static double sparcml_dense_bytes(size_t n, int N, const double *params) {
  (void)params;
  int P = 1, L = 0;
  while (P * 2 <= N) P *= 2, L++;
  return ((double)P * L + 2.0 * (N - P)) * (4.0 + 4.0 * (double)n);
}

/* Merged (index, value) sets up to the dense tensor, per worker. */
static double sparcml_footprint(size_t n, int N, const double *params) {
  (void)params;
  return (double)N * (double)n;
}

/* Recursive doubling over P, the largest power of two <= N (log2 P steps of
 * P messages), and the pre and post steps' N - P each. */
static double sparcml_messages(int N, const double *params) {
  (void)params;
  int P = 1, l = 0;
  while (2 * P <= N) P *= 2, l++;
  return (double)P * l + 2.0 * (N - P);
}

const collective_type coll_allreduce_sparcml = {
    .name = "allreduce/sparcml",
    .description = "SparCML-style sparse all-reduce: recursive doubling over merged (index, value) "
                   "sets, dense past the break-even; any compressor (its decoded output is sent)",
    .requires = COLL_NEEDS_EXACT_SUM | COLL_OUT_FROM_ONE | COLL_ONE_LANE,
    .params = sparcml_params,
    .nparams = sizeof sparcml_params / sizeof sparcml_params[0],
    .hops = sparcml_hops,
    .dense_bytes = sparcml_dense_bytes,
    .footprint = sparcml_footprint,
    .messages = sparcml_messages,
    .run = sparcml_run,
};
