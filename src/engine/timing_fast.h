/* src/engine/timing_fast.h — the exact analytical timing path (timing_fast.c).
 * Replay-side only: it reads SimGrid's routes and options in the replay
 * child. */
#ifndef CCSIM_TIMING_FAST_H
#define CCSIM_TIMING_FAST_H

#include <stddef.h>

#include "comm/itrace.h"

/* Whether the path covers this setup at all: network model CM02 or LV08,
 * cross-traffic off, links' latencies counted, no SimGrid --cfg option
 * (logging aside), no Wi-Fi link in the platform file. */
int engine_fast_supported(const char *model, int crosstraffic, int latency_free, char *const *cfg, int ncfg,
                          const char *platform);

/* Time trace t analytically (timing_fast.c): actor i's marks into
 * marks[mark0[i] ...].  0: done, exactly as SimGrid would; 1: not provably
 * exact (contention, a setup it does not cover), marks meaningless, SimGrid
 * must time it; -1: out of memory. */
int engine_fast_replay(const sim_trace *t, double *marks, const size_t *mark0, const char *const *hosts,
                       size_t nhosts);

/* SimGrid's Engine::seal_platform (seal.cpp): routes are complete after it. */
void engine_seal_platform(void);

#endif
