/* src/sim/resources.c — the memory estimate and its checks (resources.h).
 *
 * The per-element figures follow the run loop (src/sim/run.c) and the
 * collectives (src/collectives/common.c): a worker keeps a gradient scratch
 * and, with error feedback, a memory; training and private outputs give it
 * its own aggregate; a payload in flight carries its bytes and, to measure
 * the error hop by hop, the exact and the ideal sums in float64 (16 bytes
 * an element); an all-gather holds every worker's share at once. */
#include "sim/resources.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "comm/itrace.h"
#include "data/gradients.h"
#include "data/source.h"
#include "lanepool.h"
#include "sim/exec.h"
#include "timemodel/profile.h"

/* A worker has two actors (compute and communication) in each of two
 * processes: the data executor's (src/sim/exec.c) and, where SimGrid times
 * a replay, the timing executor's.  Each stack with its guard page is two
 * memory maps; without guard pages adjacent stacks merge, and one map an
 * actor is the worst case. */
enum { MAPS_GUARDED = 2, MAPS_UNGUARDED = 1, MAPS_SPARE = 4096 };
/* The process itself: code, libraries, SimGrid's own state, the lanes'
 * threads.  Measured: a run of 2 workers x 1,000 elements on 2 lanes
 * peaks at 32.8-35.1 MiB (three runs; it had said 32 MiB while the
 * metrics' lane logs, 6 MiB of huge pages, were in every peak). */
#define PROCESS_BYTES (36.0 * (1 << 20))
/* What an actor's stack costs once touched (measured: 16000 workers, 32000
 * actors, about 1.1 GiB above the run's other memory). */
static const double STACK_RESIDENT = 36.0 * 1024;
static const double HOST_BYTES = 16.0 * 1024; /* a host, its links and routing entries */

/* Collective calls of an iteration, at most: one per bucket, times the
 * compressor's rounds. */
static double calls_per_iteration(const experiment *e) {
  const double layers = e->model.layers ? (double)e->model.layers->nlayers : 1;
  double nb = 1;
  switch (e->schedule.kind) {
  case SCHED_SINGLE: nb = 1; break;
  case SCHED_BUCKETS:
    nb = e->schedule.bucket_bytes > 0 ? ceil(4.0 * (double)e->model.elements / e->schedule.bucket_bytes) + 1 : 1;
    if (nb > layers) nb = layers;
    break;
  case SCHED_LAYERWISE:
  case SCHED_MERGECOMP: nb = layers; break;
  case SCHED_FIXED: nb = e->schedule.ncuts + 1; break;
  }
  return nb * (e->compressor->phases > 1 ? e->compressor->phases : 1);
}

/* Messages of one iteration: the collective's count per call (its
 * descriptor), with the global max's ring for the compressors that need it,
 * times the calls; 0 when the collective cannot say. */
double resources_messages(const experiment *e, double calls) {
  const double N = e->workers;
  const double m = e->collective->messages ? e->collective->messages(e->workers, e->coll_params) : 0;
  if (!(m > 0)) return 0;
  return calls * (m + ((e->compressor->flags & CCOMP_GLOBAL_MAX) ? N * (N - 1) : 0));
}

/* The hops of one call of e's collective, at least 1 (N where its
 * descriptor cannot say). */
static double hops_of(const experiment *e) {
  const double h = e->collective->hops ? (double)e->collective->hops(e->workers, e->coll_params) : e->workers;
  return h > 1 ? h : 1;
}

/* The iteration's trace (src/comm/itrace.h): every message costs
 * SIM_BYTES_PER_MESSAGE bytes (send, its size, wait, receive), plus an
 * actor's marks and device work.  Held once (the timing executor takes it
 * and its pages go back: exec_comm.c); with more than one iteration, twice:
 * the data executor records the next while one is replayed (run_loop.c). */
