/* src/collectives/program_load.c — a collective program file (JSON, see
 * docs/programs.md) read into a `program`, and registered as a
 * collective_type the rest of ccsim uses like a built-in one.
 *
 * A collective_type's callbacks take no closure, so each loaded program
 * gets one of PROG_SLOTS slots whose callbacks call the program of that
 * slot; a file loaded again (a sweep's points) gets its slot back. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collectives/program.h"
#include "error.h"

/* A JSON path into out[n] (a path too long for it is cut: it names a
 * step in messages only). */
static void pathf(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, n, fmt, ap);
  va_end(ap);
}
#define PATHF(out, ...) pathf(out, sizeof out, __VA_ARGS__)

typedef struct loader {
  program *p;
  char *err;
  size_t errlen;
  /* the variables of the loops around the step being read, and where each
   * loop is: a loop's variable is its counter, which nothing in its body
   * may set (a let or a for of that name would change how often it runs,
   * or keep it from ending) */
  int loops[PROG_DEPTH];
  const char *loop_path[PROG_DEPTH];
  int nloops;
} loader;

/* 0, or a failure at path when `var` is an enclosing loop's variable. */
static int lnot_loop_var(loader *ld, int var, const char *name, const char *path);

static int lfail(loader *ld, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int lfail(loader *ld, const char *path, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(ld->err, ld->errlen, "%s: %s%s%s", ld->p->file, path, path[0] ? ": " : "", what);
  return -1;
}

/* An expression: a JSON number or a string in the expression language. */
static int lexpr(loader *ld, const json_t *v, const char *path, int *out) {
  program *p = ld->p;
  if (json_is_number(v)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", json_number_value(v));
    v = NULL;
    char e[256];
    if ((*out = pexpr_parse(&p->x, buf, e, sizeof e)) < 0) return lfail(ld, path, "%s", e);
    return 0;
  }
  if (!json_is_string(v))
    return lfail(ld, path, "expected an expression (a number or a string such as \"(r + 1) %% N\"), got %s",
                 v ? "another JSON type" : "nothing");
  char e[512];
  if ((*out = pexpr_parse(&p->x, json_string_value(v), e, sizeof e)) < 0) return lfail(ld, path, "%s", e);
  return 0;
}

static int lname(loader *ld, const char *name, const char *path, int *slot) {
  if (!name[0] || !(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
    return lfail(ld, path, "expected a variable name (a letter, then letters, digits, _), got \"%s\"", name);
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      return lfail(ld, path, "expected a variable name (a letter, then letters, digits, _), got \"%s\"", name);
  int s = pexpr_var(&ld->p->x, name);
  if (s < 0) return lfail(ld, path, "out of memory");
  if (s < PV_PARAM0 + (int)ld->p->nparams)
    return lfail(ld, path, "\"%s\" is the rank, N, n or a parameter: it cannot be assigned", name);
  *slot = s;
  return 0;
}

static int lnot_loop_var(loader *ld, int var, const char *name, const char *path) {
  for (int i = 0; i < ld->nloops; i++)
    if (ld->loops[i] == var)
      return lfail(ld, path, "\"%s\" is the variable of the loop at %s, which only that loop sets (use another name)",
                   name, ld->loop_path[i]);
  return 0;
}

/* A chunk operand: one expression, or [FROM, TO) as a two-element array. */
static int lchunks(loader *ld, const json_t *v, const char *path, pstep *st) {
  st->c1 = -1;
  if (json_is_array(v)) {
    if (json_array_size(v) != 2)
      return lfail(ld, path, "expected one chunk (an expression) or a range [FROM, TO) of two expressions");
    char sub[1100];
    PATHF(sub, "%s[0]", path);
    if (lexpr(ld, json_array_get(v, 0), sub, &st->c0)) return -1;
    PATHF(sub, "%s[1]", path);
    return lexpr(ld, json_array_get(v, 1), sub, &st->c1);
  }
  return lexpr(ld, v, path, &st->c0);
}

static int lbool(loader *ld, const json_t *o, const char *path, const char *key, int *out) {
  const json_t *v = json_object_get(o, key);
  if (!v) return *out = 0, 0;
  if (!json_is_boolean(v)) return lfail(ld, path, "%s: expected true or false", key);
  *out = json_is_true(v);
  return 0;
}

static int lblock(loader *ld, const json_t *arr, const char *path, pblock *b, int depth);

/* Keys of a step: its kind's key, then the ones it allows. */
static const struct {
  const char *key;
  int kind;
  const char *allowed[5];
} kinds[] = {
    {"for", PS_FOR, {"from", "to", "by", "do"}},
    {"if", PS_IF, {"then", "else"}},
    {"let", PS_LET, {NULL}},
    {"encode", PS_ENCODE, {NULL}},
    {"send", PS_SEND, {"to", "keep", "wait"}},
    {"recv", PS_RECV, {"from"}},
    {"reduce", PS_REDUCE, {"hop", "order"}},
    {"recode", PS_RECODE, {"hop"}},
    {"store", PS_STORE, {NULL}},
    {"deliver", PS_DELIVER, {"final"}},
    {"wait", PS_WAIT, {NULL}},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

static int lstep(loader *ld, const json_t *o, const char *path, pstep *st, int depth) {
  *st = (pstep){.by = -1, .c1 = -1};
  if (!(st->path = strdup(path))) return lfail(ld, path, "out of memory");
  if (!json_is_object(o))
    return lfail(ld, path, "expected a step: an object with one of for, if, let, encode, send, recv, "
                           "reduce, recode, store, deliver, wait");
  size_t k = NKINDS;
  for (size_t i = 0; i < NKINDS; i++)
    if (json_object_get(o, kinds[i].key)) {
      int option = 0; /* "wait" is also a send's option */
      for (int a = 0; k != NKINDS && a < 5 && kinds[k].allowed[a]; a++) option |= !strcmp(kinds[k].allowed[a], kinds[i].key);
      if (option) continue;
      if (k != NKINDS) return lfail(ld, path, "a step has one kind, got both \"%s\" and \"%s\"", kinds[k].key, kinds[i].key);
      k = i;
    }
  if (k == NKINDS)
    return lfail(ld, path, "expected a step: an object with one of for, if, let, encode, send, recv, "
                           "reduce, recode, store, deliver, wait");
  st->kind = kinds[k].kind;
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)o, key, v) {
    int ok = !strcmp(key, kinds[k].key);
    for (int a = 0; a < 5 && kinds[k].allowed[a]; a++) ok |= !strcmp(key, kinds[k].allowed[a]);
    if (!ok) {
      char list[128] = "";
      for (int a = 0; a < 5 && kinds[k].allowed[a]; a++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a ? ", " : "", kinds[k].allowed[a]);
      return lfail(ld, path, "unknown key \"%s\" in a %s step (allowed: %s)", key, kinds[k].key,
                   list[0] ? list : "none besides the kind");
    }
  }
  char sub[1100];
  const json_t *kv = json_object_get(o, kinds[k].key);
#define SUB(K) (PATHF(sub, "%s.%s", path, K), sub)
  switch (st->kind) {
  case PS_FOR:
    if (!json_is_string(kv)) return lfail(ld, SUB("for"), "expected the loop variable's name");
    if (lname(ld, json_string_value(kv), SUB("for"), &st->var) ||
        lnot_loop_var(ld, st->var, json_string_value(kv), SUB("for")))
      return -1;
    if (!json_object_get(o, "from") || !json_object_get(o, "to") || !json_object_get(o, "do"))
      return lfail(ld, path, "a for step needs from, to (exclusive) and do");
    if (lexpr(ld, json_object_get(o, "from"), SUB("from"), &st->from)) return -1;
    if (lexpr(ld, json_object_get(o, "to"), SUB("to"), &st->to)) return -1;
    if (json_object_get(o, "by") && lexpr(ld, json_object_get(o, "by"), SUB("by"), &st->by)) return -1;
    if (ld->nloops == PROG_DEPTH) return lfail(ld, path, "steps nested more than %d deep", PROG_DEPTH - 2);
    ld->loops[ld->nloops] = st->var, ld->loop_path[ld->nloops++] = st->path;
    const int rc = lblock(ld, json_object_get(o, "do"), SUB("do"), &st->body, depth + 1);
    ld->nloops--;
    return rc;
  case PS_IF:
    if (lexpr(ld, kv, SUB("if"), &st->cond)) return -1;
    if (!json_object_get(o, "then")) return lfail(ld, path, "an if step needs then (and may have else)");
    if (lblock(ld, json_object_get(o, "then"), SUB("then"), &st->body, depth + 1)) return -1;
    if (json_object_get(o, "else") && lblock(ld, json_object_get(o, "else"), SUB("else"), &st->els, depth + 1))
      return -1;
    return 0;
  case PS_LET: {
    if (!json_is_object(kv) || json_object_size(kv) == 0)
      return lfail(ld, SUB("let"), "expected an object of NAME: expression, set in order");
    st->nlets = json_object_size(kv);
    st->let_var = calloc(st->nlets, sizeof *st->let_var);
    st->let_expr = calloc(st->nlets, sizeof *st->let_expr);
    if (!st->let_var || !st->let_expr) return lfail(ld, path, "out of memory");
    size_t i = 0;
    json_object_foreach((json_t *)kv, key, v) {
      char lp[600];
      PATHF(lp, "%s.let.%s", path, key);
      if (lname(ld, key, lp, &st->let_var[i]) || lnot_loop_var(ld, st->let_var[i], key, lp) ||
          lexpr(ld, v, lp, &st->let_expr[i]))
        return -1;
      i++;
    }
    return 0;
  }
  case PS_WAIT:
    if (!json_is_string(kv) || strcmp(json_string_value(kv), "sends"))
      return lfail(ld, SUB("wait"), "expected \"sends\" (wait for every send not yet waited for)");
    return 0;
  default: break;
  }
  if (lchunks(ld, kv, SUB(kinds[k].key), st)) return -1;
  switch (st->kind) {
  case PS_SEND:
    if (!json_object_get(o, "to")) return lfail(ld, path, "a send step needs \"to\" (the rank)");
    if (lexpr(ld, json_object_get(o, "to"), SUB("to"), &st->peer)) return -1;
    return lbool(ld, o, path, "keep", &st->keep) || lbool(ld, o, path, "wait", &st->wait) ? -1 : 0;
  case PS_RECV:
    if (!json_object_get(o, "from")) return lfail(ld, path, "a recv step needs \"from\" (the rank)");
    return lexpr(ld, json_object_get(o, "from"), SUB("from"), &st->peer);
  case PS_REDUCE: {
    if (!json_object_get(o, "hop")) return lfail(ld, path, "a reduce step needs \"hop\" (1-based, the row of hops.csv)");
    if (lexpr(ld, json_object_get(o, "hop"), SUB("hop"), &st->hop)) return -1;
    const json_t *ord = json_object_get(o, "order");
    const char *os = ord && json_is_string(ord) ? json_string_value(ord) : NULL;
    if (ord && (!os || (strcmp(os, "held+received") && strcmp(os, "received+held"))))
      return lfail(ld, SUB("order"), "expected \"held+received\" or \"received+held\"");
    st->in_first = os && !strcmp(os, "received+held");
    return 0;
  }
  case PS_RECODE:
    if (!json_object_get(o, "hop")) return lfail(ld, path, "a recode step needs \"hop\" (1-based, the row of hops.csv)");
    return lexpr(ld, json_object_get(o, "hop"), SUB("hop"), &st->hop);
  case PS_DELIVER: return lbool(ld, o, path, "final", &st->final);
  default: return 0;
  }
#undef SUB
}

static int lblock(loader *ld, const json_t *arr, const char *path, pblock *b, int depth) {
  if (depth >= PROG_DEPTH - 1) return lfail(ld, path, "steps nested more than %d deep", PROG_DEPTH - 2);
  if (!json_is_array(arr)) return lfail(ld, path, "expected an array of steps");
  b->n = json_array_size(arr);
  b->s = calloc(b->n ? b->n : 1, sizeof *b->s);
  if (!b->s) return lfail(ld, path, "out of memory");
  for (size_t i = 0; i < b->n; i++) {
    char sub[1100];
    PATHF(sub, "%s[%zu]", path, i);
    if (lstep(ld, json_array_get(arr, i), sub, &b->s[i], depth)) return -1;
  }
  return 0;
}

static void block_free(pblock *b) {
  for (size_t i = 0; i < b->n; i++) {
    pstep *s = &b->s[i];
    free(s->path);
    free(s->let_var);
    free(s->let_expr);
    block_free(&s->body);
    block_free(&s->els);
  }
  free(b->s);
}

static void program_free(program *p) {
  if (!p) return;
  free(p->file);
  free(p->name);
  free(p->description);
  for (size_t i = 0; i < p->nparams; i++) {
    free((char *)p->params[i].name);
    free((char *)p->params[i].help);
  }
  free(p->params);
  free(p->global_var);
  free(p->global_expr);
  for (size_t i = 0; i < p->nchecks; i++) free(p->check_msg[i]);
  free(p->check_expr);
  free(p->check_msg);
  block_free(&p->body);
  pexprs_free(&p->x);
  free(p);
}

static int lnum(loader *ld, const json_t *o, const char *path, const char *key, double def, double *out) {
  const json_t *v = json_object_get(o, key);
  if (!v) return *out = def, 0;
  if (!json_is_integer(v)) return lfail(ld, path, "%s: expected an integer", key);
  *out = (double)json_integer_value(v);
  return 0;
}

static int lparams(loader *ld, const json_t *o) {
  program *p = ld->p;
  if (!o) return 0;
  if (!json_is_object(o)) return lfail(ld, "params", "expected an object of NAME: {default, min, max, help}");
  p->nparams = json_object_size(o);
  p->params = calloc(p->nparams ? p->nparams : 1, sizeof *p->params);
  if (!p->params) return lfail(ld, "params", "out of memory");
  const char *key;
  json_t *v;
  size_t i = 0;
  json_object_foreach((json_t *)o, key, v) {
    char path[300];
    PATHF(path, "params.%s", key);
    if (!json_is_object(v)) return lfail(ld, path, "expected {\"default\": INT, \"min\": INT, \"max\": INT, \"help\": TEXT}");
    ccomp_param *q = &p->params[i];
    q->kind = CCOMP_INT;
    if (!(q->name = strdup(key))) return lfail(ld, path, "out of memory");
    const json_t *h = json_object_get(v, "help");
    if (!(q->help = strdup(h && json_is_string(h) ? json_string_value(h) : ""))) return lfail(ld, path, "out of memory");
    if (lnum(ld, v, path, "default", 0, &q->def) || lnum(ld, v, path, "min", 0, &q->min) ||
        lnum(ld, v, path, "max", 1 << 20, &q->max))
      return -1;
    if (q->def < q->min || q->def > q->max) return lfail(ld, path, "default %g is outside [min, max] = [%g, %g]", q->def, q->min, q->max);
    if (pexpr_var(&p->x, key) != PV_PARAM0 + (int)i)
      return lfail(ld, path, "a parameter may not be named r, N or n");
    i++;
  }
  return 0;
}

/* The first step of kind k in b, nested ones included, or NULL. */
static const pstep *find_kind(const pblock *b, int k) {
  for (size_t i = 0; i < b->n; i++) {
    const pstep *s = &b->s[i], *f;
    if (s->kind == k) return s;
    if ((f = find_kind(&s->body, k)) || (f = find_kind(&s->els, k))) return f;
  }
  return NULL;
}

static int lprogram(loader *ld, json_t *root) {
  program *p = ld->p;
  if (!json_is_object(root)) return lfail(ld, "", "expected an object (a collective program)");
  static const char *const known[] = {"name", "description", "requires", "params", "let", "checks",
                                      "chunks", "hops", "dense_bytes", "global_max_scale", "program", NULL};
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    int ok = 0;
    for (int i = 0; known[i]; i++) ok |= !strcmp(key, known[i]);
    if (!ok)
      return lfail(ld, key, "unknown key (known: name, description, requires, params, let, checks, "
                            "chunks, hops, dense_bytes, global_max_scale, program)");
  }
  static const char *const required[] = {"name", "chunks", "hops", "dense_bytes", "program", NULL};
  for (int i = 0; required[i]; i++)
    if (!json_object_get(root, required[i]))
      return lfail(ld, required[i], "missing (required: name, chunks, hops, dense_bytes, program)");
  v = json_object_get(root, "name");
  if (!json_is_string(v) || !json_string_length(v)) return lfail(ld, "name", "expected a non-empty string");
  char nm[256];
  snprintf(nm, sizeof nm, "program:%s", json_string_value(v));
  p->name = strdup(nm);
  v = json_object_get(root, "description");
  p->description = strdup(v && json_is_string(v) ? json_string_value(v) : "a collective program");
  v = json_object_get(root, "requires");
  const char *req = v && json_is_string(v) ? json_string_value(v) : v ? "" : "summable";
  if (strcmp(req, "summable") && strcmp(req, "any"))
    return lfail(ld, "requires", "expected \"summable\" (reduce steps combine payloads without "
                                 "decoding) or \"any\" (a program without reduce steps)");
  p->requires = strcmp(req, "any") ? COLL_NEEDS_SUMMABLE : 0;
  if (!p->name || !p->description) return lfail(ld, "", "out of memory");
  /* fixed slots first: r, N, n, then the parameters */
  if (pexpr_var(&p->x, "r") != PV_R || pexpr_var(&p->x, "N") != PV_N || pexpr_var(&p->x, "n") != PV_n)
    return lfail(ld, "", "out of memory");
  if (lparams(ld, json_object_get(root, "params"))) return -1;
  v = json_object_get(root, "let");
  if (v) {
    if (!json_is_object(v)) return lfail(ld, "let", "expected an object of NAME: expression, set in order");
    p->nglobals = json_object_size(v);
    p->global_var = calloc(p->nglobals + 1, sizeof *p->global_var);
    p->global_expr = calloc(p->nglobals + 1, sizeof *p->global_expr);
    if (!p->global_var || !p->global_expr) return lfail(ld, "let", "out of memory");
    size_t i = 0;
    json_t *e;
    json_object_foreach(v, key, e) {
      char path[300];
      PATHF(path, "let.%s", key);
      if (lname(ld, key, path, &p->global_var[i]) || lexpr(ld, e, path, &p->global_expr[i])) return -1;
      i++;
    }
  }
  v = json_object_get(root, "checks");
  if (v) {
    if (!json_is_array(v)) return lfail(ld, "checks", "expected an array of {\"require\": EXPR, \"error\": TEXT}");
    p->nchecks = json_array_size(v);
    p->check_expr = calloc(p->nchecks + 1, sizeof *p->check_expr);
    p->check_msg = calloc(p->nchecks + 1, sizeof *p->check_msg);
    if (!p->check_expr || !p->check_msg) return lfail(ld, "checks", "out of memory");
    for (size_t i = 0; i < p->nchecks; i++) {
      char path[64];
      PATHF(path, "checks[%zu]", i);
      const json_t *c = json_array_get(v, i), *m = json_object_get(c, "error");
      if (!json_is_object(c) || !json_object_get(c, "require") || !m || !json_is_string(m) || json_object_size(c) != 2)
        return lfail(ld, path, "expected {\"require\": EXPR, \"error\": TEXT}");
      if (lexpr(ld, json_object_get(c, "require"), path, &p->check_expr[i])) return -1;
      if (!(p->check_msg[i] = strdup(json_string_value(m)))) return lfail(ld, path, "out of memory");
    }
  }
  if (lexpr(ld, json_object_get(root, "chunks"), "chunks", &p->chunks) ||
      lexpr(ld, json_object_get(root, "hops"), "hops", &p->hops) ||
      lexpr(ld, json_object_get(root, "dense_bytes"), "dense_bytes", &p->dense))
    return -1;
  p->max_scale = -1;
  if (json_object_get(root, "global_max_scale") &&
      lexpr(ld, json_object_get(root, "global_max_scale"), "global_max_scale", &p->max_scale))
    return -1;
  if (lblock(ld, json_object_get(root, "program"), "program", &p->body, 0)) return -1;
  const pstep *red = p->requires ? NULL : find_kind(&p->body, PS_REDUCE);
  if (red)
    return lfail(ld, red->path, "a reduce step combines payloads without decoding: the program must "
                                "require \"summable\" (or decode and re-encode with recode)");
  return 0;
}

/* ---- registration ---- */

#define PROG_SLOTS 16
static program *slot_prog[PROG_SLOTS];
static char *slot_key[PROG_SLOTS];
static collective_type slot_type[PROG_SLOTS];
static prog_shape_cache slot_shape[PROG_SLOTS];

/* collective_type.check of a program: program_check's text as the error. */
static int slot_check(const program *p, int N, const double *params, ccsim_error *err) {
  char e[CCOMP_ERRLEN];
  if (program_check(p, N, params, e, sizeof e)) return ccsim_fail(err, CCSIM_ERR_INPUT, "%s", e);
  return 0;
}

#define SLOT_FNS(i)                                                                                \
  static size_t hops_##i(int N, const double *pr) { return program_hops(slot_prog[i], N, pr); }    \
  static double dense_##i(size_t n, int N, const double *pr) {                                     \
    return program_dense_bytes(slot_prog[i], n, N, pr);                                            \
  }                                                                                                \
  static int check_##i(int N, const double *pr, ccsim_error *err) {                                \
    return slot_check(slot_prog[i], N, pr, err);                                                   \
  }                                                                                                \
  static double footprint_##i(size_t n, int N, const double *pr) {                                 \
    return program_footprint(slot_prog[i], &slot_shape[i], n, N, pr);                              \
  }                                                                                                \
  static double messages_##i(int N, const double *pr) {                                            \
    return program_messages(slot_prog[i], &slot_shape[i], N, pr);                                  \
  }                                                                                                \
  static void run_##i(coll_ctx *c) { program_run(slot_prog[i], c); }
