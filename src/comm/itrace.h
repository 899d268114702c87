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
  SIM_REPEAT,   /* not an operation: the words before it, again (below); never decoded as one */
};

/* A trace is a stream of 4-byte words, so that millions of messages stay
 * in memory: an operation's word holds its kind (4 bits) and its argument
 * (28 bits): the peer rank (SEND, RECV, IRECV), the handle waited for
 * (WAIT, WAITRECV: how many sends, or posted receives, the actor made
 * after it; 0 for its latest), the semaphore (ACQUIRE, RELEASE), the mark
 * (MARK), the code (PROTO).  A send's and a posted receive's own handle is
 * implicit: how many the actor made before it.  SEND, EXEC and SLEEP are
 * followed by a value word: a whole number below 2^31 itself (a message's
 * bytes, as a rule), else 2^31 + the index of the double in the actor's
 * vals[] (a value equal to one of the last two stored is not stored
 * again).  A message costs at most 16 bytes: its send, its size, the wait
 * for it, its receive.
 *
 * Runs of equal steps.  A collective marks where each step of a repeating
 * pattern begins (comm_step: a ring's steps, each a send, a receive, the
 * device's work and a wait, alike from step to step while the chunks are
 * of one length); the recorder compares each step's words with the step
 * before and keeps a run of equal ones as the first, followed by
 * REPEAT(L) and a count word K: the L words before the REPEAT word, K more
 * times.  A block never holds a REPEAT word.  A 1024-worker ring of
 * chunks of one length keeps 14 words an actor instead of 8,184; where the
 * chunks' lengths follow no pattern (1,000 workers), few steps repeat. */
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
  /* the run of equal steps being recorded (exec_comm.c): words [step0, n)
   * are the current step's; while repeating, its words are compared with
   * the block [blk0, blk0 + blen) (rep_i matched so far), not kept, and
   * reps whole steps have equalled the block */
  size_t step0, blk0, blen, rep_i;
  uint32_t reps, misses; /* misses: blocks in a row that found no equal step */
  int repeating;
} sim_actor_trace;

/* Where a reader of one actor's trace is (zeroed: at its start). */
typedef struct sim_cursor {
  size_t k;               /* the next word */
  uint32_t sends, irecvs; /* handles given so far */
  size_t blk, blen, bpos; /* a REPEAT being read: its block, and where in it */
  uint32_t left;          /* times the block is still to be read */
} sim_cursor;

/* The next word of a: from a block being repeated, else from the words. */
static inline sim_word sim_trace_word(const sim_actor_trace *a, sim_cursor *c) {
  if (c->left) {
    const sim_word w = a->ops[c->blk + c->bpos];
    if (++c->bpos == c->blen) c->bpos = 0, c->left--;
    return w;
  }
  return a->ops[c->k++];
}

/* Whether c has read all of a. */
static inline int sim_trace_done(const sim_actor_trace *a, const sim_cursor *c) { return !c->left && c->k >= a->n; }

/* The next operation of a into *o: 1, or 0 at the end. */
static inline int sim_trace_next(const sim_actor_trace *a, sim_cursor *c, sim_op *o) {
  sim_word w;
  for (;;) {
    if (sim_trace_done(a, c)) return 0;
    w = sim_trace_word(a, c);
    if ((w & 15u) != SIM_REPEAT) break;
    /* outside any block (a block holds none): the L words before it, K more times */
    c->blen = w >> 4;
    c->blk = c->k - 1 - c->blen;
    c->bpos = 0;
    c->left = a->ops[c->k++];
  }
  o->kind = w & 15u;
  o->peer = 0;
  o->aux = w >> 4;
  o->v = 0;
  if (o->kind == SIM_SEND) o->peer = o->aux, o->aux = c->sends++;
  else if (o->kind == SIM_IRECV) o->peer = o->aux, o->aux = c->irecvs++;
  else if (o->kind == SIM_RECV) o->peer = o->aux, o->aux = 0;
  else if (o->kind == SIM_WAIT) o->aux = c->sends - 1 - o->aux;
  else if (o->kind == SIM_WAITRECV) o->aux = c->irecvs - 1 - o->aux;
  if (sim_op_has_value(o->kind)) {
    const sim_word x = sim_trace_word(a, c);
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
