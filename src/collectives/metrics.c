/* src/collectives/metrics.c — the shared metrics of an iteration, summed
 * exactly so that the order in which workers add to them (which depends on
 * the data executor's threads) changes no bit (collective.h). */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "collectives/xsum.h"
#include "comm/comm.h"

/* One accumulator's exact sums: err2, ref2, out2, dot. */
typedef struct xslot {
  xsum s[4];
  double count; /* a count of chunks: integers, exact in a double */
  uint32_t workers;
} xslot;

/* A lane's running sums of one slot: its four windows (xsum.h), the
 * parts' counts and the most workers a part summed. */
typedef struct xfast {
  xwin4 w;
  double count;
  uint32_t workers;
} xfast;

/* Each thread of the data executor (comm_lane) adds the parts it is given
 * to windows of its own, one a slot, without a lock: a part costs its four
 * terms' integer additions to 96 bytes (a 1024-worker ring's 2,050 slots
 * are 197 KiB a lane, in its core's cache), and the 2.2 KiB slot of exact
 * limbs behind them is touched only when a term does not fit its window
 * (xwin_spill) and when the iteration settles.  The limbs are the lanes'
 * copies: lanes beyond XM_COPIES share copy l mod XM_COPIES, taken whole
 * while a lane adds to it.  Settling merges the copies, exactly, so
 * neither their number nor how the terms were split between windows and
 * limbs changes a bit.  (Until this, a lane logged its parts and added the
 * log slot by slot after a counting sort: 25 ns a part, 6.5% of a
 * 1024-worker Marsit run.) */
#define XM_COPIES 8
/* The bytes sent wait in the lane's log, XM_BYTES at a time: one exact
 * sum of a run of them instead of one a message (a term through a window
 * costs more than a term of a run: the bytes in windows took 1.09% of a
 * 1024-worker Marsit run's samples, logged 0.5%) */
#define XM_BYTES 4096
typedef struct xlog {
  xfast *fast;          /* [slots] */
  unsigned char *fused; /* [slots]: fast[i] holds something */
  double *bytes;        /* [XM_BYTES] */
  size_t nb;
} __attribute__((aligned(64))) xlog; /* a line each: two lanes' logs in one bounced it at every part */

struct coll_xmetrics {
  size_t nhops;
  int lanes, copies, locked; /* locked: lanes > copies */
  xslot *slot;               /* copy c: slot[c * (2 nhops + 2) ...]: hops, cascades, final, final_cascade */
  unsigned char *used;       /* [slots * copies]: slot i holds sums (apart from the slots, so that
                                coll_metrics_begin reads 1 byte a slot, not a page of 2.2 KiB
                                slots never written: 1,100 of a 1024-worker ring's 21,700 page
                                faults) */
  atomic_flag *copy_busy;    /* [copies] */
  xlog *log;                 /* [lanes] */
  xsum *bytes;               /* [copies] */
  atomic_flag *bytes_busy;   /* [copies] */
};

static int copies_for(int lanes) { return lanes < 1 ? 1 : lanes < XM_COPIES ? lanes : XM_COPIES; }
static size_t slots_of(size_t nhops) { return 2 * nhops + 2; }

coll_xmetrics *coll_xmetrics_new(size_t nhops, int lanes) {
  coll_xmetrics *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->nhops = nhops;
  x->lanes = lanes > 1 ? lanes : 1;
  x->copies = copies_for(lanes);
  x->locked = x->lanes > x->copies;
  const size_t S = slots_of(nhops);
  x->slot = calloc(S * (size_t)x->copies, sizeof *x->slot);
  x->used = calloc(S * (size_t)x->copies, 1);
  x->copy_busy = calloc((size_t)x->copies, sizeof *x->copy_busy);
  x->bytes = calloc((size_t)x->copies, sizeof *x->bytes);
  x->bytes_busy = calloc((size_t)x->copies, sizeof *x->bytes_busy);
  x->log = aligned_alloc(_Alignof(xlog), (size_t)x->lanes * sizeof *x->log);
  if (x->log) memset(x->log, 0, (size_t)x->lanes * sizeof *x->log);
  int ok = x->slot && x->used && x->copy_busy && x->bytes && x->bytes_busy && x->log;
  for (int l = 0; ok && l < x->lanes; l++) {
    xlog *g = &x->log[l];
    g->fast = calloc(S, sizeof *g->fast);
    g->fused = calloc(S, 1);
    g->bytes = malloc(XM_BYTES * sizeof *g->bytes);
    ok = g->fast && g->fused && g->bytes;
  }
  if (!ok) {
    coll_xmetrics_free(x);
    return NULL;
  }
  return x;
}

