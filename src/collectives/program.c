/* src/collectives/program.c — a collective program run by one rank: its
 * steps walked in order (prog_iter), each operation done with the same
 * primitives the built-in collectives use (coll_encode_own, coll_isend,
 * comm_recv, coll_combine, coll_measure, coll_deliver), so a program
 * records the same trace and computes the same bytes as its C twin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/program.h"
#include "comm/comm.h"

int program_env(const program *p, int r, int N, const double *params, penv *env, char *err, size_t errlen) {
  env->v = calloc(p->x.nvars + 1, sizeof *env->v);
  env->set = calloc(p->x.nvars + 1, 1);
  if (!env->v || !env->set) {
    penv_free(env);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  env->v[PV_R] = r, env->v[PV_N] = N, env->v[PV_n] = 0;
  env->set[PV_R] = env->set[PV_N] = env->set[PV_n] = 1;
  for (size_t i = 0; i < p->nparams; i++) env->v[PV_PARAM0 + i] = params[i], env->set[PV_PARAM0 + i] = 1;
  for (size_t i = 0; i < p->nglobals; i++) {
    char e[256];
    double v;
    if (pexpr_eval(&p->x, p->global_expr[i], env->v, env->set, &v, e, sizeof e)) {
      snprintf(err, errlen, "let.%s: %s", p->x.vars[p->global_var[i]], e);
      penv_free(env);
      return -1;
    }
    env->v[p->global_var[i]] = v;
    env->set[p->global_var[i]] = 1;
  }
  return 0;
}

void penv_free(penv *env) {
  free(env->v);
  free(env->set);
  env->v = NULL;
  env->set = NULL;
}

int program_int(const program *p, const penv *env, int expr, long lo, long hi, const char *what, long *out,
                char *err, size_t errlen) {
  double v;
  char e[256];
  if (pexpr_eval(&p->x, expr, env->v, env->set, &v, e, sizeof e)) {
    snprintf(err, errlen, "%s: %s", what, e);
    return -1;
  }
  if (v != floor(v) || v < (double)lo || v > (double)hi) {
    snprintf(err, errlen, "%s is %.17g, expected an integer in [%ld, %ld]", what, v, lo, hi);
    return -1;
  }
  *out = (long)v;
  return 0;
}

/* The program's figure for N (hops, chunks): -1 when it cannot be had
 * (program_validate reports why before any run). */
static long figure(const program *p, int N, const double *params, int expr, long lo, long hi) {
  penv env;
  char e[256];
  long v = -1;
  if (program_env(p, 0, N, params, &env, e, sizeof e)) return -1;
  if (program_int(p, &env, expr, lo, hi, "", &v, e, sizeof e)) v = -1;
  penv_free(&env);
  return v;
}

size_t program_hops(const program *p, int N, const double *params) {
  long h = figure(p, N, params, p->hops, 0, 1 << 24);
  return h < 0 ? 0 : (size_t)h;
}

double program_dense_bytes(const program *p, size_t n, int N, const double *params) {
  penv env;
  char e[256];
  double v = NAN;
  if (program_env(p, 0, N, params, &env, e, sizeof e)) return NAN;
  env.v[PV_n] = (double)n;
  if (pexpr_eval(&p->x, p->dense, env.v, env.set, &v, e, sizeof e)) v = NAN;
  penv_free(&env);
  return v;
}

int program_check(const program *p, int N, const double *params, char *err, size_t errlen) {
  penv env;
  char e[256];
  if (program_env(p, 0, N, params, &env, e, sizeof e)) {
    snprintf(err, errlen, "%s: %s", p->file, e);
    return -1;
  }
  int rc = 0;
  for (size_t i = 0; i < p->nchecks && !rc; i++) {
    double v;
    if (pexpr_eval(&p->x, p->check_expr[i], env.v, env.set, &v, e, sizeof e)) {
      snprintf(err, errlen, "%s: checks[%zu]: %s", p->file, i, e);
      rc = -1;
    } else if (v == 0) {
      snprintf(err, errlen, "%s (%s, N = %d)", p->check_msg[i], p->file, N);
      rc = -1;
    }
  }
  penv_free(&env);
  return rc;
}

/* ---- the walk ---- */

