/* src/config/exp_platform.c — the "platform" section: a SimGrid platform file,
 * or one of the registered generators (src/platforms/registry.c) with its
 * keys, read through the generator's descriptor (platforms/generator.h):
 * their types, defaults and bounds are the generator's, their reading and
 * the messages are here (platforms/README.md). */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>

#include "datapath.h"
#include "platform.h"
#include "platforms/check.h"
#include "platforms/generator.h"
#include "suggest.h"

/* Key k of generator g from the "platform" object p into e, by its type
 * (platforms/generator.h); the default, when the key is missing, is
 * written back into p, so the resolved experiment shows it. */
static int read_key(cfg_reader *rd, experiment *e, json_t *p, const platform_generator *g, const pgen_key *k) {
  char *base = k->common ? (char *)e : (char *)e->platform.params, *at = base + k->off;
  long long x;
  int rc = 0;
  switch (k->type) {
  case PGEN_INT:
    rc = cfg_int(rd, p, "platform", k->name, !k->def, k->def ? strtoll(k->def, NULL, 10) : 0, (long long)k->min,
                 (long long)k->max, &x);
    if (!rc) *(int *)at = (int)x;
    return rc;
  case PGEN_INTS:
    return cfg_int_array(rd, p, "platform", k->name, k->def ? json_loads(k->def, 0, NULL) : NULL,
                         (long long)k->min, (long long)k->max, k->maxlen, k->example, (int *)at,
                         (int *)(base + k->len_off));
  case PGEN_REAL:
    return cfg_real(rd, p, "platform", k->name, k->def ? strtod(k->def, NULL) : CFG_REQUIRED, k->min, k->max,
                    (double *)at);
  case PGEN_BANDWIDTH:
  case PGEN_TIME:
    return cfg_unit(rd, p, "platform", k->name, k->def, k->type == PGEN_TIME ? CFG_TIME : CFG_BANDWIDTH,
                    (double *)at);
  case PGEN_CHOICE: {
    const char *v;
    char path[64];
    cfg_join(path, sizeof path, "platform", k->name);
    if ((rc = cfg_string(rd, p, "platform", k->name, k->def, &v))) return rc;
    return cfg_one_of(rd, path, v, k->choices, (int *)at);
  }
  case PGEN_CUSTOM:
    return g->read_key(rd, e, p, k);
  }
  return cfg_fail(rd, "platform", "generator %s: key %s has no type", g->name, k->name); /* not reached */
}

/* A generated platform: the generator's parameters (zeroed), every key of
 * generator g in its order, its checks, then the host count its keys give,
 * which must hold the workers. */
static int read_generated(cfg_reader *rd, experiment *e, json_t *p, const platform_generator *g) {
  int rc;
  if (!(e->platform.params = calloc(1, g->params_size ? g->params_size : 1)))
    return cfg_oom(rd, "platform");
  for (const pgen_key *k = g->keys; k->name; k++)
    if ((rc = read_key(rd, e, p, g, k))) return rc;
  if (g->finish && (rc = g->finish(rd, e, p))) return rc;
  char formula[256];
  long long hosts = g->hosts(e, MAX_HOSTS);
  g->formula(e, formula, sizeof formula);
  if (hosts < 0)
    return cfg_fail(rd, "platform", "the %s would have more than %d hosts (%s)", g->name, MAX_HOSTS, formula);
  e->platform.hosts = (int)hosts;
  if (hosts < e->workers)
    return cfg_fail(rd, "workers", "%d workers but the %s platform has %lld hosts (%s)", e->workers, g->name, hosts,
                    formula);
  return 0;
}

/* e->platform.file for "file": f: relative to the experiment (or absolute);
 * else, when that is not there, a shipped platform (datapath.h) by its name
 * ("dgx1-4x8" or "dgx1-4x8.xml") or by its source-tree path
 * ("platforms/dgx1-4x8.xml").  A plain name found nowhere is refused here,
 * naming the shipped ones and the closest; a path is left to the caller's
 * checks. */
static int shipped_or_relative(cfg_reader *rd, experiment *e, const char *f) {
  e->platform.file = exp_resolve(e, f);
  if (f[0] == '/' || access(e->platform.file, F_OK) == 0) return 0;
  char found[4096], name[512];
  data_kind kind;
  const char *rel;
  const int plain = !strchr(f, '/');
  if (plain) snprintf(name, sizeof name, "%s", f);
  else if (datapath_classify(f, &kind, &rel) == 0 && kind == DATA_PLATFORMS) snprintf(name, sizeof name, "%s", rel);
  else return 0;
  const size_t l = strlen(name);
  for (int xml = 0; xml < 2; xml++) {
    if (xml && l + 4 < sizeof name) strcat(name, ".xml");
    else if (xml) break;
    if (datapath_file(DATA_PLATFORMS, name, found, sizeof found) == 0) {
      free(e->platform.file);
      e->platform.file = strdup(found);
      return 0;
    }
  }
  if (!plain) return 0;
  /* the names of the shipped platforms, without .xml, for the message */
  char dir[4096], list[1024] = "", hint[96];
  struct dirent **des = NULL;
  int nd = datapath_dir(DATA_PLATFORMS, dir, sizeof dir) == 0 ? scandir(dir, &des, NULL, alphasort) : 0;
  for (int i = 0; i < nd; i++) {
    const char *dn = des[i]->d_name;
    size_t n = strlen(dn);
    if (n > 4 && !strcmp(dn + n - 4, ".xml") && dn[0] != '.') {
      if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
      strncat(list, dn, n - 4 < sizeof list - strlen(list) - 1 ? n - 4 : sizeof list - strlen(list) - 1);
    }
    free(des[i]);
  }
  free(des);
  name[l] = 0;
  const char *bare = name;
  if (l > 4 && !strcmp(name + l - 4, ".xml")) name[l - 4] = 0;
  return cfg_fail(rd, "platform.file", "\"%s\" is neither a file next to the experiment (%s) nor a shipped platform "
                  "(%sshipped: %s)", f, e->platform.file, suggest_hint(bare, NULL, list, hint, sizeof hint),
                  list[0] ? list : "none found");
}

