/* src/sim/exec_internal.h — the data executor's state, shared by its two
 * files: exec.c (actors, lanes, the scheduler, the trace) and exec_comm.c
 * (comm.h's messages, marks and semaphores).  Nothing outside them
 * includes it. */
#ifndef CCSIM_EXEC_INTERNAL_H
#define CCSIM_EXEC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "sim/coro.h"
#include "sim/exec.h"

enum { READY, BLOCKED, DONE, STOPPED };

typedef struct msg_node {
  uint64_t seq;
  void *payload;
  struct msg_node *next;
  void (*ahead)(const void *payload, int k); /* comm_isend_ahead's hint, or NULL */
} msg_node;

/* Messages from src to one rank: the k-th send matches the k-th receive
 * posted.  A pair is made at the first message between its ranks and
 * stays where it is until the executor is freed (runs reset its
 * messages), so actors keep pointers to the pairs they use (actor.sp,
 * actor.rp). */
typedef struct pair {
  uint32_t src1, dst; /* 1 + src, and the rank it delivers to */
  int shared;         /* its two ranks run on different lanes this run: its inbox's lock guards it */
  uint64_t sent, posted;
  msg_node *head, *tail; /* sent, not yet received, in seq order */
  int waiter;            /* 1 + the actor blocked on message wait_seq, or 0 */
  uint64_t wait_seq;
} pair;

/* Everything sent to one rank, by sender: a small open-addressing table of
 * pairs under its own lock (the senders may run on other lanes).  The lock
 * is a spin lock: it is held for a few loads and stores, never across a
 * switch, where a mutex's lock and unlock were two atomic read-modify-writes
 * and two calls (exec_comm.c).  It guards the table, and the messages of
 * the pairs whose ranks run on different lanes; a pair whose ranks share a
 * lane is only ever touched by that lane's thread, one actor at a time,
 * and goes without (an atomic exchange a message had cost 4% of a
 * 1024-worker ResNet-50 Marsit run). */
typedef struct inbox {
  atomic_int lock;
  pair **pairs;
  uint32_t cap, count; /* cap: 0 or a power of two */
} inbox;

typedef struct actor {
  coro ctx;
  void *stack; /* mmap'ed: GUARD_BYTES + STACK_BYTES */
  int soft;    /* no guard page: a checked margin instead (exec.c) */
  void (*fn)(void *);
  void *arg;
  int state;
  int lane; /* the lane (system thread) it always runs on */
  /* what a blocked actor waits for: message wait_seq from wait_src to its
   * rank (wait_src >= 0), or a semaphore */
  int wait_src;
  uint64_t wait_seq;
  void *got;
  struct comm_sem *wait_sem;
  int wait_next; /* next actor waiting on the same semaphore or barrier, -1 */
  int wait_barrier; /* waits at an untimed barrier (comm_barrier_untimed) */
  const char *oom; /* what found no memory, when it stopped for that */
  pair *sp, *rp; /* the pairs it last sent on and received from (NULL: none yet) */
} actor;

struct comm_sem {
  uint32_t id;
  int value;
  int head, tail; /* waiting actors, -1 when none */
};

/* An untimed barrier of this run (comm_barrier_untimed), under sem_lock. */
typedef struct ubarrier {
  uint64_t key;
  int parties, arrived;
  int head; /* waiting actors, chained by wait_next, -1 when none */
} ubarrier;

struct comm_rreq {
  int src, dst;
  uint64_t seq;
  uint32_t handle;
};

/* A lane: one system thread running its own actors one after another; its
 * ready queue is pushed by actors of other lanes (a message, a semaphore),
 * so it has a lock.  Lane 0 is the thread that calls sim_exec_run. */
typedef struct lane {
  struct sim_exec *x;
  int index;
  pthread_t tid;
  coro main;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int *ready; /* ring of actor indices, capacity x->max */
  size_t rhead, rcount;
  size_t count; /* its actors ready or running (under lock); > 0: it counts in x->live */
  int idle; /* waiting on cond for an actor or the end of the run */
  int on_stack; /* an actor's comm_work runs on this lane's own stack (exec_comm.c) */
  double idle_s, end_s; /* the last run: seconds waiting for an actor, when its loop ended (host_clock) */
} __attribute__((aligned(64))) lane; /* a line of its own: the other lane takes its lock only to wake */

