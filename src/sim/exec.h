/* src/sim/exec.h — the data executor: runs the actors of one iteration on
 * real payloads, without SimGrid, and records the iteration's trace.
 *
 * Actors are coroutines on one system thread, switched only where comm.h
 * would block (a receive with nothing sent yet, a semaphore at 0); the
 * ready queue is first in, first out from the spawn order, so a run is the
 * same sequence of steps every time: results do not depend on simulated
 * time or on the platform.  The heavy work of an actor (gradient synthesis,
 * encode, combine, decode; comm_work) may run on other threads while the
 * executor's thread goes on with the next actors; the actor that asked for
 * it waits at the back of the ready queue, with one thread as with many,
 * so the sequence of steps is the same whatever the thread count.  Sends complete at once here (the payload is
 * already in memory); when they complete in simulated time is the timing
 * executor's business.  One executor per process (the comm.h calls find it
 * as SimGrid's do). */
#ifndef CCSIM_EXEC_H
#define CCSIM_EXEC_H

#include <stddef.h>

#include "error.h"
#include "itrace.h"

typedef struct sim_exec sim_exec;

/* An executor for up to max_actors actors at a time, whose comm_work runs
 * on `threads` threads (its own and threads - 1 more; <= 1: its own). */
sim_exec *sim_exec_new(size_t max_actors, int threads, ccsim_error *err);
void sim_exec_free(sim_exec *x);

/* Start an iteration afresh: no actors, an empty trace. */
void sim_exec_reset(sim_exec *x);
/* Add an actor running fn(arg) on rank host's host; actors are numbered
 * from 0 in spawn order.  0, or -1 when its stack finds no memory. */
int sim_exec_spawn(sim_exec *x, int host, void (*fn)(void *), void *arg);
/* Run every actor to its end.  CCSIM_ERR_RUNTIME with a message if they
 * deadlock (actors left waiting) or leave a semaphore above 0. */
int sim_exec_run(sim_exec *x, ccsim_error *err);
/* The trace of the last run (the executor's; valid until the next reset). */
sim_trace *sim_exec_trace(sim_exec *x);

#endif
