/* src/engine/engine.h — the one boundary to SimGrid.
 *
 * Nothing outside src/engine/ includes a SimGrid header.  The engine loads or
 * generates a platform and replays the timing of iterations whose data the
 * data executor (src/sim) has computed.  Setup functions return
 * CCSIM_ERR_INPUT with a message for bad input, before anything runs. */
#ifndef CCSIM_ENGINE_H
#define CCSIM_ENGINE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* Start SimGrid.  model and crosstraffic come from the experiment; cfg[ncfg]
 * are the user's "--cfg=..." / "--log=..." flags, applied after them so the
 * command line wins.  quiet lowers SimGrid's own logging to warnings. */
int engine_init(const char *network_model, int crosstraffic, char *const *cfg, int ncfg,
                int quiet, ccsim_error *err);

/* Set before engine_init: the links' latencies count for nothing (SimGrid's
 * network/latency-factor 0), as comm.model "nccl" needs (its per-step
 * latencies replace them: docs/comm-model.md).  The zygote inherits it. */
extern int engine_latency_free;

/* Set before engine_init: SimGrid's actors get no guard page below their
 * stacks (contexts/guard-size:0, unless --cfg says otherwise), for runs
 * whose actors would otherwise need more memory maps than
 * vm.max_map_count allows (src/sim/resources.h).  The probe's child and
 * the zygote inherit it. */
extern int engine_unguarded;
/* In a process that will create SimGrid's actors (the probe's child, the
 * zygote), before it does: unguarded stacks come from fresh maps. */
void engine_actors_here(void);

/* Containment of SimGrid's setup in ccsim's own process (contain.c): with
 * engine_contain_on set (ccsim's main sets it; the probe's child and the
 * timing executor's zygote do not), engine_init and engine_load_platform
 * turn SimGrid's abort, crash or exit into one line and exit status 1.
 * engine_contain(what) starts it ("loading the platform"; 1 when it did),
 * engine_release(that 1) ends it; engine_contained_fatal(what) ends the run
 * with the line when inside (an out-of-memory handler's call). */
extern int engine_contain_on;
int engine_contain(const char *what);
void engine_release(int contained);
void engine_contained_fatal(const char *what);

/* Load a SimGrid XML platform file. */
int engine_load_platform(const char *file, ccsim_error *err);

/* The platform's hosts in natural order ("h2" before "h10"): worker i runs
 * on host i of this list.  The array is the engine's; do not free. */
const char *const *engine_hosts(size_t *count);

#include "comm/itrace.h"
#include "comm/nccl.h"

/* comm.model (docs/comm-model.md): p as the experiment gives it, completed
 * from the loaded platform (each class's nominal bandwidth: the route
 * between two workers of one node, and between the first workers of two
 * nodes; a measured rate of comm.links, given as -bytes/s in p->eff, made
 * a share of it) and kept for every later replay and for
 * engine_comm_plan.  CCSIM_ERR_INPUT when a class the run uses has no
 * route bandwidth. */
int engine_comm_resolve(const nccl_plan *p, ccsim_error *err);
/* The plan engine_comm_resolve made (the ideal model before it). */
const nccl_plan *engine_comm_plan(void);

/* The timing executor (timing_zygote.c, timing.c): replay trace t from simulated time 0
 * on an idle network and store, actor after actor, the simulated time of
 * each actor's marks in marks[] (t->actors[i].nmarks of them for actor i),
 * in a process forked from the zygote (engine_timing_start first: without
 * it, an error).  Each actor's operations are moved out of t (ops freed,
 * NULL, cap 0: the trace is recorded anew next iteration), so a run holds
 * one copy of a trace, not two.  CCSIM_ERR_RUNTIME with a message if the
 * replay fails. */
int engine_replay(sim_trace *t, double *marks, ccsim_error *err);
/* engine_replay in two halves, so that the caller works meanwhile: start
 * replaying t (moved out of t, as above; one replay at a time), then wait
 * for it and store its marks. */
int engine_replay_start(sim_trace *t, ccsim_error *err);
int engine_replay_finish(double *marks, ccsim_error *err);
/* While a replay is in flight (started, not yet finished): actor i's words
 * as the timing executor was given them, valid until engine_replay_finish.
 * 1, or 0 when no replay is in flight or it has no actor i. */
int engine_replay_words(size_t i, const sim_word **ops, size_t *n);

/* What engine_init and engine_load_platform were last given. */
typedef struct engine_setup {
  char network_model[128];
  int crosstraffic, quiet;
  char *const *cfg; /* the caller's, as given to engine_init */
  int ncfg;
  char platform[4096];
} engine_setup;
const engine_setup *engine_current_setup(void);

/* Start the timing executor's zygote (call it once the platform is
 * loaded): a process that forks every later replay; a fork of this one
 * (SimGrid set up with the platform loaded), or under
 * CCSIM_TIMING_ZYGOTE=exec this binary executed again, which starts SimGrid
 * with the same flags and platform.
 * Without it engine_replay fails.  engine_timing_stop ends it (also at
 * the next start). */
int engine_timing_start(ccsim_error *err);
void engine_timing_stop(void);

/* The zygote's main (main() hands it argv when argv[1] is
 * ENGINE_ZYGOTE_FLAG): never returns. */
#define ENGINE_ZYGOTE_FLAG "--ccsim-timing-zygote"
int engine_zygote_main(int argc, char **argv);
/* Set by ccsim's main under CCSIM_TIMING_ZYGOTE=exec: the zygote is this
 * executable run again with ENGINE_ZYGOTE_FLAG.  Otherwise (the default, and
 * every other program linking libccsim) it is forked. */
extern int engine_zygote_exec;
/* CPU seconds (user + system) spent in replays since engine_timing_start,
 * and their count. */
double engine_timing_cpu(unsigned long long *count);

/* `ccsim run --timing simgrid`: every replay in SimGrid.  0 (the default,
 * --timing auto): a replay first tries the exact analytical path
 * (timing_fast.c), which times the iteration when it can prove that no two
 * flows share a link (executions sharing a host are priced), and hands it to SimGrid
 * otherwise (docs/engine.md).  Set before engine_timing_start. */
extern int engine_timing_simgrid;
/* Since engine_timing_start: the replays each path timed and their
 * messages, [0] SimGrid, [1] the analytical path (memo hits not counted). */
void engine_timing_paths(unsigned long long replays[2], unsigned long long msgs[2]);

/* The network model and its options actually in force (after --cfg). */
const char *engine_network_model(void);

/* What engine_probe checks: the platform file (or, when file is NULL, the
 * one print(f, ctx) writes), started as the run would start it. */
typedef struct engine_probe_args {
  const char *file;                        /* SimGrid XML, or NULL */
  void (*print)(FILE *f, const void *ctx); /* a generated platform */
  const void *ctx;
  const char *name;       /* the platform, for messages */
  const char *cfg_source; /* where the model and --cfg flags come from, for messages */
  const char *network_model;
  int crosstraffic;
  char *const *cfg;
  int ncfg;
  size_t workers;
} engine_probe_args;

/* Run SimGrid's own checks in a forked child (docs/platform-checks.md):
 * start it with the run's flags, load the platform, look up the routes
 * between workers, simulate one message around a ring of them.  0, or
 * CCSIM_ERR_INPUT naming the stage and SimGrid's reason when the child
 * failed; SimGrid's abort never reaches this process. */
int engine_probe(const engine_probe_args *a, ccsim_error *err);

#endif
