/* src/engine/timing_nccl.h — the replay's messages under comm.model
 * "nccl" (timing_nccl.c says how they are priced).  Replay-side only. */
#ifndef CCSIM_TIMING_NCCL_H
#define CCSIM_TIMING_NCCL_H

#include <simgrid/semaphore.h>
#include <stddef.h>

#include "comm/nccl.h"

/* Before the replay's actors start: plan (kept, not copied) and the
 * platform's hosts in rank order (nhosts of them; engine_comm_resolve
 * checked that every GPU of the workers' nodes is one).  0, or -1 out of
 * memory. */
int nccl_replay_init(const nccl_plan *plan, const char *const *hosts, size_t nhosts);
/* Send `bytes` from rank src to rank dst as the plan prices it; the
 * semaphore is released once the message has arrived (the sender's wait). */
sg_sem_t nccl_replay_send(int src, int dst, double bytes, int algo, int proto);
/* The semaphore released when the next message from src to dst arrives. */
sg_sem_t nccl_replay_recv(int src, int dst);

#endif
