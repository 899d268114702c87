/* bench/cores.c — how fast each core the process may run on is, alone and
 * with every other core busy with the same test: a dependent chain of
 * floating-point multiplies (the core's arithmetic), a pointer chase over
 * 256 MiB (memory latency) and a streaming sum over 512 KiB (the core's
 * own caches' bandwidth).  ccsim's lanes split the workers by the pace
 * they show (src/sim/exec.c, pace): this says whether a machine's cores
 * differ, and in what.
 *
 * Usage: bench_cores [ROUNDS]   (default 2)
 *
 * Prints one row per core and test: seconds of the chain, nanoseconds a
 * step of the chase, GB/s of the stream; "alone" pins one thread to that
 * core with the others idle, "all" runs one pinned thread per core at once. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hostclock.h"

enum { CHASE_BYTES = 256 << 20, STREAM_BYTES = 512 << 10, STEPS = 20000000, MAXC = 1024 };

static uint64_t *ring;           /* a random cycle over CHASE_BYTES / 8 slots */
static size_t nring;
static volatile uint64_t sink;

typedef struct job {
  int cpu;
  double chain_s, chase_ns, stream_gbs;
  pthread_barrier_t *start;
} job;

static void *run(void *arg) {
  job *j = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  const size_t ns = STREAM_BYTES / 8;
  uint64_t *buf = malloc(STREAM_BYTES);
  if (!buf) return NULL;
  for (size_t i = 0; i < ns; i++) buf[i] = i;
  if (j->start) pthread_barrier_wait(j->start);
  double t = host_clock();
  volatile double x = 1;
  for (long i = 0; i < 100000000; i++) x = x * 1.0000001 + 1e-9;
  j->chain_s = host_clock() - t;
  t = host_clock();
  size_t p = 0;
  for (long k = 0; k < STEPS; k++) p = ring[p];
  j->chase_ns = (host_clock() - t) / STEPS * 1e9;
  t = host_clock();
  uint64_t s = 0;
  for (int r = 0; r < 400; r++)
    for (size_t i = 0; i < ns; i++) s += buf[i];
  j->stream_gbs = 400.0 * STREAM_BYTES / (host_clock() - t) / 1e9;
  sink = s + p + (uint64_t)x;
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 2;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine)) return 1;
  int cpus[MAXC], nc = 0;
  for (int c = 0; c < CPU_SETSIZE && nc < MAXC; c++)
    if (CPU_ISSET(c, &mine)) cpus[nc++] = c;
  nring = CHASE_BYTES / 8;
  ring = malloc(CHASE_BYTES);
  size_t *order = malloc(nring * sizeof *order);
  if (!ring || !order) return 1;
  for (size_t i = 0; i < nring; i++) order[i] = i;
  uint64_t z = 0x9e3779b97f4a7c15ull;
  for (size_t i = nring - 1; i > 0; i--) { /* Fisher-Yates, then one cycle through the order */
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    const size_t k = (size_t)((z >> 33) % (i + 1)), tmp = order[i];
    order[i] = order[k], order[k] = tmp;
  }
  for (size_t i = 0; i < nring; i++) ring[order[i]] = order[(i + 1) % nring];
  free(order);
  printf("%-6s %-5s %5s %10s %10s %10s\n", "round", "how", "cpu", "chain s", "chase ns", "stream GB/s");
  for (int r = 1; r <= rounds; r++) {
    for (int i = 0; i < nc; i++) { /* alone */
      job j = {.cpu = cpus[i]};
      pthread_t t;
      if (pthread_create(&t, NULL, run, &j)) return 1;
      pthread_join(t, NULL);
      printf("%-6d %-5s %5d %10.3f %10.1f %10.1f\n", r, "alone", j.cpu, j.chain_s, j.chase_ns, j.stream_gbs);
    }
    job *js = calloc((size_t)nc, sizeof *js);
    pthread_t *ts = calloc((size_t)nc, sizeof *ts);
    pthread_barrier_t b;
    if (!js || !ts || pthread_barrier_init(&b, NULL, (unsigned)nc)) return 1;
    for (int i = 0; i < nc; i++) {
      js[i] = (job){.cpu = cpus[i], .start = &b};
      if (pthread_create(&ts[i], NULL, run, &js[i])) return 1;
    }
    for (int i = 0; i < nc; i++) pthread_join(ts[i], NULL);
    for (int i = 0; i < nc; i++)
      printf("%-6d %-5s %5d %10.3f %10.1f %10.1f\n", r, "all", js[i].cpu, js[i].chain_s, js[i].chase_ns,
             js[i].stream_gbs);
    pthread_barrier_destroy(&b);
    free(js);
    free(ts);
  }
  free(ring);
  return 0;
}
