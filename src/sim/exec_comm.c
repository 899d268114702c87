/* src/sim/exec_comm.c — comm.h in the data executor: in-memory mailboxes
 * (the k-th send from src to dst matches the k-th receive), marks and
 * semaphores, each call recorded in the current actor's trace. */
#include <stdint.h>
#include <stdlib.h>

#include "comm.h"
#include "exec_internal.h"
#include "progress.h"

/* Append an operation to the current actor's trace. */
static void record(unsigned kind, int peer, uint32_t aux, double v) {
  sim_actor_trace *t = &exec_now->tr[exec_now->cur];
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    sim_op *ops = realloc(t->ops, t->cap * sizeof *t->ops);
    if (!ops) exec_out_of_memory("the iteration's trace");
    t->ops = ops;
  }
  t->ops[t->n++] = (sim_op){.kind = kind, .peer = (uint32_t)peer, .aux = aux};
  if (!sim_op_has_value(kind)) return;
  if (t->nv == t->vcap) {
    t->vcap = t->vcap ? 2 * t->vcap : 128;
    double *vals = realloc(t->vals, t->vcap * sizeof *t->vals);
    if (!vals) exec_out_of_memory("the iteration's trace");
    t->vals = vals;
  }
  t->vals[t->nv++] = v;
}

static void pairs_grow(sim_exec *x);

/* The mailbox of (src, dst), made on first use. */
static pair *pair_of(int src, int dst) {
  sim_exec *x = exec_now;
  if (2 * (x->pcount + 1) > x->pcap) pairs_grow(x);
  const uint64_t key = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) + 1;
  for (size_t i = exec_mix64(key) & (x->pcap - 1);; i = (i + 1) & (x->pcap - 1)) {
    pair *p = &x->pairs[i];
    if (p->key == key) return p;
    if (!p->key) {
      p->key = key;
      x->pcount++;
      return p;
    }
  }
}

/* Pairs move when the table grows: nobody keeps a pointer to one across a
 * call that can grow it (blocked actors and posted receives keep keys). */
static void pairs_grow(sim_exec *x) {
  pair *old = x->pairs;
  const size_t ocap = x->pcap;
  x->pcap *= 2;
  x->pairs = calloc(x->pcap, sizeof *x->pairs);
  if (!x->pairs) exec_out_of_memory("the message table");
  for (size_t i = 0; i < ocap; i++) {
    if (!old[i].key) continue;
    size_t j = exec_mix64(old[i].key) & (x->pcap - 1);
    while (x->pairs[j].key) j = (j + 1) & (x->pcap - 1);
    x->pairs[j] = old[i];
  }
  free(old);
}

/* Block the current actor until the scheduler resumes it. */
static void block(void) {
  actor *a = &exec_now->actors[exec_now->cur];
  a->state = BLOCKED;
  coro_swap(&a->ctx, &exec_now->main);
}

/* Take message seq of p, waiting for it if it has not been sent yet. */
static void *take(pair *p, uint64_t seq) {
  msg_node **pp = &p->head;
  while (*pp && (*pp)->seq != seq) pp = &(*pp)->next;
  if (!*pp) {
    actor *a = &exec_now->actors[exec_now->cur];
    p->waiter = exec_now->cur + 1;
    p->wait_seq = seq;
    a->wait_key = p->key;
    a->wait_seq = seq;
    block(); /* p may have moved meanwhile: not used again */
    a->wait_key = 0;
    return a->got;
  }
  msg_node *m = *pp;
  *pp = m->next;
  if (p->tail == m) {
    p->tail = NULL;
    for (msg_node *t = p->head; t; t = t->next) p->tail = t;
  }
  void *payload = m->payload;
  free(m);
  return payload;
}

static void deliver(int src, int dst, void *msg) {
  pair *p = pair_of(src, dst);
  const uint64_t seq = p->sent++;
  if (p->waiter && p->wait_seq == seq) {
    const int a = p->waiter - 1;
    p->waiter = 0;
    exec_now->actors[a].got = msg;
    exec_ready_push(exec_now, a);
    return;
  }
  msg_node *m = malloc(sizeof *m);
  if (!m) exec_out_of_memory("a message");
  *m = (msg_node){.seq = seq, .payload = msg};
  if (p->tail) p->tail->next = m;
  else p->head = m;
  p->tail = m;
}

