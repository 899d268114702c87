/* src/timemodel/schedule.c — bucket plans and MergeComp's search (see schedule.h). */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

#include "profile.h"

#define MAX_CUTS 64

typedef struct probe {
  size_t cuts[MAX_CUTS];
  double time;
} probe;

struct scheduler {
  const experiment *e;
  size_t L;       /* layers */
  size_t *off;    /* [L + 1] element offset of forward layer l */
  sched_plan plan;
  /* mergecomp */
  int mergecomp, done;
  size_t ncuts, cuts[MAX_CUTS]; /* the plan's cuts (backward layer indices) */
  size_t i, lo, hi;             /* binary search of cut i within [lo, hi] */
  probe *log;
  size_t nlog, caplog;
  int oom; /* a plan or the search's log found no memory */
};

/* Elements of backward layers [l0, l1): forward layers [L - l1, L - l0).
 * Without memory the plan stays as it was and s->oom is set. */
static void set_plan(scheduler *s, const size_t *cuts, size_t ncuts) {
  sched_bucket *nb = calloc(ncuts + 1, sizeof *nb);
  if (!nb) {
    s->oom = 1;
    return;
  }
  free(s->plan.b);
  s->plan.nb = ncuts + 1;
  s->plan.b = nb;
  for (size_t k = 0; k <= ncuts; k++) {
    sched_bucket *b = &s->plan.b[k];
    b->l0 = k ? cuts[k - 1] : 0;
    b->l1 = k < ncuts ? cuts[k] : s->L;
    b->lo = s->off[s->L - b->l1];
    b->hi = s->off[s->L - b->l0];
  }
}

static const probe *memo(const scheduler *s, const size_t *cuts) {
  for (size_t k = 0; k < s->nlog; k++)
    if (!memcmp(s->log[k].cuts, cuts, s->ncuts * sizeof *cuts)) return &s->log[k];
  return NULL;
}

static void search_bounds(scheduler *s) {
  s->lo = s->i == 0 ? 1 : s->cuts[s->i - 1] + 1;
  s->hi = s->i + 1 == s->ncuts ? s->L - 1 : s->cuts[s->i + 1] - 1;
}

/* Advance the search until it needs an iteration it has not measured (the
 * plan becomes that probe) or it is finished (the plan is the result). */
static void advance(scheduler *s) {
  size_t c[MAX_CUTS];
  while (!s->done) {
    if (s->lo >= s->hi) { /* cut i found */
      if (s->lo <= s->hi) s->cuts[s->i] = s->lo;
      if (++s->i == s->ncuts) {
        /* the search is over: keep the fastest partition measured (the
         * binary search assumes one minimum; a probe may have beaten it) */
        const probe *best = memo(s, s->cuts);
        for (size_t k = 0; k < s->nlog; k++)
          if (!best || s->log[k].time < best->time) best = &s->log[k];
        if (best) memcpy(s->cuts, best->cuts, s->ncuts * sizeof *s->cuts);
        s->done = 1;
        break;
      }
      search_bounds(s);
      continue;
    }
    const size_t mid = s->lo + (s->hi - s->lo) / 2;
    memcpy(c, s->cuts, s->ncuts * sizeof *c);
    c[s->i] = mid;
    const probe *a = memo(s, c);
    c[s->i] = mid + 1;
    const probe *b = memo(s, c);
    if (a && b) {
      if (a->time <= b->time) s->hi = mid;
      else s->lo = mid + 1;
      continue;
    }
    c[s->i] = a ? mid + 1 : mid; /* measure the missing one next */
    set_plan(s, c, s->ncuts);
    return;
  }
  set_plan(s, s->cuts, s->ncuts);
}

