/* src/sim/itrace.h — the trace of one iteration: what the timing executor
 * replays.
 *
 * The data executor (exec.c) runs every actor of an iteration on real
 * payloads and records, per actor, the operations that take simulated time
 * or order actors in it: messages with their sizes, device work with its
 * duration, semaphore hand-offs between a worker's two actors, and marks
 * (points whose simulated time the results need).  Nothing in it depends on
 * simulated time, so an iteration's timing is a pure function of (platform,
 * trace): the memo keys on a hash of it. */
#ifndef CCSIM_ITRACE_H
#define CCSIM_ITRACE_H

#include <stddef.h>
#include <stdint.h>

enum sim_op_kind {
  SIM_SEND,     /* start sending v bytes to peer; aux = this actor's send handle */
  SIM_WAIT,     /* wait for send handle aux */
  SIM_RECV,     /* receive the next message from peer (blocking) */
  SIM_IRECV,    /* post a receive from peer; aux = this actor's receive handle */
  SIM_WAITRECV, /* wait for receive handle aux */
  SIM_EXEC,     /* v seconds of work at the host's full speed */
  SIM_SLEEP,    /* v seconds of waiting */
  SIM_ACQUIRE,  /* acquire semaphore aux */
  SIM_RELEASE,  /* release semaphore aux */
  SIM_MARK,     /* record the simulated time as mark aux of this actor */
  SIM_PROTO,    /* comm.model "nccl": the next messages go by protocol aux & 15 (enum nccl_proto),
                   priced as algorithm aux >> 4 (enum nccl_algo) */
};

/* 8 bytes: a trace of millions of messages stays in memory.  The
 * operations that carry a number (SEND its bytes, EXEC and SLEEP their
 * seconds) take it, in order, from the actor's vals[]: a message costs
 * 32 bytes (send, its size, receive, wait), not 48. */
enum { SIM_BYTES_PER_MESSAGE = 32 };
typedef struct sim_op {
  uint32_t kind : 4, peer : 28; /* peer: a rank (SEND, RECV, IRECV) */
  uint32_t aux;
} sim_op;

/* Whether an operation of this kind takes the next of vals[]. */
static inline int sim_op_has_value(unsigned kind) {
  return kind == SIM_SEND || kind == SIM_EXEC || kind == SIM_SLEEP;
}

typedef struct sim_actor_trace {
  int host; /* the rank whose host it runs on */
  sim_op *ops;
  size_t n, cap;
  double *vals; /* the numbers of its SEND, EXEC and SLEEP operations, in order */
  size_t nv, vcap;
  uint32_t nmarks, nsends, nirecvs;
  /* its part of sim_trace_hash, taken on its lane as it ends (the run's
   * thread then only combines them); digested: dg holds it */
  uint64_t dg[2];
  int digested;
} sim_actor_trace;

typedef struct sim_trace {
  sim_actor_trace *actors;
  size_t nactors;
  size_t nsems; /* semaphores 0 .. nsems-1, all starting at 0 */
} sim_trace;

/* A 128-bit hash of the trace (every actor's host and operations). */
void sim_trace_hash(const sim_trace *t, uint64_t h[2]);

#endif
