/* src/heap.c — malloc's heap for a run: one arena, on 2 MiB pages (heap.h
 * says why).  glibc 2.35 and later can do this itself (the tunable
 * glibc.malloc.hugetlb=1), but it reads its tunables from the environment
 * once, as a process starts, and advises its main arena only; ccsim does
 * the same from inside, with public calls: mallopt, sbrk, madvise. */
#include "heap.h"

#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sanitized.h" /* under ASan or TSan malloc is not glibc's */

#define HUGE_PAGE ((uintptr_t)2 << 20)

static int wanted, huge;

/* The kernel's THP mode honours MADV_HUGEPAGE: "[always]" or "[madvise]"
 * (not "[never]"); no when its switch cannot be read. */
static int thp_allowed(void) {
  char b[128];
  int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, b, sizeof b - 1);
  close(fd);
  if (n <= 0) return 0;
  b[n] = '\0';
  return strstr(b, "[always]") || strstr(b, "[madvise]");
}

void heap_setup(int allowed) {
  wanted = allowed && !CCSIM_SANITIZED && thp_allowed();
  if (wanted) mallopt(M_ARENA_MAX, 1);
}

void heap_reserve(double bytes) {
  if (!wanted || huge) return;
  if (!(bytes > 0)) return;
  /* under a limit of address space or data (ulimit -v, -d) the reserve
   * would count against what the run may still map: left as it was */
  struct rlimit as, data;
  if (getrlimit(RLIMIT_AS, &as) || as.rlim_cur != RLIM_INFINITY || getrlimit(RLIMIT_DATA, &data) ||
      data.rlim_cur != RLIM_INFINITY)
    return;
  if (bytes > HEAP_RESERVE_MAX) bytes = HEAP_RESERVE_MAX;
  char *lo = sbrk(0);
  if (lo == (char *)-1) return;
  /* the next growth of the heap (made now: a block larger than its free
   * top) takes `bytes` more than it needs; the block's free returns all of
   * it to the top, and a trim threshold above it keeps it there (a trim
   * would give the advised pages back, and what grew again in their place
   * would be a new mapping, not advised) */
  const struct mallinfo2 mi = mallinfo2();
  if (!mallopt(M_TRIM_THRESHOLD, INT_MAX) || !mallopt(M_TOP_PAD, (int)bytes)) return;
  void *volatile p = malloc(mi.keepcost + 4096); /* volatile: the pair is not optimised away */
  free(p);
  mallopt(M_TOP_PAD, 128 << 10);
  char *hi = sbrk(0);
  if (hi == (char *)-1) return;
  const uintptr_t a = ((uintptr_t)lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), b = (uintptr_t)hi & ~(HUGE_PAGE - 1);
  if (b > a && madvise((void *)a, b - a, MADV_HUGEPAGE) == 0) huge = 1;
}

int heap_huge(void) { return huge; }
