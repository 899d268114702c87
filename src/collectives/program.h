/* src/collectives/program.h — collectives written as data (docs/programs.md).
 *
 * A program file describes, for any worker count N, what every rank does:
 * a block of steps (encode, send, recv, reduce, store, deliver, wait, and
 * the control steps for, if, let) over the chunks of the tensor, with
 * integer expressions in r (the rank), N, the program's parameters and its
 * variables.  program_load.c reads a file into a `program` and registers a
 * collective_type for it; program_check.c validates it for one N by
 * running every rank's steps symbolically (matching sends and receives,
 * following which ranks each partial sum holds); program.c runs it on the
 * data executor with the same primitives the built-in collectives use
 * (collective.h), so a program and its C twin give the same bytes. */
#ifndef CCSIM_PROGRAM_H
#define CCSIM_PROGRAM_H

#include <stddef.h>

#include "collectives/collective.h"

/* ---- expressions (program_expr.c) ---- */

enum pnode_kind { PN_NUM, PN_VAR, PN_NEG, PN_NOT, PN_BIN, PN_COND, PN_CALL };

typedef struct pnode {
  int kind;
  int op;      /* PN_BIN: the operator's character code ('+', '/', 'f' for //, ...); PN_CALL: the function */
  double v;    /* PN_NUM */
  int var;     /* PN_VAR: slot */
  int a, b, c; /* operands (node indices) */
} pnode;

/* A symbol table and node pool shared by all expressions of a program. */
typedef struct pexprs {
  pnode *nodes;
  size_t nnodes, cap;
  char **vars;
  size_t nvars, vcap;
} pexprs;

/* The slot of variable `name`, added when new; -1 when out of memory. */
int pexpr_var(pexprs *x, const char *name);
/* Parse text into x; the root node index, or -1 with a message in err. */
int pexpr_parse(pexprs *x, const char *text, char *err, size_t errlen);
/* Evaluate node `root` with variables env[slot] (set[slot] != 0 where
 * assigned): 0 with *out, or -1 with a message in err (an unset variable,
 * a division by zero, a result that is not finite). */
int pexpr_eval(const pexprs *x, int root, const double *env, const unsigned char *set, double *out,
               char *err, size_t errlen);
void pexprs_free(pexprs *x);

/* ---- programs ---- */

enum pstep_kind { PS_FOR, PS_IF, PS_LET, PS_ENCODE, PS_SEND, PS_RECV, PS_REDUCE, PS_RECODE, PS_STORE, PS_DELIVER, PS_WAIT };

struct pstep;
typedef struct pblock {
  struct pstep *s;
  size_t n;
} pblock;

typedef struct pstep {
  int kind;
  char *path; /* its JSON path in the file, for messages */
  /* for */
  int var, from, to, by; /* by: -1 = 1 */
  pblock body, els;      /* for: body; if: then (body), else (els) */
  int cond;              /* if */
  /* let */
  size_t nlets;
  int *let_var, *let_expr;
  /* operations: the chunk range [c0, c1) (c1 = -1: the one chunk c0) */
  int c0, c1;
  int peer;     /* send: to; recv: from */
  int hop;      /* reduce, recode: the hop (1-based); also its combine's or re-encoding's salt */
  int keep;     /* send: share the payloads (they stay held) instead of moving them */
  int wait;     /* send: wait for it now (a blocking send) */
  int in_first; /* reduce: combine(received, held), else combine(held, received) */
  int final;    /* deliver: the chunk's final delivery (measured against the exact mean) */
} pstep;

typedef struct program {
  char *file; /* as loaded (messages) */
  char *name, *description;
  unsigned requires;
  ccomp_param *params;
  size_t nparams;
  pexprs x; /* slot 0 = r, 1 = N, 2 = n, 3 .. 3 + nparams - 1 = the parameters */
  size_t nglobals;
  int *global_var, *global_expr; /* "let" at the top: evaluated in order for every rank */
  size_t nchecks;
  int *check_expr;
  char **check_msg;
  int chunks, hops, dense; /* expressions */
  int max_scale;           /* the global max's factor (an expression), or -1 */
  pblock body;
} program;

#define PV_R 0
#define PV_N 1
#define PV_n 2
#define PV_PARAM0 3

/* The environment of one evaluation: variables and which are set. */
typedef struct penv {
  double *v;
  unsigned char *set;
} penv;

/* env for rank r of N with params: r, N, the parameters and the top-level
 * lets (n = 0).  0, or -1 with a message (naming the let) in err. */
