/* src/collectives/program_check.c — a program validated for one worker
 * count before it runs: every rank's steps walked together, symbolically.
 *
 * A payload is replaced by the set of ranks it sums (a bit mask up to 64
 * ranks, else a count and a sum of per-rank 64-bit keys).  Sends queue a
 * message on the (src, dst) channel (FIFO, as comm.h promises); a recv
 * takes the oldest one from its source or blocks; a waited send blocks
 * until its message is received.  Ranks are stepped in turn until all end
 * or none can move (a deadlock).  Reported, with the step's JSON path and
 * the rank: a deadlock, a send never received or never waited for, a recv
 * whose chunks differ from the message's, an operation on a chunk the rank
 * does not hold, a combine that counts a rank twice, a delivered sum that
 * misses a rank, a rank that does not deliver every chunk, and a chunk
 * delivered final other than exactly once. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/program.h"

typedef struct cset {
  uint64_t key, mask;
  uint32_t count;
  uint8_t present;
} cset;

typedef struct pmsg {
  int src, dst;
  long c0, c1;
  cset *sets;
  const pstep *st; /* the send */
  int received;
  struct pmsg *next; /* in dst's queue */
} pmsg;

typedef struct prank {
  prog_iter it;
  cset *held, *in;
  uint8_t *delivered;
  pmsg **pending; /* sends not waited for */
  size_t npending, cap;
  prog_op op;
  int has_op, done;
  pmsg *waiting; /* a waited send's message */
} prank;

typedef struct vstate {
  const program *p;
  int N;
  long K;
  int small; /* masks name the ranks */
  uint64_t all_key;
  prank *rk;
  pmsg **queue; /* per destination, in send order: the messages not yet received */
  uint8_t *final_seen;
  char *err;
  size_t errlen;
  prog_shape shape; /* messages sent; payload chunks alive now (shape.live) and at most */
} vstate;

