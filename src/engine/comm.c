/* src/engine/comm.c — messages between ranks over SimGrid mailboxes. */
#include "comm.h"
#include "engine.h"
#include "progress.h"

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>

extern double engine_bytes_counter;

/* Mailbox "src>dst", looked up once: rows of a table indexed by rank,
 * allocated when a source first sends (up to 8192 ranks; beyond, by name
 * every time). */
static sg_mailbox_t **mb_rows;
static size_t mb_n;

static sg_mailbox_t mailbox(int src, int dst) {
  if (!mb_rows) {
    engine_hosts(&mb_n);
    if (mb_n <= 8192) mb_rows = calloc(mb_n ? mb_n : 1, sizeof *mb_rows);
  }
  sg_mailbox_t *row = NULL;
  if (mb_rows && (size_t)src < mb_n && (size_t)dst < mb_n) {
    if (!mb_rows[src]) mb_rows[src] = calloc(mb_n, sizeof **mb_rows);
    row = mb_rows[src];
    if (row[dst]) return row[dst];
  }
  char name[48];
  snprintf(name, sizeof name, "%d>%d", src, dst);
  sg_mailbox_t m = sg_mailbox_by_name(name);
  if (row) row[dst] = m;
  return m;
}

comm_req *comm_isend(int src, int dst, void *msg, double bytes) {
  engine_bytes_counter += bytes;
  progress_tick();
  return (comm_req *)sg_mailbox_put_async(mailbox(src, dst), msg, (long)(bytes + 0.5));
}

void comm_wait(comm_req *req) { sg_comm_wait((sg_comm_t)req); }

void comm_send(int src, int dst, void *msg, double bytes) {
  engine_bytes_counter += bytes;
  progress_tick();
  sg_mailbox_put(mailbox(src, dst), msg, (long)(bytes + 0.5));
}

void *comm_recv(int src, int dst) { return sg_mailbox_get(mailbox(src, dst)); }

struct comm_rreq {
  sg_comm_t comm;
  void *data;
};

comm_rreq *comm_irecv(int src, int dst) {
  comm_rreq *r = malloc(sizeof *r);
  r->data = NULL;
  r->comm = sg_mailbox_get_async(mailbox(src, dst), &r->data);
  return r;
}

void *comm_wait_recv(comm_rreq *r) {
  sg_comm_wait(r->comm);
  void *d = r->data;
  free(r);
  return d;
}

void comm_sleep(double d) { sg_actor_sleep_for(d); }

double comm_now(void) { return simgrid_get_clock(); }

void comm_execute(double d) {
  if (d > 0) sg_actor_execute(d * sg_host_get_speed(sg_host_self()));
}

comm_sem *comm_sem_new(int initial) { return (comm_sem *)sg_sem_init(initial); }
void comm_sem_acquire(comm_sem *s) { sg_sem_acquire((sg_sem_t)s); }
void comm_sem_release(comm_sem *s) { sg_sem_release((sg_sem_t)s); }
void comm_sem_free(comm_sem *s) { sg_sem_destroy((sg_sem_t)s); }

/* SimGrid 3.32's C sg_barrier_wait returns 0 to every actor, so the one
 * that completes the barrier is found by counting arrivals (actors run one
 * at a time: no race). */
struct comm_barrier {
  sg_bar_t bar;
  unsigned n, arrived;
};

comm_barrier *comm_barrier_new(unsigned n) {
  comm_barrier *b = malloc(sizeof *b);
  b->bar = sg_barrier_init(n);
  b->n = n;
  b->arrived = 0;
  return b;
}

int comm_barrier_wait(comm_barrier *b) {
  const int last = ++b->arrived == b->n;
  if (last) b->arrived = 0;
  sg_barrier_wait(b->bar);
  return last;
}

void comm_barrier_free(comm_barrier *b) {
  sg_barrier_destroy(b->bar);
  free(b);
}