static double trace_bytes(const experiment *e) {
  const double N = e->workers, calls = calls_per_iteration(e);
  double msgs = resources_messages(e, calls);
  if (!(msgs > 0)) { /* about twice per hop per worker: reduce, then gather or broadcast */
    msgs = calls * 2.0 * N * hops_of(e);
  }
  return (e->iterations > 1 ? 2 : 1) * (msgs * SIM_BYTES_PER_MESSAGE + N * 4096);
}

int resources_cpus(void) {
  for (int n = 1024; n <= (1 << 20); n *= 4) { /* a mask as large as the kernel's */
    cpu_set_t *set = CPU_ALLOC((size_t)n);
    if (!set) break;
    const size_t size = CPU_ALLOC_SIZE((size_t)n);
    CPU_ZERO_S(size, set);
    if (sched_getaffinity(0, size, set) == 0) {
      const int c = CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return c > 0 ? c : 1;
    }
    CPU_FREE(set);
    if (errno != EINVAL) break;
  }
  const long c = sysconf(_SC_NPROCESSORS_ONLN);
  return c > 0 ? (int)c : 1;
}

/* The memory maps of a process of e's run beside its actors' stacks: a
 * mapping for each actor whose trace words pass SIM_TRACE_MAP_BYTES
 * (src/sim/exec_comm.c): at most the trace's bytes over that, and at most
 * one a worker (its communication actor: the compute actor records device
 * work and marks, a few words a layer); and MAPS_SPARE for the rest
 * (libraries, heaps, the lanes' arenas and stacks, SimGrid's own). */
static double maps_beside_stacks(const experiment *e) {
  return fmin(e->workers, floor(trace_bytes(e) / SIM_TRACE_MAP_BYTES)) + MAPS_SPARE;
}

