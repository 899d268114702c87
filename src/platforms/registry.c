/* src/platforms/registry.c — the one table of platform generators: what
 * "platform": {"generate": NAME} selects, what `ccsim list platforms` and
 * tests/platform_golden.sh iterate over.  A new generator is its file
 * (src/platforms/NAME.c exporting a platform_generator) plus its line here
 * (docs/extending.md).  Below the table, the calls of src/platform.h that
 * pass through a generator's descriptor. */
#include <string.h>

#include "outputs/results.h"
#include "platform.h"
#include "platforms/generator.h"

extern const platform_generator pgen_crossbar, pgen_fat_tree, pgen_torus, pgen_dragonfly, pgen_cloud,
    pgen_multigpu, pgen_pcie_server;

static const platform_generator *const registry[] = {
    &pgen_crossbar, &pgen_fat_tree, &pgen_torus,       &pgen_dragonfly,
    &pgen_cloud,    &pgen_multigpu, &pgen_pcie_server,
};

const platform_generator *const *platform_generators(size_t *count) {
  *count = sizeof registry / sizeof registry[0];
  return registry;
}

const platform_generator *platform_generator_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (!strcmp(registry[i]->name, name)) return registry[i];
  return NULL;
}

/* e's generator (e->platform.generate was checked against the registry
 * when the experiment was read), or NULL for a platform file. */
static const platform_generator *generator_of(const experiment *e) {
  return e->platform.generate ? platform_generator_find(e->platform.generate) : NULL;
}

long long platform_host_count(const experiment *e, long long max) {
  const platform_generator *g = generator_of(e);
  return g ? g->hosts(e, max) : -1;
}

void platform_host_formula(const experiment *e, char *out, size_t len) {
  const platform_generator *g = generator_of(e);
  if (g) g->formula(e, out, len);
  else snprintf(out, len, "platform.hosts = %d", e->platform.hosts);
}

void platform_print(FILE *f, const experiment *e) {
  char name[512];
  pgen_comment_safe(name, sizeof name, e->name);
  const platform_generator *g = generator_of(e);
  (g ? g : &pgen_crossbar)->write(f, e, name); /* what "platform": {} means */
}

int platform_write(const experiment *e, const char *dir, const char *name, ccsim_error *err) {
  FILE *f = results_open(dir, name, err);
  if (!f) return err ? err->code : CCSIM_ERR_RUNTIME;
  platform_print(f, e);
  return results_commit(f, dir, name, err);
}

double platform_hop_latency(const experiment *e) {
  const platform_generator *g = generator_of(e);
  return g ? g->hop_latency(e) : 2.0 * e->platform.latency;
}
