/* src/comm/itrace.h — the trace of one iteration: what the timing executor
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

/* A trace is a stream of 4-byte words, so that millions of messages stay
 * in memory: an operation's word holds its kind (4 bits) and its argument
 * (28 bits): the peer rank (SEND, RECV, IRECV), the handle waited for
 * (WAIT, WAITRECV), the semaphore (ACQUIRE, RELEASE), the mark (MARK), the
 * code (PROTO).  A send's and a posted receive's own handle is implicit:
 * how many the actor made before it.  SEND, EXEC and SLEEP are followed by
 * a value word: a whole number below 2^31 itself (a message's bytes, as a
 * rule), else 2^31 + the index of the double in the actor's vals[] (a value
 * equal to one of the last two stored is not stored again).  A message
 * costs 16 bytes: its send, its size, the wait for it, its receive. */
enum { SIM_BYTES_PER_MESSAGE = 16 };
#define SIM_ARG_MAX ((1u << 28) - 1)
#define SIM_VAL_INDEXED (1u << 31)
typedef uint32_t sim_word;

/* An operation as sim_trace_next decodes it. */
typedef struct sim_op {
  unsigned kind;
  uint32_t peer; /* SEND, RECV, IRECV */
  uint32_t aux;  /* SEND, IRECV: its own handle; WAIT, WAITRECV: the handle waited for;
                    ACQUIRE, RELEASE: the semaphore; MARK: the mark; PROTO: the code */
  double v;      /* SEND: bytes; EXEC, SLEEP: seconds */
} sim_op;

/* Whether an operation of this kind is followed by a value word. */
static inline int sim_op_has_value(unsigned kind) {
  return kind == SIM_SEND || kind == SIM_EXEC || kind == SIM_SLEEP;
}

typedef struct sim_actor_trace {
  int host; /* the rank whose host it runs on */
  sim_word *ops; /* the words (trace_grow: large ones in their own mappings) */
  size_t n, cap; /* words */
  size_t hint;   /* words it will likely record: its first array's room (exec_comm.c's trace_grow) */
  double *vals;  /* the values a word cannot hold, in order */
  size_t nv, vcap;
  uint32_t nmarks, nsends, nirecvs;
  /* its part of sim_trace_hash, taken on its lane as it ends (the run's
   * thread then only combines them); digested: dg holds it */
  uint64_t dg[2];
  int digested;
  /* words it is likely to repeat (the replay in flight's, sim/exec.h):
   * while ref_ops is set, words [0, n) are ref_ops' and not stored in ops */
  const sim_word *ref_ops;
  size_t ref_n;
} sim_actor_trace;

/* Where a reader of one actor's trace is. */
typedef struct sim_cursor {
  size_t k;               /* the next word */
  uint32_t sends, irecvs; /* handles given so far */
} sim_cursor;

/* The next operation of a into *o: 1, or 0 at the end. */
static inline int sim_trace_next(const sim_actor_trace *a, sim_cursor *c, sim_op *o) {
  if (c->k >= a->n) return 0;
  const sim_word w = a->ops[c->k++];
  o->kind = w & 15u;
  o->peer = 0;
  o->aux = w >> 4;
  o->v = 0;
  if (o->kind == SIM_SEND) o->peer = o->aux, o->aux = c->sends++;
  else if (o->kind == SIM_IRECV) o->peer = o->aux, o->aux = c->irecvs++;
  else if (o->kind == SIM_RECV) o->peer = o->aux, o->aux = 0;
  if (sim_op_has_value(o->kind)) {
    const sim_word x = a->ops[c->k++];
    o->v = (x & SIM_VAL_INDEXED) ? a->vals[x & ~SIM_VAL_INDEXED] : (double)x;
  }
  return 1;
}

/* Free a's words and values (a trace's words may be a mapping of their
 * own: exec_comm.c); a is left empty. */
void sim_actor_trace_release(sim_actor_trace *a);

typedef struct sim_trace {
  sim_actor_trace *actors;
  size_t nactors;
  size_t nsems; /* semaphores 0 .. nsems-1, all starting at 0 */
} sim_trace;

/* A 128-bit hash of the trace (every actor's host and operations). */
void sim_trace_hash(const sim_trace *t, uint64_t h[2]);

#endif
