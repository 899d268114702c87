/* src/engine/timing_nccl.c — messages as comm.model "nccl" prices them, in
 * the timing replay (timing.c calls it for every SEND and receive when the
 * run's plan is "nccl").
 *
 * A message of S bytes from rank a to rank b, sent under protocol p by
 * algorithm g over link class hw (nccl_hw_of):
 *   - between two nodes it is split into C = plan.channels flows of S/C
 *     bytes, flow c from the rail-c GPU of a's node to the rail-c GPU of
 *     b's node (nccl_rail_rank): each leaves and enters through NIC c mod
 *     K, as NCCL's rail-aligned channels do; inside a node it is one flow
 *     from a to b;
 *   - each flow carries S / (C * eff) bytes, eff = nccl_efficiency(hw, g,
 *     p), so that SimGrid still shares the links between flows;
 *   - each flow starts after step = nccl_message_latency(hw, g, p), and
 *     the links' own latencies count for nothing (the replay runs with
 *     SimGrid's network/latency-factor 0): a message costs NCCL's per-step
 *     latency, whatever latency the platform gives its links.
 * The flows are host-to-host transfers (sg_host_sendto), each run by a
 * short-lived actor on its source host; when the last one ends, the
 * message has arrived (the receiver's k-th receive from a waits for the
 * k-th message from a) and the sender's handle completes.  A transfer
 * starts when the sender sends, whether or not the receiver has posted its
 * receive (NCCL's receive buffers are posted in advance). */
#include "engine/timing_nccl.h"

#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Per (src, dst) pair: the arrival semaphore of each message, in order. */
typedef struct pair {
  uint64_t key; /* (src << 32 | dst) + 1, 0: empty */
  sg_sem_t *arr;
  size_t cap;
  uint32_t nsend, nrecv;
} pair;

static struct {
  const nccl_plan *plan;
  sg_host_t *host; /* [nranks] */
  pair *pairs;
  size_t cap, used;
} N;

typedef struct nmsg {
  int left; /* flows still in flight */
  sg_sem_t arrived, sent;
} nmsg;

typedef struct flow {
  nmsg *m;
  sg_host_t from, to;
  double bytes, wait;
} flow;

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static pair *pair_find(pair *t, size_t cap, uint64_t key) {
  size_t i = mix(key) & (cap - 1);
  while (t[i].key && t[i].key != key) i = (i + 1) & (cap - 1);
  return &t[i];
}

/* The pair (src, dst), made on first use (the table doubles at half full;
 * callers keep no pair pointer across a call). */
static pair *pair_of(int src, int dst) {
  const uint64_t key = ((uint64_t)src << 32 | (uint32_t)dst) + 1;
  pair *p = pair_find(N.pairs, N.cap, key);
  if (p->key) return p;
  if (2 * (N.used + 1) > N.cap) {
    pair *np = calloc(2 * N.cap, sizeof *np);
    if (!np) exit(3);
    for (size_t i = 0; i < N.cap; i++)
      if (N.pairs[i].key) *pair_find(np, 2 * N.cap, N.pairs[i].key) = N.pairs[i];
    free(N.pairs);
    N.pairs = np, N.cap *= 2;
    p = pair_find(N.pairs, N.cap, key);
  }
  N.used++;
  p->key = key;
  return p;
}

/* The arrival semaphore of the k-th message of pair (src, dst). */
static sg_sem_t arrival(int src, int dst, int sending) {
  pair *p = pair_of(src, dst);
  const size_t k = sending ? p->nsend++ : p->nrecv++;
  while (k >= p->cap) {
    const size_t cap = p->cap ? 2 * p->cap : 8;
    sg_sem_t *a = realloc(p->arr, cap * sizeof *a);
    if (!a) exit(3);
    for (size_t i = p->cap; i < cap; i++) a[i] = NULL;
    p->arr = a, p->cap = cap;
  }
  if (!p->arr[k]) p->arr[k] = sg_sem_init(0);
  return p->arr[k];
}

int nccl_replay_init(const nccl_plan *plan, const char *const *hosts, size_t nhosts) {
  N.plan = plan;
  /* every GPU of every node a worker runs on: a rail GPU may have no worker */
  const size_t n = (size_t)plan->nnodes * (size_t)plan->gpn;
  N.host = calloc(n + 1, sizeof *N.host);
  N.cap = 1024;
  N.pairs = calloc(N.cap, sizeof *N.pairs);
  if (!N.host || !N.pairs) return -1;
  for (size_t r = 0; r < n; r++) N.host[r] = sg_host_by_name(hosts[r < nhosts ? r : nhosts - 1]);
  return 0;
}

static void flow_main(int argc, char **argv) {
  (void)argc, (void)argv;
  flow *f = sg_actor_self_get_data();
  if (f->wait > 0) sg_actor_sleep_for(f->wait);
  sg_host_sendto(f->from, f->to, f->bytes);
  nmsg *m = f->m;
  free(f);
  if (--m->left) return;
  sg_sem_release(m->arrived);
  sg_sem_release(m->sent);
  free(m);
}

sg_sem_t nccl_replay_send(int src, int dst, double bytes, int algo, int proto) {
  const nccl_plan *p = N.plan;
  const int hw = nccl_hw_of(p, src, dst), C = hw == NCCL_HW_NET ? p->channels : 1;
  const double eff = nccl_efficiency(p, hw, algo, proto), step = nccl_message_latency(p, hw, algo, proto);
  nmsg *m = malloc(sizeof *m);
  if (!m) exit(3);
  *m = (nmsg){.left = C, .arrived = arrival(src, dst, 1), .sent = sg_sem_init(0)};
  const sg_sem_t sent = m->sent;
  for (int c = 0; c < C; c++) {
    flow *f = malloc(sizeof *f);
    if (!f) exit(3);
    const int a = C > 1 ? nccl_rail_rank(p, src / p->gpn, c) : src, b = C > 1 ? nccl_rail_rank(p, dst / p->gpn, c) : dst;
    f->m = m, f->from = N.host[a], f->to = N.host[b];
    f->bytes = bytes / C / eff;
    f->wait = step;
    sg_actor_t x = sg_actor_init("flow", f->from);
    sg_actor_set_data(x, f);
    sg_actor_start_(x, flow_main, 0, NULL);
  }
  return sent;
}

sg_sem_t nccl_replay_recv(int src, int dst) { return arrival(src, dst, 0); }
