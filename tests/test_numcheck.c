/* tests/test_numcheck.c — numcheck_first_bad finds the first NaN or
 * infinity at any position (block edges included) and passes every finite
 * value, the extremes included. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collectives/numcheck.h"

int main(void) {
  const size_t n = 3 * 4096 + 17;
  float *x = malloc(n * sizeof *x);
  const float finite[] = {0.0f, -0.0f, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN, 1e-45f, -1e-45f, 1.0f};
  for (size_t i = 0; i < n; i++) x[i] = finite[i % (sizeof finite / sizeof *finite)];
  CHECK(numcheck_first_bad(x, n) == n, "a finite buffer passes");
  CHECK(numcheck_first_bad(x, 0) == 0, "an empty buffer passes");
  const size_t at[] = {0, 1, 4095, 4096, 4097, 8191, 8192, n - 1};
  const float bad[] = {NAN, -NAN, INFINITY, -INFINITY};
  for (size_t a = 0; a < sizeof at / sizeof *at; a++)
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
      const float keep = x[at[a]];
      x[at[a]] = bad[b];
      CHECK(numcheck_first_bad(x, n) == at[a], "bad value %zu at %zu", b, at[a]);
      if (at[a] + 1 < n) { /* a later one does not hide the first */
        x[n - 1] = NAN;
        CHECK(numcheck_first_bad(x, n) == at[a], "first of two at %zu", at[a]);
        x[n - 1] = finite[(n - 1) % (sizeof finite / sizeof *finite)];
      }
      x[at[a]] = keep;
    }
  numcheck nc = {0};
  x[5000] = INFINITY;
  CHECK(numcheck_floats(&nc, x + 4096, 4096, 7, 3, "the gradient", 100) == -1, "reported");
  CHECK(nc.failed && !strcmp(nc.msg, "iteration 7, worker 3: the gradient holds +Inf at element 1004"), "%s", nc.msg);
  x[5000] = NAN;
  numcheck_floats(&nc, x, n, 9, 1, "again", 0);
  CHECK(strstr(nc.msg, "iteration 7") != NULL, "an earlier iteration's failure is kept: %s", nc.msg);
  /* in one iteration, workers fail on several threads in any order: the
   * lowest worker's failure is the one kept */
  numcheck_floats(&nc, x, n, 7, 5, "later worker", 0);
  CHECK(strstr(nc.msg, "worker 3:") != NULL, "a higher worker does not replace a lower one: %s", nc.msg);
  numcheck_floats(&nc, x, n, 7, 1, "lower worker", 0);
  CHECK(!strcmp(nc.msg, "iteration 7, worker 1: lower worker holds NaN at element 5000"), "the lowest worker wins: %s", nc.msg);
  free(x);
  return check_status("numcheck");
}