comm_req *comm_isend(int src, int dst, void *msg, double bytes) {
  const uint32_t h = exec_now->tr[exec_now->cur].nsends++;
  record(SIM_SEND, dst, h, bytes);
  progress_tick();
  deliver(src, dst, msg);
  return (comm_req *)(uintptr_t)(h + 1);
}

void comm_wait(comm_req *req) { record(SIM_WAIT, 0, (uint32_t)((uintptr_t)req - 1), 0); }

void comm_send(int src, int dst, void *msg, double bytes) { comm_wait(comm_isend(src, dst, msg, bytes)); }

void *comm_recv(int src, int dst) {
  record(SIM_RECV, src, 0, 0);
  pair *p = pair_of(src, dst);
  return take(p, p->posted++);
}

comm_rreq *comm_irecv(int src, int dst) {
  comm_rreq *r = malloc(sizeof *r);
  if (!r) exec_out_of_memory("a posted receive");
  r->src = src;
  r->dst = dst;
  r->seq = pair_of(src, dst)->posted++;
  r->handle = exec_now->tr[exec_now->cur].nirecvs++;
  record(SIM_IRECV, src, r->handle, 0);
  return r;
}

void *comm_wait_recv(comm_rreq *r) {
  record(SIM_WAITRECV, 0, r->handle, 0);
  /* by key: the table may have grown since the receive was posted */
  pair *p = pair_of(r->src, r->dst);
  const uint64_t seq = r->seq;
  free(r);
  return take(p, seq);
}

void comm_sleep(double d) { record(SIM_SLEEP, 0, 0, d); }

void comm_execute(double d) {
  if (d > 0) record(SIM_EXEC, 0, 0, d);
}

void comm_abort(void) {
  exec_now->stopped = 1;
  block();
  abort(); /* a stopped executor never resumes its actors */
}

uint32_t comm_mark(void) {
  const uint32_t m = exec_now->tr[exec_now->cur].nmarks++;
  record(SIM_MARK, 0, m, 0);
  return m;
}

comm_sem *comm_sem_new(void) {
  comm_sem *s = calloc(1, sizeof *s);
  if (!s) exec_out_of_memory("a semaphore");
  if (exec_now->nsems == exec_now->semcap) {
    exec_now->semcap = exec_now->semcap ? 2 * exec_now->semcap : 64;
    comm_sem **sems = realloc(exec_now->sems, exec_now->semcap * sizeof *exec_now->sems);
    if (!sems) exec_out_of_memory("the semaphores");
    exec_now->sems = sems;
  }
  s->id = (uint32_t)exec_now->nsems;
  exec_now->sems[exec_now->nsems++] = s;
  s->head = s->tail = -1;
  return s;
}

void comm_sem_acquire(comm_sem *s) {
  record(SIM_ACQUIRE, 0, s->id, 0);
  if (s->value > 0) {
    s->value--;
    return;
  }
  actor *a = &exec_now->actors[exec_now->cur];
  a->wait_sem = s;
  a->wait_next = -1;
  if (s->tail >= 0) exec_now->actors[s->tail].wait_next = exec_now->cur;
  else s->head = exec_now->cur;
  s->tail = exec_now->cur;
  block(); /* the releaser handed its unit straight to us */
  a->wait_sem = NULL;
}

void comm_sem_release(comm_sem *s) {
  record(SIM_RELEASE, 0, s->id, 0);
  if (s->head < 0) {
    s->value++;
    return;
  }
  const int a = s->head;
  s->head = exec_now->actors[a].wait_next;
  if (s->head < 0) s->tail = -1;
  exec_ready_push(exec_now, a);
}

void comm_sem_free(comm_sem *s) {
  if (!s) return;
  if (exec_now && s->id < exec_now->nsems && exec_now->sems[s->id] == s) exec_now->sems[s->id] = NULL;
  free(s);
}

void exec_free_pairs(sim_exec *x) {
  for (size_t i = 0; i < x->pcap; i++)
    for (msg_node *m = x->pairs[i].head, *nx; m; m = nx) {
      nx = m->next;
      free(m);
    }
}

