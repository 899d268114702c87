/* src/engine/comm.c — messages between ranks over SimGrid mailboxes. */
#include "comm.h"
#include "engine.h"

#include <simgrid/actor.h>
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
    const char *const *h = engine_hosts(&mb_n);
    (void)h;
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
  return (comm_req *)sg_mailbox_put_async(mailbox(src, dst), msg, (long)(bytes + 0.5));
}

void comm_wait(comm_req *req) { sg_comm_wait((sg_comm_t)req); }

void comm_send(int src, int dst, void *msg, double bytes) {
  engine_bytes_counter += bytes;
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
