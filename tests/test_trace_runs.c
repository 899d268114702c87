/* tests/test_trace_runs.c — runs of equal steps in a trace (comm_step,
 * itrace.h's SIM_REPEAT, src/sim/exec_comm.c): four actors in a ring, each
 * doing STEPS steps of a send, a receive, the device's work and a wait, log
 * what they did; their traces, read back with sim_trace_next, must give
 * exactly those operations (kinds, peers, handles, values bit for bit),
 * whatever departs from the steps' pattern and wherever: a step with
 * another size, another duration or one more operation, a step cut short,
 * an empty step, a posted receive, an actor that ends inside a step.  A
 * run of equal steps must keep few words; and recorded against the run
 * before as its reference (sim_exec_trace_ref), the same steps keep none of
 * their own and hash alike, and a departure records exactly the words it
 * records without one. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm/comm.h"
#include "comm/itrace.h"
#include "sim/exec.h"
#include "trace_copy.h"

enum { ACTORS = 4, STEPS = 600, LOGMAX = 8 * STEPS + 64 };

/* A departure: at step `at` of actor `who`, as `how` says. */
enum {
  PLAIN,
  SIZE,      /* that step's message is one byte larger */
  DURATION,  /* that step's work lasts a little longer (a value beside the words) */
  EXTRA,     /* that step marks the time as well */
  SHORT,     /* that step does no work */
  EMPTY,     /* an empty step before it (comm_step twice) */
  POSTED,    /* that step receives by irecv and wait_recv */
  ENDS,      /* every actor ends in that step, after its receive (its send never waited for) */
  SIZE_FROM, /* from that step on, messages are one byte larger (a second run) */
  IRREGULAR, /* from that step on, each message is one of two sizes, irregularly (no runs) */
  NHOW
};
static const char *how_name[NHOW] = {"plain",   "size",  "duration", "extra", "short",
                                     "empty",   "posted", "ends",    "size from", "irregular"};
typedef struct variant {
  int who, at, how;
} variant;
static variant V;

typedef struct logged {
  sim_op op[LOGMAX];
  size_t n;
} logged;
static logged LOG[ACTORS];
static int ranks[ACTORS];

static void note(int me, unsigned kind, uint32_t peer, uint32_t aux, double v) {
  logged *l = &LOG[me];
  if (l->n < LOGMAX) l->op[l->n++] = (sim_op){.kind = kind, .peer = peer, .aux = aux, .v = v};
}

/* Every actor does the same steps, so the ring's messages match; only the
 * departing one changes what it records, never the messages' count (ENDS
 * ends them all in one step, each after its receive). */
static void actor(void *arg) {
  const int me = *(int *)arg, next = (me + 1) % ACTORS, prev = (me + ACTORS - 1) % ACTORS;
  uint32_t sends = 0, irecvs = 0;
  for (int s = 0; s < STEPS; s++) {
    const int who = me == V.who || V.how == ENDS, here = who && s == V.at, from = who && s >= V.at;
    if (here && V.how == EMPTY) comm_step();
    comm_step();
    double bytes = 4096;
    if ((here && V.how == SIZE) || (from && V.how == SIZE_FROM)) bytes += 1;
    if (from && V.how == IRREGULAR) bytes += 1 + (double)((uint32_t)(s * 2654435761u) >> 31);
    int *msg = malloc(sizeof *msg);
    *msg = s;
    comm_req *r = comm_isend(me, next, msg, bytes);
    const uint32_t h = sends++;
    note(me, SIM_SEND, (uint32_t)next, h, bytes);
    int *in;
    if (here && V.how == POSTED) {
      comm_rreq *q = comm_irecv(prev, me);
      note(me, SIM_IRECV, (uint32_t)prev, irecvs, 0);
      in = comm_wait_recv(q);
      note(me, SIM_WAITRECV, 0, irecvs++, 0);
    } else {
      in = comm_recv(prev, me);
      note(me, SIM_RECV, (uint32_t)prev, 0, 0);
    }
    free(in);
    if (here && V.how == ENDS) return;
    if (!(here && V.how == SHORT)) {
      /* two durations beside the words, as a ring's encode and combine */
      double d1 = 1e-6 * (1 + me) / 3, d2 = 2.5e-7;
      if (here && V.how == DURATION) d1 = nextafter(d1, 1);
      comm_execute(d1);
      note(me, SIM_EXEC, 0, 0, d1);
      comm_execute(d2);
      note(me, SIM_EXEC, 0, 0, d2);
    }
    if (here && V.how == EXTRA) note(me, SIM_MARK, 0, comm_mark(), 0);
    comm_wait(r);
    note(me, SIM_WAIT, 0, h, 0);
  }
}

