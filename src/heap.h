/* src/heap.h — malloc's heap for a run: one arena, on 2 MiB pages.
 *
 * A run touches most of its memory once: a 1024-worker sampled ring writes
 * 80 MB of traces, pools and buffers in 20,300 page faults, and in a
 * virtual machine a fault costs 15-25 us, a quarter of that run's CPU.
 * Where the kernel's transparent huge pages allow it (its mode "always" or
 * "madvise", not "never") and CCSIM_HUGEPAGES is not 0, ccsim keeps every
 * thread's blocks in glibc's main arena (mallopt M_ARENA_MAX 1: the other
 * arenas' heaps cannot be advised from outside glibc) and, before a run
 * starts its threads, grows that arena's heap by the run's memory estimate
 * at once (untouched: nothing is resident yet) and advises it
 * MADV_HUGEPAGE, so that each first touch maps 2 MiB, not 4 KiB.  The
 * results are the same byte for byte either way; only where memory lies
 * changes (tests/hugepages.sh).  Measured in bench/README.md, "Issue 29,
 * eleventh round". */
#ifndef CCSIM_HEAP_H
#define CCSIM_HEAP_H

/* In main, before any thread: one arena when huge pages are allowed (0:
 * CCSIM_HUGEPAGES=0, which main reads) and the kernel's mode and the
 * build permit them. */
void heap_setup(int allowed);

/* Grow the heap by `bytes` (at most HEAP_RESERVE_MAX) and advise it onto
 * huge pages, when heap_setup allowed them and no limit of address space
 * or data is set (ulimit -v, -d: the reserve would count against it); call
 * before the run's threads start.  Nothing happens when it cannot (no
 * room: the run goes on with 4 KiB pages). */
void heap_reserve(double bytes);

#define HEAP_RESERVE_MAX ((double)(1536u << 20))

/* 1 when heap_reserve advised the heap onto huge pages. */
int heap_huge(void);

#endif
