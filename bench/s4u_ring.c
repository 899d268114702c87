/* bench/s4u_ring.c — the floor ccsim's timing is measured against: a bare
 * SimGrid S4U ring all-reduce with no data at all, sending exactly the
 * messages ccsim's allreduce/ring sends for an uncompressed ('none', fp32)
 * tensor: N chunks of coll_chunk's sizes, N - 1 reduce-scatter steps and
 * N - 1 all-gather steps, one mailbox per (src, dst) pair, isend + recv +
 * wait per step, and a barrier between iterations.
 *
 *   s4u_ring PLATFORM.xml N ELEMENTS ITERATIONS [--cfg=...]
 *
 * Prints "simulated_s X" (the end of the last iteration).  Worker i runs on
 * host i of the platform in natural order (as ccsim does: h2 before h10). */
#include <ctype.h>
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int N, iterations;
static size_t elements;
static sg_mailbox_t *to_next; /* [N]: mailbox "r>r+1" */
static sg_bar_t barrier;
static char token; /* S4U refuses a NULL payload */

/* Chunk c of n elements split into k parts: as ccsim's coll_chunk. */
static size_t chunk_bytes(int c) {
  const size_t lo = (size_t)((unsigned __int128)elements * (unsigned)c / (unsigned)N);
  const size_t hi = (size_t)((unsigned __int128)elements * (unsigned)(c + 1) / (unsigned)N);
  return 4 * (hi - lo);
}

static void rank_main(int argc, char **argv) {
  (void)argc;
  const int r = atoi(argv[1]), prev = (r + N - 1) % N;
  for (int it = 0; it < iterations; it++) {
    for (int phase = 0; phase < 2; phase++)
      for (int s = 0; s < N - 1; s++) {
        /* reduce-scatter sends chunk (r - s), all-gather chunk (r + 1 - s) */
        const int c = ((r - s + phase) % N + N) % N;
        sg_comm_t req = sg_mailbox_put_async(to_next[r], &token, (long)chunk_bytes(c));
        sg_mailbox_get(to_next[prev]);
        sg_comm_wait(req);
      }
    sg_barrier_wait(barrier);
  }
}

static int natural_cmp(const void *pa, const void *pb) {
  const char *a = sg_host_get_name(*(const sg_host_t *)pa), *b = sg_host_get_name(*(const sg_host_t *)pb);
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      char *ea, *eb;
      unsigned long long va = strtoull(a, &ea, 10), vb = strtoull(b, &eb, 10);
      if (va != vb) return va < vb ? -1 : 1;
      a = ea, b = eb;
    } else {
      if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
      a++, b++;
    }
  }
  return (unsigned char)*a - (unsigned char)*b;
}

int main(int argc, char **argv) {
  simgrid_init(&argc, argv);
  if (argc < 5) {
    fprintf(stderr, "usage: %s PLATFORM.xml N ELEMENTS ITERATIONS [--cfg=...]\n", argv[0]);
    return 2;
  }
  simgrid_load_platform(argv[1]);
  N = atoi(argv[2]);
  elements = strtoull(argv[3], NULL, 10);
  iterations = atoi(argv[4]);
  sg_host_t *hosts = sg_host_list();
  if ((int)sg_host_count() < N || N < 1) {
    fprintf(stderr, "%s: %d ranks but %zu hosts\n", argv[1], N, sg_host_count());
    return 2;
  }
  qsort(hosts, sg_host_count(), sizeof *hosts, natural_cmp);
  to_next = calloc((size_t)N, sizeof *to_next);
  for (int r = 0; r < N; r++) {
    char name[48];
    snprintf(name, sizeof name, "%d>%d", r, (r + 1) % N);
    to_next[r] = sg_mailbox_by_name(name);
  }
  barrier = sg_barrier_init((unsigned)N);
  for (int r = 0; r < N; r++) {
    char name[32], rank[16];
    snprintf(name, sizeof name, "rank-%d", r);
    snprintf(rank, sizeof rank, "%d", r);
    const char *av[] = {name, rank, NULL};
    sg_actor_create_(name, hosts[r], rank_main, 2, av);
  }
  simgrid_run();
  printf("simulated_s %.9g\n", simgrid_get_clock());
  free(hosts);
  free(to_next);
  return 0;
}
