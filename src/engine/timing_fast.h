/* src/engine/timing_fast.h — the exact analytical timing path (timing_fast.c).
 * It reads SimGrid's routes and options (engine_fast_prepare), then replays
 * without SimGrid (engine_fast_play): in the zygote's child, or in ccsim's
 * own process (timing_zygote.c). */
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

/* engine_fast_replay in two parts: engine_fast_prepare asks SimGrid for
 * all the replay needs (the model's options, the hosts, every route the
 * trace sends on; 0, 1 or -1 as above, the path's state freed unless 0);
 * engine_fast_play then times t without calling SimGrid (so it may run on
 * a thread of its own while this process does other work) and frees the
 * state.  The same marks as engine_fast_replay. */
int engine_fast_prepare(const sim_trace *t, const char *const *hosts, size_t nhosts);
int engine_fast_play(const sim_trace *t, double *marks, const size_t *mark0);

/* SimGrid's Engine::seal_platform (seal.cpp): routes are complete after it. */
void engine_seal_platform(void);

#endif
