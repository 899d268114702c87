/* src/collectives/steps.c — the ring and binomial-tree building blocks the
 * collectives are made of (collective.h): a ring's reduce-scatter and
 * all-gather (forwarding, or, into a shared output with a fixed-size
 * format, moving nothing), a tree's reduce and broadcast; the bundles they
 * pass and the prefetch hints a ring's receiver gets. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/rng.h"
#include "collectives/collective.h"
#include "collectives/common_internal.h"
#include "comm/comm.h"

/* A second bundle holding the same payloads (one more reference each). */
static coll_bundle *bundle_share(const coll_ctx *ctx, const coll_bundle *b) {
  coll_bundle *c = coll_bundle_new(ctx, b->chunk, b->count);
  for (size_t k = 0; k < b->count; k++) c->m[k] = coll_msg_ref(b->m[k]);
  return c;
}

/* Scratch for decoding parts, grown on demand. */
typedef struct scratch {
  float *y;
  size_t cap;
} scratch;

static float *scratch_get(const coll_ctx *ctx, scratch *s, size_t n) {
  if (n + 1 > s->cap) {
    free(s->y);
    s->y = NULL;
    s->y = coll_alloc(ctx, n + 1, sizeof *s->y, 0, "a decode buffer");
    s->cap = n + 1;
  }
  return s->y;
}

/* sum = in + mine, part by part, measured as hop index h (0-based);
 * consumes both bundles. */
static coll_bundle *bundle_combine(coll_ctx *ctx, coll_bundle *in, coll_bundle *mine,
                                   size_t (*lo_of)(void *, int, size_t), void *arg, size_t h,
                                   scratch *sc) {
  assert(in->count == mine->count && in->chunk == mine->chunk);
  coll_bundle *sum = coll_bundle_new(ctx, in->chunk, in->count);
  for (size_t k = 0; k < in->count; k++) {
    const size_t lo = lo_of(arg, in->chunk, k);
    float *y = h < ctx->metrics->nhops ? scratch_get(ctx, sc, in->m[k]->n) : NULL;
    sum->m[k] = coll_combine_measure(ctx, in->m[k], mine->m[k], lo, 1 + (uint64_t)h, h, y);
    in->m[k] = mine->m[k] = NULL;
  }
  coll_bundle_free(in);
  coll_bundle_free(mine);
  return sum;
}

coll_ring coll_all(const coll_ctx *ctx, int *ranks) {
  for (int i = 0; i < ctx->nworkers; i++) ranks[i] = i;
  return (coll_ring){.ranks = ranks, .size = ctx->nworkers, .pos = ctx->rank};
}

/* Lines [p, p + bytes) into the cache, at most the first 4 KiB: beyond,
 * the hardware's own prefetcher follows a stream. */
static void prefetch_span(const void *p, size_t bytes) {
  if (!p) return;
  if (bytes > 4096) bytes = 4096;
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch((const char *)p + o);
}

/* comm_isend_ahead's hint for a ring's bundles: three messages ahead the
 * bundle itself, two ahead its payloads' headers (and inline wire bytes),
 * one ahead their wire bytes and shadows, each stage reading only lines
 * the stage before brought.  A ring's receiver finds its predecessor's
 * messages waiting, made a long stretch of other work ago (the sender ran
 * ahead on its lane), so without this every message's first touches wait
 * on memory one after another. */
static void bundle_ahead(const void *payload, int k) {
  const coll_bundle *b = payload;
  if (k == 3) {
    __builtin_prefetch(b);
    return;
  }
  for (size_t i = 0; i < b->count; i++) {
    const coll_msg *m = b->m[i];
    if (!m) continue;
    if (k == 2) {
      __builtin_prefetch(m);
      __builtin_prefetch((const char *)m + 64);
      continue;
    }
    if (m->bytes != m->inl) prefetch_span(m->bytes, m->nbytes);
    prefetch_span(m->exact, m->n * sizeof *m->exact);
    prefetch_span(m->ideal, m->n * sizeof *m->ideal);
    prefetch_span(m->uexact, m->n * sizeof *m->uexact);
  }
}

