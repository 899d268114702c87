/* src/collectives/common_internal.h — what common.c gives steps.c beyond
 * collective.h. */
#ifndef CCSIM_COLLECTIVES_COMMON_INTERNAL_H
#define CCSIM_COLLECTIVES_COMMON_INTERNAL_H

#include <stddef.h>

#include "collectives/collective.h"
#include "comm/comm.h"

/* coll_isend, with a prefetch hint for the receiver (comm_isend_ahead) or
 * NULL. */
comm_req *coll_isend_hinted(coll_ctx *ctx, int dst, void *msg, double bytes, void (*ahead)(const void *, int));

/* coll_msg_charge of a payload of n elements in nbytes. */
double coll_charge_of(const coll_ctx *ctx, size_t n, size_t nbytes);

#endif
