/* src/cli/list.c — `ccsim list WHAT`: what an experiment may name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "collectives/collective.h"
#include "ccomp/compressor.h"
#include "datapath.h"
#include "timemodel/device.h"
#include "timemodel/measured.h"
#include "ccomp/memory.h"
#include "platform.h"
#include "timemodel/profile.h"
#include "data/source.h"
#include "suggest.h"

/* "name=default ..." for a parameter table, each default written as the
 * experiment takes it: booleans true/false, integers as integers. */
static void params_text(const ccomp_param *params, size_t n, char *out, size_t len) {
  out[0] = 0;
  for (size_t k = 0; k < n; k++) {
    const ccomp_param *p = &params[k];
    char one[128];
    char name[64] = "";
    if (p->kind == CCOMP_CHOICE && ccomp_param_choice_name(p, (size_t)p->def, name, sizeof name) == 0)
      snprintf(one, sizeof one, "%s=\"%s\"", p->name, name); /* as the input writes it */
    else if (p->kind == CCOMP_BOOL)
      snprintf(one, sizeof one, "%s=%s", p->name, p->def != 0 ? "true" : "false");
    else if (p->kind == CCOMP_INT)
      snprintf(one, sizeof one, "%s=%lld", p->name, (long long)p->def);
    else
      snprintf(one, sizeof one, "%s=%.10g", p->name, p->def);
    size_t used = strlen(out);
    snprintf(out + used, len - used, "%s%s", used ? " " : "", one);
  }
  if (!out[0]) snprintf(out, len, "(no parameters)");
}

static int list_compressors(void) {
  size_t count;
  const ccomp_type *const *reg = ccomp_registry(&count);
  for (size_t i = 0; i < count; i++) {
    const ccomp_type *t = reg[i];
    char params[512];
    params_text(t->params, t->nparams, params, sizeof params);
    printf("%-14s %-12s %-40s %s\n", t->name, (t->flags & CCOMP_SUMMABLE) ? "summable" : "-",
           params, t->summary);
  }
  return 0;
}

static int list_memories(void) {
  size_t count;
  const ccomp_memory_type *const *reg = ccomp_memory_registry(&count);
  printf("%-14s %-40s %s\n", "none", "(no parameters)", "no error feedback");
  for (size_t i = 0; i < count; i++) {
    char params[512];
    params_text(reg[i]->params, reg[i]->nparams, params, sizeof params);
    printf("%-14s %-40s %s\n", reg[i]->name, params, reg[i]->summary);
  }
  return 0;
}

static int list_collectives(void) {
  size_t count;
  const collective_type *const *reg = collective_registry(&count);
  for (size_t i = 0; i < count; i++) {
    char params[512];
    params_text(reg[i]->params, reg[i]->nparams, params, sizeof params);
    printf("%-26s %-15s %-28s %s\n", reg[i]->name,
           (reg[i]->requires & COLL_NEEDS_SUMMABLE) ? "needs summable" : "any compressor", params,
           reg[i]->description);
  }
  return 0;
}

static int list_platforms(void) {
  /* the generators, then the shipped platform files (datapath.h) */
  char dir[4096];
  int found = datapath_dir(DATA_PLATFORMS, dir, sizeof dir) == 0;
  if (platform_list(stdout, found ? dir : NULL)) {
    fprintf(stderr, "ccsim list: out of memory for the list of platform files\n");
    return 1;
  }
  if (!found) {
    fprintf(stderr, "ccsim list: no platform directory (tried %s)\n", dir);
    return 1;
  }
  return 0;
}

static int list_models(void) {
  char dir[4096];
  if (datapath_dir(DATA_MODELS, dir, sizeof dir)) {
    fprintf(stderr, "ccsim list: no model profile directory (tried %s)\n", dir);
    return 1;
  }
  profile_list(stdout, dir);
  return 0;
}

static int list_devices(void) {
  device_list(stdout);
  measured_list(stdout, measured_devices_dir()); /* the measured devices, and what they cover */
  return 0;
}

static int list_sources(void) {
  for (const grad_source_type *const *t = grad_sources; *t; t++) {
    char keys[256] = "";
    size_t len = 0;
    for (const char *const *k = (*t)->keys; *k; k++) {
      int w = snprintf(keys + len, sizeof keys - len, "%s%s", len ? "," : "", *k);
      if (w > 0 && (size_t)w < sizeof keys - len) len += (size_t)w;
    }
    if ((*t)->section) snprintf(keys + len, sizeof keys - len, "%s(section \"%s\")", len ? " " : "", (*t)->section);
    printf("%-10s %-34s %s\n", (*t)->name, keys, (*t)->summary);
  }
  return 0;
}

static const struct {
  const char *name;
  int (*fn)(void);
} lists[] = {
  {"compressors", list_compressors}, {"memories", list_memories},
  {"collectives", list_collectives}, {"platforms", list_platforms},
  {"models", list_models},           {"devices", list_devices},
  {"sources", list_sources},
};

/* The lists' names, separated by sep. */
static const char *list_names(const char *sep) {
  static char out[160];
  size_t len = 0;
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    int w = snprintf(out + len, sizeof out - len, "%s%s", i ? sep : "", lists[i].name);
    if (w > 0 && (size_t)w < sizeof out - len) len += (size_t)w;
  }
  return out;
}

static int list_main(const cli_command *self, int argc, char **argv) {
  const char *v;
  int k;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {}
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  int first = cli_optind();
  if (argc - first != 1) return cli_bad(self, "expected one of %s", list_names(", "));
  for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
    if (!strcmp(argv[first], lists[i].name)) return lists[i].fn();
  char hint[96];
  return cli_bad(self, "unknown list \"%s\" (%sknown: %s)", argv[first],
                 suggest_hint(argv[first], NULL, list_names(", "), hint, sizeof hint), list_names(", "));
}

static const cli_option options[] = {{0}};

const cli_command cli_list = {
  .name = "list",
  .synopsis = "compressors|memories|collectives|platforms|models|devices|sources",
  .summary = "list what an experiment may name, with parameters and defaults",
  .description =
    "compressors   every compressor with its parameters and their defaults\n"
    "memories      error-feedback memories (\"memory\" in the experiment)\n"
    "collectives   the collective algorithms and what they need of a compressor\n"
    "platforms     the platform generators and the shipped platform files\n"
    "models        the shipped model profiles (\"model\": {\"profile\": NAME})\n"
    "devices       the devices a compute time model may name\n"
    "sources       the gradient sources (\"gradients\": {\"source\": NAME}) and their keys\n",
  .options = options,
  .example = "ccsim list compressors\n"
             "    # names, parameters with their defaults, one line each",
  .main = list_main,
};
