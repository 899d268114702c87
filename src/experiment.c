/* src/experiment.c — load, check and resolve an experiment file.
 *
 * Reading walks the JSON once, field by field: each reader names the JSON
 * path it reads, writes the default back into the tree when a field is
 * missing (so the tree becomes the resolved experiment), and reports what it
 * expected when a value is wrong.  Every object's keys are checked against
 * the fields it may hold. */
#include "experiment.h"
#include "gradients.h"
#include "results.h"
#include "datapath.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "device.h"
#include "measured.h"
#include "platform.h"
#include "profile.h"
#include "trace.h"
#include "units.h"

typedef struct reader {
  const char *file;
  ccsim_error *err;
} reader;

static int fail(reader *rd, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(reader *rd, const char *path, const char *fmt, ...) {
  char what[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return ccsim_fail(rd->err, CCSIM_ERR_INPUT, "%s: %s: %s", rd->file, *path ? path : "(top level)",
                    what);
}

static void join(char *out, size_t len, const char *path, const char *key) {
  snprintf(out, len, "%s%s%s", path, *path ? "." : "", key);
}

/* A short rendering of a JSON value for messages. */
static const char *show(const json_t *v, char *buf, size_t len) {
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  if (!s) return "?";
  if (strlen(s) > 60) strcpy(s + 57, "...");
  snprintf(buf, len, "%s", s);
  free(s);
  return buf;
}

static const char *type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  case JSON_NULL: return "null";
  }
  return "a value";
}

/* Every key of obj must be in known[] (NULL-terminated) or, when extra is
 * given, accepted by it. */
static int check_keys(reader *rd, json_t *obj, const char *path, const char *const *known,
                      int (*extra)(const char *key, const void *arg), const void *arg,
                      const char *extra_names) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    int ok = 0;
    for (const char *const *k = known; *k && !ok; k++) ok = strcmp(*k, key) == 0;
    if (!ok && extra) ok = extra(key, arg);
    if (!ok) {
      char list[1024] = "", p[256];
      for (const char *const *k = known; *k; k++) {
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, *k, sizeof list - strlen(list) - 1);
      }
      if (extra_names && *extra_names) {
        strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, extra_names, sizeof list - strlen(list) - 1);
      }
      join(p, sizeof p, path, key);
      return fail(rd, p, "unknown key \"%s\" (known here: %s)", key, list);
    }
  }
  return 0;
}

/* obj[key], or def written into obj when missing and def is not NULL. */
static json_t *field(json_t *obj, const char *key, json_t *def) {
  json_t *v = json_object_get(obj, key);
  if (!v && def) {
    json_object_set_new(obj, key, def);
    v = json_object_get(obj, key);
  } else if (def) {
    json_decref(def);
  }
  return v;
}

static int read_int(reader *rd, json_t *obj, const char *path, const char *key, int required,
                    long long def, long long min, long long max, long long *out) {
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, required ? NULL : json_integer(def));
  if (!v) return fail(rd, p, "missing; expected an integer >= %lld", min);
  if (!json_is_integer(v) && !(json_is_real(v) && json_real_value(v) == floor(json_real_value(v))))
    return fail(rd, p, "expected an integer >= %lld, got %s", min, show(v, b, sizeof b));
  long long x = json_is_integer(v) ? json_integer_value(v) : (long long)json_real_value(v);
  if (x < min || x > max)
    return fail(rd, p, "expected an integer in [%lld, %lld], got %lld", min, max, x);
  /* the resolved experiment says 32, not 32.0, however it was written */
  if (json_is_real(v)) json_object_set_new(obj, key, json_integer(x));
  *out = x;
  return 0;
}

static int read_real(reader *rd, json_t *obj, const char *path, const char *key, double def,
                     double min, double max, double *out) {
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, json_real(def));
  if (!json_is_number(v))
    return fail(rd, p, "expected a number in [%g, %g], got %s", min, max, show(v, b, sizeof b));
  double x = json_number_value(v);
  if (!(x >= min && x <= max)) return fail(rd, p, "expected a number in [%g, %g], got %g", min, max, x);
  *out = x;
  return 0;
}

static int read_bool(reader *rd, json_t *obj, const char *path, const char *key, int def, int *out) {
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, json_boolean(def));
  if (!json_is_boolean(v)) return fail(rd, p, "expected true or false, got %s", show(v, b, sizeof b));
  *out = json_is_true(v);
  return 0;
}

/* A string field; def NULL means required.  *out is borrowed from the tree. */
static int read_string(reader *rd, json_t *obj, const char *path, const char *key, const char *def,
                       const char **out) {
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, def ? json_string(def) : NULL);
  if (!v) return fail(rd, p, "missing; expected a string");
  if (!json_is_string(v)) return fail(rd, p, "expected a string, got %s", show(v, b, sizeof b));
  *out = json_string_value(v);
  return 0;
}

enum unit_kind { U_BANDWIDTH, U_SIZE, U_TIME };

/* A quantity with a unit ("25Gbps", "4MB", "5us"), > 0 (or >= 0 for time). */
static int read_unit(reader *rd, json_t *obj, const char *path, const char *key, const char *def,
                     enum unit_kind kind, double *out) {
  static const char *const what[] = {"a bandwidth such as \"25Gbps\" or \"10GBps\"",
                                     "a size such as \"4MB\" or \"512KiB\"",
                                     "a time such as \"5us\" or \"1.5ms\""};
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, def ? json_string(def) : NULL);
  if (!v) return fail(rd, p, "missing; expected %s", what[kind]);
  double x;
  if (json_is_number(v)) {
    x = json_number_value(v);
  } else if (json_is_string(v)) {
    int bad = kind == U_BANDWIDTH ? units_bandwidth(json_string_value(v), &x)
              : kind == U_SIZE    ? units_size(json_string_value(v), &x)
                                  : units_time(json_string_value(v), &x);
    if (bad) return fail(rd, p, "expected %s, got %s (unknown unit)", what[kind], show(v, b, sizeof b));
  } else {
    return fail(rd, p, "expected %s, got %s", what[kind], type_name(v));
  }
  if (!isfinite(x) || x < 0 || (x == 0 && kind != U_TIME))
    return fail(rd, p, "expected %s %s 0, got %s", what[kind], kind == U_TIME ? ">=" : ">",
                show(v, b, sizeof b));
  *out = x;
  return 0;
}

static int one_of(reader *rd, const char *path, const char *value, const char *const *allowed,
                  int *index) {
  char list[512] = "";
  for (int i = 0; allowed[i]; i++) {
    if (strcmp(value, allowed[i]) == 0) {
      *index = i;
      return 0;
    }
    if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, allowed[i], sizeof list - strlen(list) - 1);
  }
  return fail(rd, path, "unknown value \"%s\" (known: %s)", value, list);
}

static json_t *object_at(reader *rd, json_t *root, const char *key, int *rc) {
  json_t *v = json_object_get(root, key);
  char b[80];
  if (!v) {
    json_object_set_new(root, key, json_object());
    return json_object_get(root, key);
  }
  if (!json_is_object(v)) {
    *rc = fail(rd, key, "expected an object, got %s", show(v, b, sizeof b));
    return NULL;
  }
  return v;
}

/* Shorthands: "compressor": "fp16" is {"name": "fp16"}; "platform": "x.xml"
 * is {"file": "x.xml"}.  Applied before and after --set. */
static void normalize(json_t *root) {
  json_t *c = json_object_get(root, "compressor");
  if (json_is_string(c)) {
    json_t *o = json_pack("{s:O}", "name", c);
    json_object_set_new(root, "compressor", o);
  }
  json_t *k = json_object_get(root, "collective");
  if (json_is_string(k)) {
    json_t *o = json_pack("{s:O}", "name", k);
    json_object_set_new(root, "collective", o);
  }
  json_t *p = json_object_get(root, "platform");
  if (json_is_string(p)) {
    json_t *o = json_pack("{s:O}", "file", p);
    json_object_set_new(root, "platform", o);
  }
}

int experiment_set(json_t *root, const char *file, const char *assignment, ccsim_error *err) {
  reader rd = {file, err};
  const char *eq = strchr(assignment, '=');
  if (!eq || eq == assignment)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--set %s: expected PATH=VALUE, e.g. workers=16",
                      assignment);
  char path[256];
  size_t plen = (size_t)(eq - assignment);
  if (plen >= sizeof path) return ccsim_fail(err, CCSIM_ERR_INPUT, "--set: path too long");
  memcpy(path, assignment, plen);
  path[plen] = 0;
  json_error_t jerr;
  json_t *value = json_loads(eq + 1, JSON_DECODE_ANY, &jerr);
  if (!value) value = json_string(eq + 1);
  json_t *obj = root;
  char walked[256] = "";
  char *save = NULL, *part = strtok_r(path, ".", &save);
  while (part) {
    char *nextpart = strtok_r(NULL, ".", &save);
    if (!nextpart) {
      json_object_set_new(obj, part, value);
      return 0;
    }
    json_t *child = json_object_get(obj, part);
    char w[256];
    join(w, sizeof w, walked, part);
    snprintf(walked, sizeof walked, "%s", w);
    if (!child) {
      json_object_set_new(obj, part, json_object());
      child = json_object_get(obj, part);
    } else if (!json_is_object(child)) {
      json_decref(value);
      return fail(&rd, walked, "--set %s: cannot set inside %s", assignment, type_name(child));
    }
    obj = child;
    part = nextpart;
  }
  json_decref(value);
  return ccsim_fail(err, CCSIM_ERR_INPUT, "--set %s: empty path", assignment);
}

