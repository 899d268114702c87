/* src/comm/comm.h — what an actor may do: move messages between ranks, use
 * the device, and hand work to the worker's other actor.
 *
 * Actors run in the data executor (exec.c), without SimGrid and without a
 * clock: a message is a pointer moved through memory plus a simulated size
 * in bytes, and every call is recorded in the iteration's trace, which the
 * timing executor (src/engine) replays to find when things happened.
 * Ownership passes with the message: the sender allocates, the receiver
 * frees (or forwards).  Messages between two ranks arrive in the order they
 * were sent.  A call that would block switches to another actor; only these
 * calls switch, so code between them runs without interruption. */
#ifndef CCSIM_COMM_H
#define CCSIM_COMM_H

#include <stdint.h>

typedef struct comm_req comm_req;

/* Start sending msg (not NULL) from rank src to rank dst, charged `bytes`. */
comm_req *comm_isend(int src, int dst, void *msg, double bytes);
/* comm_isend of a message that carries a prefetch hint: when dst receives
 * a message with a hint from src, each of the next three from src already
 * waiting in its inbox that has one is handed to its own hint,
 * ahead(payload, k), k = 1, 2, 3 its distance, to bring what the receiver
 * will read into the cache in stages (k = 3 the payload's first line, k = 2
 * what that points to, k = 1 what those point to), so that no stage waits
 * on a line the stage before has not brought.  The hint travels with the
 * message because only the sender knows what the payload is (other
 * messages of other kinds may wait between the same ranks); it only
 * prefetches and must change nothing. */
comm_req *comm_isend_ahead(int src, int dst, void *msg, double bytes, void (*ahead)(const void *payload, int k));
/* Wait until the send completes; releases req. */
void comm_wait(comm_req *req);
/* Blocking send. */
void comm_send(int src, int dst, void *msg, double bytes);
/* Receive the next message from src to dst (blocking). */
void *comm_recv(int src, int dst);
/* One step of a pattern whose payloads no rank reads, only their sizes
 * matter: the calling actor (rank src) records what comm_isend(src, dst,
 * msg, bytes), comm_recv(from, src) and comm_wait of that send would, in
 * that order, so the iteration's timing is the same, but no message moves
 * and it never waits.  Every rank taking part must step through the
 * pattern this way: these messages are not counted among those that move
 * (the k-th moving send from a rank to another still matches the k-th
 * moving receive).  A ring's all-gather of fixed-size payloads into a
 * shared output is such a pattern (collectives/ring.c). */
void comm_exchange_unread(int src, int dst, double bytes, int from);
/* A step of a repeating pattern begins (a ring's next send, receive and
 * combine): nothing happens and nothing is recorded, but the data
 * executor compares each step's trace with the step before and keeps a
 * run of equal steps as one and a count (itrace.h, SIM_REPEAT).  Only
 * where steps are likely alike: a call elsewhere costs a comparison. */
void comm_step(void);
/* Wait until `parties` actors have called this with `key` in this
 * iteration (then the barrier may be used again): it orders the actors'
 * work on the host, not in simulated time, and records nothing.  For data
 * whose order the simulated messages already give but that did not move
 * (comm_exchange_unread): the shared output of a ring's all-gather is
 * complete only once every chunk's owner has written its chunk. */
void comm_barrier_untimed(uint64_t key, int parties);
/* Post a receive of the next message from src to dst without waiting: the
 * transfer starts as soon as the sender has posted too (a blocking recv
 * after another would serialize transfers that should overlap). */
typedef struct comm_rreq comm_rreq;
comm_rreq *comm_irecv(int src, int dst);
/* Wait for a posted receive; returns the message and releases r. */
void *comm_wait_recv(comm_rreq *r);
/* Let d seconds of simulated time pass for the calling actor. */
void comm_sleep(double d);
/* comm.model "nccl": the calling actor's next messages go by protocol
 * code & 15 (enum nccl_proto), priced as algorithm code >> 4 (enum
 * nccl_algo), until the next call of it. */
void comm_protocol(unsigned code);
/* Work on this actor's host for d seconds of the host's full speed: two
 * actors executing on one host share its speed (a device that computes
 * backward and compresses at the same time does both more slowly). */
void comm_execute(double d);
/* A point of this actor whose simulated time the results need: its index
 * among the actor's marks of this iteration (0, 1, ...); the time is known
 * once the iteration's timing is (sim_exec_mark_time). */
uint32_t comm_mark(void);

/* Work of the calling actor on `elements` elements (gradient synthesis,
 * encode, combine, decode): fn(arg, thread) runs now, on the actor's own
 * system thread, with `thread` = comm_lane(), a scratch slot no other
 * running fn uses.  Actors of different workers run at the same time on
 * different threads (exec.h): fn, like all of an actor's code, may change
 * only what its worker owns (its buffers, its compressor and memory,
 * payloads it holds) and figures shared by design (coll_metrics_add).
 * Records nothing in the trace. */
void comm_work(void (*fn)(void *arg, int thread), void *arg, size_t elements);
/* Threads the data executor may run (scratch slots for `thread`), and the
 * calling thread's index among them (0 outside the executor). */
int comm_threads(void);
int comm_lane(void);

/* End the iteration now, from an actor (numbers went bad): no actor runs
 * again and the data executor's run returns an error; does not return. */
void comm_abort(void) __attribute__((noreturn));

/* Counting semaphores between actors (no simulated cost); a semaphore must
 * be back at 0 when an iteration ends.  comm_sem_new outside an actor
 * (setting up a run) returns NULL when out of memory; inside one, the actor
 * stops as on any allocation of the executor. */
typedef struct comm_sem comm_sem;
comm_sem *comm_sem_new(void);
void comm_sem_acquire(comm_sem *s);
void comm_sem_release(comm_sem *s);
void comm_sem_free(comm_sem *s);

#endif
