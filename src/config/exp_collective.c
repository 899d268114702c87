/* src/config/exp_collective.c — the "collective" section: the algorithm, its
 * parameters, and the checks that tie it to the compressor and the worker
 * count. */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "collectives/program.h"
#include "datapath.h"
#include "suggest.h"

static int coll_param_key(const char *key, const void *arg) {
  const collective_type *t = arg;
  for (size_t i = 0; i < t->nparams; i++)
    if (!strcmp(t->params[i].name, key)) return 1;
  return 0;
}

/* {"program": FILE}: a collective program (docs/programs.md), relative to
 * the experiment file, or a shipped one by name ("ring" or "ring.json" in
 * workloads/collectives). */
static int read_program(cfg_reader *rd, experiment *e, json_t *c, const collective_type **t) {
  const char *f;
  int rc;
  if (json_object_get(c, "name"))
    return cfg_fail(rd, "collective", "give \"name\" (a built-in collective) or \"program\" (a file), not both");
  if ((rc = cfg_string(rd, c, "collective", "program", NULL, &f))) return rc;
  char *path = exp_resolve(e, f), shipped[4096];
  if (access(path, R_OK) != 0 && f[0] != '/' && !strchr(f, '/')) {
    char name[512];
    const size_t l = strlen(f);
    snprintf(name, sizeof name, "%s%s", f, l > 5 && !strcmp(f + l - 5, ".json") ? "" : ".json");
    if (datapath_file(DATA_COLLECTIVES, name, shipped, sizeof shipped) == 0) {
      free(path);
      path = strdup(shipped);
    }
  }
  if (!path || access(path, R_OK) != 0) {
    rc = cfg_fail(rd, "collective.program", "cannot read the collective program \"%s\" (%s: %s; a "
                  "shipped one is named without a path: ring, tree, rhd, torus2d, hierarchical)",
                  f, path ? path : f, strerror(errno));
    free(path);
    return rc;
  }
  char err[1024];
  *t = program_load(path, err, sizeof err);
  /* the program's content is part of the experiment's hash (provenance) */
  if (*t) rc = experiment_add_input(e, "collective program", path, "collective.program", rd->err);
  free(path);
  if (!*t) return cfg_fail(rd, "collective.program", "%s", err);
  return rc;
}

/* "collective": "NAME" or {"name": NAME, PARAM: value, ...} or {"program":
 * FILE, PARAM: value, ...}; written back as a plain name when the
 * collective has no parameters. */
int exp_collective(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  if (!json_object_get(root, "collective"))
    json_object_set_new(root, "collective", json_pack("{s:s}", "name", "allreduce/ring"));
  json_t *c = cfg_object(rd, root, "", "collective", &rc);
  if (!c) return rc;
  const int is_program = json_object_get(c, "program") != NULL;
  if (is_program) {
    if ((rc = read_program(rd, e, c, &e->collective))) return rc;
  } else {
    const char *name;
    if ((rc = cfg_string(rd, c, "collective", "name", "allreduce/ring", &name))) return rc;
    e->collective = collective_find(name);
    if (!e->collective) {
      char hint[96];
      return cfg_fail(rd, "collective.name", "unknown collective \"%s\" (%sknown: %s)", name,
                      suggest_hint(name, NULL, collective_names(), hint, sizeof hint), collective_names());
    }
  }
  const collective_type *t = e->collective;
  static const char *const known_name[] = {"name", NULL}, *const known_prog[] = {"program", NULL};
  const char *const *known = is_program ? known_prog : known_name;
  char pnames[512] = "";
  for (size_t i = 0; i < t->nparams; i++) {
    if (i) strncat(pnames, ", ", sizeof pnames - strlen(pnames) - 1);
    strncat(pnames, t->params[i].name, sizeof pnames - strlen(pnames) - 1);
  }
  if ((rc = cfg_keys(rd, c, "collective", known, coll_param_key, t, pnames[0] ? pnames : NULL)))
    return rc;
  if ((rc = exp_params(rd, c, "collective", t->name, t->params, t->nparams, e->coll_params)))
    return rc;
  /* allreduce/hierarchical: node_size 0 means the platform's GPUs per node */
  for (size_t i = 0; i < t->nparams; i++)
    if (!strcmp(t->params[i].name, "node_size") && e->coll_params[i] == 0 &&
        e->platform.gpus_per_node > 1) {
      e->coll_params[i] = e->platform.gpus_per_node;
      json_object_set_new(c, "node_size", json_integer(e->platform.gpus_per_node));
    }
  if (t->nparams == 0 && !is_program) json_object_set_new(root, "collective", json_string(t->name));

  if ((t->requires & COLL_NEEDS_SUMMABLE) && !(e->compressor->flags & CCOMP_SUMMABLE) &&
      e->compressor->phases < 2) {
    char summable[1024] = "";
    size_t count;
    const ccomp_type *const *reg = ccomp_registry(&count);
    for (size_t i = 0; i < count; i++)
      if (reg[i]->flags & CCOMP_SUMMABLE) {
        if (summable[0]) strncat(summable, ", ", sizeof summable - strlen(summable) - 1);
        strncat(summable, reg[i]->name, sizeof summable - strlen(summable) - 1);
      }
    char others[512] = "";
    const collective_type *const *creg = collective_registry(&count);
    for (size_t i = 0; i < count; i++)
      if (!(creg[i]->requires & COLL_NEEDS_SUMMABLE)) {
        if (others[0]) strncat(others, ", ", sizeof others - strlen(others) - 1);
        strncat(others, creg[i]->name, sizeof others - strlen(others) - 1);
      }
    return cfg_fail(rd, "collective",
                "%s combines payloads hop by hop and needs a summable compressor, but \"%s\" is "
                "not summable; use a summable compressor (%s)%s%s",
                t->name, e->compressor->name, summable,
                others[0] ? " or a collective that takes any: " : "", others);
  }
  if (e->compressor->phases >= 2 && e->memory)
    return cfg_fail(rd, "compressor.memory",
                "\"%s\" keeps its own error feedback across its rounds; set memory to \"none\"",
                e->compressor->name);
  ccsim_error cerr; /* the check's text, located once: the file and the path */
  if (t->check && t->check(e->workers, e->coll_params, &cerr))
    return cfg_fail(rd, "collective", "%s", cerr.text);
  /* a program: run every rank's steps symbolically for this worker count */
  char perr[2048];
  if (program_validate(t, e->workers, e->coll_params, perr, sizeof perr))
    return cfg_fail(rd, "collective.program", "%s", perr);
  return 0;
}