struct sim_exec {
  actor *actors;
  sim_actor_trace *tr;
  size_t max, n;
  int threads;  /* lanes at most (sim_exec_new) */
  int guarded;  /* the maps allow each stack a guard page (exec.c) */
  void *slab;       /* the stacks of actors 0 .. max, one mapping (NULL: each its own) */
  int slab_failed;  /* no room for the slab: each stack its own mapping */
  int no_populate;  /* madvise(MADV_POPULATE_WRITE) refused: pages fault in when first written (exec.c, prefault) */
  int nlanes;   /* lanes of the current run: min(threads, ranks) */
  /* the deal (exec.c, deal): the ranks in rounds of `round`, lane l
   * taking cut[l] consecutive ranks of each, in lane order; rank_lane[r]
   * is rank r's lane this run.  cut follows the lanes' pace from run to
   * run (pace) */
  size_t round;
  int dealt;           /* the lanes the cuts are for */
  uint32_t *cut;       /* [threads] */
  uint16_t *rank_lane; /* [nrank_lane] */
  size_t nrank_lane;
  double start_s;      /* when the run's lanes started (host_clock) */
  int locking;  /* nlanes > 1: inboxes and semaphores take their locks */
  lane *lanes;  /* [threads] */
  int started;  /* lanes 1.. whose threads run */
  inbox *inbox; /* [ninbox], by destination rank */
  size_t ninbox;
  comm_sem **sems;
  size_t nsems, semcap;
  ubarrier *ubars; /* this run's untimed barriers (sem_lock) */
  size_t nubars, ubarcap;
  pthread_mutex_t sem_lock;
  /* lanes with an actor ready or running; 0: the run is over.  Changed
   * when a lane's count goes from 0 to 1 or back, not at every wake: one
   * counter that every wake and resume changed bounced between the cores */
  atomic_long live;
  atomic_int stopped; /* an actor called comm_abort */
  atomic_int finished; /* the run is over */
  /* the lanes' threads between runs: generation counts runs started */
  pthread_mutex_t run_lock;
  pthread_cond_t run_cond, done_cond;
  uint64_t generation;
  int lanes_done, quit;
  sim_trace trace;
};

/* The executor the comm.h calls act on (the one sim_exec_run runs). */
extern sim_exec *exec_now;
/* The calling thread's lane, and the actor it runs (-1: none). */
extern __thread lane *exec_lane;
extern __thread int exec_cur;

/* Actor a is ready: to the front of its lane's queue when woken by an
 * actor of that lane (it runs next), else to the back (exec.c). */
void exec_wake(sim_exec *x, int a);
/* The current actor gives its lane back (it has set its state). */
static inline void exec_switch_out(sim_exec *x) {
  /* comm_work's work runs on the lane's own stack (exec_comm.c), which
   * other actors use once this one is out: only an actor that stops may
   * leave from there, one that waits would come back to frames overwritten */
  if (exec_lane->on_stack && x->actors[exec_cur].state != STOPPED) {
    fputs("ccsim: internal error: an actor waited inside comm_work's work\n", stderr);
    abort();
  }
  coro_swap(&x->actors[exec_cur].ctx, &exec_lane->main);
}

/* SplitMix64's finaliser: the message table's and the trace hash's mixing. */
static inline uint64_t exec_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* No memory for `what` in an actor: the actor stops (sim_exec_run reports
 * it, with the worker).  Only for code that runs inside an actor. */
_Noreturn void exec_out_of_memory(const char *what);
/* Append an operation to the current actor's trace (exec_comm.c's
 * recorder: itrace.h's kind, argument and value). */
void exec_record(unsigned kind, uint32_t arg, double v);
/* The run of equal steps t is recording, if any, written out (exec_comm.c):
 * an actor's words are complete once it has ended and this is done.  0,
 * or -1 without memory. */
int exec_trace_settle(sim_actor_trace *t);

/* Make room for ranks 0 .. nranks-1's inboxes, empty (exec_comm.c); 0, or
 * -1 without memory. */
int exec_inboxes_reset(sim_exec *x, size_t nranks);
/* The most lanes whose pace moves the deal (exec.c): beyond, the ranks
 * stay dealt evenly. */
#define EXEC_PACE_LANES 256
/* The cuts of the next run (exec.c, deal): cut[0 .. L) (summing to R, the
 * ranks of a round) moved halfway towards the shares that would have
 * given each lane the same busy time, lane l having run ranks[l] ranks in
 * busy[l] (any unit); still summing to R, at least 1 each.  Unchanged
 * where a lane has no ranks or no busy time. */
void exec_pace_cuts(uint32_t *cut, const double *busy, const double *ranks, int L, size_t R);
/* Mark each pair whose two ranks run on different lanes in this run
 * (x->nlanes, x->rank_lane set) as shared (exec_comm.c). */
void exec_pairs_share(sim_exec *x);
/* Free the inboxes and every message still queued in them. */
void exec_inboxes_free(sim_exec *x);
/* After a run: CCSIM_ERR_RUNTIME naming a message never received, or 0. */
int exec_inboxes_check(sim_exec *x, ccsim_error *err);

#endif
