/* src/engine/engine.c — SimGrid setup: configuration, platform, actors. */
#include "engine/engine.h"

#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/config.h>

static const char **hosts;
static size_t nhosts;
static char model_in_force[128];
/* What engine_init and engine_load_platform were given: the timing
 * executor's zygote, when executed, starts SimGrid again from them (timing_zygote.c). */
static engine_setup setup;

const engine_setup *engine_current_setup(void) { return &setup; }

int engine_init(const char *network_model, int crosstraffic, char *const *cfg, int ncfg,
                int quiet, ccsim_error *err) {
  int argc = 0;
  char **argv = calloc((size_t)ncfg + 10, sizeof *argv);
  if (!argv) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for SimGrid's arguments");
  char model[160], cross[64];
  snprintf(model, sizeof model, "--cfg=network/model:%s", network_model);
  snprintf(cross, sizeof cross, "--cfg=network/crosstraffic:%d", crosstraffic ? 1 : 0);
  argv[argc++] = "ccsim";
  if (quiet) argv[argc++] = "--log=root.thresh:warning";
  argv[argc++] = "--log=xbt_cfg.thresh:warning";
  /* the timing executor's actors only replay a trace: small stacks (SimGrid's
   * default 8 MiB per actor, thousands of actors in a forked child, failed
   * beyond 512 workers) */
  argv[argc++] = "--cfg=contexts/stack-size:256";
  argv[argc++] = model;
  argv[argc++] = cross;
  if (engine_latency_free) argv[argc++] = "--cfg=network/latency-factor:0";
  if (engine_unguarded) argv[argc++] = "--cfg=contexts/guard-size:0";
  for (int i = 0; i < ncfg; i++) argv[argc++] = cfg[i];
  argv[argc] = NULL;
  const int contained = engine_contain("starting");
  /* SimGrid takes SIGINT for itself (a handler that calls exit(1), silent
   * under --quiet): the process keeps its own (src/cli/process.h) */
  struct sigaction keep[3];
  static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; i++) sigaction(sigs[i], NULL, &keep[i]);
  simgrid_init(&argc, argv);
  for (int i = 0; i < 3; i++) sigaction(sigs[i], &keep[i], NULL);
  engine_release(contained);
  free(argv);
  snprintf(setup.network_model, sizeof setup.network_model, "%s", network_model);
  setup.crosstraffic = crosstraffic, setup.quiet = quiet;
  setup.cfg = cfg, setup.ncfg = ncfg;
  /* SimGrid's C API cannot read a setting back: the last --cfg wins. */
  snprintf(model_in_force, sizeof model_in_force, "%s", network_model);
  for (int i = 0; i < ncfg; i++)
    if (!strncmp(cfg[i], "--cfg=network/model:", 20))
      snprintf(model_in_force, sizeof model_in_force, "%s", cfg[i] + 20);
  return CCSIM_OK;
}

/* Natural order: digit runs compare as numbers, so h2 < h10. */
static int natural_cmp(const void *pa, const void *pb) {
  const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      char *ea, *eb;
      unsigned long long va = strtoull(a, &ea, 10), vb = strtoull(b, &eb, 10);
      if (va != vb) return va < vb ? -1 : 1;
      a = ea, b = eb;
    } else {
      if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
      a++, b++;
    }
  }
  return (unsigned char)*a - (unsigned char)*b;
}

int engine_load_platform(const char *file, ccsim_error *err) {
  FILE *f = fopen(file, "r");
  if (!f) { /* out of descriptors or memory is this process's fault, not the file's */
    const int e = errno;
    return ccsim_fail(err, e == EMFILE || e == ENFILE || e == ENOMEM ? CCSIM_ERR_RUNTIME : CCSIM_ERR_INPUT,
                      "%s: cannot open platform file: %s%s", file, strerror(e),
                      e == EMFILE || e == ENFILE ? " (raise the limit on open files: ulimit -n)" : "");
  }
  fclose(f);
  snprintf(setup.platform, sizeof setup.platform, "%s", file);
  const int contained = engine_contain("loading the platform");
  simgrid_load_platform(file);
  sg_host_t *list = sg_host_list();
  nhosts = sg_host_count();
  engine_release(contained);
  free(hosts);
  hosts = calloc(nhosts ? nhosts : 1, sizeof *hosts);
  if (!hosts || (!list && nhosts)) {
    free(list);
    nhosts = 0;
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory for the platform's host list", file);
  }
  for (size_t i = 0; i < nhosts; i++) hosts[i] = sg_host_get_name(list[i]);
  free(list);
  qsort(hosts, nhosts, sizeof *hosts, natural_cmp);
  return CCSIM_OK;
}

const char *const *engine_hosts(size_t *count) {
  *count = nhosts;
  return hosts;
}

const char *engine_network_model(void) { return model_in_force; }

int engine_latency_free;
int engine_unguarded;

void engine_actors_here(void) {
  /* SimGrid calloc's a stack without a guard page: from a fresh map it
   * stays untouched until used; from the heap (ccsim's own process keeps
   * blocks up to 512 MiB there, src/cli/main.c) calloc clears, and so
   * touches, the whole 256 KiB (0.3 GB more at 3000 workers) */
  if (engine_unguarded) mallopt(M_MMAP_THRESHOLD, 128 << 10);
}

static nccl_plan plan = {.model = COMM_IDEAL, .proto = -1, .channels = 1};

const nccl_plan *engine_comm_plan(void) { return &plan; }

int engine_comm_resolve(const nccl_plan *p, ccsim_error *err) {
  plan = *p;
  if (p->model != COMM_NCCL) return CCSIM_OK;
  if ((size_t)p->nnodes * (size_t)p->gpn > nhosts)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "comm: %d workers on nodes of %d GPUs need %d hosts, but the platform has %zu (comm.model "
                      "\"nccl\" takes a node's GPUs as consecutive hosts)",
                      p->nranks, p->gpn, p->nnodes * p->gpn, nhosts);
  /* the classes' nominal rates: two workers of node 0, node 0 to node 1 */
  const int pairs[2][3] = {{0, 1, p->intra_hw}, {0, p->gpn, NCCL_HW_NET}};
  for (int k = 0; k < 2; k++) {
    const int a = pairs[k][0], b = pairs[k][1], hw = pairs[k][2];
    if (k == 0 ? p->gpn < 2 : p->nnodes < 2) continue;
    const double bw = sg_host_get_route_bandwidth(sg_host_by_name(hosts[a]), sg_host_by_name(hosts[b]));
    if (!(bw > 0))
      return ccsim_fail(err, CCSIM_ERR_INPUT, "comm: no route bandwidth from %s to %s (the %s class)", hosts[a],
                        hosts[b], nccl_hw_names[hw]);
    plan.bw[hw] = bw;
    if (plan.eff[hw] < 0) plan.eff[hw] = -plan.eff[hw] / bw; /* a measured rate over the nominal one */
  }
  for (int hw = 0; hw < NCCL_NHW; hw++)
    if (plan.eff[hw] < 0) plan.eff[hw] = nccl_default_efficiency(hw); /* a class the run does not cross */
  return CCSIM_OK;
}