void resources_estimate(const experiment *e, resource_estimate *r) {
  memset(r, 0, sizeof *r);
  const double N = e->workers;
  double n = (double)e->model.elements;
  if (e->model.sample && (double)e->model.sample < n) n = (double)e->model.sample;
  const int private_out = (e->gradients.source->flags & GSRC_TRAINS) ||
                          (e->memory && (e->memory->flags & CCOMP_MEM_AGGREGATE) &&
                           (e->collective->requires & COLL_OUT_FROM_ONE)); /* as run.c decides */
  double per_worker = 4 * n;                           /* gradient scratch (and its 2 KiB window, worker.c) */
  if (e->memory) per_worker += 4 * n;                  /* the memory's state (error feedback...) */
  if (private_out) per_worker += 4 * n;                /* own aggregate */
  /* where one rank would write the shared output (allgather's), a private
   * one has every worker decode the gathered payloads itself: a sum and a
   * scratch of the tensor each (collectives/allgather.c, gather_init) */
  if (private_out && (e->collective->requires & COLL_OUT_FROM_ONE)) per_worker += 8 * n;
  if (e->compressor->flags & CCOMP_STATEFUL) per_worker += 8 * n; /* state (momentum, factors) */
  if (e->compressor->phases > 1) per_worker += 12 * n; /* rounds' buffers */
  r->workers_state = N * per_worker;
  /* in flight: what the collective's descriptor says it holds at once,
   * each element with its wire bytes (at most 4) and its float64 shadows:
   * the exact sum, and the ideal one where the run measures the cascade
   * (as worker.c decides) */
  const int cascade = !(e->compressor->flags & (CCOMP_STATEFUL | CCOMP_LOSSLESS));
  const double per_elem = 4 + 8 + (cascade ? 8 : 0);
  const double held = e->collective->footprint ? e->collective->footprint((size_t)n, e->workers, e->coll_params)
                                               : N * n; /* no descriptor: every worker the whole tensor */
  /* each further lane of the data executor (as many as the cores) keeps,
   * in its own malloc arena, blocks of the payloads it freed: measured 9 to
   * 13.5 MiB a lane at 16 workers x 2^20 elements (allgather/ring,
   * allreduce/tree, 8 lanes against 2), about a tensor with its shadows */
  const double lanes = fmin(N, (double)resources_cpus());
  r->payloads = held * per_elem + (lanes > 1 ? lanes - 1 : 0) * n * per_elem;
  /* a memory's compensated input is a block of the lane's pool, made,
   * encoded and given back without the actor yielding (collectives/common.c,
   * whole.c): one at a time on each lane, at most the tensor (it had been
   * counted as one a worker: a third of the estimate of a 1024-worker
   * ResNet-50 Marsit run, which then needed 2.7 times what it took) */
  if (e->memory) r->payloads += lanes * 4 * n;
  /* the lanes' free lists (src/lanepool.h): a block freed on another lane
   * than the one that made it joins the freeing lane's lists, so where
   * blocks flow one way between lanes a lane's lists fill, iteration after
   * iteration, up to LANEPOOL_KEEP (measured, 59 workers, allreduce/rhd,
   * 65,660 elements: 56 MiB on one lane, 76-83 MiB on two after one
   * iteration, 96-105 after three; the estimate had been 104): at most
   * every block the run makes, every hop's payloads of every worker with
   * their shadows */
  if (lanes > 1) {
    const double made = (double)e->iterations * calls_per_iteration(e) * hops_of(e) * N * n * per_elem;
    r->lane_lists = lanes * fmin((double)LANEPOOL_KEEP, made);
  }
  r->shared = 4 * n + ((e->collective->requires & COLL_NEEDS_EXACT_SUM) ? 8 * n : 0) +
              (grad_experiment_shares(e) ? 8 * n : 0) +
              /* a sampled run's carries (grad_sample_carries), 4 bytes an element */
              (e->model.sample ? 4 * n : 0) +
              /* the exact sums of one iteration's metrics, a set per thread (as many as the cores) */
              coll_xmetrics_bytes(e->collective->hops(e->workers, e->coll_params), (int)lanes);
  r->records = (double)e->iterations * (N * 8 + 4096);
  r->platform = HOST_BYTES * (e->platform.hosts > e->workers ? e->platform.hosts : e->workers);
  /* memory maps: the stacks with a guard page each if they fit, else
   * without; a stack without one (src/sim/exec.c) also touches the page of
   * its margin's pattern */
  r->max_maps = resources_max_maps();
  const double beside = maps_beside_stacks(e);
  r->maps_guarded = 2 * N * MAPS_GUARDED + beside;
  r->maps_unguarded = 2 * N * MAPS_UNGUARDED + beside;
  r->guard_pages = r->max_maps <= 0 || r->maps_guarded <= r->max_maps;
  r->stacks = 2 * N * (STACK_RESIDENT + (r->guard_pages ? 0 : 4096));
  r->trace = trace_bytes(e);
  r->total = r->workers_state + r->payloads + r->lane_lists + r->shared + r->records + r->platform + r->stacks +
             r->trace + PROCESS_BYTES;
}

void resources_format(double b, char *out, size_t len) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (b >= 1024 && u < 5) b /= 1024, u++;
  snprintf(out, len, "%.3g %s", b, unit[u]);
}

/* resources_format as a value, for use inside one message's arguments (a
 * returned struct lives until the end of the full expression, C11 6.2.4). */
typedef struct size_text {
  char s[32];
} size_text;

static size_text fmt(double b) {
  size_text t = {{0}};
  resources_format(b, t.s, sizeof t.s);
  return t;
}

