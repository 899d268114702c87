/* src/engine/timing.c — the timing executor: replays an iteration's trace
 * (src/sim/itrace.h) in SimGrid with sizes and durations only.
 *
 * Every replay starts at simulated time 0 on an idle network: SimGrid's
 * clock cannot be reset, so each one runs in a child process forked from
 * the parent, in which SimGrid has loaded the platform and never run.  An
 * iteration's timing is then a pure function of (platform, trace), bit for
 * bit, whether it is simulated or taken from the memo. */
#include "engine.h"

#include <errno.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "itrace.h"
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

/* One actor: its operations in order, as the data executor recorded them. */
static void actor_main(int argc, char **argv) {
  (void)argc, (void)argv;
  const size_t i = (size_t)(uintptr_t)sg_actor_self_get_data();
  const sim_actor_trace *a = &R.t->actors[i];
  sg_comm_t *sends = calloc(a->nsends + 1, sizeof *sends);
  sg_comm_t *recvs = calloc(a->nirecvs + 1, sizeof *recvs);
  void *slot;
  const double speed = sg_host_get_speed(sg_host_self());
  double *marks = R.marks + R.mark0[i];
  for (size_t k = 0; k < a->n; k++) {
    const sim_op *o = &a->ops[k];
    switch (o->kind) {
    case SIM_SEND:
      sends[o->aux] = sg_mailbox_put_async(box(a->host, (int)o->peer), &token, (long)(o->v + 0.5));
      progress_tick();
      break;
    case SIM_WAIT: sg_comm_wait(sends[o->aux]); break;
    case SIM_RECV: sg_mailbox_get(box((int)o->peer, a->host)); break;
    case SIM_IRECV: recvs[o->aux] = sg_mailbox_get_async(box((int)o->peer, a->host), &slot); break;
    case SIM_WAITRECV: sg_comm_wait(recvs[o->aux]); break;
    case SIM_EXEC: sg_actor_execute(o->v * speed); break;
    case SIM_SLEEP: sg_actor_sleep_for(o->v); break;
    case SIM_ACQUIRE: sg_sem_acquire(R.sems[o->aux]); break;
    case SIM_RELEASE: sg_sem_release(R.sems[o->aux]); break;
    case SIM_MARK: marks[o->aux] = simgrid_get_clock(); break;
    }
  }
  free(sends);
  free(recvs);
  R.done++;
}

/* In the child: replay, write the marks, report through status. */
static int child(const sim_trace *t, double *marks) {
  R.t = t;
  R.marks = marks;
  R.mark0 = calloc(t->nactors + 1, sizeof *R.mark0);
  for (size_t i = 0; i < t->nactors; i++) R.mark0[i + 1] = R.mark0[i] + t->actors[i].nmarks;
  R.cap = 1024;
  R.boxes = calloc(R.cap, sizeof *R.boxes);
  R.sems = calloc(t->nsems + 1, sizeof *R.sems);
  if (!R.mark0 || !R.boxes || !R.sems) return 3;
  for (size_t s = 0; s < t->nsems; s++) R.sems[s] = sg_sem_init(0);
  /* every pair's mailbox before the actors start: the table does not move
   * under them */
  uint64_t nsends = 0;
  for (size_t i = 0; i < t->nactors; i++)
    for (size_t k = 0; k < t->actors[i].n; k++)
      if (t->actors[i].ops[k].kind == SIM_SEND) box(t->actors[i].host, (int)t->actors[i].ops[k].peer), nsends++;
  progress_timing(nsends); /* this child's stderr line: the parent's count is untouched */
  size_t nhosts;
  const char *const *hosts = engine_hosts(&nhosts);
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

int engine_replay(const sim_trace *t, double *marks, ccsim_error *err) {
  size_t nmarks = 0;
  for (size_t i = 0; i < t->nactors; i++) nmarks += t->actors[i].nmarks;
  const size_t bytes = (nmarks + 1) * sizeof(double);
  double *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot map %zu bytes for the timing executor: %s", bytes,
                      strerror(errno));
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) {
    munmap(shared, bytes);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot fork the timing executor: %s", strerror(errno));
  }
  if (pid == 0) {
    const int rc = child(t, shared);
    fflush(stderr);
    _exit(rc);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = CCSIM_OK;
  if (WIFSIGNALED(status))
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor died of signal %d", WTERMSIG(status));
  else if (!WIFEXITED(status) || WEXITSTATUS(status) == 3)
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor ran out of memory");
  else if (WEXITSTATUS(status) == 4)
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor deadlocked: the trace's actors never all finished");
  else if (WEXITSTATUS(status) != 0)
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor failed (exit %d)", WEXITSTATUS(status));
  else
    memcpy(marks, shared, nmarks * sizeof *marks);
  munmap(shared, bytes);
  return rc;
}
