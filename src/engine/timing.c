/* src/engine/timing.c — the timing executor's replay: an iteration's trace
 * (src/comm/itrace.h) replayed in SimGrid with sizes and durations only,
 * or on the analytical path where no two flows share a link
 * (timing_fast.c), in a child of the zygote (timing_zygote.c).
 *
 * Every replay starts at simulated time 0 on an idle network: SimGrid's
 * clock cannot be reset, so each one runs in a process forked from the
 * zygote, in which SimGrid has loaded the platform and never run.  An
 * iteration's timing is then a pure function of (platform, trace), bit for
 * bit, whether it is simulated or taken from the memo. */
#include "engine/timing_replay.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm/itrace.h"
#include "engine/hwin.h"
#include "engine/timing_fast.h"
#include "progress.h"


/* Mailbox "src>dst" of every pair that sends, found by an open-addressing
 * table built before the actors start: no N x N table. */
typedef struct mbox {
  uint64_t key; /* (src << 32 | dst) + 1, 0: empty */
  sg_mailbox_t mb;
} mbox;

typedef struct replay {
  const sim_trace *t;
  double *marks;   /* shared with the parent */
  size_t *mark0;   /* [nactors]: actor i's marks start at marks[mark0[i]] */
  mbox *boxes;
  size_t cap, used;
  sg_sem_t *sems;
  size_t done;
  nccl_plan plan; /* comm.model: "nccl" prices messages (timing_nccl.c) */
  int fast;       /* --timing auto: try the analytical path first (timing_fast.c) */
} replay;

static replay R; /* the child's one replay */

static char token; /* S4U refuses a NULL payload */

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static mbox *box_find(mbox *boxes, size_t cap, uint64_t key) {
  size_t i = mix64(key) & (cap - 1);
  while (boxes[i].key && boxes[i].key != key) i = (i + 1) & (cap - 1);
  return &boxes[i];
}

/* The slot of (src, dst), made on first use; the table doubles at half
 * full. */
static mbox *box_slot(uint64_t src, uint64_t dst) {
  const uint64_t key = (src << 32 | dst) + 1;
  mbox *b = box_find(R.boxes, R.cap, key);
  if (b->key) return b;
  if (2 * (R.used + 1) > R.cap) {
    mbox *nb = calloc(2 * R.cap, sizeof *nb);
    if (!nb) _exit(3);
    for (size_t i = 0; i < R.cap; i++)
      if (R.boxes[i].key) *box_find(nb, 2 * R.cap, R.boxes[i].key) = R.boxes[i];
    free(R.boxes);
    R.boxes = nb;
    R.cap *= 2;
    b = box_find(R.boxes, R.cap, key);
  }
  R.used++;
  b->key = key;
  return b;
}

static sg_mailbox_t box(int src, int dst) {
  mbox *b = box_slot((uint32_t)src, (uint32_t)dst);
  if (!b->mb) {
    char name[48];
    snprintf(name, sizeof name, "%d>%d", src, dst);
    b->mb = sg_mailbox_by_name(name);
  }
  return b->mb;
}

/* The comm or semaphore of handle h, waited for now; a trace that waits for
 * a handle not in flight is ccsim's bug (the data executor made it): exit 6. */
static uintptr_t in_flight(hwin *w, uint32_t h) {
  const uintptr_t v = hwin_take(w, h);
  if (!v) _exit(6);
  return v;
}

/* One actor under comm.model "nccl": messages are priced by the plan
 * (timing_nccl.c), each collective call's protocol and pricing algorithm set
 * by its SIM_PROTO (aux = protocol | algorithm << 4). */
static void actor_nccl(const sim_actor_trace *a, double *marks) {
  hwin sends = {0}, recvs = {0};
  const double speed = sg_host_get_speed(sg_host_self());
  int proto = NCCL_SIMPLE, algo = R.plan.algo;
  sim_cursor cur = {0};
  sim_op op;
  const sim_op *o = &op;
  while (sim_trace_next(a, &cur, &op)) {
    switch (o->kind) {
    case SIM_SEND:
      if (hwin_put(&sends, o->aux, (uintptr_t)nccl_replay_send(a->host, (int)o->peer, o->v, algo, proto))) _exit(3);
      progress_tick();
      break;
    /* a message's semaphores are used once: gone once waited for */
    case SIM_WAIT: {
      const sg_sem_t s = (sg_sem_t)in_flight(&sends, o->aux);
      sg_sem_acquire(s), sg_sem_destroy(s);
      break;
    }
    case SIM_RECV: {
      const sg_sem_t r = nccl_replay_recv((int)o->peer, a->host);
      sg_sem_acquire(r), sg_sem_destroy(r);
      break;
    }
    case SIM_IRECV: if (hwin_put(&recvs, o->aux, (uintptr_t)nccl_replay_recv((int)o->peer, a->host))) _exit(3); break;
    case SIM_WAITRECV: {
      const sg_sem_t r = (sg_sem_t)in_flight(&recvs, o->aux);
      sg_sem_acquire(r), sg_sem_destroy(r);
      break;
    }
    case SIM_EXEC: sg_actor_execute(o->v * speed); break;
    case SIM_SLEEP: sg_actor_sleep_for(o->v); break;
    case SIM_ACQUIRE: sg_sem_acquire(R.sems[o->aux]); break;
    case SIM_RELEASE: sg_sem_release(R.sems[o->aux]); break;
    case SIM_MARK: marks[o->aux] = simgrid_get_clock(); break;
    case SIM_PROTO: proto = (int)(o->aux & 15), algo = (int)(o->aux >> 4); break;
    }
  }
  hwin_free(&sends);
  hwin_free(&recvs);
}

