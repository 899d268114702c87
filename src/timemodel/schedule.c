/* src/timemodel/schedule.c — bucket plans and MergeComp's search (see schedule.h). */
#include "timemodel/schedule.h"

#include <stdlib.h>
#include <string.h>

#include "timemodel/profile.h"

#define MAX_CUTS SCHED_MAX_CUTS

typedef struct probe {
  size_t ncuts, cuts[MAX_CUTS];
  double time;
} probe;

struct scheduler {
  const experiment *e;
  size_t L;       /* layers */
  size_t *off;    /* [L + 1] element offset of forward layer l */
  sched_plan plan;
  /* mergecomp (schedule.h) */
  int mergecomp, done;
  size_t Y, budget;       /* groups searched 1 .. Y; the most probes */
  size_t *grid, G;        /* the candidate cut positions, ascending */
  int exhaustive;         /* the grid is every position and every partition fits the budget */
  probe *cand;            /* phase 1: the partitions on the grid, in order */
  size_t ncand, next;
  int phase;              /* 1: the grid; 2: refining the best */
  size_t ncuts, cuts[MAX_CUTS]; /* phase 2: the partition refined */
  size_t i, lo, hi;             /* phase 2: binary search of cut i within [lo, hi] */
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

static const probe *memo(const scheduler *s, const size_t *cuts, size_t ncuts) {
  for (size_t k = 0; k < s->nlog; k++)
    if (s->log[k].ncuts == ncuts && !memcmp(s->log[k].cuts, cuts, ncuts * sizeof *cuts)) return &s->log[k];
  return NULL;
}

/* The fastest partition measured (the first of equal ones). */
static const probe *fastest(const scheduler *s) {
  const probe *best = NULL;
  for (size_t k = 0; k < s->nlog; k++)
    if (!best || s->log[k].time < best->time) best = &s->log[k];
  return best;
}

/* C(n, k), saturating at SIZE_MAX. */
static size_t choose(size_t n, size_t k) {
  if (k > n) return 0;
  double c = 1;
  for (size_t j = 1; j <= k; j++) c = c * (double)(n - k + j) / (double)j;
  return c >= 1e18 ? SIZE_MAX : (size_t)(c + 0.5);
}

/* Partitions of 1 .. Y groups with their cuts among G positions. */
static size_t partitions(size_t G, size_t Y) {
  size_t t = 0;
  for (size_t y = 1; y <= Y; y++) {
    size_t c = choose(G, y - 1);
    if (c == SIZE_MAX || t > SIZE_MAX - c) return SIZE_MAX;
    t += c;
  }
  return t;
}

/* The grid: every position 1 .. L-1 when all partitions fit the budget
 * (exhaustive); else the most positions whose partitions fit 3/4 of it (the
 * rest refines), at equal shares of the elements in backward order. */
static void make_grid(scheduler *s) {
  const size_t P = s->L - 1;
  s->grid = calloc(P + 1, sizeof *s->grid);
  if (partitions(P, s->Y) <= s->budget) {
    for (size_t j = 1; j <= P; j++) s->grid[s->G++] = j;
    s->exhaustive = 1;
    return;
  }
  size_t G = 0;
  while (G < P && partitions(G + 1, s->Y) <= s->budget * 3 / 4) G++;
  const double total = (double)s->off[s->L];
  size_t prev = 0, k = 1;
  for (size_t j = 1; j <= P && k <= G; j++) {
    const double done = (double)(s->off[s->L] - s->off[s->L - j]);
    if (done >= total * (double)k / (double)(G + 1) && j > prev) {
      s->grid[s->G++] = prev = j;
      while (k <= G && done >= total * (double)k / (double)(G + 1)) k++;
    }
  }
}

/* Phase 1's list: for y = 1 .. Y, every choice of y - 1 grid positions, in
 * lexicographic order. */
static void make_candidates(scheduler *s) {
  s->ncand = partitions(s->G, s->Y);
  s->cand = calloc(s->ncand ? s->ncand : 1, sizeof *s->cand);
  size_t n = 0, ix[MAX_CUTS];
  for (size_t y = 1; y <= s->Y && y - 1 <= s->G; y++) {
    const size_t m = y - 1;
    for (size_t j = 0; j < m; j++) ix[j] = j;
    for (;;) {
      probe *c = &s->cand[n++];
      c->ncuts = m;
      for (size_t j = 0; j < m; j++) c->cuts[j] = s->grid[ix[j]];
      size_t j = m;
      while (j > 0 && ix[j - 1] == s->G - m + j - 1) j--;
      if (j == 0) break;
      ix[j - 1]++;
      for (size_t t = j; t < m; t++) ix[t] = ix[t - 1] + 1;
    }
  }
  s->ncand = n;
}

/* Phase 2, cut i: search it strictly between the grid positions around it
 * (and its neighbours). */
static void refine_bounds(scheduler *s) {
  const size_t c = s->cuts[s->i];
  size_t below = 0, above = s->L;
  for (size_t g = 0; g < s->G; g++) {
    if (s->grid[g] < c) below = s->grid[g];
    if (s->grid[g] > c && above == s->L) above = s->grid[g];
  }
  s->lo = below + 1;
  s->hi = above - 1;
  if (s->i > 0 && s->lo <= s->cuts[s->i - 1]) s->lo = s->cuts[s->i - 1] + 1;
  if (s->i + 1 < s->ncuts && s->hi >= s->cuts[s->i + 1]) s->hi = s->cuts[s->i + 1] - 1;
}

static void finish(scheduler *s) {
  const probe *best = fastest(s);
  if (best) set_plan(s, best->cuts, best->ncuts);
  s->done = 1;
}

/* Advance the search until it needs an iteration it has not measured (the
 * plan becomes that probe) or it is finished (the plan is the fastest
 * partition measured). */
static void advance(scheduler *s) {
  size_t c[MAX_CUTS];
  while (!s->done) {
    if (s->phase == 1) {
      for (; s->next < s->ncand; s->next++)
        if (!memo(s, s->cand[s->next].cuts, s->cand[s->next].ncuts)) {
          set_plan(s, s->cand[s->next].cuts, s->cand[s->next].ncuts);
          return;
        }
      const probe *best = fastest(s);
      if (s->exhaustive || !best || best->ncuts == 0) {
        finish(s);
        return;
      }
      s->phase = 2;
      s->ncuts = best->ncuts;
      memcpy(s->cuts, best->cuts, s->ncuts * sizeof *s->cuts);
      s->i = 0;
      refine_bounds(s);
      continue;
    }
    if (s->lo >= s->hi) { /* cut i found: the faster of what was measured around it */
      if (s->lo == s->hi) {
        memcpy(c, s->cuts, s->ncuts * sizeof *c);
        c[s->i] = s->lo;
        const probe *a = memo(s, c, s->ncuts), *now = memo(s, s->cuts, s->ncuts);
        if (a && (!now || a->time < now->time)) s->cuts[s->i] = s->lo;
      }
      if (++s->i == s->ncuts) {
        finish(s);
        return;
      }
      refine_bounds(s);
      continue;
    }
    const size_t mid = s->lo + (s->hi - s->lo) / 2;
    memcpy(c, s->cuts, s->ncuts * sizeof *c);
    c[s->i] = mid;
    const probe *a = memo(s, c, s->ncuts);
    c[s->i] = mid + 1;
    const probe *b = memo(s, c, s->ncuts);
    if (a && b) {
      if (a->time <= b->time) s->hi = mid;
      else s->lo = mid + 1;
      continue;
    }
    if (s->nlog >= s->budget) { /* the budget is spent: keep the fastest measured */
      finish(s);
      return;
    }
    c[s->i] = a ? mid + 1 : mid; /* measure the missing one next */
    set_plan(s, c, s->ncuts);
    return;
  }
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
  case SCHED_FIXED:
    for (int k = 0; k < e->schedule.ncuts; k++) cuts[n++] = (size_t)e->schedule.cuts[k];
    break;
  case SCHED_MERGECOMP: {
    s->mergecomp = 1;
    s->Y = (size_t)e->schedule.groups;
    if (s->Y > s->L) s->Y = s->L;
    if (s->Y > MAX_CUTS + 1) s->Y = MAX_CUTS + 1;
    s->budget = (size_t)e->schedule.probes;
    make_grid(s);
    make_candidates(s);
    s->phase = 1;
    free(cuts);
    cuts = NULL; /* the search's plan */
    advance(s);
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
  free(s->grid);
  free(s->cand);
  free(s);
}

const sched_plan *sched_plan_now(const scheduler *s) { return &s->plan; }

int sched_waits(const scheduler *s) { return s->mergecomp && !s->done; }

int sched_observe(scheduler *s, double t) {
  if (!s->mergecomp || s->done) return 0;
  size_t c[MAX_CUTS] = {0}, nc = s->plan.nb - 1;
  for (size_t k = 0; k < nc; k++) c[k] = s->plan.b[k].l1;
  if (memo(s, c, nc)) return 0;
  if (s->nlog == s->caplog) {
    const size_t cap = s->caplog ? 2 * s->caplog : 16;
    probe *log = realloc(s->log, cap * sizeof *s->log);
    if (!log) return -1;
    s->log = log, s->caplog = cap;
  }
  memset(&s->log[s->nlog], 0, sizeof s->log[s->nlog]);
  s->log[s->nlog].ncuts = nc;
  memcpy(s->log[s->nlog].cuts, c, nc * sizeof *c);
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
    json_object_set_new(r, "probe_budget", json_integer((json_int_t)s->budget));
    json_object_set_new(r, "groups_searched", json_integer((json_int_t)s->Y));
    json_object_set_new(r, "grid_positions", json_integer((json_int_t)s->G));
    json_object_set_new(r, "exhaustive", json_boolean(s->exhaustive));
    const size_t none[1] = {0};
    const probe *best = fastest(s), *one = memo(s, none, 0);
    if (best) {
      json_t *cuts = json_array();
      for (size_t i = 0; i < best->ncuts; i++) json_array_append_new(cuts, json_integer((json_int_t)best->cuts[i]));
      json_object_set_new(r, "best_cuts", cuts);
      json_object_set_new(r, "best_groups", json_integer((json_int_t)best->ncuts + 1));
      json_object_set_new(r, "best_time_s", json_real(best->time));
    }
    /* the y = 1 probe: one buffer, what the partition is measured against */
    if (one) json_object_set_new(r, "single_time_s", json_real(one->time));
    json_t *log = json_array();
    for (size_t k = 0; k < s->nlog; k++) {
      json_t *cuts = json_array();
      for (size_t i = 0; i < s->log[k].ncuts; i++) json_array_append_new(cuts, json_integer((json_int_t)s->log[k].cuts[i]));
      json_array_append_new(log, json_pack("{s:o,s:f}", "cuts", cuts, "iteration_time_s", s->log[k].time));
    }
    json_object_set_new(r, "log", log);
  }
  return r;
}
