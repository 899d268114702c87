/* src/engine/comm.h — what an actor may do: move messages between ranks and
 * let simulated time pass.
 *
 * A message is a pointer moved through memory plus a simulated size in bytes
 * charged to the network.  Ownership passes with the message: the sender
 * allocates, the receiver frees (or forwards).  One mailbox per (src, dst)
 * pair keeps messages between two ranks in order. */
#ifndef CCSIM_COMM_H
#define CCSIM_COMM_H

typedef struct comm_req comm_req;

/* Start sending msg (not NULL) from rank src to rank dst, charged `bytes`. */
comm_req *comm_isend(int src, int dst, void *msg, double bytes);
/* Wait until the send completes; releases req. */
void comm_wait(comm_req *req);
/* Blocking send. */
void comm_send(int src, int dst, void *msg, double bytes);
/* Receive the next message from src to dst (blocking). */
void *comm_recv(int src, int dst);
/* Post a receive of the next message from src to dst without waiting: the
 * transfer starts as soon as the sender has posted too (a blocking recv
 * after another would serialize transfers that should overlap). */
typedef struct comm_rreq comm_rreq;
comm_rreq *comm_irecv(int src, int dst);
/* Wait for a posted receive; returns the message and releases r. */
void *comm_wait_recv(comm_rreq *r);
/* Let d seconds of simulated time pass for the calling actor. */
void comm_sleep(double d);
/* Work on this actor's host for d seconds of the host's full speed: two
 * actors executing on one host share its speed (a device that computes
 * backward and compresses at the same time does both more slowly). */
void comm_execute(double d);

/* Counting semaphores between actors (no simulated cost). */
typedef struct comm_sem comm_sem;
comm_sem *comm_sem_new(int initial);
void comm_sem_acquire(comm_sem *s);
void comm_sem_release(comm_sem *s);
void comm_sem_free(comm_sem *s);

/* A barrier for n actors (no simulated cost); wait returns 1 in exactly one
 * of them. */
typedef struct comm_barrier comm_barrier;
comm_barrier *comm_barrier_new(unsigned n);
int comm_barrier_wait(comm_barrier *b);
void comm_barrier_free(comm_barrier *b);

/* Simulated now. */
double comm_now(void);

#endif
