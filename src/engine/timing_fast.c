/* src/engine/timing_fast.c — the timing executor's exact analytical path
 * (`ccsim run --timing auto`, the default; docs/engine.md, "The analytical
 * path").
 *
 * In the replay child, before SimGrid's actors start, the trace is replayed
 * by a discrete-event loop with SimGrid's own arithmetic: per-actor programs,
 * mailbox matching (the k-th send of a pair with its k-th receive; a message
 * starts when both sides are posted), a queue of events by date, and for each
 * message the CM02 action SimGrid would create (network_cm02.cpp of 3.32):
 *   latency phase  lat x latency-factor, from the start;
 *   then           size / (value x bandwidth-factor), value being what the
 *                  max-min solver gives a variable alone on its links:
 *                  r = min over links of bw / (1 / p), p the sharing penalty
 *                  (route latency, plus weight-S / bw per link), and
 *                  value = bound if bound x p < r, else r / p, with
 *                  bound = min(min link bw, TCP-gamma / (2 lat)).
 * Device work (SIM_EXEC) is CpuCas01's (cpu_cas01.cpp, its lazy update):
 * the k executions running on a host of c cores share its capacity c x speed,
 * each at min(speed, c x speed / k); when k changes, each one's remains
 * lose rate x (now - its last update) (SimGrid's double_update: below
 * maxmin/precision x surf/precision, 1e-14, they are 0) and it completes at
 * now + remains / rate.  Sleeps take their duration, and the clock advances
 * as SimGrid's does (now += date - now), taking every event within
 * surf/precision (1e-9 s) of now at now, as SimGrid's models do.
 *
 * It is exact only while no link is shared, so it checks as it goes and
 * gives up (returns 1: SimGrid times the whole iteration) when two flows are
 * in flight on one link at once, or the trace's
 * matching could depend on SimGrid's scheduling order (two actors sending on
 * one mailbox, receiving on one, or acquiring one semaphore).  engine_fast_supported says which setups it covers at all.
 *
 * This file is the replay, which calls no SimGrid function; what it needs
 * of SimGrid is asked before it starts, in timing_fast_routes.c. */
#include "engine/timing_fast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/timing_fast_state.h"

fast_state ccsim_fast;

/* 1 (SimGrid must time it), saying why on stderr under CCSIM_TIMING_DEBUG. */
int fast_give_up(const char *why) {
  if (getenv("CCSIM_TIMING_DEBUG"))
    fprintf(stderr, "ccsim: analytical timing gave up at %.17g s: %s\n", F.clock, why);
  return 1;
}

/* route_of for the replay: a pair fast_prepare did not resolve (none
 * should be) is -3, and the path gives up rather than ask SimGrid. */
static long route_find(uint32_t a, uint32_t b) {
  const uint64_t key = ((uint64_t)a << 32 | b) + 1;
  if (!F.rcap) return -3;
  size_t j = fast_mix(key) & (F.rcap - 1);
  while (F.rslots[j].key && F.rslots[j].key != key) j = (j + 1) & (F.rcap - 1);
  if (!F.rslots[j].key) return -3;
  return F.routes[F.rslots[j].idx].nl ? (long)F.rslots[j].idx : -2;
}

static void wake(uint32_t a) {
  F.acts[a].blocked = 0;
  F.ready[F.nready++] = a;
}

/* The mailbox of pair (a, b), made when first asked for: the boxes in an
 * array whose indices stay (F.boxes), found by open addressing on the pair
 * (F.bslot, index + 1; doubled at half full), so both are as large as the
 * pairs that talk, not the messages (at N = 16,384 a ring's 537M messages
 * had sized a table at 24 GB for its 16,384 pairs), and no pass over the
 * trace makes them first.  UINT32_MAX: out of memory. */
