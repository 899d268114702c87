/* src/engine/timing_replay.h — between the timing executor's zygote
 * (timing_zygote.c) and its replay (timing.c). */
#ifndef CCSIM_ENGINE_TIMING_REPLAY_H
#define CCSIM_ENGINE_TIMING_REPLAY_H

#include "engine/engine.h"
#include "engine/timing_nccl.h"

/* Whether the analytical path covers the run's setup (its network model
 * and options, engine_fast_supported) priced by plan (the ideal model):
 * the zygote's child and the run's own process ask the same. */
int timing_fast_covers(const nccl_plan *plan);

/* In a child of the zygote: replay trace t (analytically first when fast,
 * --timing auto; priced by plan, the run's comm.model), write its marks
 * into marks (the slot after them: 1 if the analytical path timed it, else
 * 0).  The child's exit status: 0, 3 out of memory, 4 the actors never all
 * finished. */
int timing_replay_child(const sim_trace *t, double *marks, const nccl_plan *plan, int fast);

#endif