int program_env(const program *p, int r, int N, const double *params, penv *env, char *err,
                size_t errlen);
void penv_free(penv *env);
/* An expression as an integer in [lo, hi]: 0 or -1 with a message. */
int program_int(const program *p, const penv *env, int expr, long lo, long hi, const char *what,
                long *out, char *err, size_t errlen);

/* One operation of a rank's program with its operands evaluated. */
typedef struct prog_op {
  const pstep *st;
  long c0, c1, peer, hop;
} prog_op;

/* Walks a rank's steps in order, yielding operations.  A loop runs at most
 * PROG_LOOP_MAX times and a rank's walk takes at most PROG_STEPS_MAX steps
 * (a loop nested in loops, a body of lets): past either the walk fails
 * with a message rather than run for hours. */
#define PROG_DEPTH 32
#define PROG_LOOP_MAX (1L << 24)
#define PROG_STEPS_MAX (1L << 28)
typedef struct prog_iter {
  const program *p;
  penv env;
  long K, N, hops;
  struct {
    const pblock *b;
    size_t i;
    const pstep *loop; /* a for's body: loop->var steps by `by` until `end` */
    double end, by;
  } stack[PROG_DEPTH];
  int depth;
  long steps;      /* steps walked so far (PROG_STEPS_MAX) */
  const pstep *at; /* the step a failure of prog_iter_next is in */
} prog_iter;

/* Start rank r of N: 0, or -1 with a message in err. */
int prog_iter_start(prog_iter *it, const program *p, int r, int N, const double *params, char *err,
                    size_t errlen);
/* The next operation: 1 with *op, 0 at the end, -1 with a message in err
 * and the failing step in it->at. */
int prog_iter_next(prog_iter *it, prog_op *op, char *err, size_t errlen);
/* Where the iterator is, for messages: "s = 2, d = 4" (loop variables). */
void prog_iter_where(const prog_iter *it, char *out, size_t len);
void prog_iter_end(prog_iter *it);

/* ---- loading and registration (program_load.c) ---- */

/* Load the program file `path` (error messages name it as `shown`) and
 * register it: its collective_type (the same one for a file loaded again),
 * or NULL with err[0..errlen) set to "FILE: PATH: what is wrong". */
const collective_type *program_load(const char *path, char *err, size_t errlen);
/* Forget a collective_type program_load made (its slot is free again);
 * nothing else may still use it.  For the fuzz harness and tests. */
void program_unload(const collective_type *t);
/* The program of a collective_type program_load made, or NULL. */
const program *program_of(const collective_type *t);

/* Validate t's program for N workers with these parameters (program_check.c):
 * its own checks, then every rank run symbolically.  0 (also for a
 * collective that is no program), or -1 with "FILE: PATH: rank R (...): what". */
int program_validate(const collective_type *t, int N, const double *params, char *err, size_t errlen);

/* What program_validate's walk of every rank (in turn, until each blocks)
 * counts for N workers: the messages sent, and the most payload chunks
 * alive at once over all ranks (encoded and not yet combined into another:
 * a payload sent, or shared by keep, counts once), of K chunks. */
typedef struct prog_shape {
  double messages, peak_chunks, live;
  long K;
} prog_shape;
/* The walk (program_check first: it evaluates the program's own checks),
 * its counts in *out (may be NULL): 0, or -1 with a message. */
int program_shape(const program *p, int N, const double *params, prog_shape *out, char *err, size_t errlen);

/* The program's collective callbacks (program.c). */
size_t program_hops(const program *p, int N, const double *params);
double program_dense_bytes(const program *p, size_t n, int N, const double *params);
/* From the walk for N (program_shape; the last N and parameters asked for
 * are remembered in *cache): footprint, twice the most chunks alive of n / K
 * elements (the walk's order of ranks is one of those a run may take), and
 * messages.  A program the walk refuses: the whole tensor per worker, and 0
 * messages (unknown). */
typedef struct prog_shape_cache {
  int N, ok;
  double *params;
  prog_shape s;
} prog_shape_cache;
double program_footprint(const program *p, prog_shape_cache *cache, size_t n, int N, const double *params);
/* The cache of the collective_type program_load made (NULL for another). */
prog_shape_cache *program_shape_cache(const collective_type *t);
double program_messages(const program *p, prog_shape_cache *cache, int N, const double *params);
int program_check(const program *p, int N, const double *params, char *err, size_t errlen);
void program_run(const program *p, coll_ctx *ctx);

#endif