double coll_xmetrics_bytes(size_t nhops, int lanes) {
  const double S = (double)slots_of(nhops), L = lanes > 1 ? lanes : 1;
  return sizeof(coll_xmetrics) + (double)copies_for(lanes) * (S * (sizeof(xslot) + 1) + sizeof(xsum) + 2) +
         L * (sizeof(xlog) + S * (sizeof(xfast) + 1) + XM_BYTES * sizeof(double));
}

void coll_xmetrics_free(coll_xmetrics *x) {
  if (!x) return;
  for (int l = 0; x->log && l < x->lanes; l++) {
    free(x->log[l].fast);
    free(x->log[l].fused);
    free(x->log[l].bytes);
  }
  free(x->log);
  free(x->slot);
  free(x->used);
  free(x->copy_busy);
  free(x->bytes);
  free(x->bytes_busy);
  free(x);
}

static void take(const coll_xmetrics *x, atomic_flag *f) {
  if (x->locked)
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire)) sched_yield();
}
static void give(const coll_xmetrics *x, atomic_flag *f) {
  if (x->locked) atomic_flag_clear_explicit(f, memory_order_release);
}

/* Lane l's windows into its copy of the slots, and emptied (discard: 1
 * to empty them without adding them, at a new iteration's start). */
static void windows_flush(coll_xmetrics *x, int l, int discard) {
  xlog *g = &x->log[l];
  const size_t S = slots_of(x->nhops);
  const int c = l % x->copies;
  xslot *copy = &x->slot[(size_t)c * S];
  unsigned char *used = &x->used[(size_t)c * S];
  if (!discard) take(x, &x->copy_busy[c]);
  for (size_t i = 0; i < S; i++) {
    if (!g->fused[i]) continue;
    xfast *f = &g->fast[i];
    if (!discard) {
      xslot *s = &copy[i];
      for (int q = 0; q < 4; q++) xwin_flush(&s->s[q], &f->w, q);
      s->count += f->count;
      if (f->workers > s->workers) s->workers = f->workers;
      used[i] = 1;
    }
    memset(f, 0, sizeof *f);
    g->fused[i] = 0;
  }
  if (!discard) give(x, &x->copy_busy[c]);
}

/* Lane l's logged bytes into its copy's sum; the log empties. */
static void bytes_flush(coll_xmetrics *x, int l) {
  xlog *g = &x->log[l];
  if (!g->nb) return;
  const int c = l % x->copies;
  take(x, &x->bytes_busy[c]);
  xsum_add_strided(&x->bytes[c], g->bytes, g->nb, sizeof *g->bytes);
  give(x, &x->bytes_busy[c]);
  g->nb = 0;
}

/* The term v that lane l's window q of slot i did not take, into the
 * lane's copy of the slot (xwin_spill). */
static void spill(coll_xmetrics *x, int l, size_t i, int q, double v) {
  const size_t S = slots_of(x->nhops);
  const int c = l % x->copies;
  take(x, &x->copy_busy[c]);
  xwin_spill(&x->slot[(size_t)c * S + i].s[q], &x->log[l].fast[i].w, q, v);
  x->used[(size_t)c * S + i] = 1;
  give(x, &x->copy_busy[c]);
}

/* Index of one of m's accumulators among a lane's slots (laid out for
 * x->nhops hops). */
static size_t slot_index(const coll_metrics *m, const err_acc *a) {
  const size_t H = m->nhops, X = m->x->nhops;
  if (H && a >= m->hops && a < m->hops + H) return (size_t)(a - m->hops);
  if (H && a >= m->cascade && a < m->cascade + H) return X + (size_t)(a - m->cascade);
  if (a == &m->final) return 2 * X;
  if (a == &m->final_cascade) return 2 * X + 1;
  abort(); /* not one of m's accumulators: a caller's bug */
}