/* A number from a "key: value" line of a /proc file, or -1. */
static double proc_value(const char *file, const char *key) {
  /* read(2) into a buffer, not stdio: a FILE that finds no memory for its
   * buffer reads byte by byte, and procfs answers a read at offset 1 of
   * max_map_count with nothing ("65530" read as "6") */
  const int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[16384];
  size_t n = 0;
  for (ssize_t got; n < sizeof text - 1 && (got = read(fd, text + n, sizeof text - 1 - n)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) break;
    n += (size_t)got;
  }
  close(fd);
  text[n] = 0;
  const size_t k = strlen(key);
  for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
    if (!key[0] || (!strncmp(line, key, k) && line[k] == ':')) {
      char *end;
      const double v = strtod(key[0] ? line + k + 1 : line, &end);
      return end == (key[0] ? line + k + 1 : line) ? -1 : v;
    }
  return -1;
}

double resources_max_maps(void) {
  const char *v = getenv("CCSIM_MAX_MAP_COUNT");
  if (v && *v) {
    char *end;
    const double m = strtod(v, &end);
    if (*end == 0 && m > 0) return m;
  }
  return proc_value("/proc/sys/vm/max_map_count", "");
}

int resources_check(const experiment *e, double max_bytes, int recording, resource_estimate *out,
                    ccsim_error *err) {
  resource_estimate r;
  resources_estimate(e, &r);
  /* --record-trace fills a gradient of the whole model for each worker in
   * turn (src/data/feed.c), whatever model.sample draws */
  if (recording) {
    r.recording = ((double)e->model.elements + 1) * sizeof(float);
    r.total += r.recording;
  }
  if (out) *out = r;
  if (r.max_maps > 0 && r.maps_unguarded > r.max_maps)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: workers: %d workers need %d actors and %.0f memory maps (their stacks, even without "
                      "guard pages, and their traces), but vm.max_map_count is %.0f here: fewer workers, or "
                      "sysctl -w vm.max_map_count=%.0f",
                      e->file, e->workers, 2 * e->workers, r.maps_unguarded, r.max_maps, r.maps_unguarded);
  double limit = max_bytes;
  const char *what = "--max-memory";
  if (limit <= 0) {
    limit = proc_value("/proc/meminfo", "MemAvailable") * 1024;
    what = "the memory available (MemAvailable)";
  }
  if (limit > 0 && r.total > limit) {
    /* every part, largest first; the JSON path and the advice are the
     * largest part's (the iterations' records grow with iterations, the
     * rest with workers, elements or both) */
    struct part {
      const char *name;
      double b;
    } p[] = {{"workers' state", r.workers_state}, {"payloads in flight", r.payloads}, {"lanes' free lists", r.lane_lists},
             {"shared buffers", r.shared},
             {"iterations' records", r.records},  {"actor stacks", r.stacks},         {"trace", r.trace},
             {"platform", r.platform},            {"--record-trace's gradient", r.recording},
             {"the process", PROCESS_BYTES}};
    enum { NP = sizeof p / sizeof p[0] };
    for (int i = 1; i < NP; i++) /* insertion sort, largest first (stable: ties keep this order) */
      for (int j = i; j > 0 && p[j].b > p[j - 1].b; j--) {
        const struct part t = p[j];
        p[j] = p[j - 1], p[j - 1] = t;
      }
    char parts[512] = "";
    for (int i = 0; i < NP; i++)
      snprintf(parts + strlen(parts), sizeof parts - strlen(parts), "%s%s %s", i ? ", " : "", p[i].name,
               fmt(p[i].b).s);
    const int by_iterations = !strcmp(p[0].name, "iterations' records");
    const int by_recording = p[0].b == r.recording && r.recording > 0;
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: %s: the run needs about %s (%s), more than %s, %s: %s", e->file,
                      by_iterations ? "iterations" : by_recording ? "model.elements" : "workers", fmt(r.total).s,
                      parts, what, fmt(limit).s,
                      by_iterations   ? "fewer iterations"
                      : by_recording  ? "fewer elements, or no --record-trace (it records whole gradients, not the sample)"
                                      : "fewer workers or elements, or model.sample");
  }
  return 0;
}

/* Free bytes (for an unprivileged writer) on the file system that path, or
 * its nearest existing ancestor, lies on; -1 when unknown. */