/* One actor: its operations in order, as the data executor recorded them. */
static void actor_main(int argc, char **argv) {
  (void)argc, (void)argv;
  const size_t i = (size_t)(uintptr_t)sg_actor_self_get_data();
  const sim_actor_trace *a = &R.t->actors[i];
  void *slot;
  const double speed = sg_host_get_speed(sg_host_self());
  double *marks = R.marks + R.mark0[i];
  if (R.plan.model == COMM_NCCL) {
    actor_nccl(a, marks);
    R.done++;
    return;
  }
  hwin sends = {0}, recvs = {0};
  sim_cursor cur = {0};
  sim_op op;
  const sim_op *o = &op;
  while (sim_trace_next(a, &cur, &op)) {
    switch (o->kind) {
    case SIM_SEND:
      if (hwin_put(&sends, o->aux,
                   (uintptr_t)sg_mailbox_put_async(box(a->host, (int)o->peer), &token, (long)(o->v + 0.5))))
        _exit(3);
      progress_tick();
      break;
    case SIM_WAIT: sg_comm_wait((sg_comm_t)in_flight(&sends, o->aux)); break;
    case SIM_RECV: sg_mailbox_get(box((int)o->peer, a->host)); break;
    case SIM_IRECV:
      if (hwin_put(&recvs, o->aux, (uintptr_t)sg_mailbox_get_async(box((int)o->peer, a->host), &slot))) _exit(3);
      break;
    case SIM_WAITRECV: sg_comm_wait((sg_comm_t)in_flight(&recvs, o->aux)); break;
    case SIM_EXEC: sg_actor_execute(o->v * speed); break;
    case SIM_SLEEP: sg_actor_sleep_for(o->v); break;
    case SIM_ACQUIRE: sg_sem_acquire(R.sems[o->aux]); break;
    case SIM_RELEASE: sg_sem_release(R.sems[o->aux]); break;
    case SIM_MARK: marks[o->aux] = simgrid_get_clock(); break;
    case SIM_PROTO: break; /* the ideal model has no protocols */
    }
  }
  hwin_free(&sends);
  hwin_free(&recvs);
  R.done++;
}

int timing_fast_covers(const nccl_plan *plan) {
  const engine_setup *s = engine_current_setup();
  return plan->model == COMM_IDEAL && engine_fast_supported(engine_network_model(), s->crosstraffic,
                                                            engine_latency_free, s->cfg, s->ncfg, s->platform);
}

int timing_replay_child(const sim_trace *t, double *marks, const nccl_plan *plan, int fast) {
  R.t = t;
  R.plan = *plan;
  R.fast = fast;
  R.marks = marks;
  R.mark0 = calloc(t->nactors + 1, sizeof *R.mark0);
  for (size_t i = 0; i < t->nactors; i++) R.mark0[i + 1] = R.mark0[i] + t->actors[i].nmarks;
  R.cap = 1024;
  R.boxes = calloc(R.cap, sizeof *R.boxes);
  R.sems = calloc(t->nsems + 1, sizeof *R.sems);
  if (!R.mark0 || !R.boxes || !R.sems) return 3;
  size_t nhosts;
  const char *const *hosts = engine_hosts(&nhosts);
  /* --timing auto: the analytical path first (timing_fast.c), before
   * SimGrid's mailboxes and semaphores are made; the slot after the marks
   * says which path timed the replay */
  uint64_t *path = (uint64_t *)(marks + R.mark0[t->nactors]);
  *path = 0;
  if (R.fast && timing_fast_covers(&R.plan)) {
    const int rc = engine_fast_replay(t, marks, R.mark0, hosts, nhosts);
    if (rc < 0) return 3;
    if (rc == 0) return *path = 1, 0;
  }
  for (size_t s = 0; s < t->nsems; s++) R.sems[s] = sg_sem_init(0);
  /* every pair's mailbox before the actors start: the table does not move
   * under them */
  uint64_t nsends = 0;
  for (size_t i = 0; i < t->nactors; i++) {
    sim_cursor cur = {0};
    sim_op o;
    while (sim_trace_next(&t->actors[i], &cur, &o))
      if (o.kind == SIM_SEND) box(t->actors[i].host, (int)o.peer), nsends++;
  }
  progress_timing(nsends); /* this child's stderr line: the parent's count is untouched */
  if (R.plan.model == COMM_NCCL && nccl_replay_init(&R.plan, hosts, nhosts)) return 3;
  for (size_t i = 0; i < t->nactors; i++) {
    char name[32];
    snprintf(name, sizeof name, "a%zu", i);
    sg_actor_t a = sg_actor_init(name, sg_host_by_name(hosts[t->actors[i].host]));
    sg_actor_set_data(a, (void *)(uintptr_t)i);
    sg_actor_start_(a, actor_main, 0, NULL);
  }
  simgrid_run();
  return R.done == t->nactors ? 0 : 4;
}

