/* src/collectives/metrics.c — the shared metrics of an iteration, summed
 * exactly so that the order in which workers add to them (which depends on
 * the data executor's threads) changes no bit (collective.h). */
#include <stdlib.h>
#include <string.h>

#include "collective.h"
#include "comm.h"
#include "xsum.h"

/* One accumulator's exact sums: err2, ref2, out2, dot. */
typedef struct xslot {
  xsum s[4];
  double count; /* a count of chunks: integers, exact in a double */
  uint32_t workers;
  int used;
} xslot;

/* Every thread of the data executor (comm_lane) adds to its own slots,
 * without a lock; settling merges them, exactly, so their number changes
 * nothing. */
struct coll_xmetrics {
  size_t nhops;
  int lanes;
  xslot *slot; /* lane l: slot[l * (2 nhops + 2) ...]: hops, cascades, final, final_cascade */
  xsum *bytes; /* [lanes] */
};

coll_xmetrics *coll_xmetrics_new(size_t nhops, int lanes) {
  coll_xmetrics *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->nhops = nhops;
  x->lanes = lanes > 1 ? lanes : 1;
  x->slot = calloc((2 * nhops + 2) * (size_t)x->lanes, sizeof *x->slot);
  x->bytes = calloc((size_t)x->lanes, sizeof *x->bytes);
  if (!x->slot || !x->bytes) {
    coll_xmetrics_free(x);
    return NULL;
  }
  return x;
}

double coll_xmetrics_bytes(size_t nhops, int lanes) {
  return sizeof(coll_xmetrics) + (double)(lanes > 1 ? lanes : 1) * ((double)(2 * nhops + 2) * sizeof(xslot) + sizeof(xsum));
}

void coll_xmetrics_free(coll_xmetrics *x) {
  if (!x) return;
  free(x->slot);
  free(x->bytes);
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
  for (size_t i = 0; i < S * (size_t)x->lanes; i++) {
    xslot *s = &x->slot[i];
    if (!s->used) continue;
    *s = (xslot){0};
  }
  for (int l = 0; l < x->lanes; l++) x->bytes[l] = (xsum){0};
  m->x = x;
}

/* Every lane's sums of slot i into the doubles of a. */
static void settle_slot(err_acc *a, const coll_xmetrics *x, size_t i) {
  const size_t S = 2 * x->nhops + 2;
  xsum v[4];
  memset(v, 0, sizeof v);
  int used = 0;
  for (int l = 0; l < x->lanes; l++) {
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
  for (int l = 0; l < x->lanes; l++) xsum_merge(&b, &x->bytes[l]);
  xsum_add(&b, m->bytes);
  m->bytes = xsum_value(&b);
  m->x = NULL;
}

/* The calling thread's lane, within x's. */
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
  const size_t i = slot_index(m, slot);
  xslot *s = &x->slot[(size_t)lane_of(x) * (2 * x->nhops + 2) + i];
  xsum_add(&s->s[0], part->err2);
  xsum_add(&s->s[1], part->ref2);
  xsum_add(&s->s[2], part->out2);
  xsum_add(&s->s[3], part->dot);
  s->count += part->count;
  if (workers > s->workers) s->workers = workers;
  s->used = 1;
}

void coll_metrics_bytes(coll_metrics *m, double bytes) {
  if (!m->x) m->bytes += bytes;
  else xsum_add(&m->x->bytes[lane_of(m->x)], bytes);
}
