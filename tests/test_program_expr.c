/* tests/test_program_expr.c — the expression language of collective
 * programs (docs/programs.md): each operator and function on exact cases,
 * precedence, the modulo's sign for ring arithmetic, and the errors. */
#include <string.h>

#include "check.h"
#include "collectives/program.h"

static pexprs x;
static double env[8];
static unsigned char set[8];

/* text evaluated with r = 3, N = 8 (slots 0, 1); 0 and *v, or -1 with err. */
static int ev(const char *text, double *v, char *err, size_t errlen) {
  int root = pexpr_parse(&x, text, err, errlen);
  if (root < 0) return -1;
  return pexpr_eval(&x, root, env, set, v, err, errlen);
}

static void is(const char *text, double want) {
  char err[256] = "";
  double v = -12345;
  int rc = ev(text, &v, err, sizeof err);
  CHECK(rc == 0 && v == want, "%s: got %g (rc %d, %s), want %g", text, v, rc, err, want);
}

static void fails(const char *text, const char *msg) {
  char err[256] = "";
  double v;
  int rc = ev(text, &v, err, sizeof err);
  CHECK(rc < 0 && strstr(err, msg), "%s: rc %d, message \"%s\", want one with \"%s\"", text, rc, err, msg);
}

int main(void) {
  CHECK(pexpr_var(&x, "r") == 0 && pexpr_var(&x, "N") == 1, "fixed slots");
  env[0] = 3, env[1] = 8, set[0] = set[1] = 1;
  is("r + 1", 4);
  is("(r - 4) % N", 7); /* the ring's previous rank: never negative */
  is("-1 % 5", 4);
  is("7 // 2", 3);
  is("-7 // 2", -4);
  is("7 % -2", -1);
  is("7 / 2", 3.5);
  is("2 + 3 * 4", 14);
  is("(2 + 3) * 4", 20);
  is("2 * (N - 1) * 4 * 10", 560);
  is("-r * 2", -6);
  is("N > 4 && r < 2 || r == 3", 1);
  is("!(r == 3)", 0);
  is("r != 3 ? 10 : 20", 20);
  is("r == 3 ? r == 2 ? 1 : 2 : 3", 2);
  is("N == 0 || 8 / N == 1", 1);  /* short-circuit: no division by zero */
  is("r >= 3", 1);
  is("r <= 2", 0);
  is("min(r, 2) + max(r, 2)", 5);
  is("abs(-4)", 4);
  is("xor(5, 3)", 6);
  is("and(6, 3)", 2);
  is("or(4, 1)", 5);
  is("pow2(10)", 1024);
  is("log2ceil(5)", 3);
  is("log2ceil(8)", 3);
  is("log2ceil(1)", 0);
  is("log2floor(5)", 2);
  is("pow2floor(12)", 8);
  is("lowbit(12)", 4);
  is("sqrtdiv(12)", 3);
  is("sqrtdiv(16)", 4);
  is("sqrtdiv(7)", 1);
  is("1e3", 1000);
  fails("r % 0", "modulo by zero");
  fails("r // 0", "division by zero");
  fails("r / 0", "division by zero");
  fails("r % 1.5", "needs integers");
  fails("xor(-1, 2)", "integers from 0 to 2^53");
  fails("and(1, -9)", "integers from 0 to 2^53"); /* the fuzzer's input: -9 was cast to uint64_t */
  fails("log2ceil(1e300)", "integers from 0 to 2^53");
  is("min(-9, 2)", -9); /* min, max, abs take any number */
  fails("log2floor(0)", "undefined");
  fails("undefined_var + 1", "used before it is set");
  fails("(r + 1", "expected \")\"");
  fails("r +", "unexpected end");
  fails("r 2", "unexpected text");
  fails("foo(1)", "unknown function");
  fails("min(1)", "two arguments");
  fails("1 < 2 < 3", "unexpected text"); /* comparisons do not chain */
  pexprs_free(&x);
  return check_status("program_expr");
}