static double free_bytes(const char *path) {
  char *p = strdup(path);
  if (!p) return -1;
  struct statvfs st;
  int ok = 0;
  for (;;) {
    if (statvfs(*p ? p : ".", &st) == 0) {
      ok = 1;
      break;
    }
    char *slash = strrchr(p, '/');
    if (!slash || slash == p) {
      ok = statvfs(slash ? "/" : ".", &st) == 0;
      break;
    }
    *slash = 0;
  }
  free(p);
  /* a file system with no blocks (proc, sys) or mounted read-only has no
   * room to count: creating the directory or its files fails there, and
   * says why (not "0 B free", which blames the experiment's size) */
  if (!ok || st.f_blocks == 0 || (st.f_flag & ST_RDONLY)) return -1;
  return (double)st.f_bavail * (double)st.f_frsize;
}

/* The fewest bytes a row of each result file takes ("0,1.2e-05,...\n"). */
enum { ITER_ROW = 60, HOP_ROW = 30, TIMELINE_ROW = 30, NPY_HEADER = 128 };

int resources_check_disk(const experiment *e, const char *dir, const char *trace_dir, ccsim_error *err) {
  const double T = e->iterations, N = e->workers;
  const double H = (double)e->collective->hops(e->workers, e->coll_params);
  const double results = T * ITER_ROW + T * H * HOP_ROW + (e->timeline ? T * N * 2 * TIMELINE_ROW : 0);
  const double have = free_bytes(dir);
  if (have >= 0 && results > have)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: iterations: %d iterations need at least %s of result files (iterations.csv, hops.csv%s), "
                      "but the file system of %s has %s free",
                      e->file, e->iterations, fmt(results).s, e->timeline ? ", timeline.csv" : "", dir,
                      fmt(have).s);
  if (!trace_dir) return 0;
  const double elements = (double)(e->model.sample ? e->model.sample : e->model.elements);
  const double trace = N * T * (elements * 4 + NPY_HEADER);
  const double thave = free_bytes(trace_dir);
  if (thave >= 0 && trace > thave)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: --record-trace: the trace needs %s (%d workers x %d iterations x %.0f elements of 4 "
                      "bytes), but the file system of %s has %s free",
                      e->file, fmt(trace).s, e->workers, e->iterations, elements, trace_dir, fmt(thave).s);
  return 0;
}

static int by_need_desc(const void *a, const void *b) {
  const double x = **(const double *const *)a, y = **(const double *const *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

int resources_check_jobs(const char *file, const double *need, const char *const *ids, size_t n, int jobs,
                         ccsim_error *err) {
  if (jobs <= 1 || n <= 1) return 0;
  const double avail = proc_value("/proc/meminfo", "MemAvailable") * 1024;
  if (avail <= 0) return 0; /* unknown here: each point is still checked alone when it runs */
  const double **ix = malloc(n * sizeof *ix);
  if (!ix) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  /* a point that alone exceeds the machine is refused when it runs (and
   * marked failed): it does not count against the others */
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (need[i] <= avail) ix[m++] = &need[i];
  qsort(ix, m, sizeof *ix, by_need_desc);
  const size_t k = (size_t)jobs < m ? (size_t)jobs : m;
  double sum = 0;
  size_t fit = 0;
  for (size_t i = 0; i < k; i++) {
    sum += *ix[i];
    if (sum <= avail) fit = i + 1;
  }
  int rc = 0;
  if (sum > avail) {
    rc = ccsim_fail(err, CCSIM_ERR_INPUT,
                    "%s: --jobs %d: the %zu largest points need about %s at once (point %s alone %s), more than "
                    "the memory available (MemAvailable), %s: use --jobs %zu",
                    file, jobs, k, fmt(sum).s, ids[ix[0] - need], fmt(*ix[0]).s, fmt(avail).s, fit ? fit : 1);
  }
  free(ix);
  return rc;
}
