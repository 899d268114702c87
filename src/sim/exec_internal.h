/* src/sim/exec_internal.h — the data executor's state, shared by its three
 * files: exec.c (actors, the scheduler, the trace), exec_comm.c (comm.h's
 * messages, marks and semaphores) and exec_pool.c (comm_work's threads).
 * Nothing outside them includes it. */
#ifndef CCSIM_EXEC_INTERNAL_H
#define CCSIM_EXEC_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "coro.h"
#include "error.h"
#include "exec.h"

enum { READY, BLOCKED, DONE };

typedef struct msg_node {
  uint64_t seq;
  void *payload;
  struct msg_node *next;
} msg_node;

/* Messages from src to dst: the k-th send matches the k-th receive posted. */
typedef struct pair {
  uint64_t key; /* (src << 32 | dst) + 1; 0: empty slot */
  uint64_t sent, posted;
  msg_node *head, *tail; /* sent, not yet received, in seq order */
  int waiter;            /* 1 + the actor blocked on message wait_seq, or 0 */
  uint64_t wait_seq;
} pair;

typedef struct actor {
  coro ctx;
  void *stack; /* mmap'ed: GUARD_BYTES + STACK_BYTES */
  void (*fn)(void *);
  void *arg;
  int state;
  /* what a blocked actor waits for: message wait_seq of pair wait_key, or
   * a semaphore */
  uint64_t wait_key, wait_seq;
  void *got;
  struct comm_sem *wait_sem;
  int wait_next; /* next actor waiting on the same semaphore, -1 */
  /* comm_work: the actor's one piece of work in flight (task_state under
   * the pool's lock) */
  void (*task_fn)(void *, int);
  void *task_arg;
  int task_state;
  int task_pending; /* the executor's own note: work was handed over (no lock) */
} actor;

enum { TASK_NONE, TASK_QUEUED, TASK_RUNNING, TASK_DONE };

/* The work threads of comm_work (exec_pool.c): threads - 1 of them beside the executor's
 * own; a FIFO of actors whose work is queued (each actor has at most one
 * piece in flight, so max_actors slots suffice). */
typedef struct pool {
  int threads; /* 1: no pool, work runs where it is asked for */
  pthread_t *tid;
  int started;
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  int *q;
  size_t qhead, qcount, outstanding;
  int quit;
} pool;

struct comm_sem {
  uint32_t id;
  int value;
  int head, tail; /* waiting actors, -1 when none */
};

struct comm_rreq {
  int src, dst;
  uint64_t seq;
  uint32_t handle;
};

struct sim_exec {
  actor *actors;
  sim_actor_trace *tr;
  size_t max, n;
  int cur;
  int *ready; /* ring of actor indices, capacity max */
  size_t rhead, rcount;
  pair *pairs;
  size_t pcap, pcount;
  comm_sem **sems;
  size_t nsems, semcap;
  int stopped; /* comm_abort was called */
  const char *oom;  /* what found no memory (the iteration stops) */
  int oom_worker;
  sim_trace trace;
  coro main;
  pool pool;
};

/* The executor the comm.h calls act on (the one sim_exec_run runs). */
extern sim_exec *exec_now;

/* Actor a to the back of x's ready queue. */
static inline void exec_ready_push(sim_exec *x, int a) {
  x->ready[(x->rhead + x->rcount++) % x->max] = a;
  x->actors[a].state = READY;
}

/* SplitMix64's finaliser: the message table's and the trace hash's mixing. */
static inline uint64_t exec_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* No memory for `what`: inside an actor the iteration stops (sim_exec_run
 * reports it, with the worker); outside one, nothing can go on (exit 1). */
_Noreturn void exec_out_of_memory(const char *what);

/* Free every message still queued in x's table (exec_comm.c). */
void exec_free_pairs(sim_exec *x);

/* comm_work's threads (exec_pool.c): start threads - 1 of them beside the
 * executor's own (0, or CCSIM_ERR_RUNTIME with a message), stop and free
 * them, and wait until actor a's work is done (a < 0: all work), running
 * queued work meanwhile. */
int exec_pool_start(sim_exec *x, size_t max_actors, int threads, ccsim_error *err);
void exec_pool_stop(sim_exec *x);
void exec_pool_wait(sim_exec *x, int a);

#endif