scheduler *sched_new(const experiment *e) {
  scheduler *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->e = e;
  const model_profile *m = e->model.layers;
  s->L = m->nlayers;
  s->off = calloc(s->L + 1, sizeof *s->off);
  size_t *cuts = calloc(s->L + 1, sizeof *cuts), n = 0;
  if (!s->off || !cuts) {
    free(cuts);
    sched_free(s);
    return NULL;
  }
  for (size_t l = 0; l < s->L; l++) s->off[l + 1] = s->off[l] + m->layers[l].params;
  switch (e->schedule.kind) {
  case SCHED_SINGLE:
    break;
  case SCHED_LAYERWISE:
    for (size_t l = 1; l < s->L; l++) cuts[n++] = l;
    break;
  case SCHED_BUCKETS: {
    double bytes = 0;
    for (size_t j = 0; j < s->L; j++) { /* backward order */
      bytes += 4.0 * (double)m->layers[s->L - 1 - j].params;
      if (bytes >= e->schedule.bucket_bytes && j + 1 < s->L) cuts[n++] = j + 1, bytes = 0;
    }
    break;
  }
  case SCHED_MERGECOMP: {
    s->mergecomp = 1;
    s->ncuts = (size_t)e->schedule.groups - 1;
    if (s->ncuts > MAX_CUTS) s->ncuts = MAX_CUTS;
    /* start from groups of equal size (elements), then search each cut */
    const double total = (double)s->off[s->L];
    size_t k = 0, prev = 0;
    for (size_t j = 1; j < s->L && k < s->ncuts; j++) {
      const double done = (double)(s->off[s->L] - s->off[s->L - j]);
      if (done >= total * (double)(k + 1) / (double)(s->ncuts + 1) && j > prev) s->cuts[k++] = prev = j;
    }
    for (; k < s->ncuts; k++) s->cuts[k] = s->cuts[k ? k - 1 : 0] + 1; /* (few layers) */
    s->i = 0;
    search_bounds(s);
    advance(s);
    free(cuts);
    cuts = NULL; /* the search's plan */
    break;
  }
  }
  if (cuts) { /* a fixed plan */
    set_plan(s, cuts, n);
    free(cuts);
    s->done = 1;
  }
  if (s->oom) {
    sched_free(s);
    return NULL;
  }
  return s;
}

void sched_free(scheduler *s) {
  if (!s) return;
  free(s->plan.b);
  free(s->off);
  free(s->log);
  free(s);
}

const sched_plan *sched_plan_now(const scheduler *s) { return &s->plan; }

int sched_waits(const scheduler *s) { return s->mergecomp && !s->done; }

int sched_observe(scheduler *s, double t) {
  if (!s->mergecomp || s->done) return 0;
  size_t c[MAX_CUTS] = {0};
  for (size_t k = 0; k + 1 < s->plan.nb; k++) c[k] = s->plan.b[k].l1;
  if (memo(s, c)) return 0;
  if (s->nlog == s->caplog) {
    const size_t cap = s->caplog ? 2 * s->caplog : 16;
    probe *log = realloc(s->log, cap * sizeof *s->log);
    if (!log) return -1;
    s->log = log, s->caplog = cap;
  }
  memset(&s->log[s->nlog], 0, sizeof s->log[s->nlog]);
  memcpy(s->log[s->nlog].cuts, c, sizeof c);
  s->log[s->nlog++].time = t;
  advance(s);
  return s->oom ? -1 : 0;
}

json_t *sched_report(const scheduler *s) {
  json_t *r = json_object();
  json_object_set_new(r, "kind", json_string(schedule_kind_names[s->e->schedule.kind]));
  json_t *b = json_array();
  for (size_t k = 0; k < s->plan.nb; k++)
    json_array_append_new(b, json_pack("{s:I,s:I,s:I}", "layers", (json_int_t)(s->plan.b[k].l1 - s->plan.b[k].l0),
                                       "first_layer_backward", (json_int_t)s->plan.b[k].l0,
                                       "elements", (json_int_t)(s->plan.b[k].hi - s->plan.b[k].lo)));
  json_object_set_new(r, "buckets", b);
  if (s->mergecomp) {
    json_object_set_new(r, "search_finished", json_boolean(s->done));
    json_object_set_new(r, "probes", json_integer((json_int_t)s->nlog));
    json_t *log = json_array();
    for (size_t k = 0; k < s->nlog; k++) {
      json_t *cuts = json_array();
      for (size_t i = 0; i < s->ncuts; i++) json_array_append_new(cuts, json_integer((json_int_t)s->log[k].cuts[i]));
      json_array_append_new(log, json_pack("{s:o,s:f}", "cuts", cuts, "iteration_time_s", s->log[k].time));
    }
    json_object_set_new(r, "log", log);
  }
  return r;
}