static int comp_param_key(const char *key, const void *arg) {
  return ccomp_param_index((const ccomp_type *)arg, key) >= 0;
}

static int mem_param_key(const char *key, const void *arg) {
  const ccomp_memory_type *m = arg;
  for (size_t i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i].name, key)) return 1;
  return 0;
}

/* The parameters of a compressor, memory or collective: every one present in obj is
 * checked, every missing one gets its default. */
static int read_params(reader *rd, json_t *obj, const char *path, const char *owner,
                       const ccomp_param *params, size_t nparams, double *out) {
  char b[80], p[256];
  for (size_t i = 0; i < nparams; i++) {
    const ccomp_param *pa = &params[i];
    join(p, sizeof p, path, pa->name);
    json_t *v = json_object_get(obj, pa->name);
    double x;
    if (!v) {
      x = pa->def;
      json_object_set_new(obj, pa->name,
                          pa->kind == CCOMP_BOOL ? json_boolean(x != 0)
                          : pa->kind == CCOMP_INT ? json_integer((json_int_t)x)
                                                  : json_real(x));
    } else if (pa->kind == CCOMP_BOOL) {
      if (!json_is_boolean(v))
        return fail(rd, p, "expected true or false, got %s", show(v, b, sizeof b));
      x = json_is_true(v);
    } else {
      if (!json_is_number(v))
        return fail(rd, p, "expected a number in [%g, %g], got %s", pa->min, pa->max,
                    show(v, b, sizeof b));
      x = json_number_value(v);
    }
    char perr[CCOMP_ERRLEN] = "";
    if (ccomp_param_check_in(owner, params, i, x, perr, sizeof perr)) return fail(rd, p, "%s", perr);
    out[i] = x;
  }
  return 0;
}

static int read_compressor(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *c = object_at(rd, root, "compressor", &rc);
  if (!c) return rc;
  const char *name;
  if ((rc = read_string(rd, c, "compressor", "name", "none", &name))) return rc;
  e->compressor = ccomp_find(name);
  if (!e->compressor)
    return fail(rd, "compressor.name", "unknown compressor \"%s\" (known: %s)", name, ccomp_names());
  static const char *const known[] = {"name", "memory", NULL};
  char pnames[512] = "";
  for (size_t i = 0; i < e->compressor->nparams; i++) {
    if (i) strncat(pnames, ", ", sizeof pnames - strlen(pnames) - 1);
    strncat(pnames, e->compressor->params[i].name, sizeof pnames - strlen(pnames) - 1);
  }
  if ((rc = check_keys(rd, c, "compressor", known, comp_param_key, e->compressor, pnames))) return rc;
  if ((rc = read_params(rd, c, "compressor", e->compressor->name, e->compressor->params,
                        e->compressor->nparams, e->comp_params)))
    return rc;

  /* memory: "none", "residual", or {"name": ..., params} */
  json_t *m = field(c, "memory", json_string("none"));
  json_t *mobj = NULL;
  const char *mname;
  char b[80];
  if (json_is_string(m)) {
    mname = json_string_value(m);
  } else if (json_is_object(m)) {
    mobj = m;
    if ((rc = read_string(rd, m, "compressor.memory", "name", NULL, &mname))) return rc;
  } else {
    return fail(rd, "compressor.memory", "expected a memory name (%s) or an object, got %s",
                ccomp_memory_names(), show(m, b, sizeof b));
  }
  e->memory = NULL;
  if (strcmp(mname, "none") != 0) {
    e->memory = ccomp_memory_find(mname);
    if (!e->memory)
      return fail(rd, mobj ? "compressor.memory.name" : "compressor.memory",
                  "unknown memory \"%s\" (known: %s)", mname, ccomp_memory_names());
    if (!mobj && e->memory->nparams) { /* write the defaults out */
      json_object_set_new(c, "memory", json_pack("{s:s}", "name", mname));
      mobj = json_object_get(c, "memory");
    }
    if (mobj) {
      static const char *const mknown[] = {"name", NULL};
      char mp[512] = "";
      for (size_t i = 0; i < e->memory->nparams; i++) {
        if (i) strncat(mp, ", ", sizeof mp - strlen(mp) - 1);
        strncat(mp, e->memory->params[i].name, sizeof mp - strlen(mp) - 1);
      }
      if ((rc = check_keys(rd, mobj, "compressor.memory", mknown, mem_param_key, e->memory, mp)))
        return rc;
      if ((rc = read_params(rd, mobj, "compressor.memory", e->memory->name, e->memory->params,
                            e->memory->nparams, e->mem_params)))
        return rc;
    }
  } else if (mobj) {
    return fail(rd, "compressor.memory", "memory \"none\" takes no parameters; write \"none\"");
  }
  return 0;
}

/* An array of 1..maxlen integers in [min, max] (elements named key[i] in
 * messages); def, a JSON array (stolen), is written in when missing, NULL
 * makes the field required. */
static int read_int_array(reader *rd, json_t *obj, const char *path, const char *key, json_t *def,
                          long long min, long long max, int maxlen, const char *example, int *out,
                          int *len) {
  char p[256], pi[300], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, def);
  if (!v) return fail(rd, p, "missing; expected an array of integers >= %lld, e.g. %s", min, example);
  if (!json_is_array(v))
    return fail(rd, p, "expected an array of integers >= %lld such as %s, got %s", min, example,
                show(v, b, sizeof b));
  size_t n = json_array_size(v);
  if (n < 1 || n > (size_t)maxlen) return fail(rd, p, "expected 1 to %d integers, got %zu", maxlen, n);
  for (size_t i = 0; i < n; i++) {
    json_t *x = json_array_get(v, i);
    snprintf(pi, sizeof pi, "%s[%zu]", p, i);
    double r = json_is_real(x) ? json_real_value(x) : 0;
    if (!json_is_integer(x) && !(json_is_real(x) && r == floor(r) && fabs(r) < 9e18))
      return fail(rd, pi, "expected an integer >= %lld, got %s", min, show(x, b, sizeof b));
    long long y = json_is_integer(x) ? json_integer_value(x) : (long long)r;
    if (y < min) return fail(rd, pi, "expected an integer >= %lld, got %lld", min, y);
    if (y > max) return fail(rd, pi, "expected an integer <= %lld, got %lld", max, y);
    out[i] = (int)y;
  }
  *len = (int)n;
  return 0;
}

static int in_list(const char *const *list, const char *key) {
  for (; *list; list++)
    if (!strcmp(*list, key)) return 1;
  return 0;
}

enum { MAX_HOSTS = 1 << 20, MAX_PARALLEL = 1024 };

/* fat-tree: down, then up (default: as many parents as children, a
 * non-blocking tree) and parallel (default 1), one per level. */
static int read_fat_tree(reader *rd, experiment *e, json_t *p) {
  int rc, n, *down = e->platform.fat_tree.down, *up = e->platform.fat_tree.up;
  if ((rc = read_int_array(rd, p, "platform", "down", NULL, 1, MAX_HOSTS, PLATFORM_MAX_LEVELS, "[8, 8]", down,
                           &e->platform.fat_tree.levels)))
    return rc;
  const int L = e->platform.fat_tree.levels;
  json_t *def_up = json_array(), *def_par = json_array();
  for (int i = 0; i < L; i++) {
    json_array_append_new(def_up, json_integer(i ? down[i - 1] : 1));
    json_array_append_new(def_par, json_integer(1));
  }
  if ((rc = read_int_array(rd, p, "platform", "up", def_up, 1, MAX_HOSTS, PLATFORM_MAX_LEVELS, "[1, 8]", up,
                           &n))) {
    json_decref(def_par);
    return rc;
  }
  if (n != L) {
    json_decref(def_par);
    return fail(rd, "platform.up", "expected %d integers (one per level, like platform.down), got %d", L, n);
  }
  if ((rc = read_int_array(rd, p, "platform", "parallel", def_par, 1, MAX_PARALLEL, PLATFORM_MAX_LEVELS,
                           "[1, 1]", e->platform.fat_tree.parallel, &n)))
    return rc;
  if (n != L)
    return fail(rd, "platform.parallel", "expected %d integers (one per level, like platform.down), got %d", L,
                n);
  for (int l = 1; l <= L; l++) { /* switches of level l: up[0..l-1] x down[l..L-1] */
    double sw = 1;
    for (int i = 0; i < l; i++) sw *= up[i];
    for (int i = l; i < L; i++) sw *= down[i];
    if (sw > MAX_HOSTS)
      return fail(rd, "platform.up", "level %d would have %.0f switches (at most %d)", l, sw, MAX_HOSTS);
  }
  return 0;
}

