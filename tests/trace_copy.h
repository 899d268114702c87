/* tests/trace_copy.h — what the trace tests share (test_trace_ref.c,
 * test_trace_runs.c): a run of n actors in a fresh data executor (no words
 * left from a run before), against a reference when given, and deep
 * copies of its actors' words and values to compare. */
#ifndef CCSIM_TESTS_TRACE_COPY_H
#define CCSIM_TESTS_TRACE_COPY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/itrace.h"
#include "sim/exec.h"

typedef struct trace_copy {
  sim_word *ops;
  size_t n;
  double *vals;
  size_t nv;
} trace_copy;

/* Actors 0 .. n-1 running fn(&ranks[i]) on host i, against ref[i] when ref
 * is given: the trace's hash, how many actors ended still on their
 * reference, and each actor's words and values (made its own) in out[i];
 * each(a, i), when given, sees actor i's trace first.  0, or -1. */
static inline int trace_run(int n, void (*fn)(void *), int *ranks, const trace_copy *ref, uint64_t h[2],
                            trace_copy *out, int *held, void (*each)(const sim_actor_trace *a, int i)) {
  ccsim_error err = {0};
  sim_exec *x = sim_exec_new((size_t)n, 1, &err);
  if (!x) return -1;
  sim_exec_reset(x);
  for (int i = 0; i < n; i++) {
    ranks[i] = i;
    if (sim_exec_spawn(x, i, fn, &ranks[i])) return sim_exec_free(x), -1;
  }
  if (ref)
    for (int i = 0; i < n; i++) sim_exec_trace_ref(x, (size_t)i, ref[i].ops, ref[i].n);
  if (sim_exec_run(x, &err)) {
    fprintf(stderr, "run: %s\n", err.msg);
    sim_exec_free(x);
    return -1;
  }
  const sim_trace *t = sim_exec_trace(x);
  sim_trace_hash(t, h);
  *held = 0;
  for (int i = 0; i < n; i++) *held += t->actors[i].ref_ops != NULL;
  if (sim_exec_trace_own(x)) return sim_exec_free(x), -1;
  for (int i = 0; i < n; i++) {
    const sim_actor_trace *a = &t->actors[i];
    if (each) each(a, i);
    out[i].n = a->n, out[i].nv = a->nv;
    out[i].ops = malloc(a->n * sizeof *a->ops + 1);
    out[i].vals = malloc(a->nv * sizeof *a->vals + 1);
    if (a->n) memcpy(out[i].ops, a->ops, a->n * sizeof *a->ops);
    if (a->nv) memcpy(out[i].vals, a->vals, a->nv * sizeof *a->vals);
  }
  sim_exec_free(x);
  return 0;
}

static inline void trace_copies_drop(trace_copy *c, int n) {
  for (int i = 0; i < n; i++) free(c[i].ops), free(c[i].vals);
}

/* Whether two runs' copies hold the same words and values. */
static inline int trace_copies_same(const trace_copy *a, const trace_copy *b, int n) {
  for (int i = 0; i < n; i++)
    if (a[i].n != b[i].n || a[i].nv != b[i].nv || memcmp(a[i].ops, b[i].ops, a[i].n * sizeof *a[i].ops) ||
        memcmp(a[i].vals, b[i].vals, a[i].nv * sizeof *a[i].vals))
      return 0;
  return 1;
}

#endif
