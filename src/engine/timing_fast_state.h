/* src/engine/timing_fast_state.h — what the two halves of the analytical
 * timing path share (not for other files): the replay's state, its types,
 * and the few helpers both call.  timing_fast_routes.c asks SimGrid for
 * what the replay needs (engine_fast_prepare); timing_fast.c replays
 * without it (engine_fast_play) and includes no SimGrid header but the
 * forward declarations of its types, so that the replay cannot call
 * SimGrid: it runs on a thread of its own beside the data executor, where
 * SimGrid's failures are not contained (timing_zygote.c). */
#ifndef CCSIM_TIMING_FAST_STATE_H
#define CCSIM_TIMING_FAST_STATE_H

#include <simgrid/forward.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/itrace.h"
#include "engine/evq.h"
#include "engine/hwin.h"

#define FAST_PRECISION 1e-9 /* SimGrid's surf/precision: events this close are one instant */

typedef struct froute {
  uint64_t key; /* (src << 32 | dst) + 1 */
  double lat, penalty, bound, value; /* SimGrid's lat_current_, sharing penalty, variable bound, solver value */
  uint32_t l0, nl;                   /* its links: lk[l0 .. l0 + nl) */
} froute;

typedef struct rslot {
  uint64_t key; /* (src << 32 | dst) + 1, 0: empty */
  uint32_t idx;
} rslot;

typedef struct fmsg {
  uint32_t src, dst;   /* actors: sender, receiver (UINT32_MAX: not posted yet) */
  uint32_t route;      /* index in F.routes */
  uint32_t next;       /* the next unmatched message of its mailbox */
  double bytes;
  uint8_t done, swait, rwait;
  uint8_t refs; /* sides not yet past it (their wait or receive): 0, and it is reused */
} fmsg;

typedef struct fbox { /* a mailbox: "src host > dst host" */
  uint64_t key;
  uint32_t head, tail; /* unmatched messages, all of one side; UINT32_MAX: none */
  uint32_t sender, receiver; /* the one actor that sends on it, receives on it */
} fbox;

enum { EV_LATENCY, EV_MSG, EV_EXEC, EV_SLEEP };

typedef struct fact {
  sim_cursor pc; /* where it is in its trace */
  hwin sends, recvs;
  int blocked;
  /* its execution while one runs: flops left at `last`, its rate since, the
   * seq of its completion event (an older one in the queue is stale) */
  double remains, rate, last;
  uint64_t exec_seq;
  /* the peer of its last send and of its last receive, with their route
   * and mailboxes: a ring's actor asks for the same pair at every step
   * (UINT32_MAX: none yet) */
  uint32_t speer, rpeer, sroute, sbox, rbox;
} fact;

typedef struct fhost { /* the executions running on a host */
  uint32_t *run, n;
  size_t cap;
  int dirty; /* one completed at this instant: the others' rates change */
} fhost;

typedef struct fast_state {
  const sim_trace *t;
  sg_host_t *host;     /* [nhosts] */
  double *speed;       /* [nhosts] */
  double *cores;       /* [nhosts] */
  fhost *hx;           /* [nhosts] executions running */
  uint32_t *dirty;     /* hosts whose executions changed at this instant */
  size_t ndirty;
  froute *routes; /* [rused], in the order first asked for */
  size_t rdcap, rused;
  rslot *rslots; /* (src, dst) -> route, by open addressing */
  size_t rcap;
  uint32_t *lk; /* link ids of every route */
  size_t nlk, lkcap;
  void **links; /* link id -> sg_link_t, by open addressing on pointer */
  uint32_t *link_id;
  size_t lcap, lused;
  uint32_t *link_busy; /* [link id] flows in flight */
  fmsg *msgs; /* in flight or waited for: slots are reused, so memory follows what is in flight */
  size_t nmsgs, mcap;
  uint32_t free_msg; /* reusable slots, linked by next; UINT32_MAX: none */
  fbox *boxes;           /* [bused], made as pairs first talk */
  size_t bvcap, bused;
  uint32_t *bslot;       /* [bcap]: pair -> index + 1, by open addressing */
  size_t bcap;
  evq_event *batch; /* the events of one instant */
  size_t bcap2;
  evq q; /* the events to come */
  fact *acts;
  uint32_t *ready;
  size_t nready;
  int *sem; /* values */
  uint32_t *semown; /* the one actor that acquires it + 1 (0: none yet) */
  uint32_t *semq; /* its waiter + 1 (0: none): at most one actor waits on a semaphore (checked) */
  double clock;
  size_t nhosts;
  double latf, bwf, ws, gamma;
} fast_state;

/* The one state of the path (a run times one iteration at a time). */
extern fast_state ccsim_fast;
#define F ccsim_fast

/* 1 (SimGrid must time it), saying why on stderr under CCSIM_TIMING_DEBUG. */
int fast_give_up(const char *why);
/* The path's state freed and zeroed. */
void fast_free(void);

static inline uint64_t fast_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#endif
