/* src/engine/evq.c — the analytical replay's events in date order (evq.h). */
#include "engine/evq.h"

#include <stdlib.h>
#include <string.h>

/* engine_grow from `first` elements. */
static int grow_from(void **p, size_t *cap, size_t need, size_t elem, size_t first) {
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : first;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q) return -1;
  *p = q, *cap = c;
  return 0;
}

int engine_grow(void **p, size_t *cap, size_t need, size_t elem) { return grow_from(p, cap, need, elem, 64); }

void evq_init(evq *q) {
  memset(q, 0, sizeof *q);
  q->last = SIZE_MAX;
}

static inline int before(const evq_event *a, const evq_event *b) {
  return a->date < b->date || (a->date == b->date && a->seq < b->seq);
}

/* The root's key grew (or a new root): down the heap. */
static void down(evq *q) {
  const evq_entry e = q->heap[0];
  const size_t n = q->nheap;
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && before(&q->heap[c + 1].e, &q->heap[c].e)) c++;
    if (!before(&q->heap[c].e, &e.e)) break;
    q->heap[i] = q->heap[c], i = c;
  }
  q->heap[i] = e;
}

int evq_push(evq *q, double date, uint32_t kind, uint32_t id) {
  const evq_event e = {date, q->seq++, kind, id};
  size_t k = q->last;
  if (k != SIZE_MAX && q->b[k].date == date) {
    /* the last bucket's date: at its end (the largest seq), its key unchanged;
     * its events from 4 up (a replay can hold hundreds of thousands of
     * buckets at once, most with a few events: from 64 each, and each
     * keeping the largest array it ever had, a 1024-worker ResNet-50
     * replay held 460 MB of them) */
    evq_bucket *b = &q->b[k];
    if (grow_from((void **)&b->ev, &b->cap, b->n + 1, sizeof *b->ev, 4)) return -1;
    b->ev[b->n++] = e;
    return 0;
  }
  if (!q->nfree) { /* a new bucket, its slot in the free list made with it */
    if (engine_grow((void **)&q->b, &q->cap, q->nb + 1, sizeof *q->b) ||
        engine_grow((void **)&q->freeb, &q->fcap, q->nb + 1, sizeof *q->freeb))
      return -1;
    q->b[q->nb] = (evq_bucket){0};
    q->freeb[q->nfree++] = q->nb++;
  }
  if (engine_grow((void **)&q->heap, &q->hcap, q->nheap + 1, sizeof *q->heap)) return -1;
  k = q->freeb[--q->nfree];
  q->b[k].date = date, q->b[k].head = q->b[k].n = 0;
  size_t i = q->nheap++; /* up the heap: its key is the latest pushed */
  while (i) {
    const size_t up = (i - 1) / 2;
    if (before(&q->heap[up].e, &e)) break;
    q->heap[i] = q->heap[up], i = up;
  }
  q->heap[i] = (evq_entry){e, k};
  q->last = k;
  return 0;
}

void evq_pop(evq *q, evq_event *out) {
  const size_t k = q->heap[0].b;
  evq_bucket *b = &q->b[k];
  if (out) *out = q->heap[0].e;
  if (b->head < b->n) { /* its next event: the same date, a later seq */
    q->heap[0].e = b->ev[b->head++];
    if (q->nheap > 1) down(q);
    return;
  }
  /* free: it keeps a small array for its next date, a large one goes
   * (most buckets hold a few events, but any may once have held a ring
   * step's thousand, and there can be hundreds of thousands of them) */
  if (b->cap > 16) {
    free(b->ev);
    b->ev = NULL, b->cap = 0;
  }
  q->freeb[q->nfree++] = k; /* room: every bucket has its slot */
  if (q->last == k) q->last = SIZE_MAX;
  q->heap[0] = q->heap[--q->nheap];
  if (q->nheap > 1) down(q);
}

void evq_free(evq *q) {
  for (size_t k = 0; k < q->nb; k++) free(q->b[k].ev);
  free(q->b), free(q->heap), free(q->freeb);
  evq_init(q);
}