int prog_iter_start(prog_iter *it, const program *p, int r, int N, const double *params, char *err,
                    size_t errlen) {
  *it = (prog_iter){.p = p, .N = N};
  if (program_env(p, r, N, params, &it->env, err, errlen)) return -1;
  char e[256];
  if (program_int(p, &it->env, p->chunks, 1, 1L << 24, "chunks", &it->K, e, sizeof e) ||
      program_int(p, &it->env, p->hops, 0, 1L << 24, "hops", &it->hops, e, sizeof e)) {
    snprintf(err, errlen, "%s", e);
    penv_free(&it->env);
    return -1;
  }
  it->stack[0].b = &p->body;
  it->depth = 1;
  return 0;
}

void prog_iter_end(prog_iter *it) { penv_free(&it->env); }

void prog_iter_where(const prog_iter *it, char *out, size_t len) {
  out[0] = 0;
  for (int d = 0; d < it->depth; d++)
    if (it->stack[d].loop) {
      size_t u = strlen(out);
      const int v = it->stack[d].loop->var;
      snprintf(out + u, len - u, "%s%s = %.17g", u ? ", " : "", it->p->x.vars[v], it->env.v[v]);
    }
}

static int step_fail(prog_iter *it, const pstep *st, char *err, size_t errlen, const char *e) {
  it->at = st;
  snprintf(err, errlen, "%s", e);
  return -1;
}

/* One more step of the walk (a step taken, or a turn of a loop at st):
 * -1 with a message past PROG_STEPS_MAX. */
static int count_step(prog_iter *it, const pstep *st, char *err, size_t errlen) {
  if (++it->steps <= PROG_STEPS_MAX) return 0;
  return step_fail(it, st, err, errlen, "more than 2^28 steps on this rank (loops that run too long)");
}

/* A chunk operand as [c0, c1). */
static int chunk_range(prog_iter *it, const pstep *st, prog_op *op, char *err, size_t errlen) {
  char e[256];
  if (program_int(it->p, &it->env, st->c0, 0, it->K - 1, "the chunk", &op->c0, e, sizeof e))
    return step_fail(it, st, err, errlen, e);
  if (st->c1 < 0) return op->c1 = op->c0 + 1, 0;
  if (program_int(it->p, &it->env, st->c1, op->c0 + 1, it->K, "the range's end", &op->c1, e, sizeof e))
    return step_fail(it, st, err, errlen, e);
  return 0;
}

