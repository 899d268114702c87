/* src/sim/exec.h — the data executor: runs the actors of one iteration on
 * real payloads, without SimGrid, and records the iteration's trace.
 *
 * Actors are coroutines, switched only where comm.h would block (a receive
 * with nothing sent yet, a semaphore at 0).  They run on up to `threads`
 * lanes, a system thread each: an actor always on the same lane, the
 * actors of one rank on one lane, ranks in contiguous blocks.  Messages
 * between two ranks match in order, so what each actor computes does not
 * depend on how the lanes went; what actors share (the metrics) is summed
 * exactly, so neither do the results (docs/engine.md).  Sends complete at
 * once here (the payload is already in memory); when they complete in
 * simulated time is the timing executor's business.  An actor that stops
 * (comm_abort) stops alone: the others run until they end or wait for what
 * never comes, so which actors stop does not depend on the lanes either.
 * One executor per process (the comm.h calls find it as SimGrid's do). */
#ifndef CCSIM_EXEC_H
#define CCSIM_EXEC_H

#include <stddef.h>

#include "comm/itrace.h"
#include "error.h"

typedef struct sim_exec sim_exec;

/* An executor for up to max_actors actors at a time, on up to `threads`
 * lanes (the caller's thread and threads - 1 more; <= 1: the caller's). */
sim_exec *sim_exec_new(size_t max_actors, int threads, ccsim_error *err);
void sim_exec_free(sim_exec *x);

/* Stacks made from now on get a guard page (on, the default) or a checked
 * margin (off: where vm.max_map_count has no room for a guard page each,
 * sim/resources.h; exec.c says what the margin catches). */
void sim_exec_guard_pages(sim_exec *x, int on);

/* An actor's trace words past this many bytes are a memory mapping of
 * their own (exec_comm.c), a map each in vm.max_map_count's count. */
#define SIM_TRACE_MAP_BYTES (64 << 10)

/* Start an iteration afresh: no actors, an empty trace. */
void sim_exec_reset(sim_exec *x);
/* Add an actor running fn(arg) on rank host's host; actors are numbered
 * from 0 in spawn order.  0, or -1 when its stack finds no memory. */
int sim_exec_spawn(sim_exec *x, int host, void (*fn)(void *), void *arg);
/* Run every actor to its end, on min(threads, ranks) lanes.
 * CCSIM_ERR_RUNTIME with a message if an actor stopped (the lowest worker
 * that ran out of memory is named), if they deadlock (actors left
 * waiting), or leave a message unreceived or a semaphore above 0. */
int sim_exec_run(sim_exec *x, ccsim_error *err);
/* Whether the lanes' deal follows their pace from run to run (exec.c,
 * pace; default 1).  0 deals the ranks evenly at every run
 * (CCSIM_PACE=0, for comparisons).  Either way, the same results. */
extern int sim_exec_pace;
/* Actor i (spawned) will likely record about `words` words: the room its
 * trace's array starts with, where it has no length of its own from an
 * earlier iteration (sim_exec_reset keeps each actor's last length). */
void sim_exec_trace_hint(sim_exec *x, size_t i, size_t words);
/* Actor i (spawned) is likely to record the words ops[0..n) again (the
 * replay in flight's: engine_replay_words): its words are then
 * compared with those as it makes them and stored only from the first
 * difference on, so that an iteration that repeats the trace being
 * replayed holds no second copy of it.  The reference must stay valid
 * until the next reset, or until sim_exec_trace_own.  A trace read while
 * it has one (sim_trace_hash) reads the reference's words. */
void sim_exec_trace_ref(sim_exec *x, size_t i, const sim_word *ops, size_t n);
/* Every actor's words its own (copied from its reference where it still
 * has one), before the reference goes (the replay is finished) or the
 * trace is handed on: 0, or -1 without memory. */
int sim_exec_trace_own(sim_exec *x);

/* The trace of the last run (the executor's; valid until the next reset). */
sim_trace *sim_exec_trace(sim_exec *x);

#endif