SLOT_FNS(0) SLOT_FNS(1) SLOT_FNS(2) SLOT_FNS(3) SLOT_FNS(4) SLOT_FNS(5) SLOT_FNS(6) SLOT_FNS(7)
SLOT_FNS(8) SLOT_FNS(9) SLOT_FNS(10) SLOT_FNS(11) SLOT_FNS(12) SLOT_FNS(13) SLOT_FNS(14) SLOT_FNS(15)
#define SLOT_ROW(i) {hops_##i, dense_##i, footprint_##i, messages_##i, check_##i, run_##i}
static const struct {
  size_t (*hops)(int, const double *);
  double (*dense)(size_t, int, const double *);
  double (*footprint)(size_t, int, const double *);
  double (*messages)(int, const double *);
  int (*check)(int, const double *, ccsim_error *);
  void (*run)(coll_ctx *);
} slot_fns[PROG_SLOTS] = {SLOT_ROW(0), SLOT_ROW(1), SLOT_ROW(2),  SLOT_ROW(3),  SLOT_ROW(4),  SLOT_ROW(5),
                          SLOT_ROW(6), SLOT_ROW(7), SLOT_ROW(8),  SLOT_ROW(9),  SLOT_ROW(10), SLOT_ROW(11),
                          SLOT_ROW(12), SLOT_ROW(13), SLOT_ROW(14), SLOT_ROW(15)};

