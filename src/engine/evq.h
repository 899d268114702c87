/* src/engine/evq.h — the analytical replay's events (timing_fast.c), taken
 * in (date, seq) order, seq the order they were pushed: a strict total
 * order, so one order whatever holds them.
 *
 * A ring's 1,024 messages of a step end at one date, and a binary heap of
 * single events spent its pops on mispredicted ties; so events of one date
 * pushed one after another share a bucket, a queue in push (= seq) order,
 * and a binary heap orders the buckets by the (date, seq) of their first
 * event, held in the heap's entries (compared without a load from the
 * bucket: with ResNet-50's thousands of dates, a heap that looked into the
 * buckets took twice a plain heap's time).  A date pushed again after
 * another opens a second bucket of that date: the heap's order keeps the
 * two interleaved by seq. */
#ifndef CCSIM_EVQ_H
#define CCSIM_EVQ_H

#include <stddef.h>
#include <stdint.h>

typedef struct evq_event {
  double date;
  uint64_t seq; /* ties: the order events were pushed (deterministic) */
  uint32_t kind, id;
} evq_event;

typedef struct evq_bucket {
  double date;
  evq_event *ev; /* its events after the first (the first is in the heap's entry) */
  size_t head, n, cap;
} evq_bucket;

typedef struct evq_entry { /* a live bucket in the heap: its first event, and where the rest wait */
  evq_event e;
  size_t b;
} evq_entry;

typedef struct evq {
  uint64_t seq;     /* the next event's */
  evq_bucket *b;    /* [nb]: every bucket made, live or free */
  size_t nb, cap;
  evq_entry *heap;  /* the live buckets, a binary heap by (date, seq) */
  size_t nheap, hcap;
  size_t *freeb;    /* buckets to reuse (their memory kept) */
  size_t nfree, fcap;
  size_t last;      /* the bucket of the last push; SIZE_MAX: none live */
} evq;

/* An empty queue. */
void evq_init(evq *q);
/* An event at date, with the seq evq_next_seq says: 0, or -1 without memory. */
int evq_push(evq *q, double date, uint32_t kind, uint32_t id);
/* The seq the next push gives. */
static inline uint64_t evq_next_seq(const evq *q) { return q->seq; }
static inline size_t evq_size(const evq *q) { return q->nheap; }
/* The first event (the queue not empty). */
static inline const evq_event *evq_top(const evq *q) { return &q->heap[0].e; }
/* The first event into *out (NULL: dropped), out of the queue. */
void evq_pop(evq *q, evq_event *out);
/* Its memory; q is empty again. */
void evq_free(evq *q);

/* *p, an array of *cap elements of elem bytes, grown (doubling, from 64)
 * to hold need: 0, or -1 without memory (*p and *cap as they were).  The
 * analytical replay's arrays grow with it too. */
int engine_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
