/* bench/pagetouch.c — what a page costs the first time it is written, on
 * this machine: the page faults a run takes before it computes anything
 * (2,048 actors' stacks, the heap) and whether a prefault is cheaper.
 * `meson test --benchmark pagetouch`, or build/tests/bench_pagetouch [N].
 *
 * For N (default 2048) pages it prints microseconds a page:
 *  - 4 KiB pages written one after another (a new heap's small pages);
 *  - 4 KiB pages 1 MiB + 4 KiB apart (the tops of the data executor's
 *    stacks, src/sim/exec.c: each also needs a page-table page);
 *  - the same strided pages made present first with
 *    madvise(MADV_POPULATE_WRITE), then written: the madvise alone, and
 *    the write after it (a hypervisor that shadows page tables charges the
 *    first access again);
 *  - 2 MiB pages (MADV_HUGEPAGE) written once each: the whole page zeroed.
 * Each measurement takes fresh memory, so the machine's state (pages the
 * host has taken back) shows: run it twice, back to back and after an
 * idle minute, to see both. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *map(size_t bytes) {
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

int main(int argc, char **argv) {
  const size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
  const size_t page = 4096, stride = (1u << 20) + 4096, huge = 2u << 20;
  if (n < 1 || n > 65536) {
    fprintf(stderr, "usage: bench_pagetouch [pages, 1 to 65536]\n");
    return 2;
  }
  volatile char *c = map(n * page);
  double t = now();
  for (size_t i = 0; i < n; i++) c[i * page] = 1;
  printf("4 KiB pages in a row:            %6.2f us a page (%zu pages)\n", (now() - t) / (double)n * 1e6, n);

  volatile char *s = map(n * stride);
  t = now();
  for (size_t i = 0; i < n; i++) s[i * stride + stride - 64] = 1;
  printf("4 KiB pages 1 MiB apart:         %6.2f us a page\n", (now() - t) / (double)n * 1e6);

#ifdef MADV_POPULATE_WRITE
  char *q = map(n * stride);
  t = now();
  int refused = 0;
  for (size_t i = 0; i < n; i++)
    refused |= madvise(q + i * stride + stride - page, page, MADV_POPULATE_WRITE) != 0;
  const double tm = now() - t;
  t = now();
  for (size_t i = 0; i < n; i++) ((volatile char *)q)[i * stride + stride - 64] = 1;
  const double tw = now() - t;
  if (refused)
    printf("MADV_POPULATE_WRITE:             refused by this kernel\n");
  else
    printf("the same, prefaulted by madvise: %6.2f us a page (madvise %.2f, then the write %.2f)\n",
           (tm + tw) / (double)n * 1e6, tm / (double)n * 1e6, tw / (double)n * 1e6);
#endif

  const size_t nh = n / 32 > 4 ? n / 32 : 4; /* 64 MiB at the default */
  char *h0 = map((nh + 1) * huge);
  volatile char *h = (char *)(((uintptr_t)h0 + huge - 1) & ~(uintptr_t)(huge - 1));
  if (madvise((void *)h, nh * huge, MADV_HUGEPAGE) != 0) {
    printf("2 MiB pages:                     MADV_HUGEPAGE refused\n");
    return 0;
  }
  t = now();
  for (size_t i = 0; i < nh; i++) h[i * huge] = 1;
  const double th = now() - t;
  printf("2 MiB pages:                     %6.2f us a page, %.2f GB/s (%zu pages)\n", th / (double)nh * 1e6,
         (double)(nh * huge) / th / 1e9, nh);
  return 0;
}