static uint64_t rank_key(int r) {
  uint64_t z = (uint64_t)r + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int vfail(vstate *v, int r, const pstep *st, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int vfail(vstate *v, int r, const pstep *st, const char *fmt, ...) {
  char what[512], where[256] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (r >= 0) prog_iter_where(&v->rk[r].it, where, sizeof where);
  snprintf(v->err, v->errlen, "%s: %s: rank %d of N = %d%s%s: %s", v->p->file, st ? st->path : "program", r,
           v->N, where[0] ? ", " : "", where, what);
  return -1;
}

/* The ranks a set misses (or counts twice), for messages. */
static void describe(const vstate *v, const cset *s, char *out, size_t len) {
  if (v->small) {
    out[0] = 0;
    for (int q = 0; q < v->N; q++)
      if (!(s->mask >> q & 1)) {
        size_t u = strlen(out);
        if (u > len - 16) break;
        snprintf(out + u, len - u, "%s%d", u ? ", " : "misses rank ", q);
      }
    if (!out[0]) snprintf(out, len, "sums all ranks");
  } else {
    snprintf(out, len, "sums %u of %d ranks%s", s->count, v->N,
             s->count == (uint32_t)v->N ? " but not each once" : "");
  }
}

static int full(const vstate *v, const cset *s) {
  return s->count == (uint32_t)v->N && s->key == v->all_key;
}

/* Step rank r until it blocks or ends: 1 when it moved. */
static int advance(vstate *v, int r) {
  prank *k = &v->rk[r];
  int moved = 0;
  char e[512];
  for (;;) {
    if (k->waiting) {
      if (!k->waiting->received) return moved;
      free(k->waiting);
      k->waiting = NULL;
      moved = 1;
    }
    if (k->done) return moved;
    if (!k->has_op) {
      int rc = prog_iter_next(&k->it, &k->op, e, sizeof e);
      if (rc < 0) return vfail(v, r, k->it.at, "%s", e), -1;
      if (rc == 0) {
        k->done = 1;
        return 1;
      }
      k->has_op = 1;
    }
    const prog_op *op = &k->op;
    const pstep *st = op->st;
    switch (st->kind) {
    case PS_ENCODE:
      v->shape.live += (double)(op->c1 - op->c0);
      if (v->shape.live > v->shape.peak_chunks) v->shape.peak_chunks = v->shape.live;
      for (long c = op->c0; c < op->c1; c++) {
        if (k->held[c].present) return vfail(v, r, st, "encodes chunk %ld, which it already holds", c);
        k->held[c] = (cset){.key = rank_key(r), .mask = v->small ? 1ull << r : 0, .count = 1, .present = 1};
      }
      break;
    case PS_SEND: {
      for (long c = op->c0; c < op->c1; c++) /* before the message exists: nothing to free */
        if (!k->held[c].present) return vfail(v, r, st, "sends chunk %ld, which it does not hold", c);
      if (k->npending == k->cap && !st->wait) { /* room first: a queued message is always owned */
        const size_t cap = k->cap ? 2 * k->cap : 8;
        pmsg **p = realloc(k->pending, cap * sizeof *p);
        if (!p) return vfail(v, r, st, "out of memory");
        k->pending = p, k->cap = cap;
      }
      pmsg *m = calloc(1, sizeof *m);
      if (!m || !(m->sets = calloc((size_t)(op->c1 - op->c0), sizeof *m->sets)))
        return free(m), vfail(v, r, st, "out of memory");
      *m = (pmsg){.src = r, .dst = (int)op->peer, .c0 = op->c0, .c1 = op->c1, .sets = m->sets, .st = st};
      for (long c = op->c0; c < op->c1; c++) {
        m->sets[c - op->c0] = k->held[c];
        if (!st->keep) k->held[c].present = 0;
      }
      v->shape.messages++;
      pmsg **q = &v->queue[m->dst];
      while (*q) q = &(*q)->next;
      *q = m;
      if (st->wait) k->waiting = m;
      else k->pending[k->npending++] = m;
      break;
    }
    case PS_RECV: {
      pmsg **q = &v->queue[r];
      while (*q && (*q)->src != op->peer) q = &(*q)->next;
      if (!*q) return moved; /* blocked */
      pmsg *m = *q;
      *q = m->next; /* off the queue; its sender frees it once it has waited */
      if (m->c0 != op->c0 || m->c1 != op->c1)
        return vfail(v, r, st, "receives chunks [%ld, %ld) from rank %ld, but its next message from it "
                               "(%s) carries chunks [%ld, %ld)", op->c0, op->c1, op->peer, m->st->path, m->c0, m->c1);
      m->next = NULL;
      for (long c = op->c0; c < op->c1; c++) {
        if (k->in[c].present) return vfail(v, r, st, "receives chunk %ld before using the one received earlier", c);
        k->in[c] = m->sets[c - op->c0];
      }
      m->received = 1;
      free(m->sets);
      m->sets = NULL;
      break;
    }
    case PS_REDUCE:
      v->shape.live -= (double)(op->c1 - op->c0); /* two payloads combined into one */
      for (long c = op->c0; c < op->c1; c++) {
        cset *a = &k->held[c], *b = &k->in[c];
        if (!a->present) return vfail(v, r, st, "reduces chunk %ld, which it does not hold", c);
        if (!b->present) return vfail(v, r, st, "reduces chunk %ld, which it has not received", c);
        if ((v->small && (a->mask & b->mask)) || a->count + b->count > (uint32_t)v->N)
          return vfail(v, r, st, "the sum of chunk %ld would count a rank twice", c);
        a->key += b->key, a->mask |= b->mask, a->count += b->count;
        b->present = 0;
      }
      break;
    case PS_RECODE:
      for (long c = op->c0; c < op->c1; c++) {
        cset *a = &k->held[c], *b = &k->in[c];
        if (!b->present) return vfail(v, r, st, "re-encodes chunk %ld, which it has not received", c);
        if (a->present) return vfail(v, r, st, "re-encodes chunk %ld into a chunk it still holds", c);
        if ((v->small && (b->mask >> r & 1)) || b->count + 1 > (uint32_t)v->N)
          return vfail(v, r, st, "the sum of chunk %ld would count a rank twice", c);
        *a = *b;
        a->key += rank_key(r), a->mask |= v->small ? 1ull << r : 0, a->count += 1;
        b->present = 0;
      }
      break;
    case PS_STORE:
      for (long c = op->c0; c < op->c1; c++) {
        if (!k->in[c].present) return vfail(v, r, st, "stores chunk %ld, which it has not received", c);
        k->held[c] = k->in[c];
        k->in[c].present = 0;
      }
      break;
    case PS_DELIVER:
      for (long c = op->c0; c < op->c1; c++) {
        const cset *s = &k->held[c];
        if (!s->present) return vfail(v, r, st, "delivers chunk %ld, which it does not hold", c);
        if (!full(v, s)) {
          char d[256];
          describe(v, s, d, sizeof d);
          return vfail(v, r, st, "delivers chunk %ld, whose sum %s", c, d);
        }
        if (k->delivered[c]) return vfail(v, r, st, "delivers chunk %ld a second time", c);
        k->delivered[c] = 1;
        if (st->final) {
          if (v->final_seen[c]) return vfail(v, r, st, "delivers chunk %ld as final, but another rank did already", c);
          v->final_seen[c] = 1;
        }
      }
      break;
    case PS_WAIT:
      for (size_t i = 0; i < k->npending; i++)
        if (!k->pending[i]->received) return moved; /* blocked */
      for (size_t i = 0; i < k->npending; i++) free(k->pending[i]);
      k->npending = 0;
      break;
    }
    k->has_op = 0;
    moved = 1;
  }
}

static const char *what_blocks(const prank *k, char *out, size_t len) {
  if (k->waiting) snprintf(out, len, "waits for its send to rank %d to be received", k->waiting->dst);
  else if (k->op.st->kind == PS_RECV) snprintf(out, len, "waits to receive chunks [%ld, %ld) from rank %ld", k->op.c0, k->op.c1, k->op.peer);
  else snprintf(out, len, "waits for its sends to be received");
  return out;
}

static int finish(vstate *v) {
  int stuck = -1, nstuck = 0;
  for (int r = 0; r < v->N; r++)
    if (!v->rk[r].done || v->rk[r].waiting) {
      if (stuck < 0) stuck = r;
      nstuck++;
    }
  char b[256];
  if (stuck >= 0) {
    const prank *k = &v->rk[stuck];
    return vfail(v, stuck, k->waiting ? k->waiting->st : k->op.st, "deadlock: %d rank(s) can never go on; this one %s",
                 nstuck, what_blocks(k, b, sizeof b));
  }
  for (int r = 0; r < v->N; r++) {
    for (pmsg *m = v->queue[r]; m; m = m->next)
      return vfail(v, m->src, m->st, "sends chunks [%ld, %ld) to rank %d, which never receives them", m->c0, m->c1, m->dst);
    const prank *k = &v->rk[r];
    if (k->npending) return vfail(v, r, k->pending[0]->st, "a send never waited for (add {\"wait\": \"sends\"})");
    for (long c = 0; c < v->K; c++) {
      if (k->in[c].present) return vfail(v, r, NULL, "chunk %ld is received but never reduced or stored", c);
      if (!k->delivered[c]) return vfail(v, r, NULL, "never delivers chunk %ld (every rank must deliver every chunk)", c);
    }
  }
  for (long c = 0; c < v->K; c++)
    if (!v->final_seen[c]) return vfail(v, -1, NULL, "no rank delivers chunk %ld as final ({\"deliver\": ..., \"final\": true})", c);
  return 0;
}

int program_shape(const program *p, int N, const double *params, prog_shape *out, char *err, size_t errlen) {
  vstate v = {.p = p, .N = N, .small = N <= 64, .err = err, .errlen = errlen};
  for (int r = 0; r < N; r++) v.all_key += rank_key(r);
  v.rk = calloc((size_t)N, sizeof *v.rk);
  v.queue = calloc((size_t)N, sizeof *v.queue);
  int rc = 0, started = 0;
  if (!v.rk || !v.queue) rc = vfail(&v, -1, NULL, "out of memory");
  for (int r = 0; r < N && !rc; r++, started++) {
    char e[512];
    prank *k = &v.rk[r];
    if (prog_iter_start(&k->it, p, r, N, params, e, sizeof e)) {
      snprintf(err, errlen, "%s: rank %d of N = %d: %s", p->file, r, N, e);
      rc = -1;
      break;
    }
    if (r > 0 && k->it.K != v.K) {
      snprintf(err, errlen, "%s: chunks: %ld for rank %d but %ld for rank 0 (it must not depend on r)", p->file, k->it.K, r, v.K);
      prog_iter_end(&k->it);
      rc = -1;
      break;
    }
    v.K = k->it.K;
    if ((double)v.K * N > (double)(1L << 28)) {
      snprintf(err, errlen, "%s: %ld chunks on each of %d ranks: too many to validate (at most 2^28 "
               "chunks x ranks)", p->file, v.K, N);
      prog_iter_end(&k->it);
      rc = -1;
      break;
    }
    k->held = calloc((size_t)v.K, sizeof *k->held);
    k->in = calloc((size_t)v.K, sizeof *k->in);
    k->delivered = calloc((size_t)v.K, 1);
    if (!k->held || !k->in || !k->delivered) rc = vfail(&v, r, NULL, "out of memory");
  }
  if (!rc) v.final_seen = calloc((size_t)v.K, 1);
  if (!rc && !v.final_seen) rc = vfail(&v, -1, NULL, "out of memory");
  for (int moved = 1; moved && !rc;) {
    moved = 0;
    for (int r = 0; r < N && !rc; r++) {
      int m = advance(&v, r);
      if (m < 0) rc = -1;
      moved |= m > 0;
    }
  }
  if (!rc) rc = finish(&v);
  /* every message not freed is its sender's: pending, or the send it waits on */
  for (int r = 0; r < started; r++) {
    for (size_t i = 0; i < v.rk[r].npending; i++) {
      free(v.rk[r].pending[i]->sets);
      free(v.rk[r].pending[i]);
    }
    if (v.rk[r].waiting) free(v.rk[r].waiting->sets), free(v.rk[r].waiting);
    prog_iter_end(&v.rk[r].it);
    free(v.rk[r].held);
    free(v.rk[r].in);
    free(v.rk[r].delivered);
    free(v.rk[r].pending);
  }
  free(v.queue);
  free(v.rk);
  free(v.final_seen);
  v.shape.K = v.K;
  if (out) *out = v.shape;
  return rc;
}


/* program_check and the walk for N and params, their counts remembered in
 * c (a second call for the same N and parameters walks again only to give
 * a refusal's message): 0, or -1 with a message in err. */
static int shape_fill(const program *p, prog_shape_cache *c, int N, const double *params, char *err, size_t errlen) {
  const size_t np = p->nparams;
  if (c->params && c->N == N && c->ok && (!np || !memcmp(c->params, params, np * sizeof *params))) return 0;
  free(c->params);
  c->ok = 0;
  if (!(c->params = malloc((np + 1) * sizeof *params))) return snprintf(err, errlen, "%s: out of memory", p->file), -1;
  if (np) memcpy(c->params, params, np * sizeof *params);
  c->N = N;
  c->ok = !program_check(p, N, params, err, errlen) && !program_shape(p, N, params, &c->s, err, errlen);
  return c->ok ? 0 : -1;
}

/* The walk's counts, or NULL when it refuses the program. */
static const prog_shape *shape_for(const program *p, prog_shape_cache *c, int N, const double *params) {
  char e[512];
  return shape_fill(p, c, N, params, e, sizeof e) ? NULL : &c->s;
}

double program_footprint(const program *p, prog_shape_cache *cache, size_t n, int N, const double *params) {
  const prog_shape *s = shape_for(p, cache, N, params);
  if (!s || s->K < 1) return (double)N * (double)n;
  return 2.0 * s->peak_chunks * (double)n / (double)s->K;
}

double program_messages(const program *p, prog_shape_cache *cache, int N, const double *params) {
  const prog_shape *s = shape_for(p, cache, N, params);
  return s ? s->messages : 0;
}

int program_validate(const collective_type *t, int N, const double *params, char *err, size_t errlen) {
  const program *p = program_of(t);
  if (!p) return 0;
  if (program_check(p, N, params, err, errlen)) return -1;
  if (p->max_scale >= 0) {
    penv env;
    double x;
    char e[256];
    if (program_env(p, 0, N, params, &env, e, sizeof e)) return snprintf(err, errlen, "%s: %s", p->file, e), -1;
    int bad = pexpr_eval(&p->x, p->max_scale, env.v, env.set, &x, e, sizeof e);
    penv_free(&env);
    if (bad) return snprintf(err, errlen, "%s: global_max_scale: %s", p->file, e), -1;
  }
  /* the walk, its counts kept for the estimate and the progress line */
  return shape_fill(p, program_shape_cache(t), N, params, err, errlen);
}
