/* src/collectives/metrics.c — the shared metrics of an iteration, summed
 * exactly so that the order in which workers add to them (which depends on
 * the data executor's threads) changes no bit (collective.h). */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "comm.h"
#include "xsum.h"

/* One accumulator's exact sums: err2, ref2, out2, dot. */
typedef struct xslot {
  atomic_flag busy; /* taken when lanes share the copy (coll_xmetrics.locked) */
  xsum s[4];
  double count; /* a count of chunks: integers, exact in a double */
  uint32_t workers;
  int used;
} xslot;

/* Every thread of the data executor (comm_lane) adds to a copy of the
 * slots of its own, without a lock, up to XM_COPIES threads; beyond, lane l
 * adds to copy l mod XM_COPIES under the slot's spin lock (the copies cost
 * 2.2 KiB a hop each).  Settling merges the copies, exactly, so their
 * number changes nothing. */
#define XM_COPIES 8
struct coll_xmetrics {
  size_t nhops;
  int lanes, copies, locked; /* locked: lanes > copies */
  xslot *slot;           /* copy c: slot[c * (2 nhops + 2) ...]: hops, cascades, final, final_cascade */
  xsum *bytes;           /* [copies] */
  atomic_flag *bytes_busy; /* [copies] */
};

static int copies_for(int lanes) { return lanes < 1 ? 1 : lanes < XM_COPIES ? lanes : XM_COPIES; }

coll_xmetrics *coll_xmetrics_new(size_t nhops, int lanes) {
  coll_xmetrics *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->nhops = nhops;
  x->lanes = lanes > 1 ? lanes : 1;
  x->copies = copies_for(lanes);
  x->locked = x->lanes > x->copies;
  x->slot = calloc((2 * nhops + 2) * (size_t)x->copies, sizeof *x->slot);
  x->bytes = calloc((size_t)x->copies, sizeof *x->bytes);
  x->bytes_busy = calloc((size_t)x->copies, sizeof *x->bytes_busy);
  if (!x->slot || !x->bytes || !x->bytes_busy) {
    coll_xmetrics_free(x);
    return NULL;
  }
  return x;
}

double coll_xmetrics_bytes(size_t nhops, int lanes) {
  return sizeof(coll_xmetrics) + (double)copies_for(lanes) * ((double)(2 * nhops + 2) * sizeof(xslot) + sizeof(xsum));
}

void coll_xmetrics_free(coll_xmetrics *x) {
  if (!x) return;
  free(x->slot);
  free(x->bytes);
  free(x->bytes_busy);
  free(x);
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
  const size_t S = 2 * x->nhops + 2;
  for (size_t i = 0; i < S * (size_t)x->copies; i++) {
    xslot *s = &x->slot[i];
    if (!s->used) continue;
    memset(s->s, 0, sizeof s->s);
    s->count = 0;
    s->workers = 0;
    s->used = 0;
  }
  for (int c = 0; c < x->copies; c++) memset(&x->bytes[c], 0, sizeof x->bytes[c]);
  m->x = x;
}

/* Every lane's sums of slot i into the doubles of a. */
static void settle_slot(err_acc *a, const coll_xmetrics *x, size_t i) {
  const size_t S = 2 * x->nhops + 2;
  xsum v[4];
  memset(v, 0, sizeof v);
  int used = 0;
  for (int l = 0; l < x->copies; l++) {
    const xslot *s = &x->slot[(size_t)l * S + i];
    if (!s->used) continue;
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

/* The copy the calling thread's lane adds to. */
static int copy_of(const coll_xmetrics *x) {
  const int l = comm_lane();
  if (l < 0 || l >= x->lanes) abort(); /* more threads than x was made for: a caller's bug */
  return l % x->copies;
}

static void take(const coll_xmetrics *x, atomic_flag *f) {
  if (x->locked)
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire)) sched_yield();
}
static void give(const coll_xmetrics *x, atomic_flag *f) {
  if (x->locked) atomic_flag_clear_explicit(f, memory_order_release);
}

void coll_metrics_add(coll_metrics *m, err_acc *slot, const err_acc *part, uint32_t workers) {
  coll_xmetrics *x = m->x;
  if (!x) {
    err_acc_merge(slot, part);
    if (workers > slot->workers) slot->workers = workers;
    return;
  }
  const size_t i = slot_index(m, slot);
  xslot *s = &x->slot[(size_t)copy_of(x) * (2 * x->nhops + 2) + i];
  take(x, &s->busy);
  xsum_add(&s->s[0], part->err2);
  xsum_add(&s->s[1], part->ref2);
  xsum_add(&s->s[2], part->out2);
  xsum_add(&s->s[3], part->dot);
  s->count += part->count;
  if (workers > s->workers) s->workers = workers;
  s->used = 1;
  give(x, &s->busy);
}

void coll_metrics_bytes(coll_metrics *m, double bytes) {
  if (!m->x) m->bytes += bytes;
  else {
    const int c = copy_of(m->x);
    take(m->x, &m->x->bytes_busy[c]);
    xsum_add(&m->x->bytes[c], bytes);
    give(m->x, &m->x->bytes_busy[c]);
  }
}