int exp_platform(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *p = cfg_object(rd, root, "", "platform", &rc);
  if (!p) return rc;
  /* The fields of every generator are known here; which apply is checked
   * once the generator is known. */
  static const char *const common[] = {"file", "generate", "network_model", "crosstraffic", NULL};
  static const char *const file_fields[] = {"file", "network_model", "crosstraffic", "gpus_per_node", NULL};
  const char *known[128];
  int nk = 0;
  size_t ngen;
  const platform_generator *const *gens = platform_generators(&ngen);
  for (const char *const *k = file_fields; *k; k++) known[nk++] = *k;
  known[nk++] = "generate";
  for (size_t i = 0; i < ngen; i++)
    for (const pgen_key *k = gens[i]->keys; k->name; k++)
      if (nk < 127) {
        known[nk] = NULL;
        if (!cfg_in_list(known, k->name)) known[nk++] = k->name;
      }
  known[nk] = NULL;
  if ((rc = cfg_keys(rd, p, "platform", known, NULL, NULL, NULL))) return rc;
  json_t *file = json_object_get(p, "file");
  json_t *gen = json_object_get(p, "generate");
  if (file && gen) return cfg_fail(rd, "platform", "give either \"file\" or \"generate\", not both");
  if (!file && !gen) json_object_set_new(p, "generate", json_string("crossbar"));
  e->platform.gpus_per_node = 1;
  const char *key;
  json_t *value;
  char path[64];
  if (file) {
    const char *f;
    if ((rc = cfg_string(rd, p, "platform", "file", NULL, &f))) return rc;
    json_object_foreach(p, key, value) {
      if (!cfg_in_list(file_fields, key)) {
        cfg_join(path, sizeof path, "platform", key);
        return cfg_fail(rd, path, "only for generated platforms; a platform file sets its own");
      }
    }
    if ((rc = shipped_or_relative(rd, e, f))) return rc;
    ccsim_error why; /* a FIFO or a device is refused without blocking */
    size_t size = 0;
    int fd = cfg_open_regular(e->platform.file, "platform file", &size, &why);
    if (fd < 0) return cfg_fail(rd, "platform.file", "\"%s\": %s", e->platform.file, why.text);
    close(fd);
    /* a kernel pseudo-file (/proc/self/mem, /sys/...) says 0 bytes, as an
     * empty file does: neither is a platform */
    if (size == 0)
      return cfg_fail(rd, "platform.file", "\"%s\": is empty (or a kernel pseudo-file); expected a SimGrid "
                      "platform XML file", e->platform.file);
    if ((rc = experiment_add_input(e, "platform file", e->platform.file, "platform.file", rd->err))) return rc;
    /* gpus_per_node: the experiment's, else the file's property, else 1 */
    if (json_object_get(p, "gpus_per_node")) {
      long long g;
      if ((rc = cfg_int(rd, p, "platform", "gpus_per_node", 1, 0, 1, MAX_HOSTS, &g))) return rc;
      e->platform.gpus_per_node = (int)g;
    } else {
      platform_file_describe(e->platform.file, NULL, 0, NULL, &e->platform.gpus_per_node);
      if (e->platform.gpus_per_node < 1) e->platform.gpus_per_node = 1;
    }
  } else {
    const char *g;
    if ((rc = cfg_string(rd, p, "platform", "generate", "crossbar", &g))) return rc;
    const platform_generator *gen = platform_generator_find(g);
    if (!gen) {
      const char *names[33];
      size_t i;
      for (i = 0; i < ngen && i < 32; i++) names[i] = gens[i]->name;
      names[i] = NULL;
      int gi;
      return cfg_one_of(rd, "platform.generate", g, names, &gi);
    }
    if (!(e->platform.generate = strdup(g))) return cfg_oom(rd, "platform.generate");
    json_object_foreach(p, key, value) {
      if (cfg_in_list(common, key)) continue;
      const pgen_key *k = gen->keys;
      while (k->name && strcmp(k->name, key)) k++;
      if (k->name) continue;
      char list[512] = "";
      for (k = gen->keys; k->name; k++) {
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, k->name, sizeof list - strlen(list) - 1);
      }
      cfg_join(path, sizeof path, "platform", key);
      return cfg_fail(rd, path, "not a field of \"generate\": \"%s\" (its fields: %s)", g, list);
    }
    if ((rc = read_generated(rd, e, p, gen))) return rc;
  }
  /* CM02 without cross-traffic is SimGrid's max-min fluid model with pure
   * latency + size/bandwidth transfers: what the alpha-beta formulas of the
   * collective literature assume.  LV08 (SimGrid's default) models TCP. */
  static const char *const models[] = {"CM02", "LV08", "SMPI", "Constant", "IB", NULL};
  const char *model;
  int mi;
  if ((rc = cfg_string(rd, p, "platform", "network_model", "CM02", &model))) return rc;
  if ((rc = cfg_one_of(rd, "platform.network_model", model, models, &mi))) return rc;
  if (!(e->platform.network_model = strdup(model))) return cfg_oom(rd, "platform.network_model");
  if ((rc = cfg_bool(rd, p, "platform", "crosstraffic", 0, &e->platform.crosstraffic))) return rc;
  return 0;
}