static int read_dragonfly(reader *rd, experiment *e, json_t *p) {
  static const char *const counts[] = {"groups", "chassis", "routers", "nodes_per_router"};
  static const char *const links[] = {"group_links", "chassis_links", "router_links"};
  int *cv[] = {&e->platform.dragonfly.groups, &e->platform.dragonfly.chassis, &e->platform.dragonfly.routers,
               &e->platform.dragonfly.nodes_per_router};
  int *lv[] = {&e->platform.dragonfly.group_links, &e->platform.dragonfly.chassis_links,
               &e->platform.dragonfly.router_links};
  long long x;
  int rc;
  for (int i = 0; i < 4; i++) {
    if ((rc = read_int(rd, p, "platform", counts[i], 1, 0, 1, MAX_HOSTS, &x))) return rc;
    *cv[i] = (int)x;
  }
  for (int i = 0; i < 3; i++) {
    if ((rc = read_int(rd, p, "platform", links[i], 0, 1, 1, MAX_PARALLEL, &x))) return rc;
    *lv[i] = (int)x;
  }
  /* SimGrid's DragonflyZone joins group g to the others through router g
   * of its first chassis, and reaches it over the chassis' router links. */
  if (e->platform.dragonfly.groups > e->platform.dragonfly.routers)
    return fail(rd, "platform.groups",
                "%d groups but %d routers per chassis (platform.routers): SimGrid's dragonfly links group g "
                "through router g of each group's first chassis, so groups must be <= routers",
                e->platform.dragonfly.groups, e->platform.dragonfly.routers);
  return 0;
}

/* cloud: racks, hosts_per_rack, oversubscription; one NIC bandwidth for all
 * (bandwidth) or a pattern of NICs cycled over the hosts (nics). */
