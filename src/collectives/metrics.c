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

/* A part as coll_metrics_add was given it, waiting in its lane's log. */
typedef struct xentry {
  uint32_t slot, workers;
  double v[4]; /* err2, ref2, out2, dot */
  double count;
} xentry;

/* Each thread of the data executor (comm_lane) appends the parts it adds
 * to a log of its own, without a lock, and adds the log to its copy of the
 * slots when the log is full and when the iteration settles, slot by slot
 * (a counting sort first): a part costs a write in order instead of cache
 * misses on the 2.2 KiB of a slot that is rarely the last one touched.
 * Lanes beyond XM_COPIES share copy l mod XM_COPIES, taken whole while a
 * log is added.  Settling merges the copies, exactly, so neither their
 * number nor when a log was added changes a bit. */
#define XM_COPIES 8
#define XM_LOG 32768
/* The bytes sent wait in the lane's log too, XM_BYTES at a time: one
 * exact sum of a run of them instead of one a message */
#define XM_BYTES 4096
typedef struct xlog {
  xentry *e, *sorted; /* [XM_LOG] each */
  uint32_t *at;       /* [slots + 1]: the counting sort's offsets */
  size_t n;
  double *bytes;      /* [XM_BYTES] */
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
    g->e = malloc(XM_LOG * sizeof *g->e);
    g->sorted = malloc(XM_LOG * sizeof *g->sorted);
    g->at = malloc((S + 1) * sizeof *g->at);
    g->bytes = malloc(XM_BYTES * sizeof *g->bytes);
    ok = g->e && g->sorted && g->at && g->bytes;
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
         L * (sizeof(xlog) + 2.0 * XM_LOG * sizeof(xentry) + (S + 1) * sizeof(uint32_t) + XM_BYTES * sizeof(double));
}

void coll_xmetrics_free(coll_xmetrics *x) {
  if (!x) return;
  for (int l = 0; x->log && l < x->lanes; l++) {
    free(x->log[l].e);
    free(x->log[l].sorted);
    free(x->log[l].at);
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

/* Lane l's log into its copy of the slots, slot by slot; the log empties. */
static void log_flush(coll_xmetrics *x, int l) {
  xlog *g = &x->log[l];
  if (!g->n) return;
  const size_t S = slots_of(x->nhops);
  memset(g->at, 0, (S + 1) * sizeof *g->at);
  for (size_t i = 0; i < g->n; i++) g->at[g->e[i].slot + 1]++;
  for (size_t i = 0; i < S; i++) g->at[i + 1] += g->at[i];
  for (size_t i = 0; i < g->n; i++) g->sorted[g->at[g->e[i].slot]++] = g->e[i];
  const int c = l % x->copies;
  xslot *copy = &x->slot[(size_t)c * S];
  unsigned char *used = &x->used[(size_t)c * S];
  take(x, &x->copy_busy[c]);
  for (size_t i = 0, j; i < g->n; i = j) { /* a run of one slot's parts */
    xslot *s = &copy[g->sorted[i].slot];
    for (j = i; j < g->n && g->sorted[j].slot == g->sorted[i].slot; j++) {
      const xentry *e = &g->sorted[j];
      s->count += e->count;
      if (e->workers > s->workers) s->workers = e->workers;
    }
    for (int q = 0; q < 4; q++)
      xsum_add_strided(&s->s[q], &g->sorted[i].v[q], j - i, sizeof(xentry));
    used[g->sorted[i].slot] = 1;
  }
  give(x, &x->copy_busy[c]);
  g->n = 0;
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
  for (int l = 0; l < x->lanes; l++) x->log[l].n = x->log[l].nb = 0;
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
  for (int l = 0; l < x->lanes; l++) log_flush(x, l), bytes_flush(x, l);
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
  if (g->n == XM_LOG) log_flush(x, l);
  g->e[g->n++] = (xentry){.slot = (uint32_t)slot_index(m, slot), .workers = workers,
                          .v = {part->err2, part->ref2, part->out2, part->dot}, .count = part->count};
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
