/* tests/test_lanepool.c — the data plane's per-lane pools (lanepool.h):
 * every size gets a block it can fill, 16-byte aligned; a freed block is
 * handed out again for a request of its class, on the lane that freed it,
 * whichever lane made it; a lane keeps at most LANEPOOL_KEEP bytes; blocks
 * above the largest class go back to malloc.  Under AddressSanitizer the
 * pool is plain malloc and only the first checks apply. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lanepool.h"

static void *other_lane(void *arg) {
  lanepool_free(arg); /* made on the main thread, freed here */
  void *again = lanepool_alloc(1000);
  const int same = again == arg;
  lanepool_free(again);
  return (void *)(intptr_t)same;
}

int main(void) {
  /* every size from 0 to 3 MiB in uneven steps: filled end to end, aligned */
  size_t bad_align = 0;
  for (size_t s = 0; s < ((size_t)3 << 20); s = s * 5 / 4 + 1) {
    unsigned char *p = lanepool_alloc(s);
    CHECK(p != NULL, "no block of %zu bytes", s);
    if (!p) continue;
    memset(p, 0xa5, s);
    bad_align += ((uintptr_t)p & 15) != 0;
    lanepool_free(p);
  }
  CHECK(bad_align == 0, "%zu blocks not 16-byte aligned", bad_align);
  lanepool_free(NULL);
#if !defined(__SANITIZE_ADDRESS__)
  /* the same class again: the block just freed (a stack of free blocks) */
  /* (30000 and 29000 bytes, with the header, are in one class, 28 to 32 KiB) */
  void *a = lanepool_alloc(30000), *b = lanepool_alloc(33000);
  lanepool_free(a);
  void *a2 = lanepool_alloc(29000);
  CHECK(a2 == a, "a freed block is not reused for its class");
  lanepool_free(a2);
  lanepool_free(b);
  const size_t kept = lanepool_kept();
  CHECK(kept > 0 && kept <= LANEPOOL_KEEP, "kept %zu bytes", kept);
  /* above the largest class: malloc's, never kept */
  void *big = lanepool_alloc((size_t)2 << 20);
  lanepool_free(big);
  CHECK(lanepool_kept() == kept, "a 2 MiB block was kept (%zu -> %zu)", kept, lanepool_kept());
  /* a lane keeps at most LANEPOOL_KEEP bytes however many it frees */
  enum { M = 200 };
  void *blk[M];
  for (int i = 0; i < M; i++) blk[i] = lanepool_alloc(500000);
  for (int i = 0; i < M; i++) lanepool_free(blk[i]);
  CHECK(lanepool_kept() <= LANEPOOL_KEEP && lanepool_kept() >= LANEPOOL_KEEP / 2,
        "kept %zu bytes after freeing %d x 500 kB (at most %zu)", lanepool_kept(), M, (size_t)LANEPOOL_KEEP);
  /* a block made on one lane and freed on another serves the other */
  void *x = lanepool_alloc(1000);
  pthread_t t;
  void *same = NULL;
  CHECK(pthread_create(&t, NULL, other_lane, x) == 0 && pthread_join(t, &same) == 0, "thread");
  CHECK(same == (void *)1, "a block freed on another lane is not reused there");
#endif
  return check_status("test_lanepool");
}