/* coll_isend of a ring's bundle, with bundle_ahead as its hint. */
static comm_req *ring_isend(coll_ctx *ctx, int dst, coll_bundle *b) {
  return coll_isend_hinted(ctx, dst, b, coll_bundle_charge(ctx, b), bundle_ahead);
}

coll_bundle *coll_ring_reduce_scatter(coll_ctx *ctx, const coll_ring *ring,
                                      coll_bundle *(*own)(void *arg, int chunk),
                                      size_t (*lo_of)(void *arg, int chunk, size_t part), void *arg,
                                      size_t hop0) {
  const int G = ring->size, pos = ring->pos;
  const int next = ring->ranks[(pos + 1) % G], prev = ring->ranks[(pos + G - 1) % G];
  if (G == 1) return own(arg, 0);
  scratch sc = {0};
  coll_bundle *hold = own(arg, pos); /* the partial aggregate this worker sends next */
  for (int s = 0; s < G - 1; s++) {
    comm_step();
    comm_req *req = ring_isend(ctx, next, hold);
    coll_bundle *in = comm_recv(prev, ctx->rank);
    coll_bundle *mine = own(arg, in->chunk);
    coll_bundle *sum = bundle_combine(ctx, in, mine, lo_of, arg, hop0 + (size_t)s, &sc);
    comm_wait(req); /* `hold` now belongs to the receiver */
    hold = sum;
  }
  free(sc.y);
  return hold;
}

void coll_ring_allgather(coll_ctx *ctx, const coll_ring *ring, coll_bundle *mine,
                         void (*got)(void *arg, const coll_bundle *b), void *arg) {
  const int G = ring->size, pos = ring->pos;
  const int next = ring->ranks[(pos + 1) % G], prev = ring->ranks[(pos + G - 1) % G];
  coll_bundle *hold = mine;
  for (int s = 0; s < G - 1; s++) {
    comm_step();
    comm_req *req = ring_isend(ctx, next, hold);
    coll_bundle *in = comm_recv(prev, ctx->rank);
    if (got) got(arg, in);
    comm_wait(req);
    hold = in; /* forwarded unchanged at the next step */
  }
  /* Nobody forwards the last bundle received (or, alone, our own). */
  coll_bundle_free(hold);
}

/* CCSIM_RING_FORWARD in the environment: every ring all-gather forwards
 * its payloads (the test ring-unread compares both ways, byte for byte). */
static int ring_forward(void) {
  static int forward = -1;
  int f = __atomic_load_n(&forward, __ATOMIC_RELAXED);
  if (f < 0) {
    f = getenv("CCSIM_RING_FORWARD") != NULL;
    __atomic_store_n(&forward, f, __ATOMIC_RELAXED);
  }
  return f;
}

/* The untimed barrier of a ring: one key for its members, whatever their
 * order of arrival, and another for every other ring of the iteration (a
 * torus's rows and columns, a hierarchy's leaders: rings of one size that
 * may share their first rank). */
static uint64_t ring_key(const coll_ctx *ctx, const coll_ring *ring) {
  uint64_t key = ccr_key(ctx->shared_key, 0x72696e67u /* "ring" */ ^ ((uint64_t)ring->size << 32));
  /* Every worker, in whatever order: rings of them all are used one after
   * the other by every worker, and a worker leaves a barrier only once all
   * have come, so they may share one key, read without their ranks.  A
   * ring of some workers: its members, in order (a chain of size mixes,
   * paid by each member once a call). */
  if (ring->size == ctx->nworkers) return key;
  key = ccr_key(key, 0x73756272u /* "subr" */);
  for (int k = 0; k < ring->size; k++) key = ccr_key(key, (uint32_t)ring->ranks[k]);
  return key;
}

int coll_ring_allgather_unread_ok(const coll_ctx *ctx, const coll_ring *ring) {
  return ring->size > 1 && !coll_deliver_all(ctx) && (ctx->comp->type->flags & CCOMP_FIXED_SIZE) && !ring_forward();
}