int prog_iter_next(prog_iter *it, prog_op *op, char *err, size_t errlen) {
  const program *p = it->p;
  char e[256];
  for (;;) {
    if (it->depth == 0) return 0;
    __typeof__(it->stack[0]) *f = &it->stack[it->depth - 1];
    if (f->i == f->b->n) {
      if (f->loop) {
        const int v = f->loop->var;
        if (count_step(it, f->loop, err, errlen)) return -1; /* a turn counts: an empty body's too */
        it->env.v[v] += f->by;
        if (f->by > 0 ? it->env.v[v] < f->end : it->env.v[v] > f->end) {
          f->i = 0;
          continue;
        }
      }
      it->depth--;
      continue;
    }
    const pstep *st = &f->b->s[f->i++];
    if (count_step(it, st, err, errlen)) return -1;
    *op = (prog_op){.st = st};
    switch (st->kind) {
    case PS_FOR: {
      long from, to, by = 1;
      if (program_int(p, &it->env, st->from, -(1L << 40), 1L << 40, "from", &from, e, sizeof e) ||
          program_int(p, &it->env, st->to, -(1L << 40), 1L << 40, "to", &to, e, sizeof e) ||
          (st->by >= 0 && program_int(p, &it->env, st->by, -(1L << 40), 1L << 40, "by", &by, e, sizeof e)))
        return step_fail(it, st, err, errlen, e);
      if (by == 0) return step_fail(it, st, err, errlen, "by is 0: the loop would not end");
      if (by > 0 ? from >= to : from <= to) continue;
      const long trips = by > 0 ? (to - from + by - 1) / by : (from - to - by - 1) / -by;
      if (trips > PROG_LOOP_MAX) {
        snprintf(e, sizeof e, "the loop would run %ld times (at most 2^24)", trips);
        return step_fail(it, st, err, errlen, e);
      }
      if (it->depth == PROG_DEPTH) return step_fail(it, st, err, errlen, "nested too deeply");
      it->env.v[st->var] = (double)from;
      it->env.set[st->var] = 1;
      it->stack[it->depth++] = (__typeof__(it->stack[0])){.b = &st->body, .loop = st, .end = (double)to, .by = (double)by};
      continue;
    }
    case PS_IF: {
      double c;
      if (pexpr_eval(&p->x, st->cond, it->env.v, it->env.set, &c, e, sizeof e)) return step_fail(it, st, err, errlen, e);
      const pblock *b = c != 0 ? &st->body : &st->els;
      if (b->n == 0) continue;
      if (it->depth == PROG_DEPTH) return step_fail(it, st, err, errlen, "nested too deeply");
      it->stack[it->depth++] = (__typeof__(it->stack[0])){.b = b};
      continue;
    }
    case PS_LET:
      for (size_t i = 0; i < st->nlets; i++) {
        double v;
        if (pexpr_eval(&p->x, st->let_expr[i], it->env.v, it->env.set, &v, e, sizeof e)) {
          char m[400];
          snprintf(m, sizeof m, "%s: %s", p->x.vars[st->let_var[i]], e);
          return step_fail(it, st, err, errlen, m);
        }
        it->env.v[st->let_var[i]] = v;
        it->env.set[st->let_var[i]] = 1;
      }
      continue;
    case PS_SEND:
    case PS_RECV:
      if (program_int(p, &it->env, st->peer, 0, it->N - 1, st->kind == PS_SEND ? "to" : "from", &op->peer, e, sizeof e))
        return step_fail(it, st, err, errlen, e);
      if (op->peer == (long)it->env.v[PV_R])
        return step_fail(it, st, err, errlen, st->kind == PS_SEND ? "sends to its own rank" : "receives from its own rank");
      return chunk_range(it, st, op, err, errlen) ? -1 : 1;
    case PS_REDUCE:
    case PS_RECODE:
      if (program_int(p, &it->env, st->hop, 1, it->hops, "hop", &op->hop, e, sizeof e))
        return step_fail(it, st, err, errlen, e);
      return chunk_range(it, st, op, err, errlen) ? -1 : 1;
    case PS_WAIT: return 1;
    default: return chunk_range(it, st, op, err, errlen) ? -1 : 1;
    }
  }
}

/* ---- the run ---- */

typedef struct prun {
  coll_ctx *ctx;
  long K;
  coll_msg **held, **in;
  comm_req **reqs;
  size_t nreqs, capreqs;
  float *y;
  size_t cap;
} prun;

static size_t lo_of(const prun *s, long c) {
  size_t lo, hi;
  coll_chunk(s->ctx->n, (int)s->K, (int)c, &lo, &hi);
  return lo;
}

static float *scratch(prun *s, size_t n) {
  if (n + 1 > s->cap) {
    free(s->y);
    s->y = NULL;
    s->cap = n + 1;
    s->y = coll_alloc(s->ctx, s->cap, sizeof *s->y, 0, "a program's decode buffer");
  }
  return s->y;
}