static uint32_t box_get(uint32_t a, uint32_t b) {
  const uint64_t key = ((uint64_t)a << 32 | b) + 1;
  if (2 * (F.bused + 1) > F.bcap) {
    const size_t nc = F.bcap ? 2 * F.bcap : 64;
    uint32_t *ns = calloc(nc, sizeof *ns);
    if (!ns) return UINT32_MAX;
    for (size_t i = 0; i < F.bused; i++) {
      size_t j = fast_mix(F.boxes[i].key) & (nc - 1);
      while (ns[j]) j = (j + 1) & (nc - 1);
      ns[j] = (uint32_t)i + 1;
    }
    free(F.bslot);
    F.bslot = ns, F.bcap = nc;
  }
  size_t j = fast_mix(key) & (F.bcap - 1);
  while (F.bslot[j] && F.boxes[F.bslot[j] - 1].key != key) j = (j + 1) & (F.bcap - 1);
  if (F.bslot[j]) return F.bslot[j] - 1;
  if (engine_grow((void **)&F.boxes, &F.bvcap, F.bused + 1, sizeof *F.boxes)) return UINT32_MAX;
  F.boxes[F.bused] = (fbox){key, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
  F.bslot[j] = (uint32_t)++F.bused;
  return (uint32_t)(F.bused - 1);
}

/* A message starts (both sides posted): its latency phase begins now.
 * 1 when a link it needs carries another flow. */
static int flow_start(uint32_t m) {
  const froute *r = &F.routes[F.msgs[m].route];
  for (uint32_t i = 0; i < r->nl; i++)
    if (F.link_busy[F.lk[r->l0 + i]]++) return fast_give_up("two flows share a link");
  /* comm_action_set_variable: date = latency_ + last_update */
  return evq_push(&F.q, r->lat * F.latf + F.clock, EV_LATENCY, m) ? -1 : 0;
}

/* One side of message m is past it; once both are, its slot is reused. */
static void release(uint32_t m) {
  if (--F.msgs[m].refs) return;
  F.msgs[m].next = F.free_msg;
  F.free_msg = m;
}

/* Post actor x's side of a message on mailbox b; *m is the message (made
 * when x is first). 1: contention (give up), -1: out of memory. */
static int post(fbox *b, uint32_t x, int sending, double bytes, uint32_t route, uint32_t *out) {
  if (sending ? (b->sender != UINT32_MAX && b->sender != x) : (b->receiver != UINT32_MAX && b->receiver != x))
    return fast_give_up("two actors on one side of a mailbox"); /* matching order is SimGrid's scheduling */
  if (sending) b->sender = x;
  else b->receiver = x;
  const uint32_t h = b->head;
  if (h != UINT32_MAX && (F.msgs[h].src == UINT32_MAX) == sending) { /* the other side waits: match */
    fmsg *m = &F.msgs[h];
    b->head = m->next;
    if (b->head == UINT32_MAX) b->tail = UINT32_MAX;
    if (sending) m->src = x, m->bytes = bytes, m->route = route;
    else m->dst = x;
    *out = h;
    return flow_start(h);
  }
  uint32_t k = F.free_msg;
  if (k != UINT32_MAX) F.free_msg = F.msgs[k].next;
  else {
    if (engine_grow((void **)&F.msgs, &F.mcap, F.nmsgs + 1, sizeof *F.msgs)) return -1;
    k = (uint32_t)F.nmsgs++;
  }
  F.msgs[k] = (fmsg){.src = sending ? x : UINT32_MAX, .dst = sending ? UINT32_MAX : x,
                     .route = sending ? route : 0, .next = UINT32_MAX, .bytes = bytes, .refs = 2};
  if (b->tail == UINT32_MAX) b->head = k;
  else F.msgs[b->tail].next = k;
  b->tail = k;
  *out = k;
  return 0;
}

/* An execution's completion that was rescheduled since. */
static int stale(const evq_event *e) { return e->kind == EV_EXEC && e->seq != F.acts[e->id].exec_seq; }

/* The executions on host h, their remains brought to now at the rates they
 * had (CpuCas01Action::update_remains_lazy). */
static void exec_advance(uint32_t h) {
  const fhost *hx = &F.hx[h];
  for (uint32_t i = 0; i < hx->n; i++) {
    fact *s = &F.acts[hx->run[i]];
    if (s->remains > 0) {
      s->remains -= s->rate * (F.clock - s->last);
      if (s->remains < 1e-5 * FAST_PRECISION) s->remains = 0; /* double_update */
    }
    s->last = F.clock;
  }
}

/* Their rates for the number running now, and their completions: the
 * solver's share of the host's constraint, capacity cores x speed over k
 * variables of penalty 1, each bounded by speed. */
static int exec_reschedule(uint32_t h) {
  const fhost *hx = &F.hx[h];
  if (!hx->n) return 0;
  double rate = F.cores[h] * F.speed[h] / (double)hx->n;
  if (rate > F.speed[h]) rate = F.speed[h];
  for (uint32_t i = 0; i < hx->n; i++) {
    const uint32_t x = hx->run[i];
    fact *s = &F.acts[x];
    s->rate = rate;
    s->exec_seq = evq_next_seq(&F.q); /* the seq evq_push gives it */
    if (evq_push(&F.q, F.clock + (s->remains > 0 ? s->remains / rate : 0.0), EV_EXEC, x)) return -1;
  }
  return 0;
}

/* The hosts an instant's completions changed: the others' new rates. */
static int exec_flush(void) {
  for (size_t i = 0; i < F.ndirty; i++) {
    const uint32_t h = F.dirty[i];
    F.hx[h].dirty = 0;
    exec_advance(h);
    if (exec_reschedule(h)) return -1;
  }
  F.ndirty = 0;
  return 0;
}

/* Run actor x until it blocks or ends. 1: give up, -1: out of memory. */
static int run_actor(uint32_t x, double *marks) {
  const sim_actor_trace *a = &F.t->actors[x];
  fact *s = &F.acts[x];
  sim_op op;
  const sim_op *o = &op;
  while (sim_trace_next(a, &s->pc, &op)) {
    int rc = 0;
    switch (o->kind) {
    case SIM_SEND: {
      if (o->peer != s->speer) {
        if (o->peer >= F.nhosts) return fast_give_up("a message to no host");
        const long r = route_find((uint32_t)a->host, o->peer);
        if (r == -3) return fast_give_up("a route not resolved before the replay");
        if (r < 0) return fast_give_up("a route it does not cover (loopback, no link or no latency)");
        const uint32_t b = box_get((uint32_t)a->host, o->peer);
        if (b == UINT32_MAX) return -1;
        s->speer = o->peer, s->sroute = (uint32_t)r, s->sbox = b;
      }
      const double bytes = (double)(long)(o->v + 0.5); /* what timing.c's put_async sends */
      uint32_t m;
      rc = post(&F.boxes[s->sbox], x, 1, bytes, s->sroute, &m);
      if (!rc && hwin_put(&s->sends, o->aux, (uintptr_t)m + 1)) return -1;
      break;
    }
    case SIM_WAIT: {
      const uintptr_t k1 = hwin_take(&s->sends, o->aux);
      if (!k1) return fast_give_up("a wait for no message");
      const uint32_t k = (uint32_t)(k1 - 1);
      fmsg *m = &F.msgs[k];
      if (!m->done) return m->swait = 1, s->blocked = 1, 0;
      release(k);
      break;
    }
    case SIM_RECV:
    case SIM_IRECV: {
      uint32_t m;
      if (o->peer != s->rpeer) {
        if (o->peer >= F.nhosts) return fast_give_up("a message to no host");
        const uint32_t b = box_get(o->peer, (uint32_t)a->host);
        if (b == UINT32_MAX) return -1;
        s->rpeer = o->peer, s->rbox = b;
      }
      rc = post(&F.boxes[s->rbox], x, 0, 0, 0, &m);
      if (rc) return rc;
      if (o->kind == SIM_IRECV) {
        if (hwin_put(&s->recvs, o->aux, (uintptr_t)m + 1)) return -1;
        break;
      }
      if (!F.msgs[m].done) return F.msgs[m].rwait = 1, s->blocked = 1, 0;
      release(m);
      break;
    }
    case SIM_WAITRECV: {
      const uintptr_t k1 = hwin_take(&s->recvs, o->aux);
      if (!k1) return fast_give_up("a wait for no message");
      const uint32_t k = (uint32_t)(k1 - 1);
      fmsg *m = &F.msgs[k];
      if (!m->done) return m->rwait = 1, s->blocked = 1, 0;
      release(k);
      break;
    }
    case SIM_EXEC: {
      const uint32_t h = (uint32_t)a->host;
      fhost *hx = &F.hx[h];
      exec_advance(h); /* the others' remains up to now, at their old rate */
      if (engine_grow((void **)&hx->run, &hx->cap, (size_t)hx->n + 1, sizeof *hx->run)) return -1;
      hx->run[hx->n++] = x;
      s->remains = o->v * F.speed[h], s->last = F.clock; /* timing.c's flops */
      if (exec_reschedule(h)) return -1;
      return s->blocked = 1, 0;
    }
    case SIM_SLEEP: {
      const double d = o->v;
      if (!(d > 0)) return fast_give_up("a sleep of no time"); /* s4u's no-op sleep: not verified */
      if (evq_push(&F.q, F.clock + fmax(d, FAST_PRECISION), EV_SLEEP, x)) return -1;
      return s->blocked = 1, 0;
    }
    case SIM_ACQUIRE:
      /* two acquirers: which one gets it is SimGrid's scheduling order */
      if (F.semown[o->aux] && F.semown[o->aux] != x + 1) return fast_give_up("two actors acquire one semaphore");
      F.semown[o->aux] = x + 1;
      if (F.sem[o->aux] > 0) {
        F.sem[o->aux]--;
        break;
      }
      if (F.semq[o->aux]) return fast_give_up("two waiters on a semaphore");
      F.semq[o->aux] = x + 1;
      return s->blocked = 1, 0;
    case SIM_RELEASE:
      if (F.semq[o->aux]) {
        const uint32_t w = F.semq[o->aux] - 1;
        F.semq[o->aux] = 0;
        wake(w);
      } else
        F.sem[o->aux]++;
      break;
    case SIM_MARK: marks[o->aux] = F.clock; break;
    case SIM_PROTO: return fast_give_up("comm.model nccl");
    }
    if (rc) return rc;
  }
  return 0;
}

/* An event of the queue, at the current instant. */
static int on_event(const evq_event *e) {
  switch (e->kind) {
  case EV_LATENCY: { /* the variable gets its penalty; it completes at now + remains / rate */
    const fmsg *m = &F.msgs[e->id];
    const froute *r = &F.routes[m->route];
    const double rate = r->value * F.bwf;
    return evq_push(&F.q, F.clock + (m->bytes > 0 ? m->bytes / rate : 0.0), EV_MSG, e->id) ? -1 : 0;
  }
  case EV_MSG: {
    fmsg *m = &F.msgs[e->id];
    const froute *r = &F.routes[m->route];
    for (uint32_t i = 0; i < r->nl; i++) F.link_busy[F.lk[r->l0 + i]]--;
    m->done = 1;
    /* a side that waited for it is past it now */
    const int sw = m->swait, rw = m->rwait;
    if (sw) wake(m->src);
    if (rw) wake(m->dst);
    if (sw) release(e->id);
    if (rw) release(e->id);
    return 0;
  }
  case EV_EXEC: {
    /* not stale: fast_play drops those before they reach here, and nothing
     * reschedules an execution while an instant's events are taken */
    fact *s = &F.acts[e->id];
    const uint32_t h = (uint32_t)F.t->actors[e->id].host;
    fhost *hx = &F.hx[h];
    for (uint32_t i = 0; i < hx->n; i++)
      if (hx->run[i] == e->id) {
        hx->run[i] = hx->run[--hx->n];
        break;
      }
    s->exec_seq = UINT64_MAX;
    /* the others' rates change once every completion of the instant is in
     * (SimGrid pops them all, then solves): fast_play calls exec_flush */
    if (hx->n && !hx->dirty) hx->dirty = 1, F.dirty[F.ndirty++] = h;
  } /* fall through */
  default: wake(e->id); return 0;
  }
}

void fast_free(void) {
  if (F.hx)
    for (size_t h = 0; h < F.nhosts; h++) free(F.hx[h].run);
  free(F.host), free(F.speed), free(F.cores), free(F.hx), free(F.dirty), free(F.routes), free(F.rslots), free(F.lk), free(F.links), free(F.link_id);
  free(F.link_busy), free(F.msgs), free(F.boxes), free(F.bslot), free(F.batch), free(F.ready), free(F.sem), free(F.semq);
  free(F.semown);
  if (F.acts)
    for (size_t i = 0; i < F.t->nactors; i++) hwin_free(&F.acts[i].sends), hwin_free(&F.acts[i].recvs);
  free(F.acts);
  evq_free(&F.q);
  memset(&F, 0, sizeof F);
}

/* The replay itself, on what fast_prepare resolved: no call to SimGrid. */
static int fast_play(const sim_trace *t, double *marks, const size_t *mark0) {
  F.clock = 0;
  F.free_msg = UINT32_MAX;
  evq_init(&F.q);
  for (size_t i = 0; i < t->nactors; i++) {
    F.acts[i].speer = F.acts[i].rpeer = UINT32_MAX;
    F.ready[F.nready++] = (uint32_t)i;
  }
  for (;;) {
    /* the actors of this instant, until all are blocked or done */
    while (F.nready) {
      const uint32_t x = F.ready[--F.nready];
      const int rc = run_actor(x, marks + mark0[x]);
      if (rc) return rc;
      /* its next words, wanted when every other actor has had its turn:
       * fetched now, they wait in the cache (one line an actor) instead of
       * missing it then (the trace is read once, far beyond the cache) */
      const sim_actor_trace *a = &t->actors[x];
      const size_t k = F.acts[x].pc.k;
      if (k < a->n) __builtin_prefetch(&a->ops[k]);
      if (k + 16 < a->n) __builtin_prefetch(&a->ops[k + 16]);
    }
    /* an execution's completion rescheduled since is no event at all: the
     * clock must not stop at it (SimGrid's moves from event to event) */
    while (evq_size(&F.q) && stale(evq_top(&F.q))) evq_pop(&F.q, NULL);
    if (!evq_size(&F.q)) break;
    /* the next instant: SimGrid's clock moves by (date - now) */
    size_t nb = 0;
    if (engine_grow((void **)&F.batch, &F.bcap2, 1, sizeof *F.batch)) return -1;
    evq_pop(&F.q, &F.batch[nb++]);
    if (F.batch[0].date < F.clock) return fast_give_up("an event in the past");
    F.clock = F.clock + (F.batch[0].date - F.clock);
    /* SimGrid's models take every event within its precision of now at now
     * (double_equals(date, now, surf/precision)), their effects dated now;
     * not those this instant makes (a message's end once its latency is
     * paid): SimGrid dates them at its next solve, the clock moving on.  So
     * the instant's events are gathered first, then taken. */
    for (;;) {
      while (evq_size(&F.q) && stale(evq_top(&F.q))) evq_pop(&F.q, NULL);
      if (!evq_size(&F.q) || !(fabs(evq_top(&F.q)->date - F.clock) < FAST_PRECISION)) break;
      if (engine_grow((void **)&F.batch, &F.bcap2, nb + 1, sizeof *F.batch)) return -1;
      evq_pop(&F.q, &F.batch[nb++]);
    }
    int rc = 0;
    for (size_t k = 0; k < nb && !rc; k++) rc = on_event(&F.batch[k]);
    if (rc || (rc = exec_flush())) return rc;
  }
  for (size_t i = 0; i < t->nactors; i++)
    if (!sim_trace_done(&t->actors[i], &F.acts[i].pc)) return fast_give_up("a deadlock"); /* SimGrid reports it */
  return 0;
}

int engine_fast_play(const sim_trace *t, double *marks, const size_t *mark0) {
  const int rc = fast_play(t, marks, mark0);
  fast_free();
  return rc;
}

int engine_fast_replay(const sim_trace *t, double *marks, const size_t *mark0, const char *const *hosts,
                       size_t nhosts) {
  const int rc = engine_fast_prepare(t, hosts, nhosts);
  return rc ? rc : engine_fast_play(t, marks, mark0);
}