void coll_ring_allgather_unread(coll_ctx *ctx, const coll_ring *ring, coll_bundle *mine,
                                size_t (*n_of)(void *arg, int chunk), void *arg) {
  const int G = ring->size, pos = ring->pos;
  const int next = ring->ranks[(pos + 1) % G], prev = ring->ranks[(pos + G - 1) % G];
  if (!coll_ring_allgather_unread_ok(ctx, ring) || mine->count != 1) abort(); /* the caller's bug */
  /* the rule the other ranks' payloads are charged by, checked on this one's */
  const size_t n0 = n_of(arg, mine->chunk), wire0 = ccomp_max_wire_bytes(ctx->comp, n0);
  const double mine_charge = coll_charge_of(ctx, n0, wire0);
  if (mine->m[0]->n != n0) { /* the collective's bug, not the compressor's */
    fprintf(stderr,
            "ccsim: internal error: worker %d: the aggregate of chunk %d holds %zu elements, but the "
            "collective's chunk has %zu\n",
            ctx->rank, mine->chunk, mine->m[0]->n, n0);
    abort();
  }
  if (coll_bundle_charge(ctx, mine) != mine_charge) {
    fprintf(stderr,
            "ccsim: internal error: worker %d: compressor %s is marked fixed-size, but its aggregate of chunk %d "
            "(%zu elements) has %zu bytes, not %zu\n",
            ctx->rank, ctx->comp->type->name, mine->chunk, mine->m[0]->n, mine->m[0]->nbytes, wire0);
    abort();
  }
  const int chunk = mine->chunk;
  coll_bundle_free(mine); /* no other rank reads it */
  /* a ring's chunks have one or two lengths: each one's charge is made once */
  size_t last_n = n0;
  double bytes = mine_charge;
  for (int s = 0; s < G - 1; s++) {
    /* at step s this rank forwards chunk (pos + 1 - s) mod G, as coll_ring_allgather does */
    const int c = ((chunk - s) % G + G) % G;
    const size_t n = n_of(arg, c);
    if (n != last_n) last_n = n, bytes = coll_charge_of(ctx, n, ccomp_max_wire_bytes(ctx->comp, n));
    coll_metrics_bytes(ctx->metrics, bytes);
    comm_step();
    comm_exchange_unread(ctx->rank, next, bytes, prev);
  }
  /* the forwarded payloads had ordered each chunk's writing into the shared
   * output before this rank went on (to a memory that reads the aggregate,
   * say): now every rank of the ring has written its chunk first */
  comm_barrier_untimed(ring_key(ctx, ring), G);
}

coll_bundle *coll_tree_reduce(coll_ctx *ctx, const coll_ring *g, coll_bundle *mine,
                              size_t (*lo_of)(void *arg, int chunk, size_t part), void *arg,
                              size_t hop0) {
  const int G = g->size, p = g->pos;
  scratch sc = {0};
  coll_bundle *acc = mine;
  size_t level = 0;
  for (int mask = 1; mask < G; mask <<= 1, level++) {
    if (p & mask) { /* send the subtree's sum to the parent, done */
      comm_wait(coll_isend(ctx, g->ranks[p - mask], acc, coll_bundle_charge(ctx, acc)));
      free(sc.y);
      return NULL;
    }
    if (p + mask < G) {
      coll_bundle *in = comm_recv(g->ranks[p + mask], ctx->rank);
      acc = bundle_combine(ctx, acc, in, lo_of, arg, hop0 + level, &sc);
    }
  }
  free(sc.y);
  return acc;
}

coll_bundle *coll_tree_bcast(coll_ctx *ctx, const coll_ring *g, coll_bundle *b) {
  const int G = g->size, p = g->pos;
  int mask = 1;
  while (mask < G) {
    if (p & mask) {
      b = comm_recv(g->ranks[p - mask], ctx->rank);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (p + mask < G) {
      coll_bundle *c = bundle_share(ctx, b);
      comm_wait(coll_isend(ctx, g->ranks[p + mask], c, coll_bundle_charge(ctx, c)));
    }
  return b;
}

