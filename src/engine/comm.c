/* src/engine/comm.c — messages between ranks over SimGrid mailboxes. */
#include "comm.h"

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>

extern double engine_bytes_counter;

static sg_mailbox_t mailbox(int src, int dst) {
  char name[48];
  snprintf(name, sizeof name, "%d>%d", src, dst);
  return sg_mailbox_by_name(name);
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