void coll_metrics_begin(coll_metrics *m, coll_xmetrics *x) {
  if (m->nhops > x->nhops) abort(); /* x made for fewer hops: a caller's bug */
  const size_t S = slots_of(x->nhops);
  for (size_t i = 0; i < S * (size_t)x->copies; i++) {
    if (!x->used[i]) continue;
    xslot *s = &x->slot[i];
    memset(s->s, 0, sizeof s->s);
    s->count = 0;
    s->workers = 0;
    x->used[i] = 0;
  }
  for (int c = 0; c < x->copies; c++) memset(&x->bytes[c], 0, sizeof x->bytes[c]);
  for (int l = 0; l < x->lanes; l++) {
    windows_flush(x, l, 1); /* what a stopped run left */
    x->log[l].nb = 0;
  }
  m->x = x;
}

/* Every lane's sums of slot i into the doubles of a. */
static void settle_slot(err_acc *a, const coll_xmetrics *x, size_t i) {
  const size_t S = slots_of(x->nhops);
  xsum v[4];
  memset(v, 0, sizeof v);
  int used = 0;
  for (int l = 0; l < x->copies; l++) {
    if (!x->used[(size_t)l * S + i]) continue;
    const xslot *s = &x->slot[(size_t)l * S + i];
    used = 1;
    for (int q = 0; q < 4; q++) xsum_merge(&v[q], &s->s[q]);
    a->count += s->count;
    if (s->workers > a->workers) a->workers = s->workers;
  }
  if (!used) return;
  xsum_add(&v[0], a->err2), xsum_add(&v[1], a->ref2), xsum_add(&v[2], a->out2), xsum_add(&v[3], a->dot);
  a->err2 = xsum_value(&v[0]);
  a->ref2 = xsum_value(&v[1]);
  a->out2 = xsum_value(&v[2]);
  a->dot = xsum_value(&v[3]);
}

void coll_metrics_settle(coll_metrics *m) {
  coll_xmetrics *x = m->x;
  if (!x) return;
  for (int l = 0; l < x->lanes; l++) windows_flush(x, l, 0), bytes_flush(x, l);
  const size_t H = m->nhops;
  for (size_t h = 0; h < H; h++) {
    settle_slot(&m->hops[h], x, h);
    settle_slot(&m->cascade[h], x, x->nhops + h);
  }
  settle_slot(&m->final, x, 2 * x->nhops);
  settle_slot(&m->final_cascade, x, 2 * x->nhops + 1);
  xsum b;
  memset(&b, 0, sizeof b);
  for (int c = 0; c < x->copies; c++) xsum_merge(&b, &x->bytes[c]);
  xsum_add(&b, m->bytes);
  m->bytes = xsum_value(&b);
  m->x = NULL;
}

/* The calling thread's lane. */
static int lane_of(const coll_xmetrics *x) {
  const int l = comm_lane();
  if (l < 0 || l >= x->lanes) abort(); /* more threads than x was made for: a caller's bug */
  return l;
}

void coll_metrics_add(coll_metrics *m, err_acc *slot, const err_acc *part, uint32_t workers) {
  coll_xmetrics *x = m->x;
  if (!x) {
    err_acc_merge(slot, part);
    if (workers > slot->workers) slot->workers = workers;
    return;
  }
  const int l = lane_of(x);
  xlog *g = &x->log[l];
  const size_t i = slot_index(m, slot);
  xfast *f = &g->fast[i];
  const double v[4] = {part->err2, part->ref2, part->out2, part->dot};
  for (int q = 0; q < 4; q++)
    if (!xwin_add(&f->w, q, v[q])) spill(x, l, i, q, v[q]);
  f->count += part->count;
  if (workers > f->workers) f->workers = workers;
  g->fused[i] = 1;
}

void coll_metrics_bytes(coll_metrics *m, double bytes) {
  if (!m->x) m->bytes += bytes;
  else {
    const int l = lane_of(m->x);
    xlog *g = &m->x->log[l];
    if (g->nb == XM_BYTES) bytes_flush(m->x, l);
    g->bytes[g->nb++] = bytes;
  }
}
