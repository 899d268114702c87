/* tests/test_trace_ref.c — recording a trace against a reference
 * (sim_exec_trace_ref, src/sim/exec_comm.c): an iteration that repeats the
 * trace being replayed keeps no words of its own, and one that departs from
 * it, anywhere, records exactly the trace it would have recorded without a
 * reference (the same words, values and hash), whether it departs in an
 * operation, in a value kept in a word, in a value kept beside the words
 * (the same word: its index; other bits), or by ending sooner or later. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm/comm.h"
#include "sim/exec.h"
#include "trace_copy.h"

enum { ACTORS = 4, OPS = 3000 }; /* 3000 operations: 24 KiB of words, past a heap block into a mapping */

/* How an actor departs from the plain trace: at operation `at` of actor
 * `who`, as `how` says. */
typedef struct variant {
  int who, at, how; /* how: 0 none, 1 another operation, 2 another whole value, 3 another fraction, 4 ends, 5 goes on */
} variant;
static variant V;
static int ranks[ACTORS];

static void actor(void *arg) {
  const int me = *(int *)arg;
  const int n = OPS + (V.how == 5 && me == V.who ? 10 : 0);
  for (int k = 0; k < n; k++) {
    const int here = me == V.who && k == V.at;
    if (here && V.how == 4) return;
    if (k % 3 == 0) {
      comm_mark();
    } else if (k % 3 == 1) { /* a whole value: kept in the word */
      comm_sleep(here && V.how == 2 ? 1000 + k : 100 + k + me);
    } else { /* a fraction: kept beside the words */
      double d = 0.25 + k * 1e-6 + me;
      if (here && V.how == 3) d = nextafter(d, 1);
      if (here && V.how == 1) comm_mark();
      else comm_sleep(d);
    }
  }
}

/* One run against ref when given (trace_copy.h). */
static int run(const trace_copy *ref, uint64_t h[2], trace_copy *out, int *held) {
  return trace_run(ACTORS, actor, ranks, ref, h, out, held, NULL);
}

static void drop(trace_copy *c) { trace_copies_drop(c, ACTORS); }
static int same(const trace_copy *a, const trace_copy *b) { return trace_copies_same(a, b, ACTORS); }

int main(void) {
  trace_copy plain[ACTORS], again[ACTORS];
  uint64_t h0[2], h[2];
  int held;
  V = (variant){0};
  if (run(NULL, h0, plain, &held)) {
    CHECK(0, "the plain run failed");
    return check_status("trace_ref");
  }

  /* the same trace again: the hash, the words, and none stored until made
   * its own (every actor still on its reference when it ended) */
  CHECK(run(plain, h, again, &held) == 0, "the repeat");
  CHECK(h[0] == h0[0] && h[1] == h0[1], "repeat: another hash");
  CHECK(held == ACTORS, "repeat: %d of %d actors still on their reference", held, ACTORS);
  CHECK(same(again, plain), "repeat: the words made its own differ");
  drop(again);

  /* each departure, at the start, inside, and at the last operation */
  static const char *hows[] = {"", "another operation", "another whole value", "another fraction", "ends sooner",
                               "goes on"};
  const int ats[] = {1, 2, 1502, 2999};
  for (int how = 1; how <= 5; how++)
    for (size_t a = 0; a < sizeof ats / sizeof *ats; a++) {
      const int at = how == 2 ? ats[a] - ats[a] % 3 + 1 : how == 1 || how == 3 ? ats[a] - ats[a] % 3 + 2 : ats[a];
      if (how == 5 && a) continue; /* going on is the same wherever */
      V = (variant){.who = 2, .at = at, .how = how};
      trace_copy want[ACTORS], got[ACTORS];
      uint64_t hw[2], hg[2];
      if (run(NULL, hw, want, &held)) {
        CHECK(0, "%s at %d: the run without a reference failed", hows[how], at);
        continue;
      }
      CHECK(hw[0] != h0[0] || hw[1] != h0[1], "%s at %d: the variant's hash is the plain one's", hows[how], at);
      if (run(plain, hg, got, &held)) {
        CHECK(0, "%s at %d: the run with a reference failed", hows[how], at);
        drop(want);
        continue;
      }
      CHECK(hg[0] == hw[0] && hg[1] == hw[1], "%s at %d: another hash with a reference", hows[how], at);
      CHECK(same(got, want), "%s at %d: other words or values with a reference", hows[how], at);
      /* the others repeat theirs; the one that departs in its words does
       * not end on its reference (another fraction is the same word, and
       * fewer words are a prefix of the reference's) */
      CHECK(held == (how == 3 || how == 4 ? ACTORS : ACTORS - 1), "%s at %d: %d actors still on their reference", hows[how], at,
            held);
      drop(want), drop(got);
    }
  drop(plain);
  return check_status("trace_ref");
}
