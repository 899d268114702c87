/* src/progress.h — a run's progress on stderr.
 *
 * On a terminal: one line redrawn in place for the whole run: a bar and the
 * overall percentage (each iteration two equal units, its data and its
 * timing; 100% when the last one settles), the run's ETA, and the iteration
 * with the messages simulated (or timed) of those expected; the replay child
 * draws from the same counts (a POSIX shared-memory object named in the
 * state), so the percentage never goes back.  Otherwise: a plain line at most
 * every 10 host seconds inside an iteration, and one per iteration.  Nothing
 * at all when quiet.  An iteration shows two phases: the data executor's
 * messages ("simulated"), then, when its timing is not in the memo, the
 * timing executor's replay of them in SimGrid ("timed"), which runs in a
 * forked child that reports on the same stderr from its copy of this
 * state.  Both tick once per message; ticks cost an increment, the clock is
 * read every 4096 of them.  Only stderr: no result file depends on it.
 *
 * Single-threaded: the data executor's thread and the timing executor's
 * actors call it, never its work threads. */
#ifndef CCSIM_PROGRESS_H
#define CCSIM_PROGRESS_H

#include <stdint.h>

/* Starts reporting a run of `iterations` iterations (quiet: report nothing). */
void progress_begin(int iterations, int quiet);

/* The messages iteration `it` is expected to send (0: not known; then the
 * previous iteration's count is used, and without one no ETA is given). */
void progress_expect(int it, uint64_t messages);

/* In the timing executor's child: the replay of `messages` messages of the
 * current iteration starts; the ticks that follow count them. */
void progress_timing(uint64_t messages);

/* The whole state, copied into a process forked before it was set (the
 * timing executor's replays fork from a process started early). */
#define PROGRESS_STATE_BYTES 128
void progress_state_save(unsigned char buf[PROGRESS_STATE_BYTES]);
void progress_state_load(const unsigned char buf[PROGRESS_STATE_BYTES]);

/* One message sent. */
void progress_tick(void);

/* Iteration `it` ended at simulated time sim_now. */
void progress_iteration_done(int it, double sim_now);

/* Ends the line on a terminal. */
void progress_end(void);

#endif
