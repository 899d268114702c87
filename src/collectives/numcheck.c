/* src/collectives/numcheck.c — finite checks (numcheck.h). */
#include "collectives/numcheck.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Bits of a float read through an alias the compiler allows. */
typedef uint32_t __attribute__((may_alias)) bits32;

size_t numcheck_first_bad(const float *x, size_t n) {
  const bits32 *u = (const bits32 *)x;
  enum { BLOCK = 4096 };
  for (size_t lo = 0; lo < n; lo += BLOCK) {
    const size_t hi = n - lo < BLOCK ? n : lo + BLOCK;
    /* An all-ones exponent (NaN, +-Inf) plus one exponent step carries into
     * bit 31; no finite value does: an and, an add and an or per element,
     * which the compiler vectorizes. */
    uint32_t acc = 0;
    for (size_t i = lo; i < hi; i++) acc |= (u[i] & 0x7f800000u) + 0x00800000u;
    if (acc & 0x80000000u)
      for (size_t i = lo; i < hi; i++)
        if (!isfinite(x[i])) return i;
  }
  return n;
}

int numcheck_floats(numcheck *nc, const float *x, size_t n, uint32_t it, int worker, const char *what,
                    size_t offset) {
  const size_t k = numcheck_first_bad(x, n);
  if (k == n) return 0;
  char who[48], msg[sizeof nc->msg];
  if (worker >= 0) snprintf(who, sizeof who, "worker %d", worker);
  else snprintf(who, sizeof who, "all workers (one shared aggregate)");
  snprintf(msg, sizeof msg, "iteration %u, %s: %s holds %s at element %zu", it, who, what,
           isnan(x[k]) ? "NaN" : x[k] > 0 ? "+Inf" : "-Inf", offset + k);
  numcheck_fail(nc, it, worker, msg);
  return -1;
}

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

void numcheck_fail(numcheck *nc, uint32_t it, int worker, const char *msg) {
  pthread_mutex_lock(&fail_lock);
  /* -1 (all workers) is checked outside the actors, alone: it ranks last */
  const unsigned w = (unsigned)worker, have = (unsigned)nc->worker;
  if (!nc->failed || it < nc->it ||
      (it == nc->it && (w < have || (w == have && strcmp(msg, nc->msg) < 0)))) {
    nc->failed = 1;
    nc->it = it;
    nc->worker = worker;
    snprintf(nc->msg, sizeof nc->msg, "%s", msg);
  }
  pthread_mutex_unlock(&fail_lock);
}

static int acc_finite(const err_acc *a) {
  return isfinite(a->err2) && isfinite(a->ref2) && isfinite(a->out2) && isfinite(a->dot);
}

int numcheck_metrics(numcheck *nc, const coll_metrics *m, uint32_t it) {
  const char *what = NULL;
  size_t hop = 0;
  for (size_t h = 0; h < m->nhops && !what; h++)
    if (!acc_finite(&m->hops[h]) || !acc_finite(&m->cascade[h])) what = "hop", hop = h + 1;
  if (!what && (!acc_finite(&m->final) || !acc_finite(&m->final_cascade))) what = "aggregate";
  if (!what && !isfinite(m->bytes)) what = "bytes";
  if (!what) return 0;
  if (!nc->failed) {
    nc->failed = 1;
    if (hop)
      snprintf(nc->msg, sizeof nc->msg,
               "iteration %u, hop %zu: a partial aggregate (the sum of the payloads of the workers it "
               "combines) is not finite: an overflow or a NaN in a payload",
               it, hop);
    else if (!strcmp(what, "aggregate"))
      snprintf(nc->msg, sizeof nc->msg, "iteration %u: the aggregate's error against the exact mean is not finite",
               it);
    else
      snprintf(nc->msg, sizeof nc->msg, "iteration %u: the bytes on the wire are not finite", it);
  }
  return -1;
}
