/* src/collectives/program_expr.c — the expression language of collective
 * programs (docs/programs.md): numbers, variables, + - * / // %, the
 * comparisons, && || !, c ? a : b, and a few integer functions.  Values
 * are doubles (integers exactly up to 2^53); / divides as reals, // and %
 * are floor division and the modulo with the divisor's sign, so
 * (r - 1) % N is N - 1 for r = 0. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/program.h"

enum { F_MIN, F_MAX, F_ABS, F_XOR, F_AND, F_OR, F_POW2, F_LOG2CEIL, F_LOG2FLOOR, F_POW2FLOOR, F_LOWBIT, F_SQRTDIV };
static const struct {
  const char *name;
  int argc;
} funcs[] = {
    [F_MIN] = {"min", 2},           [F_MAX] = {"max", 2},         [F_ABS] = {"abs", 1},
    [F_XOR] = {"xor", 2},           [F_AND] = {"and", 2},         [F_OR] = {"or", 2},
    [F_POW2] = {"pow2", 1},         [F_LOG2CEIL] = {"log2ceil", 1}, [F_LOG2FLOOR] = {"log2floor", 1},
    [F_POW2FLOOR] = {"pow2floor", 1}, [F_LOWBIT] = {"lowbit", 1},  [F_SQRTDIV] = {"sqrtdiv", 1},
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

int pexpr_var(pexprs *x, const char *name) {
  for (size_t i = 0; i < x->nvars; i++)
    if (!strcmp(x->vars[i], name)) return (int)i;
  if (x->nvars == x->vcap) {
    size_t cap = x->vcap ? 2 * x->vcap : 16;
    char **v = realloc(x->vars, cap * sizeof *v);
    if (!v) return -1;
    x->vars = v, x->vcap = cap;
  }
  if (!(x->vars[x->nvars] = strdup(name))) return -1;
  return (int)x->nvars++;
}

static int node(pexprs *x, pnode n) {
  if (x->nnodes == x->cap) {
    size_t cap = x->cap ? 2 * x->cap : 64;
    pnode *v = realloc(x->nodes, cap * sizeof *v);
    if (!v) return -1;
    x->nodes = v, x->cap = cap;
  }
  x->nodes[x->nnodes] = n;
  return (int)x->nnodes++;
}

typedef struct parser {
  pexprs *x;
  const char *s, *p;
  char *err;
  size_t errlen;
  int depth;
} parser;

static void skip(parser *ps) {
  while (isspace((unsigned char)*ps->p)) ps->p++;
}

static int fail(parser *ps, const char *what) {
  if (!ps->err[0])
    snprintf(ps->err, ps->errlen, "in expression \"%s\" at column %d: %s", ps->s,
             (int)(ps->p - ps->s) + 1, what);
  return -1;
}

static int accept(parser *ps, const char *tok) {
  skip(ps);
  size_t l = strlen(tok);
  if (strncmp(ps->p, tok, l)) return 0;
  if (!strcmp(tok, "!") && ps->p[1] == '=') return 0; /* "!=" is no negation */
  ps->p += l;
  return 1;
}

static int expr(parser *ps);

static int primary(parser *ps) {
  skip(ps);
  const char *p = ps->p;
  if (isdigit((unsigned char)*p)) {
    char *end;
    double v = strtod(p, &end);
    ps->p = end;
    return node(ps->x, (pnode){.kind = PN_NUM, .v = v});
  }
  if (isalpha((unsigned char)*p) || *p == '_') {
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_') q++;
    char name[64];
    if ((size_t)(q - p) >= sizeof name) return fail(ps, "a name longer than 63 characters");
    memcpy(name, p, (size_t)(q - p));
    name[q - p] = 0;
    ps->p = q;
    if (accept(ps, "(")) {
      size_t f = 0;
      while (f < NFUNCS && strcmp(funcs[f].name, name)) f++;
      if (f == NFUNCS) {
        ps->p = p;
        return fail(ps, "unknown function (known: min, max, abs, xor, and, or, pow2, log2ceil, "
                        "log2floor, pow2floor, lowbit, sqrtdiv)");
      }
      int a = -1, b = -1;
      if ((a = expr(ps)) < 0) return -1;
      if (funcs[f].argc == 2) {
        if (!accept(ps, ",")) return fail(ps, "expected \",\" (this function takes two arguments)");
        if ((b = expr(ps)) < 0) return -1;
      }
      if (!accept(ps, ")")) return fail(ps, "expected \")\"");
      return node(ps->x, (pnode){.kind = PN_CALL, .op = (int)f, .a = a, .b = b});
    }
    int v = pexpr_var(ps->x, name);
    if (v < 0) return fail(ps, "out of memory");
    return node(ps->x, (pnode){.kind = PN_VAR, .var = v});
  }
  if (accept(ps, "(")) {
    int e = expr(ps);
    if (e < 0) return -1;
    if (!accept(ps, ")")) return fail(ps, "expected \")\"");
    return e;
  }
  return fail(ps, *p ? "expected a number, a name or \"(\"" : "unexpected end");
}

