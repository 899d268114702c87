/* src/engine/timing_fast_routes.c — what the analytical timing path asks
 * of SimGrid (docs/engine.md, "The analytical path"), all before its replay
 * starts: whether it covers the setup, the model's options, the hosts'
 * speeds and cores, and, for every pair of hosts the trace sends between,
 * the route as network_cm02.cpp prices it.  The replay (timing_fast.c) then
 * runs on these alone, without SimGrid. */
#include <math.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/config.h>
#include <xbt/dynar.h>

#include "engine/timing_fast.h"
#include "engine/timing_fast_state.h"

int engine_fast_supported(const char *model, int crosstraffic, int latency_free, char *const *cfg, int ncfg,
                          const char *platform) {
  /* CM02 and LV08 are the same code with other factors; SMPI's factors
   * depend on sizes, IB, Constant, ns-3 are other models */
  if (strcmp(model, "CM02") && strcmp(model, "LV08")) return 0;
  if (crosstraffic || latency_free) return 0;
  for (int i = 0; i < ncfg; i++)
    if (strncmp(cfg[i], "--log=", 6)) return 0; /* any SimGrid option: not verified, SimGrid times it */
  /* Wi-Fi links are priced per host: not this path */
  FILE *f = fopen(platform, "r");
  if (!f) return 0;
  char buf[8192 + 4];
  size_t n, keep = 0; /* the last 3 bytes of a chunk open the next: a word across two is found */
  int wifi = 0;
  while (!wifi && (n = fread(buf + keep, 1, 8192, f)) > 0) {
    buf[keep + n] = 0;
    wifi = strstr(buf, "WIFI") != NULL;
    const size_t len = keep + n, k = len < 3 ? len : 3;
    memmove(buf, buf + len - k, k);
    keep = k;
  }
  fclose(f);
  return !wifi;
}

/* SimGrid's options, as the zygote's SimGrid holds them. */
static int read_factors(void) {
  if (sg_cfg_get_boolean("network/crosstraffic")) return -1;
  F.latf = sg_cfg_get_double("network/latency-factor");
  F.bwf = sg_cfg_get_double("network/bandwidth-factor");
  F.ws = sg_cfg_get_double("network/weight-S");
  F.gamma = sg_cfg_get_double("network/TCP-gamma");
  if (!(F.latf > 0) || !(F.bwf > 0) || !(F.ws >= 0) || !(F.gamma > 0)) return -1;
  if (sg_cfg_get_double("surf/precision") != FAST_PRECISION) return -1;
  return 0;
}

/* The dense id of link l. */
static long link_of(void *l) {
  if (2 * (F.lused + 1) > F.lcap) {
    const size_t nc = F.lcap ? 2 * F.lcap : 256;
    void **nl = calloc(nc, sizeof *nl);
    uint32_t *ni = calloc(nc, sizeof *ni);
    /* grown last: a failure of the others leaves F.link_busy as it was */
    uint32_t *nb = nl && ni ? realloc(F.link_busy, nc / 2 * sizeof *nb) : NULL;
    if (!nl || !ni || !nb) return free(nl), free(ni), -1;
    F.link_busy = nb;
    for (size_t i = 0; i < F.lcap; i++)
      if (F.links[i]) {
        size_t j = fast_mix((uintptr_t)F.links[i]) & (nc - 1);
        while (nl[j]) j = (j + 1) & (nc - 1);
        nl[j] = F.links[i], ni[j] = F.link_id[i];
      }
    free(F.links), free(F.link_id);
    F.links = nl, F.link_id = ni, F.lcap = nc;
  }
  size_t j = fast_mix((uintptr_t)l) & (F.lcap - 1);
  while (F.links[j] && F.links[j] != l) j = (j + 1) & (F.lcap - 1);
  if (!F.links[j]) F.links[j] = l, F.link_id[j] = (uint32_t)F.lused, F.link_busy[F.lused++] = 0;
  return F.link_id[j];
}

/* The route from host a to host b, as network_cm02.cpp prices it; -1 out of
 * memory, -2 a route the path does not cover (empty, no latency, one host).
 * Asks SimGrid for a pair not yet known: only fast_prepare calls it, for
 * every pair the trace sends on, so that the replay itself (fast_play,
 * route_find) never calls SimGrid. */
