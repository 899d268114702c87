/* src/sim/resources.h — will the run fit in this machine?
 *
 * An estimate of the memory a run needs, from the experiment alone, and a
 * check of it against what the machine has (MemAvailable in /proc/meminfo)
 * or --max-memory; and of the memory maps the actors' stacks need against
 * vm.max_map_count (past it no stack can be mapped).  `validate`
 * prints the estimate; `validate` and `run` refuse a run that does not fit
 * (exit 2), before anything is simulated. */
#ifndef CCSIM_RESOURCES_H
#define CCSIM_RESOURCES_H

#include "error.h"
#include "experiment.h"

typedef struct resource_estimate {
  double workers_state; /* per-worker buffers x workers: gradients, memories, outputs */
  double payloads;      /* payloads in flight and their float64 shadows */
  double lane_lists;    /* blocks the data executor's lanes keep for reuse (src/lanepool.h) */
  double shared;        /* the aggregate, exact sums, one iteration's metrics */
  double records;       /* every iteration's records (figures, workers' end times) */
  double platform;      /* SimGrid's hosts, links and routes */
  double stacks;        /* actor stacks, as far as they are touched */
  double trace;         /* the iteration's trace of messages, for the timing executor */
  double recording;     /* --record-trace: one gradient of the whole model (not the sample) */
  double total;
  /* memory maps a process of the run needs (its actors' stacks, with or
   * without a guard page each, its traces' mappings and a spare), the
   * limit (resources_max_maps; <= 0: unknown), and whether each stack can
   * have a guard page: if not, the data executor's stacks get a checked
   * margin instead (src/sim/exec.c) and SimGrid's none
   * (contexts/guard-size:0) */
  double maps_guarded, maps_unguarded, max_maps;
  int guard_pages;
} resource_estimate;

/* Fill r for e. */
void resources_estimate(const experiment *e, resource_estimate *r);

/* Messages of one iteration of `calls` collective calls, as e's collective
 * counts them (collective_type.messages) with the global max's ring for the
 * compressors that need it; 0 when the collective cannot say. */
double resources_messages(const experiment *e, double calls);

/* The CPUs this process may run on: its affinity mask (all online cores,
 * or what taskset, numactl or a Slurm allocation grant), at least 1.  The
 * default of --threads. */
int resources_cpus(void);

/* vm.max_map_count (CCSIM_MAX_MAP_COUNT, when set, stands for it: the
 * tests' way to a small limit without changing the machine's), -1 when
 * unknown. */
double resources_max_maps(void);

/* Estimate e's needs and refuse (CCSIM_ERR_INPUT, one line with the
 * estimate) when they exceed max_bytes (> 0: --max-memory), else the
 * machine's MemAvailable, or when the actors' stacks (counted as a map
 * each: without guard pages) and traces need more memory maps than
 * vm.max_map_count allows.  r (may be NULL) gets the estimate. */
int resources_check(const experiment *e, double max_bytes, int recording, resource_estimate *r, ccsim_error *err);

/* A sweep's points run `jobs` at a time: refuse (CCSIM_ERR_INPUT, naming
 * the largest point and the --jobs that fits) when the `jobs` largest of
 * need[n] (each point's estimate; ids[i] its name) exceed MemAvailable
 * together.  Each point alone is checked when it runs (one that alone
 * exceeds the machine fails then, and is left out here). */
int resources_check_jobs(const char *file, const double *need, const char *const *ids, size_t n, int jobs,
                         ccsim_error *err);

/* The result files of a run into dir (iterations.csv, hops.csv, and
 * timeline.csv when asked; at least a row's worth of bytes each) and the
 * trace it records into trace_dir (NULL: none; workers x iterations .npy
 * files of the data plane's elements) must fit in the free space of their
 * file systems (statvfs of the nearest existing directory): else
 * CCSIM_ERR_INPUT naming the field that makes them large.  A lower bound:
 * a run it lets through may still fill a disk that others fill too. */
int resources_check_disk(const experiment *e, const char *dir, const char *trace_dir, ccsim_error *err);

/* "1.5 GiB" for bytes, into out[len]. */
void resources_format(double bytes, char *out, size_t len);

#endif