static int unary(parser *ps) {
  if (++ps->depth > 200) return fail(ps, "nested too deeply");
  int r;
  if (accept(ps, "-")) {
    int a = unary(ps);
    r = a < 0 ? -1 : node(ps->x, (pnode){.kind = PN_NEG, .a = a});
  } else if (accept(ps, "!")) {
    int a = unary(ps);
    r = a < 0 ? -1 : node(ps->x, (pnode){.kind = PN_NOT, .a = a});
  } else {
    r = primary(ps);
  }
  ps->depth--;
  return r;
}

/* Binary levels, loosest first; each token with its operator code. */
static const struct {
  const char *tok[6];
  char op[6];
} levels[] = {
    {{"||"}, "|"},
    {{"&&"}, "&"},
    {{"==", "!=", "<=", ">=", "<", ">"}, "=!lg<>"},
    {{"+", "-"}, "+-"},
    {{"//", "*", "/", "%"}, "f*/%"},
};
#define NLEVELS (sizeof levels / sizeof levels[0])

static int binary(parser *ps, size_t level) {
  if (level == NLEVELS) return unary(ps);
  int a = binary(ps, level + 1);
  if (a < 0) return -1;
  for (;;) {
    int op = 0;
    for (int k = 0; k < 6 && levels[level].tok[k]; k++)
      if (accept(ps, levels[level].tok[k])) {
        op = levels[level].op[k];
        break;
      }
    if (!op) return a;
    int b = binary(ps, level + 1);
    if (b < 0) return -1;
    if ((a = node(ps->x, (pnode){.kind = PN_BIN, .op = op, .a = a, .b = b})) < 0) return fail(ps, "out of memory");
    if (level == 2) return a; /* comparisons do not chain */
  }
}

static int expr(parser *ps) {
  if (++ps->depth > 200) return fail(ps, "nested too deeply");
  int c = binary(ps, 0);
  if (c >= 0 && accept(ps, "?")) {
    int a = expr(ps);
    if (a < 0) return -1;
    if (!accept(ps, ":")) return fail(ps, "expected \":\"");
    int b = expr(ps);
    if (b < 0) return -1;
    c = node(ps->x, (pnode){.kind = PN_COND, .a = c, .b = a, .c = b});
  }
  ps->depth--;
  return c;
}

int pexpr_parse(pexprs *x, const char *text, char *err, size_t errlen) {
  parser ps = {x, text, text, err, errlen, 0};
  err[0] = 0;
  int e = expr(&ps);
  if (e < 0) return -1;
  skip(&ps);
  if (*ps.p) return fail(&ps, "unexpected text after the expression");
  return e;
}

/* An integral value that fits an int64 exactly (|v| <= 2^53). */
static int integral(double v) { return v == floor(v) && fabs(v) <= 9007199254740992.0; }

