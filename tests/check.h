/* tests/check.h — the few assertions the C tests use.  A failed CHECK prints
 * where and why and counts a failure; main returns check_status(). */
#ifndef CCSIM_TEST_CHECK_H
#define CCSIM_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    check_count++;                                                         \
    if (!(cond)) {                                                         \
      check_failures++;                                                    \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                        \
      fputc('\n', stderr);                                                 \
    }                                                                      \
  } while (0)

#define CHECK_NEAR(a, b, tol, what)                                        \
  CHECK(fabs((double)(a) - (double)(b)) <= (tol), "%s: %.10g vs %.10g (tol %.3g)", what, \
        (double)(a), (double)(b), (double)(tol))

static inline int check_status(const char *name) {
  fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count, check_failures);
  return check_failures ? 1 : 0;
}

#endif