enum { PROG_MAX_BYTES = 16 << 20 };

const program *program_of(const collective_type *t) {
  for (int i = 0; i < PROG_SLOTS; i++)
    if (slot_prog[i] && t == &slot_type[i]) return slot_prog[i];
  return NULL;
}

prog_shape_cache *program_shape_cache(const collective_type *t) {
  for (int i = 0; i < PROG_SLOTS; i++)
    if (slot_prog[i] && t == &slot_type[i]) return &slot_shape[i];
  return NULL;
}

void program_unload(const collective_type *t) {
  for (int i = 0; i < PROG_SLOTS; i++)
    if (slot_prog[i] && t == &slot_type[i]) {
      program_free(slot_prog[i]);
      free(slot_key[i]);
      free(slot_shape[i].params);
      memset(&slot_shape[i], 0, sizeof slot_shape[i]);
      slot_prog[i] = NULL, slot_key[i] = NULL;
      memset(&slot_type[i], 0, sizeof slot_type[i]);
    }
}

const collective_type *program_load(const char *path, char *err, size_t errlen) {
  /* a FIFO, a device or a directory is refused before anything opens it
   * (opening a FIFO would wait for a writer), and so is a file larger than
   * any program needs */
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, errlen, "%s: cannot read the collective program: %s", path, strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode) || st.st_size > PROG_MAX_BYTES) {
    snprintf(err, errlen, "%s: expected a collective program (a JSON file of at most %d MiB), got %s", path,
             PROG_MAX_BYTES >> 20, !S_ISREG(st.st_mode) ? (S_ISDIR(st.st_mode) ? "a directory" : "a special file")
                                                        : "a larger file");
    return NULL;
  }
  char real[PATH_MAX];
  const char *key = realpath(path, real) ? real : path;
  for (int i = 0; i < PROG_SLOTS; i++)
    if (slot_key[i] && !strcmp(slot_key[i], key)) return &slot_type[i];
  int i = 0;
  while (i < PROG_SLOTS && slot_prog[i]) i++;
  if (i == PROG_SLOTS) {
    snprintf(err, errlen, "%s: more than %d collective programs in one run", path, PROG_SLOTS);
    return NULL;
  }
  program *p = calloc(1, sizeof *p);
  if (!p || !(p->file = strdup(path))) {
    free(p);
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  loader ld = {.p = p, .err = err, .errlen = errlen};
  json_error_t je = {.line = -1};
  json_t *root = NULL;
  FILE *f = fopen(path, "rb");
  char *text = f ? malloc((size_t)st.st_size + 1) : NULL;
  size_t len = text ? fread(text, 1, (size_t)st.st_size + 1, f) : 0;
  if (!f || !text || ferror(f)) {
    snprintf(je.text, sizeof je.text, "%s", !f ? strerror(errno) : !text ? "out of memory" : "a read failed");
  } else {
    const size_t bom = ccsim_json_bom(text, len); /* ignored, as in every input */
    root = json_loadb(text + bom, len - bom, JSON_REJECT_DUPLICATES, &je);
  }
  free(text);
  if (f) fclose(f);
  if (!root) {
    if (je.line > 0) snprintf(err, errlen, "%s:%d:%d: malformed JSON: %s", path, je.line, je.column, ccsim_json_reason(je.text));
    else snprintf(err, errlen, "%s: cannot read the collective program: %s", path, je.text);
    program_free(p);
    return NULL;
  }
  int rc = lprogram(&ld, root);
  json_decref(root);
  if (rc || !(slot_key[i] = strdup(key))) {
    if (!rc) snprintf(err, errlen, "%s: out of memory", path);
    program_free(p);
    return NULL;
  }
  slot_prog[i] = p;
  slot_type[i] = (collective_type){
      .name = p->name,
      .description = p->description,
      .requires = p->requires,
      .params = p->params,
      .nparams = p->nparams,
      .hops = slot_fns[i].hops,
      .dense_bytes = slot_fns[i].dense,
      .footprint = slot_fns[i].footprint,
      .messages = slot_fns[i].messages,
      .check = slot_fns[i].check,
      .run = slot_fns[i].run,
  };
  return &slot_type[i];
}
