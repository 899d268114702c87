/* tests/test_pace.c — the lanes' deal following their pace (src/sim/exec.c):
 * exec_pace_cuts moves the ranks of a round towards the lanes that ran
 * faster, always summing to the round with at least one rank a lane, and
 * leaves the cuts alone where the lanes kept the same pace or one cannot
 * be timed; and a run dealt unevenly (the cuts a pace would give) puts
 * each rank where its cut says and computes what an even deal computes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "comm/comm.h"
#include "sim/exec.h"
#include "sim/exec_internal.h"

static uint32_t sum_of(const uint32_t *c, int L) {
  uint32_t s = 0;
  for (int l = 0; l < L; l++) s += c[l];
  return s;
}

/* Lanes of speeds v[l] (ranks a second), the cuts paced run after run
 * from even: the busy time of a lane is its ranks over its speed. */
static void converge(const double *v, int L, size_t R, int runs, uint32_t *cut) {
  for (int l = 0; l < L; l++) cut[l] = (uint32_t)(R / (size_t)L);
  for (int run = 0; run < runs; run++) {
    double busy[8], n[8];
    for (int l = 0; l < L; l++) n[l] = cut[l], busy[l] = cut[l] / v[l];
    exec_pace_cuts(cut, busy, n, L, R);
    CHECK(sum_of(cut, L) == R, "run %d: cuts sum to %u, not %zu", run, sum_of(cut, L), R);
    for (int l = 0; l < L; l++) CHECK(cut[l] >= 1, "run %d: lane %d has no rank", run, l);
  }
}

/* A ring of RANKS ranks, one actor each: every rank sends its value to
 * the next, adds what it gets from the previous, ROUNDS times. */
enum { RANKS = 64, ROUNDS = 40 };
static uint64_t val[RANKS];
static void ring_actor(void *arg) {
  const int r = (int)(intptr_t)arg;
  uint64_t mine = val[r];
  for (int k = 0; k < ROUNDS; k++) {
    uint64_t *m = malloc(sizeof *m);
    *m = mine;
    comm_req *q = comm_isend(r, (r + 1) % RANKS, m, 8);
    uint64_t *got = comm_recv((r + RANKS - 1) % RANKS, r);
    mine = mine * 6364136223846793005ull + *got + (uint64_t)k;
    free(got);
    comm_wait(q);
  }
  val[r] = mine;
}

/* The ring's values after a run of x, dealt by cut when not NULL (x has
 * run once with the same ranks, so the deal's shape is set). */
static void ring(sim_exec *x, const uint32_t *cut, uint64_t *out) {
  for (int r = 0; r < RANKS; r++) val[r] = 0x9e3779b97f4a7c15ull * (uint64_t)(r + 1);
  sim_exec_reset(x);
  for (int r = 0; r < RANKS; r++) CHECK(sim_exec_spawn(x, r, ring_actor, (void *)(intptr_t)r) == 0, "spawn %d", r);
  if (cut) memcpy(x->cut, cut, (size_t)x->dealt * sizeof *cut);
  ccsim_error err = {0};
  CHECK(sim_exec_run(x, &err) == 0, "run: %s", err.msg);
  memcpy(out, val, sizeof val);
}