static int read_cloud(reader *rd, experiment *e, json_t *p) {
  long long x;
  int rc;
  if ((rc = read_int(rd, p, "platform", "racks", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.cloud.racks = (int)x;
  if ((rc = read_int(rd, p, "platform", "hosts_per_rack", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.cloud.hosts_per_rack = (int)x;
  if ((rc = read_real(rd, p, "platform", "oversubscription", 1, 1, 1e6, &e->platform.cloud.oversubscription)))
    return rc;
  json_t *nics = json_object_get(p, "nics");
  char b[80];
  if (!nics) {
    e->platform.cloud.nnics = 0;
    if ((rc = read_unit(rd, p, "platform", "bandwidth", "25Gbps", U_BANDWIDTH, &e->platform.bandwidth)))
      return rc;
  } else {
    if (json_object_get(p, "bandwidth"))
      return fail(rd, "platform.bandwidth",
                  "give either platform.bandwidth (every NIC) or platform.nics (a pattern of NICs), not both");
    if (!json_is_array(nics) || json_array_size(nics) < 1 || json_array_size(nics) > PLATFORM_MAX_NICS)
      return fail(rd, "platform.nics",
                  "expected an array of 1 to %d objects such as {\"count\": 3, \"bandwidth\": \"25Gbps\"}, "
                  "got %s",
                  PLATFORM_MAX_NICS, show(nics, b, sizeof b));
    static const char *const nic_keys[] = {"count", "bandwidth", NULL};
    e->platform.cloud.nnics = (int)json_array_size(nics);
    for (int i = 0; i < e->platform.cloud.nnics; i++) {
      char pi[64];
      snprintf(pi, sizeof pi, "platform.nics[%d]", i);
      json_t *nic = json_array_get(nics, (size_t)i);
      if (!json_is_object(nic))
        return fail(rd, pi, "expected an object such as {\"count\": 3, \"bandwidth\": \"25Gbps\"}, got %s",
                    show(nic, b, sizeof b));
      if ((rc = check_keys(rd, nic, pi, nic_keys, NULL, NULL, NULL))) return rc;
      if ((rc = read_int(rd, nic, pi, "count", 0, 1, 1, MAX_HOSTS, &x))) return rc;
      e->platform.cloud.nics[i].count = (int)x;
      if ((rc = read_unit(rd, nic, pi, "bandwidth", NULL, U_BANDWIDTH, &e->platform.cloud.nics[i].bandwidth)))
        return rc;
    }
    e->platform.bandwidth = e->platform.cloud.nics[0].bandwidth;
  }
  if ((rc = read_unit(rd, p, "platform", "latency", "5us", U_TIME, &e->platform.latency))) return rc;
  if (!json_object_get(p, "uplink_latency"))
    json_object_set_new(p, "uplink_latency", json_deep_copy(json_object_get(p, "latency")));
  return read_unit(rd, p, "platform", "uplink_latency", NULL, U_TIME, &e->platform.cloud.uplink_latency);
}

/* multigpu: nodes of gpus_per_node GPUs, nics_per_node NICs each.  The
 * default intra-node link is NVLink 2 on a V100: 300 GB/s in all (NVIDIA
 * Tesla V100 datasheet), so 150 GB/s each way; its latency (1 us) is an
 * assumption, not a datasheet figure. */
static int read_multigpu(reader *rd, experiment *e, json_t *p) {
  long long x;
  int rc;
  if ((rc = read_int(rd, p, "platform", "nodes", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.multigpu.nodes = (int)x;
  if ((rc = read_int(rd, p, "platform", "gpus_per_node", 1, 0, 1, MAX_HOSTS, &x))) return rc;
  e->platform.gpus_per_node = (int)x;
  if ((rc = read_int(rd, p, "platform", "nics_per_node", 0, 1, 1, MAX_HOSTS, &x))) return rc;
  if (e->platform.gpus_per_node % x)
    return fail(rd, "platform.nics_per_node",
                "expected a divisor of platform.gpus_per_node (%d) so that GPUs share NICs evenly, got %lld",
                e->platform.gpus_per_node, x);
  e->platform.multigpu.nics_per_node = (int)x;
  if ((rc = read_unit(rd, p, "platform", "bandwidth", "25Gbps", U_BANDWIDTH, &e->platform.bandwidth)))
    return rc;
  if ((rc = read_unit(rd, p, "platform", "latency", "5us", U_TIME, &e->platform.latency))) return rc;
  if ((rc = read_unit(rd, p, "platform", "intra_bandwidth", "150GBps", U_BANDWIDTH,
                      &e->platform.multigpu.intra_bandwidth)))
    return rc;
  return read_unit(rd, p, "platform", "intra_latency", "1us", U_TIME, &e->platform.multigpu.intra_latency);
}

static int read_platform(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *p = object_at(rd, root, "platform", &rc);
  if (!p) return rc;
  /* The fields of every generator are known here; which apply is checked
   * once the generator is known. */
  static const char *const common[] = {"file", "generate", "network_model", "crosstraffic", NULL};
  static const char *const file_fields[] = {"file", "network_model", "crosstraffic", "gpus_per_node", NULL};
  const char *known[64];
  int nk = 0;
  size_t nkinds;
  const platform_kind *kinds = platform_kinds(&nkinds);
  for (const char *const *k = file_fields; *k; k++) known[nk++] = *k;
  known[nk++] = "generate";
  for (size_t i = 0; i < nkinds; i++)
    for (const char *const *k = kinds[i].fields; *k; k++)
      if (nk < 63) {
        known[nk] = NULL;
        if (!in_list(known, *k)) known[nk++] = *k;
      }
  known[nk] = NULL;
  if ((rc = check_keys(rd, p, "platform", known, NULL, NULL, NULL))) return rc;
  json_t *file = json_object_get(p, "file");
  json_t *gen = json_object_get(p, "generate");
  if (file && gen) return fail(rd, "platform", "give either \"file\" or \"generate\", not both");
  if (!file && !gen) json_object_set_new(p, "generate", json_string("crossbar"));
  e->platform.gpus_per_node = 1;
  const char *key;
  json_t *value;
  char path[64];
  if (file) {
    const char *f;
    if ((rc = read_string(rd, p, "platform", "file", NULL, &f))) return rc;
    json_object_foreach(p, key, value) {
      if (!in_list(file_fields, key)) {
        join(path, sizeof path, "platform", key);
        return fail(rd, path, "only for generated platforms; a platform file sets its own");
      }
    }
    size_t need = strlen(e->dir) + strlen(f) + 2;
    e->platform.file = malloc(need);
    if (f[0] == '/') snprintf(e->platform.file, need, "%s", f);
    else snprintf(e->platform.file, need, "%s/%s", e->dir, f);
    FILE *fp = fopen(e->platform.file, "r");
    if (!fp)
      return fail(rd, "platform.file", "cannot open platform file \"%s\": %s", e->platform.file,
                  strerror(errno));
    fclose(fp);
    /* gpus_per_node: the experiment's, else the file's property, else 1 */
    if (json_object_get(p, "gpus_per_node")) {
      long long g;
      if ((rc = read_int(rd, p, "platform", "gpus_per_node", 1, 0, 1, MAX_HOSTS, &g))) return rc;
      e->platform.gpus_per_node = (int)g;
    } else {
      platform_file_describe(e->platform.file, NULL, 0, NULL, &e->platform.gpus_per_node);
      if (e->platform.gpus_per_node < 1) e->platform.gpus_per_node = 1;
    }
  } else {
    const char *g;
    if ((rc = read_string(rd, p, "platform", "generate", "crossbar", &g))) return rc;
    const platform_kind *kind = platform_kind_find(g);
    if (!kind) {
      const char *names[16];
      size_t i;
      for (i = 0; i < nkinds && i < 15; i++) names[i] = kinds[i].name;
      names[i] = NULL;
      int gi;
      return one_of(rd, "platform.generate", g, names, &gi);
    }
    e->platform.generate = strdup(g);
    json_object_foreach(p, key, value) {
      if (!in_list(common, key) && !in_list(kind->fields, key)) {
        char list[512] = "";
        for (const char *const *k = kind->fields; *k; k++) {
          if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
          strncat(list, *k, sizeof list - strlen(list) - 1);
        }
        join(path, sizeof path, "platform", key);
        return fail(rd, path, "not a field of \"generate\": \"%s\" (its fields: %s)", g, list);
      }
    }
    if (!strcmp(g, "crossbar")) {
      long long hosts;
      if ((rc = read_int(rd, p, "platform", "hosts", 0, e->workers, 1, MAX_HOSTS, &hosts))) return rc;
      e->platform.hosts = (int)hosts;
      if (hosts < e->workers)
        return fail(rd, "workers", "%d workers but the platform has %lld hosts (platform.hosts)", e->workers,
                    hosts);
    } else if (!strcmp(g, "fat-tree")) {
      rc = read_fat_tree(rd, e, p);
    } else if (!strcmp(g, "torus")) {
      rc = read_int_array(rd, p, "platform", "dims", NULL, 1, MAX_HOSTS, PLATFORM_MAX_DIMS, "[4, 4, 4]",
                          e->platform.torus.dims, &e->platform.torus.ndims);
    } else if (!strcmp(g, "dragonfly")) {
      rc = read_dragonfly(rd, e, p);
    } else if (!strcmp(g, "cloud")) {
      rc = read_cloud(rd, e, p);
    } else {
      rc = read_multigpu(rd, e, p);
    }
    if (rc) return rc;
    /* cloud and multigpu read their links above, in their own order */
    if (strcmp(g, "cloud") && strcmp(g, "multigpu")) {
      if ((rc = read_unit(rd, p, "platform", "bandwidth", "25Gbps", U_BANDWIDTH, &e->platform.bandwidth)))
        return rc;
      if ((rc = read_unit(rd, p, "platform", "latency", "5us", U_TIME, &e->platform.latency))) return rc;
    }
    if (strcmp(g, "crossbar")) {
      char formula[256];
      long long hosts = platform_host_count(e, MAX_HOSTS);
      platform_host_formula(e, formula, sizeof formula);
      if (hosts < 0)
        return fail(rd, "platform", "the %s would have more than %d hosts (%s)", g, MAX_HOSTS, formula);
      e->platform.hosts = (int)hosts;
      if (hosts < e->workers)
        return fail(rd, "workers", "%d workers but the %s platform has %lld hosts (%s)", e->workers, g, hosts,
                    formula);
    }
  }
  /* CM02 without cross-traffic is SimGrid's max-min fluid model with pure
   * latency + size/bandwidth transfers: what the alpha-beta formulas of the
   * collective literature assume.  LV08 (SimGrid's default) models TCP. */
  static const char *const models[] = {"CM02", "LV08", "SMPI", "Constant", "IB", NULL};
  const char *model;
  int mi;
  if ((rc = read_string(rd, p, "platform", "network_model", "CM02", &model))) return rc;
  if ((rc = one_of(rd, "platform.network_model", model, models, &mi))) return rc;
  e->platform.network_model = strdup(model);
  if ((rc = read_bool(rd, p, "platform", "crosstraffic", 0, &e->platform.crosstraffic))) return rc;
  return 0;
}

/* One layer named name of n parameters and no flops (a plain tensor). */
static model_profile *single_layer(size_t n) {
  model_profile *p = calloc(1, sizeof *p);
  p->name = strdup("tensor");
  p->source = strdup("model.elements");
  p->input = strdup("-");
  p->nlayers = 1;
  p->layers = calloc(1, sizeof *p->layers);
  p->layers[0].name = strdup("gradient");
  p->layers[0].params = n;
  p->total_params = n;
  return p;
}

/* "layers": [{"name", "params", "fwd_flops", "bwd_flops"}, ...] inline. */
static int read_layers(reader *rd, experiment *e, json_t *arr) {
  char p[128], b[80];
  if (!json_is_array(arr) || json_array_size(arr) == 0)
    return fail(rd, "model.layers", "expected a non-empty array of {\"name\", \"params\", \"fwd_flops\", \"bwd_flops\"}");
  model_profile *pr = calloc(1, sizeof *pr);
  e->model.layers = pr;
  pr->name = strdup("inline");
  pr->source = strdup("model.layers");
  pr->input = strdup("one sample");
  pr->nlayers = json_array_size(arr);
  pr->layers = calloc(pr->nlayers, sizeof *pr->layers);
  for (size_t i = 0; i < pr->nlayers; i++) {
    json_t *l = json_array_get(arr, i);
    snprintf(p, sizeof p, "model.layers[%zu]", i);
    if (!json_is_object(l)) return fail(rd, p, "expected an object, got %s", show(l, b, sizeof b));
    static const char *const known[] = {"name", "params", "fwd_flops", "bwd_flops", NULL};
    int rc;
    if ((rc = check_keys(rd, l, p, known, NULL, NULL, NULL))) return rc;
    const char *name;
    long long n;
    char def[32];
    snprintf(def, sizeof def, "layer%zu", i);
    if ((rc = read_string(rd, l, p, "name", def, &name))) return rc;
    if ((rc = read_int(rd, l, p, "params", 1, 0, 1, 1ll << 40, &n))) return rc;
    pr->layers[i].name = strdup(name);
    pr->layers[i].params = (size_t)n;
    if ((rc = read_real(rd, l, p, "fwd_flops", 0, 0, 1e30, &pr->layers[i].fwd_flops))) return rc;
    if ((rc = read_real(rd, l, p, "bwd_flops", 2 * pr->layers[i].fwd_flops, 0, 1e30,
                        &pr->layers[i].bwd_flops)))
      return rc;
    pr->total_params += (size_t)n;
    pr->total_fwd_flops += pr->layers[i].fwd_flops;
    pr->total_bwd_flops += pr->layers[i].bwd_flops;
  }
  e->model.elements = pr->total_params;
  return 0;
}

/* Where built-in model profiles live (datapath.h); *found = 0 and the
 * directories tried when there is none. */
static const char *models_dir(int *found) {
  static char dir[4096];
  *found = datapath_dir(DATA_MODELS, dir, sizeof dir) == 0;
  return dir;
}

/* "model": {"elements": N}, {"size": "4MB"}, {"profile": NAME} or
 * {"layers": [...]}.  implied > 0 when the gradient source fixes the
 * element count (a trace, a trained model): then the section may be left
 * out (the count is written in) and a count given must agree with it;
 * `what` names where it comes from. */
static int read_model(reader *rd, experiment *e, json_t *root, size_t implied, const char *what) {
  int rc = 0;
  json_t *m = object_at(rd, root, "model", &rc);
  if (!m) return rc;
  static const char *const known[] = {"elements", "size", "profile", "layers", "sample", "batch", NULL};
  if ((rc = check_keys(rd, m, "model", known, NULL, NULL, NULL))) return rc;
  if (implied && !json_object_get(m, "elements") && !json_object_get(m, "size") &&
      !json_object_get(m, "profile") && !json_object_get(m, "layers"))
    json_object_set_new(m, "elements", json_integer((json_int_t)implied));
  const int given = (json_object_get(m, "elements") != NULL) + (json_object_get(m, "size") != NULL) +
                    (json_object_get(m, "profile") != NULL) + (json_object_get(m, "layers") != NULL);
  if (e->model.layers && (json_object_get(m, "profile") || json_object_get(m, "layers")))
    return fail(rd, json_object_get(m, "profile") ? "model.profile" : "model.layers",
                "%s fixes the layers and their flops; leave the model section out", what);
  if (given != 1)
    return fail(rd, "model",
                "give exactly one of \"elements\" (fp32 count), \"size\" (e.g. \"4MB\"), \"profile\" "
                "(a model: `ccsim list models`) or \"layers\" (inline)");
  if (json_object_get(m, "elements")) {
    long long n;
    if ((rc = read_int(rd, m, "model", "elements", 1, 0, 1, 1ll << 40, &n))) return rc;
    e->model.elements = (size_t)n;
  } else if (json_object_get(m, "size")) {
    double bytes;
    if ((rc = read_unit(rd, m, "model", "size", NULL, U_SIZE, &bytes))) return rc;
    if (bytes < 4) return fail(rd, "model.size", "expected at least 4 bytes (one fp32), got %g", bytes);
    e->model.elements = (size_t)(bytes / 4);
  } else if (json_object_get(m, "layers")) {
    if ((rc = read_layers(rd, e, json_object_get(m, "layers")))) return rc;
  } else {
    const char *name;
    if ((rc = read_string(rd, m, "model", "profile", NULL, &name))) return rc;
    char path[1200];
    ccsim_error perr = {0};
    if (strchr(name, '/') || strstr(name, ".json")) {
      if (name[0] == '/') snprintf(path, sizeof path, "%s", name);
      else snprintf(path, sizeof path, "%s/%s", e->dir, name);
    } else {
      int found;
      const char *mdir = models_dir(&found);
      if (!found)
        return fail(rd, "model.profile", "profile \"%s\": no model profile directory (tried %s)",
                    name, mdir);
      if (profile_path(mdir, name, path, sizeof path, &perr))
        return fail(rd, "model.profile", "%s", perr.msg);
    }
    e->model.layers = profile_load(path, &perr);
    if (!e->model.layers) return fail(rd, "model.profile", "%s", perr.msg);
    e->model.elements = e->model.layers->total_params;
  }
  if (implied && e->model.elements != implied)
    return fail(rd, json_object_get(m, "elements") ? "model.elements" : "model",
                "%zu elements, but %s has %zu; leave the model section out (it follows the "
                "gradient source) or make them agree",
                e->model.elements, what, implied);
  if (!e->model.layers) e->model.layers = single_layer(e->model.elements);
  const int trained = e->gradients.source == GRAD_TRAIN;
  long long batch;
  if ((rc = read_int(rd, m, "model", "batch", 0, trained ? (long long)e->train.batch : 32, 1,
                     1000000000, &batch)))
    return rc;
  e->model.batch = (double)batch;
  if (trained && e->model.batch != (double)e->train.batch)
    return fail(rd, "model.batch", "%g, but train.batch is %zu: the time model follows the "
                "training batch; leave model.batch out", e->model.batch, e->train.batch);
  /* Coordinate sampling (docs/design.md): the data plane runs on `sample`
   * evenly spaced coordinates, the network carries full-size messages. */
  long long k;
  if ((rc = read_int(rd, m, "model", "sample", 0, 0, 0, 1ll << 40, &k))) return rc;
  e->model.sample = k > 0 && (size_t)k < e->model.elements ? (size_t)k : 0;
  if (implied && e->model.sample)
    return fail(rd, "model.sample", "coordinate sampling needs the synthetic gradient source (%s "
                "needs every element)", what);
  return 0;
}

/* The measured device called name (a file in the devices folder, or a path
 * when the name has a '/' or ends in ".json", relative to the experiment),
 * loaded into e->measured, with the tables this experiment's model,
 * precision and compressor use resolved; what they do not cover goes to the
 * roofline, and e->time_note says what and why. */
static int read_measured(reader *rd, experiment *e, const char *name, const char *path, json_t *obj) {
  char file[1200];
  ccsim_error derr = {0};
  if (strchr(name, '/') || strstr(name, ".json")) {
    if (name[0] == '/') snprintf(file, sizeof file, "%s", name);
    else snprintf(file, sizeof file, "%s/%s", e->dir, name);
  } else if (measured_path(measured_devices_dir(), name, file, sizeof file, &derr)) {
    return fail(rd, path, "%s", derr.msg);
  }
  if (!(e->measured = measured_load(file, &derr))) return fail(rd, path, "%s", derr.msg);
  e->device = e->measured->roofline;
  const char *prec = "fp32", *timing = "isolated";
  int rc;
  if (obj) {
    static const char *const precs[] = {"fp32", "tf32", "bf16", NULL};
    static const char *const timings[] = {"isolated", "back_to_back", NULL};
    if ((rc = read_string(rd, obj, "device", "precision", prec, &prec))) return rc;
    if ((rc = read_string(rd, obj, "device", "compression_timing", timing, &timing))) return rc;
    int ok = 0;
    for (int i = 0; precs[i]; i++) ok |= strcmp(prec, precs[i]) == 0;
    if (!ok) return fail(rd, "device.precision", "expected fp32, tf32 or bf16, got \"%s\"", prec);
    if (strcmp(timing, timings[0]) && strcmp(timing, timings[1]))
      return fail(rd, "device.compression_timing", "expected isolated or back_to_back, got \"%s\"", timing);
  }
  snprintf(e->precision, sizeof e->precision, "%s", prec);
  e->timing = strcmp(timing, "isolated") == 0 ? MEASURED_ISOLATED : MEASURED_BACK_TO_BACK;
  const model_profile *m = e->model.layers;
  char note[2][200] = {"", ""};
  e->measured_model = m->name ? measured_find_model(e->measured, m->name, prec) : NULL;
  if (e->measured_model && measured_check_model(e->measured, e->measured_model, m, &derr))
    return fail(rd, path, "%s", derr.msg);
  if (!e->measured_model)
    snprintf(note[0], sizeof note[0], "compute: %s at %s not measured", m->name ? m->name : "this model", prec);
  const measured_compressor *mc = measured_find_compressor(e->measured, e->compressor->name);
  char why[256] = "not measured";
  if (mc && measured_params_match(mc, e->comp_params, why, sizeof why)) e->measured_comp = mc;
  else snprintf(note[1], sizeof note[1], "compression: %s", why);
  if (!mc) snprintf(note[1], sizeof note[1], "compression: %s not measured", e->compressor->name);
  if (note[0][0] || note[1][0])
    snprintf(e->time_note, sizeof e->time_note, "roofline %s for %s%s%s", e->device->name, note[0],
             note[0][0] && note[1][0] ? "; " : "", note[1]);
  return 0;
}

/* "device": "v100" or {"name": "v100", "efficiency": 0.5}; "none": no time;
 * a measured device's name or file, optionally {"name", "precision",
 * "compression_timing"}. */
static int read_device(reader *rd, experiment *e, json_t *root) {
  json_t *d = field(root, "device", json_string("none"));
  json_t *obj = NULL;
  const char *name;
  char b[80], names[256] = "";
  size_t count;
  const device_spec *const *reg = device_registry(&count);
  for (size_t i = 0; i < count; i++) {
    strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, reg[i]->name, sizeof names - strlen(names) - 1);
  }
  int rc;
  if (json_is_string(d)) {
    name = json_string_value(d);
  } else if (json_is_object(d)) {
    obj = d;
    static const char *const known[] = {"name", "efficiency", "precision", "compression_timing", NULL};
    if ((rc = check_keys(rd, d, "device", known, NULL, NULL, NULL))) return rc;
    if ((rc = read_string(rd, d, "device", "name", NULL, &name))) return rc;
  } else {
    return fail(rd, "device", "expected a device name (none%s, or a measured device: `ccsim list devices`) or an object, got %s", names,
                show(d, b, sizeof b));
  }
  e->device = NULL;
  if (strcmp(name, "none") != 0) {
    e->device = device_find(name);
    if (!e->device && (rc = read_measured(rd, e, name, obj ? "device.name" : "device", obj))) return rc;
  }
  if (!e->measured && obj && (json_object_get(obj, "precision") || json_object_get(obj, "compression_timing")))
    return fail(rd, json_object_get(obj, "precision") ? "device.precision" : "device.compression_timing",
                "only a measured device has tables to choose from; \"%s\" is a roofline", name);
  e->efficiency = e->device ? e->device->efficiency : 1.0;
  if (obj && (rc = read_real(rd, obj, "device", "efficiency", e->efficiency, 1e-6, 1, &e->efficiency)))
    return rc;
  return 0;
}

const char *const schedule_kind_names[] = {"single", "layerwise", "buckets", "mergecomp", NULL};

/* "schedule": how the layers' gradients are grouped into collectives. */
static int read_schedule(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  if (!json_object_get(root, "schedule")) json_object_set_new(root, "schedule", json_object());
  json_t *s = object_at(rd, root, "schedule", &rc);
  if (!s) return rc;
  static const char *const known[] = {"kind", "bucket_mb", "groups", NULL};
  if ((rc = check_keys(rd, s, "schedule", known, NULL, NULL, NULL))) return rc;
  const char *k;
  int ki;
  if ((rc = read_string(rd, s, "schedule", "kind", "single", &k))) return rc;
  if ((rc = one_of(rd, "schedule.kind", k, schedule_kind_names, &ki))) return rc;
  e->schedule.kind = (enum schedule_kind)ki;
  double mb;
  if ((rc = read_real(rd, s, "schedule", "bucket_mb", 25, 1e-6, 1e6, &mb))) return rc;
  e->schedule.bucket_bytes = mb * 1e6;
  long long g;
  if ((rc = read_int(rd, s, "schedule", "groups", 0, 2, 1, 64, &g))) return rc;
  e->schedule.groups = (int)g;
  if (e->schedule.kind == SCHED_MERGECOMP && (size_t)g > e->model.layers->nlayers)
    return fail(rd, "schedule.groups", "%lld groups but the model has %zu layers", g,
                e->model.layers->nlayers);
  if (e->schedule.kind != SCHED_SINGLE && e->compressor->phases > 1)
    return fail(rd, "schedule.kind", "%s runs with the \"single\" schedule only", e->compressor->name);
  return 0;
}

/* A path relative to the experiment file (absolute paths as they are); a
 * new string. */
static char *resolve(const experiment *e, const char *f) {
  size_t need = strlen(e->dir) + strlen(f) + 2;
  char *p = malloc(need);
  if (f[0] == '/') snprintf(p, need, "%s", f);
  else snprintf(p, need, "%s/%s", e->dir, f);
  return p;
}

/* A data file: relative to the experiment file first, then, for a path
 * written as in the source tree ("workloads/data/digits.csv.gz"), in the
 * shipped data (datapath.h). */
static int resolve_data(reader *rd, experiment *e, const char *path, const char *f, char **out) {
  *out = resolve(e, f);
  if (access(*out, R_OK) == 0 || f[0] == '/') goto check;
  data_kind kind;
  const char *name;
  if (datapath_classify(f, &kind, &name) == 0) {
    char found[4096];
    if (datapath_file(kind, name, found, sizeof found) == 0) {
      free(*out);
      *out = strdup(found);
      return 0;
    }
    return fail(rd, path, "cannot read \"%s\" (tried %s, and %s in %s)", f, *out, name, found);
  }
check:
  if (access(*out, R_OK) != 0) {
    if (f[0] == '/') return fail(rd, path, "cannot read \"%s\": %s", f, strerror(errno));
    return fail(rd, path, "cannot read \"%s\" (%s: %s)", f, *out, strerror(errno));
  }
  return 0;
}

/* An array of 0 .. TMODEL_MAX_HIDDEN layer widths (min_len .. ). */
static int read_widths(reader *rd, json_t *obj, const char *path, const char *key, size_t min_len,
                       json_t *def, size_t *count, size_t *w) {
  char p[256], b[80];
  join(p, sizeof p, path, key);
  json_t *v = field(obj, key, def);
  if (!json_is_array(v) || json_array_size(v) < min_len || json_array_size(v) > TMODEL_MAX_HIDDEN)
    return fail(rd, p, "expected an array of %zu to %d layer widths (positive integers), got %s",
                min_len, TMODEL_MAX_HIDDEN, show(v, b, sizeof b));
  *count = json_array_size(v);
  for (size_t i = 0; i < *count; i++) {
    json_t *x = json_array_get(v, i);
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > (1 << 24))
      return fail(rd, p, "element %zu: expected a layer width in [1, %d], got %s", i, 1 << 24,
                  show(x, b, sizeof b));
    w[i] = (size_t)json_integer_value(x);
  }
  return 0;
}

/* The trained model's tensors as the time model's layer table (forward
 * order, per sample, with the flops the model counts: train/model.h). */
static model_profile *trained_layers(const tmodel *m) {
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  model_profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->name = strdup("train.model");
  p->source = strdup("the trained model (train.model)");
  p->input = strdup("one training sample");
  p->layers = calloc(nt, sizeof *p->layers);
  p->nlayers = nt;
  int ok = p->name && p->source && p->input && p->layers;
  for (size_t i = 0; ok && i < nt; i++) {
    profile_layer *l = &p->layers[i];
    l->name = strdup(t[i].name);
    l->params = t[i].count;
    l->fwd_flops = t[i].fwd_flops;
    l->bwd_flops = t[i].bwd_flops;
    p->total_params += l->params;
    p->total_fwd_flops += l->fwd_flops;
    p->total_bwd_flops += l->bwd_flops;
    ok = l->name != NULL;
  }
  if (!ok) {
    profile_free(p);
    return NULL;
  }
  return p;
}

/* train.dataset "fashion-mnist": train.data (the directory of the idx
 * files), train_samples and test_samples (0: all; the subsets are seeded
 * draws without replacement, train/data.h tdata_take); the published
 * train/test split replaces test_fraction. */
static int read_train_fashion(reader *rd, experiment *e, json_t *t) {
  train_config *c = &e->train;
  const char *s;
  long long x;
  int rc;
  if (json_object_get(t, "teacher")) return fail(rd, "train.teacher", "only for dataset \"teacher\"");
  if (json_object_get(t, "test_fraction"))
    return fail(rd, "train.test_fraction", "not for \"fashion-mnist\": it has its own test set "
                "(train.test_samples takes a subset of it)");
  if ((rc = read_string(rd, t, "train", "data", "/usr/share/datasets/fashion-mnist", &s))) return rc;
  if ((rc = resolve_data(rd, e, "train.data", s, &c->data))) return rc;
  if ((rc = read_int(rd, t, "train", "train_samples", 0, 0, 0, 60000, &x))) return rc;
  c->train_samples = (size_t)x;
  if ((rc = read_int(rd, t, "train", "test_samples", 0, 0, 0, 10000, &x))) return rc;
  c->test_samples = (size_t)x;
  c->model.inputs = 28 * 28;
  c->model.classes = 10;
  return 0;
}

/* The "train" section (gradients.source "train"): dataset, model, shards,
 * batches, optimizer, evaluation.  *nparams = the model's parameter count. */
static int read_train(reader *rd, experiment *e, json_t *root, size_t *nparams) {
  int rc = 0;
  json_t *t = object_at(rd, root, "train", &rc);
  if (!t) return rc;
  train_config *c = &e->train;
  static const char *const known[] = {"dataset", "data", "teacher", "model", "shards",
                                      "shards_per_worker", "batch", "test_fraction", "optimizer",
                                      "eval_every", "target_accuracy", "train_samples",
                                      "test_samples", NULL};
  if ((rc = check_keys(rd, t, "train", known, NULL, NULL, NULL))) return rc;
  static const char *const datasets[] = {"digits", "teacher", "fashion-mnist", NULL};
  const char *s;
  int i;
  long long x;
  if ((rc = read_string(rd, t, "train", "dataset", "digits", &s))) return rc;
  if ((rc = one_of(rd, "train.dataset", s, datasets, &i))) return rc;
  c->dataset = (enum train_dataset)i;
  if (c->dataset != TRAIN_FASHION)
    for (const char *const *k = (const char *const[]){"train_samples", "test_samples", NULL}; *k; k++)
      if (json_object_get(t, *k)) {
        char p[64];
        join(p, sizeof p, "train", *k);
        return fail(rd, p, "only for dataset \"fashion-mnist\"");
      }
  if (c->dataset == TRAIN_FASHION) {
    if ((rc = read_train_fashion(rd, e, t))) return rc;
  } else if (c->dataset == TRAIN_DIGITS) {
    if (json_object_get(t, "teacher"))
      return fail(rd, "train.teacher", "only for dataset \"teacher\"");
    if ((rc = read_string(rd, t, "train", "data", "workloads/data/digits.csv.gz", &s))) return rc;
    if ((rc = resolve_data(rd, e, "train.data", s, &c->data))) return rc;
    c->model.inputs = 64; /* 8 x 8 pixels, 10 digits: data.h */
    c->model.classes = 10;
  } else {
    if (json_object_get(t, "data"))
      return fail(rd, "train.data", "only for datasets \"digits\" and \"fashion-mnist\" (the "
                  "teacher task is generated)");
    json_t *ts = json_object_get(t, "teacher");
    if (!ts) {
      json_object_set_new(t, "teacher", json_object());
      ts = json_object_get(t, "teacher");
    }
    char b[80];
    if (!json_is_object(ts))
      return fail(rd, "train.teacher", "expected an object, got %s", show(ts, b, sizeof b));
    static const char *const tknown[] = {"samples", "inputs", "classes", "hidden", NULL};
    if ((rc = check_keys(rd, ts, "train.teacher", tknown, NULL, NULL, NULL))) return rc;
    tteacher_spec *sp = &c->teacher;
    if ((rc = read_int(rd, ts, "train.teacher", "samples", 0, 6000, 2, 1 << 24, &x))) return rc;
    sp->samples = (size_t)x;
    if ((rc = read_int(rd, ts, "train.teacher", "inputs", 0, 20, 1, 1 << 16, &x))) return rc;
    sp->inputs = (size_t)x;
    if ((rc = read_int(rd, ts, "train.teacher", "classes", 0, 5, 2, 1 << 16, &x))) return rc;
    sp->classes = (size_t)x;
    if ((rc = read_widths(rd, ts, "train.teacher", "hidden", 0, json_pack("[i]", 32), &sp->nhidden,
                          sp->hidden)))
      return rc;
    sp->seed = e->seed;
    c->model.inputs = sp->inputs;
    c->model.classes = sp->classes;
  }

  json_t *m = json_object_get(t, "model");
  char b[80];
  if (!m) {
    json_object_set_new(t, "model", json_object());
    m = json_object_get(t, "model");
  }
  if (!json_is_object(m)) return fail(rd, "train.model", "expected an object, got %s", show(m, b, sizeof b));
  static const char *const mknown[] = {"kind", "hidden", NULL};
  if ((rc = check_keys(rd, m, "train.model", mknown, NULL, NULL, NULL))) return rc;
  static const char *const kinds[] = {"softmax", "mlp", "lenet5", "cnn", NULL};
  if ((rc = read_string(rd, m, "train.model", "kind", "mlp", &s))) return rc;
  if ((rc = one_of(rd, "train.model.kind", s, kinds, &i))) return rc;
  c->model.kind = i < 2 ? (enum tmodel_kind)i : TMODEL_CNN;
  if (c->model.kind == TMODEL_CNN) {
    if (json_object_get(m, "hidden"))
      return fail(rd, "train.model.hidden", "only for kind \"mlp\" (%s has fixed layers)", s);
    if (c->dataset != TRAIN_FASHION)
      return fail(rd, "train.model.kind", "\"%s\" needs images: dataset \"fashion-mnist\"", s);
    const size_t classes = c->model.classes;
    tmodel_preset(s, 1, 28, 28, classes, &c->model);
  } else if (c->model.kind == TMODEL_SOFTMAX) {
    json_t *h = json_object_get(m, "hidden");
    if (h && !(json_is_array(h) && json_array_size(h) == 0))
      return fail(rd, "train.model.hidden", "softmax regression has no hidden layers; use kind \"mlp\"");
    c->model.nhidden = 0;
  } else if ((rc = read_widths(rd, m, "train.model", "hidden", 1, json_pack("[i]", 128),
                               &c->model.nhidden, c->model.hidden))) {
    return rc;
  }
  ccsim_error merr = {0};
  tmodel *probe = tmodel_new(&c->model, &merr);
  if (!probe) return fail(rd, "train.model", "%s", merr.msg);
  *nparams = tmodel_nparams(probe);
  e->model.layers = trained_layers(probe);
  tmodel_free(probe);
  if (!e->model.layers) return fail(rd, "train.model", "out of memory");

  static const char *const shard_kinds[] = {"iid", "noniid", NULL};
  if ((rc = read_string(rd, t, "train", "shards", "iid", &s))) return rc;
  if ((rc = one_of(rd, "train.shards", s, shard_kinds, &i))) return rc;
  c->shards = (enum tshard_kind)i;
  if (c->shards == TSHARD_NONIID) {
    if ((rc = read_int(rd, t, "train", "shards_per_worker", 0, 2, 1, 1 << 20, &x))) return rc;
    c->shards_per_worker = (size_t)x;
  } else if (json_object_get(t, "shards_per_worker")) {
    return fail(rd, "train.shards_per_worker", "only for shards \"noniid\"");
  }
  if ((rc = read_int(rd, t, "train", "batch", 0, 32, 1, 1 << 20, &x))) return rc;
  c->batch = (size_t)x;
  if (c->dataset != TRAIN_FASHION &&
      (rc = read_real(rd, t, "train", "test_fraction", 0.2, 1e-9, 0.99, &c->test_fraction)))
    return rc;

  json_t *o = json_object_get(t, "optimizer");
  if (!o) {
    json_object_set_new(t, "optimizer", json_object());
    o = json_object_get(t, "optimizer");
  }
  if (!json_is_object(o))
    return fail(rd, "train.optimizer", "expected an object, got %s", show(o, b, sizeof b));
  static const char *const oknown[] = {"lr", "momentum", "weight_decay", NULL};
  if ((rc = check_keys(rd, o, "train.optimizer", oknown, NULL, NULL, NULL))) return rc;
  if ((rc = read_real(rd, o, "train.optimizer", "lr", 0.1, 1e-12, 1e3, &c->lr))) return rc;
  if ((rc = read_real(rd, o, "train.optimizer", "momentum", 0.9, 0.0, 0.9999, &c->momentum))) return rc;
  if ((rc = read_real(rd, o, "train.optimizer", "weight_decay", 0.0, 0.0, 1.0, &c->weight_decay)))
    return rc;
  if ((rc = read_int(rd, t, "train", "eval_every", 0, 1, 1, 1 << 30, &x))) return rc;
  c->eval_every = (int)x;
  if ((rc = read_real(rd, t, "train", "target_accuracy", 0.95, 0.0, 1.0, &c->target_accuracy)))
    return rc;
  return 0;
}

/* gradients.source "sparse" (gradients.h): scale, row_width, tokens, zipf;
 * distribution and correlation are the dense source's. */
static int read_sparse_source(reader *rd, experiment *e, json_t *g, const char *s) {
  int rc;
  long long x;
  static const char *const dense_only[] = {"distribution", "correlation", NULL};
  for (const char *const *k = dense_only; *k; k++)
    if (json_object_get(g, *k)) {
      char p[64];
      join(p, sizeof p, "gradients", *k);
      return fail(rd, p, "only for source \"synthetic\" (the source is \"%s\")", s);
    }
  if ((rc = read_real(rd, g, "gradients", "scale", 1.0, 1e-30, 1e30, &e->gradients.scale))) return rc;
  if ((rc = read_int(rd, g, "gradients", "row_width", 0, 64, 1, 1 << 20, &x))) return rc;
  e->gradients.row_width = (size_t)x;
  if ((rc = read_int(rd, g, "gradients", "tokens", 0, 512, 1, GRAD_SPARSE_MAX_TOKENS, &x))) return rc;
  e->gradients.tokens = (size_t)x;
  if ((rc = read_real(rd, g, "gradients", "zipf", 1.0, 0.01, 10.0, &e->gradients.zipf))) return rc;
  e->gradients.distribution = GRAD_NORMAL;
  e->gradients.correlation = 0;
  return 0;
}

/* "gradients": {"source": "synthetic" | "trace" | "train", ...}.  *implied =
 * the element count the source fixes (0: synthetic), described in what. */
static int read_gradients(reader *rd, experiment *e, json_t *root, size_t *implied, char *what,
                          size_t whatlen) {
  int rc = 0;
  *implied = 0;
  json_t *g = object_at(rd, root, "gradients", &rc);
  if (!g) return rc;
  static const char *const known[] = {"source", "trace", "distribution", "scale", "correlation",
                                      "row_width", "tokens", "zipf", NULL};
  if ((rc = check_keys(rd, g, "gradients", known, NULL, NULL, NULL))) return rc;
  static const char *const sources[] = {"synthetic", "trace", "train", "sparse", NULL};
  static const char *const dists[] = {"normal", "laplace", "uniform", NULL};
  const char *s;
  int i;
  if ((rc = read_string(rd, g, "gradients", "source", "synthetic", &s))) return rc;
  if ((rc = one_of(rd, "gradients.source", s, sources, &i))) return rc;
  e->gradients.source = (enum grad_source_kind)i;
  if (e->gradients.source != GRAD_TRAIN && json_object_get(root, "train"))
    return fail(rd, "train", "only with gradients.source \"train\" (the source is \"%s\")", s);
  if (e->gradients.source != GRAD_SPARSE) {
    static const char *const sparse_only[] = {"row_width", "tokens", "zipf", NULL};
    for (const char *const *k = sparse_only; *k; k++)
      if (json_object_get(g, *k)) {
        char p[64];
        join(p, sizeof p, "gradients", *k);
        return fail(rd, p, "only for source \"sparse\" (the source is \"%s\")", s);
      }
  }
  if (e->gradients.source == GRAD_SPARSE) {
    if ((rc = read_sparse_source(rd, e, g, s))) return rc;
    return 0;
  }
  if (e->gradients.source != GRAD_SYNTHETIC) {
    static const char *const synth_only[] = {"distribution", "scale", "correlation", NULL};
    for (const char *const *k = synth_only; *k; k++)
      if (json_object_get(g, *k)) {
        char p[64];
        join(p, sizeof p, "gradients", *k);
        return fail(rd, p, "only for source \"synthetic\" (the source is \"%s\")", s);
      }
  }
  if (e->gradients.source != GRAD_TRACE && json_object_get(g, "trace"))
    return fail(rd, "gradients.trace", "only for source \"trace\" (the source is \"%s\")", s);

  if (e->gradients.source == GRAD_TRAIN) {
    if ((rc = read_train(rd, e, root, implied))) return rc;
    snprintf(what, whatlen, "the trained model (train.model)");
    return 0;
  }
  if (e->gradients.source == GRAD_TRACE) {
    if ((rc = read_string(rd, g, "gradients", "trace", NULL, &s))) return rc;
    e->gradients.trace = resolve(e, s);
    char terr[1024];
    trace_reader *t = trace_open(e->gradients.trace, terr, sizeof terr);
    if (!t) return fail(rd, "gradients.trace", "%s", terr);
    const unsigned tw = trace_workers(t), ti = trace_iterations(t);
    *implied = trace_elements(t);
    trace_close(t);
    if (tw < (unsigned)e->workers)
      return fail(rd, "gradients.trace", "the trace %s holds %u workers, the experiment has %d",
                  e->gradients.trace, tw, e->workers);
    if (ti < (unsigned)e->iterations)
      return fail(rd, "gradients.trace", "the trace %s holds %u iterations, the experiment runs %d",
                  e->gradients.trace, ti, e->iterations);
    snprintf(what, whatlen, "the trace %s", e->gradients.trace);
    return 0;
  }
  if ((rc = read_string(rd, g, "gradients", "distribution", "normal", &s))) return rc;
  if ((rc = one_of(rd, "gradients.distribution", s, dists, &i))) return rc;
  e->gradients.distribution = (enum grad_distribution)i;
  if ((rc = read_real(rd, g, "gradients", "scale", 1.0, 1e-30, 1e30, &e->gradients.scale))) return rc;
  if ((rc = read_real(rd, g, "gradients", "correlation", 0.0, 0.0, 1.0, &e->gradients.correlation)))
    return rc;
  return 0;
}

static int coll_param_key(const char *key, const void *arg) {
  const collective_type *t = arg;
  for (size_t i = 0; i < t->nparams; i++)
    if (!strcmp(t->params[i].name, key)) return 1;
  return 0;
}

/* "collective": "NAME" or {"name": NAME, PARAM: value, ...}; written back as
 * a plain name when the collective has no parameters. */
static int read_collective(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  if (!json_object_get(root, "collective"))
    json_object_set_new(root, "collective", json_pack("{s:s}", "name", "allreduce/ring"));
  json_t *c = object_at(rd, root, "collective", &rc);
  if (!c) return rc;
  const char *name;
  if ((rc = read_string(rd, c, "collective", "name", "allreduce/ring", &name))) return rc;
  e->collective = collective_find(name);
  if (!e->collective)
    return fail(rd, "collective.name", "unknown collective \"%s\" (known: %s)", name,
                collective_names());
  const collective_type *t = e->collective;
  static const char *const known[] = {"name", NULL};
  char pnames[512] = "";
  for (size_t i = 0; i < t->nparams; i++) {
    if (i) strncat(pnames, ", ", sizeof pnames - strlen(pnames) - 1);
    strncat(pnames, t->params[i].name, sizeof pnames - strlen(pnames) - 1);
  }
  if ((rc = check_keys(rd, c, "collective", known, coll_param_key, t, pnames[0] ? pnames : NULL)))
    return rc;
  if ((rc = read_params(rd, c, "collective", t->name, t->params, t->nparams, e->coll_params)))
    return rc;
  /* allreduce/hierarchical: node_size 0 means the platform's GPUs per node */
  for (size_t i = 0; i < t->nparams; i++)
    if (!strcmp(t->params[i].name, "node_size") && e->coll_params[i] == 0 &&
        e->platform.gpus_per_node > 1) {
      e->coll_params[i] = e->platform.gpus_per_node;
      json_object_set_new(c, "node_size", json_integer(e->platform.gpus_per_node));
    }
  if (t->nparams == 0) json_object_set_new(root, "collective", json_string(t->name));

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
    return fail(rd, "collective",
                "%s combines payloads hop by hop and needs a summable compressor, but \"%s\" is "
                "not summable; use a summable compressor (%s)%s%s",
                t->name, e->compressor->name, summable,
                others[0] ? " or a collective that takes any: " : "", others);
  }
  if (e->compressor->phases >= 2 && e->memory)
    return fail(rd, "compressor.memory",
                "\"%s\" keeps its own error feedback across its rounds; set memory to \"none\"",
                e->compressor->name);
  char cerr[256];
  if (t->check && t->check(e->workers, e->coll_params, cerr, sizeof cerr))
    return fail(rd, "collective", "%s", cerr);
  return 0;
}

static int read_output(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *o = object_at(rd, root, "output", &rc);
  if (!o) return rc;
  static const char *const known[] = {"dir", "timeline", NULL};
  if ((rc = check_keys(rd, o, "output", known, NULL, NULL, NULL))) return rc;
  if ((rc = read_bool(rd, o, "output", "timeline", 0, &e->timeline))) return rc;
  char def[512], *leaf = results_component(e->name); /* a name never leaves results/ */
  snprintf(def, sizeof def, "results/%s", leaf ? leaf : "experiment");
  free(leaf);
  const char *dir;
  if ((rc = read_string(rd, o, "output", "dir", def, &dir))) return rc;
  e->out_dir = strdup(dir);
  return 0;
}

static int read_all(reader *rd, experiment *e, json_t *root) {
  int rc;
  static const char *const known[] = {"name", "description", "seed", "workers", "iterations",
                                      "platform", "model", "gradients", "train", "compressor",
                                      "collective", "device", "schedule", "output", NULL};
  if ((rc = check_keys(rd, root, "", known, NULL, NULL, NULL))) return rc;
  char *base = strdup(e->file), *stem = basename(base), *dot = strrchr(stem, '.');
  if (dot) *dot = 0;
  const char *name;
  rc = read_string(rd, root, "", "name", stem, &name);
  if (!rc) e->name = strdup(name);
  free(base);
  if (rc) return rc;
  json_t *d = json_object_get(root, "description");
  char b[80];
  if (d && !json_is_string(d)) return fail(rd, "description", "expected a string, got %s", show(d, b, sizeof b));
  long long x;
  if ((rc = read_int(rd, root, "", "seed", 0, 1, 0, 1ll << 53, &x))) return rc;
  e->seed = (uint64_t)x;
  if ((rc = read_int(rd, root, "", "workers", 1, 0, 1, 1 << 20, &x))) return rc;
  e->workers = (int)x;
  if ((rc = read_int(rd, root, "", "iterations", 0, 1, 1, 1 << 30, &x))) return rc;
  e->iterations = (int)x;
  if ((rc = read_platform(rd, e, root))) return rc;
  /* The gradient source first: a trace or a trained model fixes the
   * element count the model section must agree with. */
  size_t implied;
  char what[1200];
  if ((rc = read_gradients(rd, e, root, &implied, what, sizeof what))) return rc;
  if ((rc = read_model(rd, e, root, implied, what))) return rc;
  if ((rc = read_compressor(rd, e, root))) return rc;
  if ((rc = read_collective(rd, e, root))) return rc;
  if ((rc = read_device(rd, e, root))) return rc;
  if ((rc = read_schedule(rd, e, root))) return rc;
  if ((rc = read_output(rd, e, root))) return rc;
  /* Setup-dependent compressor checks (levels vs workers, ...). */
  if (e->model.sample && e->compressor->phases > 1)
    return fail(rd, "model.sample",
                "coordinate sampling cannot run %s (its payload size follows the matrix shape of "
                "the whole tensor); remove model.sample",
                e->compressor->name);
  char cerr[CCOMP_ERRLEN];
  ccomp_setup su = {.n = e->model.sample ? e->model.sample + e->model.layers->nlayers : e->model.elements, .workers = (uint32_t)e->workers, .rank = 0, .seed = e->seed};
  ccomp *probe = ccomp_new(e->compressor, e->comp_params, &su, cerr, sizeof cerr);
  if (!probe) return fail(rd, "compressor", "%s", cerr);
  ccomp_free(probe);
  return 0;
}

experiment *experiment_load(const char *file, char *const *sets, int nsets, ccsim_error *err) {
  FILE *f = fopen(file, "r");
  if (!f) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot open experiment file: %s", file, strerror(errno));
    return NULL;
  }
  json_error_t jerr;
  json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
  fclose(f);
  if (!root) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%d:%d: malformed JSON: %s", file, jerr.line, jerr.column,
               jerr.text);
    return NULL;
  }
  if (!json_is_object(root)) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: (top level): expected a JSON object", file);
    json_decref(root);
    return NULL;
  }
  normalize(root);
  for (int i = 0; i < nsets; i++) {
    if (experiment_set(root, file, sets[i], err)) {
      json_decref(root);
      return NULL;
    }
    normalize(root); /* --set collective=NAME --set collective.PARAM=.. */
  }
  experiment *e = calloc(1, sizeof *e);
  e->file = strdup(file);
  char *tmp = strdup(file);
  e->dir = strdup(dirname(tmp));
  free(tmp);
  e->resolved = root;
  reader rd = {file, err};
  if (read_all(&rd, e, root)) {
    experiment_free(e);
    return NULL;
  }
  return e;
}

void experiment_free(experiment *e) {
  if (!e) return;
  free(e->file);
  free(e->dir);
  free(e->name);
  free(e->platform.file);
  free(e->platform.generate);
  free(e->platform.network_model);
  free(e->out_dir);
  profile_free(e->model.layers);
  measured_free(e->measured);
  free(e->gradients.trace);
  free(e->train.data);
  json_decref(e->resolved);
  free(e);
}