/* Whether actor a's trace reads back as LOG[a]; the first difference on stderr. */
static int reads_back(const sim_actor_trace *t, int a) {
  sim_cursor c = {0};
  sim_op o;
  size_t k = 0;
  while (sim_trace_next(t, &c, &o)) {
    if (k >= LOG[a].n) {
      fprintf(stderr, "actor %d: more operations read than done (%zu)\n", a, LOG[a].n);
      return 0;
    }
    const sim_op *w = &LOG[a].op[k];
    if (o.kind != w->kind || o.peer != w->peer || o.aux != w->aux || memcmp(&o.v, &w->v, sizeof o.v)) {
      fprintf(stderr, "actor %d, operation %zu: read kind %u peer %u aux %u v %.17g, done kind %u peer %u aux %u v %.17g\n",
              a, k, o.kind, o.peer, o.aux, o.v, w->kind, w->peer, w->aux, w->v);
      return 0;
    }
    k++;
  }
  if (k != LOG[a].n) fprintf(stderr, "actor %d: %zu operations read, %zu done\n", a, k, LOG[a].n);
  return k == LOG[a].n;
}

/* What a run's actors kept: the most words, and whether every trace reads back. */
static size_t MOST;
static int OK;
static void inspect(const sim_actor_trace *a, int i) {
  if (a->n > MOST) MOST = a->n;
  OK &= reads_back(a, i);
}

/* One run against ref when given (trace_copy.h): also the most words an
 * actor kept, and whether every trace reads back as done.  0, or -1. */
static int run(const trace_copy *ref, uint64_t h[2], trace_copy *out, int *held, size_t *most, int *ok) {
  memset(LOG, 0, sizeof LOG);
  MOST = 0, OK = 1;
  if (trace_run(ACTORS, actor, ranks, ref, h, out, held, inspect)) return -1;
  *most = MOST, *ok = OK;
  return 0;
}

static void drop(trace_copy *c) { trace_copies_drop(c, ACTORS); }
static int same(const trace_copy *a, const trace_copy *b) { return trace_copies_same(a, b, ACTORS); }

int main(void) {
  trace_copy plain[ACTORS], again[ACTORS];
  uint64_t h0[2], h[2];
  int held, ok;
  size_t most;
  V = (variant){.who = -1};
  if (run(NULL, h0, plain, &held, &most, &ok)) {
    CHECK(0, "the plain run failed");
    return check_status("trace_runs");
  }
  CHECK(ok, "plain: a trace does not read back as what its actor did");
  /* 600 steps of 8 words (a send and its size, a receive, two works with
   * their values, a wait): one step, then REPEAT and its count */
  CHECK(most <= 10, "plain: an actor kept %zu words for %d equal steps (4,800 without runs)", most, STEPS);

  CHECK(run(plain, h, again, &held, &most, &ok) == 0, "the repeat");
  CHECK(ok, "repeat: a trace does not read back");
  CHECK(h[0] == h0[0] && h[1] == h0[1], "repeat: another hash");
  CHECK(held == ACTORS, "repeat: %d of %d actors still on their reference", held, ACTORS);
  CHECK(same(again, plain), "repeat: the words made its own differ");
  drop(again);

  const int ats[] = {0, 1, 2, 300, STEPS - 2, STEPS - 1};
  for (int how = SIZE; how < NHOW; how++)
    for (size_t a = 0; a < sizeof ats / sizeof *ats; a++) {
      V = (variant){.who = 2, .at = ats[a], .how = how};
      trace_copy want[ACTORS], got[ACTORS];
      uint64_t hw[2], hg[2];
      int hw_held, hg_held, ok_w, ok_g;
      size_t m_w, m_g;
      if (run(NULL, hw, want, &hw_held, &m_w, &ok_w) || run(plain, hg, got, &hg_held, &m_g, &ok_g)) {
        CHECK(0, "%s at step %d: a run failed", how_name[how], ats[a]);
        continue;
      }
      CHECK(ok_w && ok_g, "%s at step %d: a trace does not read back as what its actor did", how_name[how], ats[a]);
      CHECK(hw[0] == hg[0] && hw[1] == hg[1], "%s at step %d: another hash under the reference", how_name[how],
            ats[a]);
      CHECK(same(want, got), "%s at step %d: other words under the reference", how_name[how], ats[a]);
      /* other operations, another hash (an empty step changes the words, not the operations) */
      CHECK(how == EMPTY || hw[0] != h0[0] || hw[1] != h0[1], "%s at step %d: the plain trace's hash", how_name[how],
            ats[a]);
      /* one departing step costs a step's words and a REPEAT or two; a second run (size from) one more */
      CHECK(how == IRREGULAR || m_w <= 64, "%s at step %d: %zu words kept", how_name[how], ats[a], m_w);
      drop(want);
      drop(got);
    }
  drop(plain);
  return check_status("trace_runs");
}
