/* src/sim/exec_sync.c — comm.h's semaphores and the untimed barrier in the
 * data executor: an acquire or release is recorded in the current actor's
 * trace (exec_comm.c's recorder); the barrier records nothing.  An actor
 * that must wait is queued and switched out; whoever frees it wakes it.
 * All of them share the executor's one lock when lanes share the
 * iteration. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "comm/comm.h"
#include "sim/exec_internal.h"

comm_sem *comm_sem_new(void) {
  sim_exec *x = exec_now;
  const int in_actor = exec_cur >= 0;
  comm_sem *s = calloc(1, sizeof *s);
  if (!s) {
    if (!in_actor) return NULL;
    exec_out_of_memory("a semaphore");
  }
  if (x->nsems == x->semcap) {
    const size_t cap = x->semcap ? 2 * x->semcap : 64;
    comm_sem **sems = realloc(x->sems, cap * sizeof *x->sems);
    if (!sems) {
      free(s);
      if (!in_actor) return NULL;
      exec_out_of_memory("the semaphores");
    }
    x->sems = sems;
    x->semcap = cap;
  }
  s->id = (uint32_t)x->nsems;
  x->sems[x->nsems++] = s;
  s->head = s->tail = -1;
  return s;
}

static void sem_lock(sim_exec *x) {
  if (x->locking) pthread_mutex_lock(&x->sem_lock);
}
static void sem_unlock(sim_exec *x) {
  if (x->locking) pthread_mutex_unlock(&x->sem_lock);
}

void comm_sem_acquire(comm_sem *s) {
  sim_exec *x = exec_now;
  exec_record(SIM_ACQUIRE, s->id, 0);
  sem_lock(x);
  if (s->value > 0) {
    s->value--;
    sem_unlock(x);
    return;
  }
  actor *a = &x->actors[exec_cur];
  a->wait_sem = s;
  a->wait_next = -1;
  if (s->tail >= 0) x->actors[s->tail].wait_next = exec_cur;
  else s->head = exec_cur;
  s->tail = exec_cur;
  a->state = BLOCKED;
  sem_unlock(x);
  exec_switch_out(x); /* the releaser handed its unit straight to us */
  a->wait_sem = NULL;
}

void comm_sem_release(comm_sem *s) {
  sim_exec *x = exec_now;
  exec_record(SIM_RELEASE, s->id, 0);
  sem_lock(x);
  if (s->head < 0) {
    s->value++;
    sem_unlock(x);
    return;
  }
  const int a = s->head;
  s->head = x->actors[a].wait_next;
  if (s->head < 0) s->tail = -1;
  sem_unlock(x);
  exec_wake(x, a);
}

void comm_barrier_untimed(uint64_t key, int parties) {
  sim_exec *x = exec_now;
  if (parties <= 1) return;
  sem_lock(x);
  ubarrier *b = NULL;
  for (size_t i = 0; i < x->nubars && !b; i++)
    if (x->ubars[i].key == key) b = &x->ubars[i];
  if (!b) {
    if (x->nubars == x->ubarcap) {
      const size_t cap = x->ubarcap ? 2 * x->ubarcap : 16;
      ubarrier *nb = realloc(x->ubars, cap * sizeof *nb);
      if (!nb) {
        sem_unlock(x);
        exec_out_of_memory("a barrier");
      }
      x->ubars = nb, x->ubarcap = cap;
    }
    b = &x->ubars[x->nubars++];
    *b = (ubarrier){.key = key, .parties = parties, .arrived = 0, .head = -1};
  }
  if (b->parties != parties) abort(); /* one barrier, two counts: a caller's bug */
  if (++b->arrived == parties) { /* the last: wake the others; the barrier may be used again */
    int a = b->head;
    b->head = -1, b->arrived = 0;
    sem_unlock(x);
    while (a >= 0) {
      const int nx = x->actors[a].wait_next;
      exec_wake(x, a);
      a = nx;
    }
    return;
  }
  actor *me = &x->actors[exec_cur];
  me->wait_next = b->head;
  b->head = exec_cur;
  me->wait_barrier = 1;
  me->state = BLOCKED;
  sem_unlock(x);
  exec_switch_out(x);
  me->wait_barrier = 0;
}

void comm_sem_free(comm_sem *s) {
  if (!s) return;
  if (exec_now && s->id < exec_now->nsems && exec_now->sems[s->id] == s) exec_now->sems[s->id] = NULL;
  free(s);
}