static long route_of(uint32_t a, uint32_t b) {
  const uint64_t key = ((uint64_t)a << 32 | b) + 1;
  if (2 * (F.rused + 1) > F.rcap) { /* the table of slots doubles; the routes stay where they are */
    const size_t nc = F.rcap ? 2 * F.rcap : 1024;
    rslot *n = calloc(nc, sizeof *n);
    if (!n) return -1;
    for (size_t i = 0; i < F.rcap; i++)
      if (F.rslots[i].key) {
        size_t j = fast_mix(F.rslots[i].key) & (nc - 1);
        while (n[j].key) j = (j + 1) & (nc - 1);
        n[j] = F.rslots[i];
      }
    free(F.rslots);
    F.rslots = n, F.rcap = nc;
  }
  size_t j = fast_mix(key) & (F.rcap - 1);
  while (F.rslots[j].key && F.rslots[j].key != key) j = (j + 1) & (F.rcap - 1);
  if (F.rslots[j].key) return F.routes[F.rslots[j].idx].nl ? (long)F.rslots[j].idx : -2;
  if (engine_grow((void **)&F.routes, &F.rdcap, F.rused + 1, sizeof *F.routes)) return -1;
  F.rslots[j].key = key, F.rslots[j].idx = (uint32_t)F.rused;
  const long idx = (long)F.rused++;
  froute *r = &F.routes[idx];
  memset(r, 0, sizeof *r);
  r->key = key;
  if (a == b) return -2; /* the loopback: not covered */
  xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
  sg_host_get_route(F.host[a], F.host[b], d);
  const unsigned long n = xbt_dynar_length(d);
  const double lat = sg_host_get_route_latency(F.host[a], F.host[b]);
  if (!n || !(lat > 0) || engine_grow((void **)&F.lk, &F.lkcap, F.nlk + n, sizeof *F.lk)) {
    xbt_dynar_free(&d);
    return n && lat > 0 ? -1 : -2;
  }
  /* communicate(): penalty = latency (+ weight-S / bw of each link, in order) */
  double p = lat, bw = -1.0;
  r->l0 = (uint32_t)F.nlk;
  for (unsigned long i = 0; i < n; i++) {
    const double lb = sg_link_get_bandwidth(xbt_dynar_get_as(d, i, sg_link_t));
    if (F.ws > 0) p = p + F.ws / lb;
    if (bw == -1.0 || lb < bw) bw = lb;
  }
  /* maxmin_solve for a variable alone on its constraints (weight 1.0, each
   * bound by its link's bandwidth): it is fixed by the constraint of least
   * remaining / usage */
  const double usage = 1.0 / p;
  double rmin = -1;
  for (unsigned long i = 0; i < n; i++) {
    sg_link_t l = xbt_dynar_get_as(d, i, sg_link_t);
    const double ratio = sg_link_get_bandwidth(l) / usage;
    if (rmin < 0 || ratio < rmin) rmin = ratio;
    const long id = link_of(l);
    if (id < 0) return xbt_dynar_free(&d), -1;
    F.lk[F.nlk++] = (uint32_t)id;
  }
  xbt_dynar_free(&d);
  /* comm_action_set_variable: the bound, the TCP window's included */
  const double bound = fmin(bw, F.gamma / (2.0 * lat));
  r->nl = (uint32_t)n, r->lat = lat, r->penalty = p, r->bound = bound;
  r->value = bound > 0 && bound * p < rmin ? bound : rmin / p;
  return idx;
}

/* Everything the replay asks of SimGrid, asked before it: the model's
 * options, the hosts' speeds and cores, and the route of every pair the
 * trace sends on.  0, 1 (gave up), -1 (out of memory). */
static int fast_prepare(const sim_trace *t, const char *const *hosts, size_t nhosts) {
  if (read_factors()) return fast_give_up("a SimGrid option it does not cover");
  engine_seal_platform(); /* a zone's routes may be completed only then */
  F.t = t;
  F.host = calloc(nhosts + 1, sizeof *F.host);
  F.speed = calloc(nhosts + 1, sizeof *F.speed);
  F.cores = calloc(nhosts + 1, sizeof *F.cores);
  F.hx = calloc(nhosts + 1, sizeof *F.hx);
  F.dirty = calloc(nhosts + 1, sizeof *F.dirty);
  F.nhosts = nhosts;
  F.acts = calloc(t->nactors + 1, sizeof *F.acts);
  F.ready = calloc(t->nactors + 1, sizeof *F.ready);
  F.sem = calloc(t->nsems + 1, sizeof *F.sem);
  F.semq = calloc(t->nsems + 1, sizeof *F.semq);
  F.semown = calloc(t->nsems + 1, sizeof *F.semown);
  if (!F.host || !F.speed || !F.cores || !F.hx || !F.dirty || !F.acts || !F.ready || !F.sem || !F.semq || !F.semown) return -1;
  for (size_t h = 0; h < nhosts; h++) {
    F.host[h] = sg_host_by_name(hosts[h]);
    F.speed[h] = sg_host_get_speed(F.host[h]);
    F.cores[h] = (double)sg_host_core_count(F.host[h]);
  }
  for (size_t i = 0; i < t->nactors; i++)
    if ((size_t)t->actors[i].host >= nhosts) return fast_give_up("an actor on no host");
  /* the routes, in the order the actors' traces name them (the replay
   * takes them from the table: the same numbers in any order) */
  for (size_t i = 0; i < t->nactors; i++) {
    sim_cursor cur = {0};
    sim_op o;
    uint32_t last = UINT32_MAX;
    while (sim_trace_next(&t->actors[i], &cur, &o)) {
      if (o.kind != SIM_SEND || o.peer == last || o.peer >= nhosts) continue;
      last = o.peer;
      if (route_of((uint32_t)t->actors[i].host, o.peer) == -1) return -1;
    }
  }
  return 0;
}

int engine_fast_prepare(const sim_trace *t, const char *const *hosts, size_t nhosts) {
  const int rc = fast_prepare(t, hosts, nhosts);
  if (rc) fast_free();
  return rc;
}

