/* src/lanepool.c — per-lane free lists by size class (lanepool.h). */
#include "lanepool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define LANEPOOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LANEPOOL_OFF 1
#endif
#endif

#ifdef LANEPOOL_OFF
void *lanepool_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
void lanepool_free(void *p) { free(p); }
size_t lanepool_kept(void) { return 0; }
#else

/* Classes: 64 B, then four a power of two up to 1 MiB (class sizes
 * (4 + q) 2^(e-2), q = 1..4), header included; BIG: malloc'd as is. */
enum { MIN_SHIFT = 6, MAX_SHIFT = 20, NCLASS = 1 + 4 * (MAX_SHIFT - MIN_SHIFT), BIG = 0xffff };
#define HEAD 16u
#define MAGIC 0x6c706f6fu /* "lpoo" */

typedef struct head {
  uint32_t cls, magic;
  struct head *next; /* in a free list */
} head;
_Static_assert(sizeof(head) <= HEAD, "a block's header fits its 16 bytes");

typedef struct cache {
  head *list[NCLASS];
  size_t kept; /* bytes held in the lists */
  int ready;
} cache;

static __thread cache lane_cache;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* A thread that ends gives its lists back to malloc. */
static void drain(void *arg) {
  cache *c = arg;
  for (int k = 0; k < NCLASS; k++)
    for (head *h = c->list[k], *nx; h; h = nx) {
      nx = h->next;
      free(h);
    }
  *c = (cache){0};
}
static void make_key(void) { pthread_key_create(&exit_key, drain); }

static size_t class_bytes(unsigned k) {
  if (k == 0) return (size_t)1 << MIN_SHIFT;
  const unsigned e = MIN_SHIFT + (k - 1) / 4, q = 1 + (k - 1) % 4;
  return (size_t)(4 + q) << (e - 2);
}

/* The smallest class of at least s bytes (s > 0), or BIG: for 2^e < s <=
 * 2^(e+1), the first of 2^e (1 + q/4), q = 1..4, that holds s. */
static unsigned class_of(size_t s) {
  if (s <= (size_t)1 << MIN_SHIFT) return 0;
  if (s > (size_t)1 << MAX_SHIFT) return BIG;
  const unsigned e = 63u - (unsigned)__builtin_clzll((unsigned long long)(s - 1));
  const unsigned q = 1 + (unsigned)((s - 1 - ((size_t)1 << e)) >> (e - 2));
  return 1 + 4 * (e - MIN_SHIFT) + (q - 1);
}

void *lanepool_alloc(size_t bytes) {
  if (bytes > SIZE_MAX - HEAD) return NULL;
  const unsigned k = class_of(bytes + HEAD);
  head *h;
  if (k == BIG) {
    h = malloc(bytes + HEAD);
  } else {
    cache *c = &lane_cache;
    h = c->list[k];
    if (h) {
      c->list[k] = h->next;
      c->kept -= class_bytes(k);
    } else {
      h = malloc(class_bytes(k));
    }
  }
  if (!h) return NULL;
  h->cls = k;
  h->magic = MAGIC;
  return (char *)h + HEAD;
}

void lanepool_free(void *p) {
  if (!p) return;
  head *h = (head *)((char *)p - HEAD);
  if (h->magic != MAGIC) abort(); /* not a block of lanepool_alloc, or freed twice */
  h->magic = 0;
  const unsigned k = h->cls;
  cache *c = &lane_cache;
  if (k == BIG || c->kept + class_bytes(k) > LANEPOOL_KEEP) {
    free(h);
    return;
  }
  if (!c->ready) { /* the lists are returned when the thread ends */
    pthread_once(&key_once, make_key);
    pthread_setspecific(exit_key, c);
    c->ready = 1;
  }
  h->next = c->list[k];
  c->list[k] = h;
  c->kept += class_bytes(k);
}

size_t lanepool_kept(void) { return lane_cache.kept; }
#endif