static int eval(const pexprs *x, int i, const double *env, const unsigned char *set, double *out,
                char *err, size_t errlen) {
  const pnode *n = &x->nodes[i];
  double a = 0, b = 0;
  switch (n->kind) {
  case PN_NUM: *out = n->v; return 0;
  case PN_VAR:
    if (!set[n->var]) {
      snprintf(err, errlen, "variable \"%s\" is used before it is set", x->vars[n->var]);
      return -1;
    }
    *out = env[n->var];
    return 0;
  case PN_NEG:
  case PN_NOT:
    if (eval(x, n->a, env, set, &a, err, errlen)) return -1;
    *out = n->kind == PN_NEG ? -a : (a == 0);
    return 0;
  case PN_COND:
    if (eval(x, n->a, env, set, &a, err, errlen)) return -1;
    return eval(x, a != 0 ? n->b : n->c, env, set, out, err, errlen);
  default: break;
  }
  if (eval(x, n->a, env, set, &a, err, errlen)) return -1;
  if (n->kind == PN_BIN && (n->op == '&' || n->op == '|')) { /* short-circuit */
    if ((n->op == '&') == (a == 0)) return *out = (a != 0), 0;
    if (eval(x, n->b, env, set, &b, err, errlen)) return -1;
    return *out = (b != 0), 0;
  }
  if (n->b >= 0 && (n->kind == PN_BIN || funcs[n->op].argc == 2) && eval(x, n->b, env, set, &b, err, errlen)) return -1;
  if (n->kind == PN_BIN) {
    switch (n->op) {
    case '+': *out = a + b; break;
    case '-': *out = a - b; break;
    case '*': *out = a * b; break;
    case '/':
      if (b == 0) return snprintf(err, errlen, "division by zero"), -1;
      *out = a / b;
      break;
    case 'f':
    case '%':
      if (b == 0) return snprintf(err, errlen, "%s by zero", n->op == '%' ? "modulo" : "division"), -1;
      if (!integral(a) || !integral(b)) {
        snprintf(err, errlen, "%s needs integers, got %g and %g", n->op == '%' ? "%" : "//", a, b);
        return -1;
      }
      {
        int64_t ia = (int64_t)a, ib = (int64_t)b, q = ia / ib, m = ia % ib;
        if (m != 0 && ((m < 0) != (ib < 0))) q--, m += ib;
        *out = n->op == '%' ? (double)m : (double)q;
      }
      break;
    case '=': *out = a == b; break;
    case '!': *out = a != b; break;
    case '<': *out = a < b; break;
    case 'l': *out = a <= b; break;
    case '>': *out = a > b; break;
    case 'g': *out = a >= b; break;
    }
  } else { /* PN_CALL */
    const int f = n->op;
    /* the integer functions take exact integers of a double: [0, 2^53] */
    const double top = 9007199254740992.0;
    if (f >= F_XOR && !(integral(a) && a >= 0 && a <= top &&
                        (funcs[f].argc == 1 || (integral(b) && b >= 0 && b <= top)))) {
      snprintf(err, errlen, "%s() needs integers from 0 to 2^53", funcs[f].name);
      return -1;
    }
    /* converted only once checked (a negative or huge double has no uint64_t) */
    const uint64_t ua = f >= F_XOR ? (uint64_t)a : 0, ub = f >= F_XOR && funcs[f].argc > 1 ? (uint64_t)b : 0;
    switch (f) {
    case F_MIN: *out = a < b ? a : b; break;
    case F_MAX: *out = a > b ? a : b; break;
    case F_ABS: *out = fabs(a); break;
    case F_XOR: *out = (double)(ua ^ ub); break;
    case F_AND: *out = (double)(ua & ub); break;
    case F_OR: *out = (double)(ua | ub); break;
    case F_POW2:
      if (a > 52) return snprintf(err, errlen, "pow2(%g) is too large", a), -1;
      *out = (double)((uint64_t)1 << ua);
      break;
    case F_LOG2CEIL: {
      int l = 0;
      while (((uint64_t)1 << l) < ua) l++;
      *out = l;
      break;
    }
    case F_LOG2FLOOR:
    case F_POW2FLOOR: {
      if (ua == 0) return snprintf(err, errlen, "%s(0) is undefined", funcs[f].name), -1;
      int l = 0;
      while (((uint64_t)2 << l) <= ua) l++;
      *out = f == F_LOG2FLOOR ? (double)l : (double)((uint64_t)1 << l);
      break;
    }
    case F_LOWBIT: *out = (double)(ua & (~ua + 1)); break;
    case F_SQRTDIV: { /* the largest divisor of a not above sqrt(a) */
      uint64_t d = 1;
      for (uint64_t k = 1; k * k <= ua; k++)
        if (ua % k == 0) d = k;
      *out = (double)d;
      break;
    }
    }
  }
  if (!isfinite(*out)) return snprintf(err, errlen, "the result is not finite"), -1;
  return 0;
}

int pexpr_eval(const pexprs *x, int root, const double *env, const unsigned char *set, double *out,
               char *err, size_t errlen) {
  return eval(x, root, env, set, out, err, errlen);
}

void pexprs_free(pexprs *x) {
  for (size_t i = 0; i < x->nvars; i++) free(x->vars[i]);
  free(x->vars);
  free(x->nodes);
  *x = (pexprs){0};
}