static void do_op(prun *s, const prog_op *op) {
  coll_ctx *ctx = s->ctx;
  const pstep *st = op->st;
  switch (st->kind) {
  case PS_ENCODE:
    for (long c = op->c0; c < op->c1; c++) {
      size_t lo, hi;
      coll_chunk(ctx->n, (int)s->K, (int)c, &lo, &hi);
      coll_msg_free(s->held[c]);
      s->held[c] = coll_encode_own(ctx, (int)c, lo, hi);
    }
    break;
  case PS_SEND: {
    coll_bundle *b = coll_bundle_new(ctx, (int)op->c0, (size_t)(op->c1 - op->c0));
    for (long c = op->c0; c < op->c1; c++) {
      b->m[c - op->c0] = st->keep ? coll_msg_ref(s->held[c]) : s->held[c];
      if (!st->keep) s->held[c] = NULL;
    }
    comm_req *req = coll_isend(ctx, (int)op->peer, b, coll_bundle_charge(ctx, b));
    if (st->wait) {
      comm_wait(req);
      break;
    }
    if (s->nreqs == s->capreqs) {
      s->capreqs = s->capreqs ? 2 * s->capreqs : 8;
      comm_req **r = realloc(s->reqs, s->capreqs * sizeof *r);
      if (!r) coll_out_of_memory(ctx, s->capreqs * sizeof *r, "a program's pending sends");
      s->reqs = r;
    }
    s->reqs[s->nreqs++] = req;
    break;
  }
  case PS_RECV: {
    coll_bundle *b = comm_recv((int)op->peer, ctx->rank);
    if (b->chunk != op->c0 || b->count != (size_t)(op->c1 - op->c0)) abort(); /* program_validate matched them */
    for (size_t k = 0; k < b->count; k++) {
      coll_msg_free(s->in[op->c0 + (long)k]);
      s->in[op->c0 + (long)k] = b->m[k];
      b->m[k] = NULL;
    }
    coll_bundle_free(b);
    break;
  }
  case PS_REDUCE:
    for (long c = op->c0; c < op->c1; c++) {
      const size_t lo = lo_of(s, c);
      coll_msg *a = st->in_first ? s->in[c] : s->held[c], *b = st->in_first ? s->held[c] : s->in[c];
      s->in[c] = NULL;
      const size_t h = (size_t)op->hop - 1;
      float *y = h < ctx->metrics->nhops ? scratch(s, a->n) : NULL;
      s->held[c] = coll_combine_measure(ctx, a, b, lo, (uint64_t)op->hop, h, y);
    }
    break;
  case PS_RECODE:
    for (long c = op->c0; c < op->c1; c++) {
      size_t lo, hi;
      coll_chunk(ctx->n, (int)s->K, (int)c, &lo, &hi);
      float *y = scratch(s, 2 * (hi - lo) + 1), *p = y + (hi - lo) + 1;
      coll_msg *in = s->in[c];
      s->in[c] = NULL;
      coll_msg_free(s->held[c]);
      s->held[c] = coll_recompress(ctx, in, lo, hi, (uint64_t)op->hop, y, p);
      coll_measure(ctx, (size_t)op->hop - 1, s->held[c], lo, 0xF1, y);
    }
    break;
  case PS_STORE:
    for (long c = op->c0; c < op->c1; c++) {
      coll_msg_free(s->held[c]);
      s->held[c] = s->in[c];
      s->in[c] = NULL;
    }
    break;
  case PS_DELIVER:
    for (long c = op->c0; c < op->c1; c++) {
      if (st->final) {
        coll_deliver(ctx, s->held[c], lo_of(s, c), 1);
        coll_drop_shadows(s->held[c]);
      } else if (coll_deliver_all(ctx)) {
        coll_deliver(ctx, s->held[c], lo_of(s, c), 0);
      }
    }
    break;
  case PS_WAIT:
    for (size_t i = 0; i < s->nreqs; i++) comm_wait(s->reqs[i]);
    s->nreqs = 0;
    break;
  }
}

void program_run(const program *p, coll_ctx *ctx) {
  coll_global_max(ctx);
  prog_iter it;
  char err[512];
  if (p->max_scale >= 0) { /* partial sums re-encoded under a global max need room */
    penv env;
    double v;
    if (program_env(p, ctx->rank, ctx->nworkers, ctx->params, &env, err, sizeof err) ||
        pexpr_eval(&p->x, p->max_scale, env.v, env.set, &v, err, sizeof err))
      abort(); /* program_validate evaluated it */
    ctx->global_max *= (float)v;
    penv_free(&env);
  }
  /* program_validate ran the same walk for this N before the run: a
   * failure here is a bug */
  if (prog_iter_start(&it, p, ctx->rank, ctx->nworkers, ctx->params, err, sizeof err)) abort();
  prun s = {.ctx = ctx, .K = it.K};
  s.held = coll_alloc(ctx, (size_t)s.K, sizeof *s.held, 1, "a program's held payloads");
  s.in = coll_alloc(ctx, (size_t)s.K, sizeof *s.in, 1, "a program's received payloads");
  prog_op op;
  int rc;
  while ((rc = prog_iter_next(&it, &op, err, sizeof err)) == 1) do_op(&s, &op);
  if (rc < 0) abort();
  for (size_t i = 0; i < s.nreqs; i++) comm_wait(s.reqs[i]);
  for (long c = 0; c < s.K; c++) {
    coll_msg_free(s.held[c]);
    coll_msg_free(s.in[c]);
  }
  free(s.reqs);
  free(s.held);
  free(s.in);
  free(s.y);
  prog_iter_end(&it);
}