int main(void) {
  uint32_t cut[8];
  /* the same pace: the cuts stay */
  {
    uint32_t c[2] = {32, 32};
    const double busy[2] = {1.5, 1.5}, n[2] = {32, 32};
    exec_pace_cuts(c, busy, n, 2, 64);
    CHECK(c[0] == 32 && c[1] == 32, "equal pace moved the cuts to %u/%u", c[0], c[1]);
  }
  /* a lane twice as slow: halfway to 2:1 in one run (42.67 of 64), then
   * there within a rank */
  {
    uint32_t c[2] = {32, 32};
    const double busy[2] = {1.0, 2.0}, n[2] = {32, 32};
    exec_pace_cuts(c, busy, n, 2, 64);
    CHECK(c[0] == 37 && c[1] == 27, "one run: %u/%u, expected 37/27", c[0], c[1]);
    const double v[2] = {2.0, 1.0};
    converge(v, 2, 64, 12, cut);
    CHECK(cut[0] >= 42 && cut[0] <= 43, "twelve runs: %u/%u, expected 43/21 within a rank", cut[0], cut[1]);
  }
  /* three lanes 3:2:1, round 48: 24/16/8 */
  {
    const double v[3] = {3.0, 2.0, 1.0};
    converge(v, 3, 48, 16, cut);
    CHECK(abs((int)cut[0] - 24) <= 1 && abs((int)cut[1] - 16) <= 1 && abs((int)cut[2] - 8) <= 1,
          "3:2:1 over 48: %u/%u/%u", cut[0], cut[1], cut[2]);
  }
  /* a lane a million times slower keeps one rank; the round stays whole */
  {
    const double v[3] = {1e6, 1.0, 1e6};
    converge(v, 3, 3, 8, cut);
    CHECK(cut[0] == 1 && cut[1] == 1 && cut[2] == 1, "round of 3: %u/%u/%u", cut[0], cut[1], cut[2]);
    converge(v, 3, 30, 30, cut);
    CHECK(cut[1] == 1 && cut[0] + cut[2] == 29, "round of 30: %u/%u/%u", cut[0], cut[1], cut[2]);
  }
  /* nothing to time a lane by: unchanged */
  {
    uint32_t c[2] = {20, 44};
    const double busy[2] = {0.0, 2.0}, n[2] = {20, 44};
    exec_pace_cuts(c, busy, n, 2, 64);
    CHECK(c[0] == 20 && c[1] == 44, "a lane without busy time moved the cuts to %u/%u", c[0], c[1]);
    const double busy2[2] = {1.0, 2.0}, n2[2] = {0, 44};
    exec_pace_cuts(c, busy2, n2, 2, 64);
    CHECK(c[0] == 20 && c[1] == 44, "a lane without ranks moved the cuts to %u/%u", c[0], c[1]);
  }
  /* a real run dealt unevenly: each rank on the lane its cut gives it,
   * and the same values as on one lane and on two dealt evenly */
  {
    ccsim_error err = {0};
    uint64_t one[RANKS], even[RANKS], skew[RANKS], skew2[RANKS];
    sim_exec *x1 = sim_exec_new(RANKS, 1, &err);
    CHECK(x1 != NULL, "executor: %s", err.msg);
    ring(x1, NULL, one);
    sim_exec_free(x1);
    sim_exec *x = sim_exec_new(RANKS, 2, &err);
    CHECK(x != NULL, "executor: %s", err.msg);
    ring(x, NULL, even);
    CHECK(x->dealt == 2 && x->round == 4, "64 ranks on 2 lanes: rounds of %zu (2 lanes of 2), dealt %d",
          x->round, x->dealt);
    for (int r = 0; r < RANKS; r++) CHECK(x->rank_lane[r] == (r / 2) % 2, "even deal: rank %d on lane %d", r, x->rank_lane[r]);
    const uint32_t c31[2] = {3, 1}, c13[2] = {1, 3};
    ring(x, c31, skew);
    for (int r = 0; r < RANKS; r++)
      CHECK(x->rank_lane[r] == (r % 4 < 3 ? 0 : 1), "deal 3/1: rank %d on lane %d", r, x->rank_lane[r]);
    ring(x, c13, skew2);
    for (int r = 0; r < RANKS; r++)
      CHECK(x->rank_lane[r] == (r % 4 < 1 ? 0 : 1), "deal 1/3: rank %d on lane %d", r, x->rank_lane[r]);
    for (int r = 0; r < RANKS; r++) {
      CHECK(even[r] == one[r], "rank %d: two lanes %llx, one %llx", r, (unsigned long long)even[r],
            (unsigned long long)one[r]);
      CHECK(skew[r] == one[r] && skew2[r] == one[r], "rank %d: dealt unevenly, another value", r);
    }
    sim_exec_free(x);
  }
  return check_status("pace");
}
