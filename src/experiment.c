/* src/experiment.c — load, check and resolve an experiment file.
 *
 * Reading walks the JSON once, field by field: each reader names the JSON
 * path it reads, writes the default back into the tree when a field is
 * missing (so the tree becomes the resolved experiment), and reports what it
 * expected when a value is wrong.  Every object's keys are checked against
 * the fields it may hold. */
#include "experiment.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/collective.h"
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

/* The parameters of a compressor or memory: every one present in obj is
 * checked, every missing one gets its default. */
static int read_params(reader *rd, json_t *obj, const char *path, const char *owner,
                       const ccomp_param *params, size_t nparams, const ccomp_type *check_as,
                       double *out) {
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
    int bad = 0;
    if (check_as) {
      bad = ccomp_param_check(check_as, i, x, perr, sizeof perr);
    } else if (!(x >= pa->min && x <= pa->max) || (pa->kind == CCOMP_INT && x != floor(x))) {
      bad = 1;
      snprintf(perr, sizeof perr, "%s: parameter '%s' must be %s in [%g, %g], got %g", owner,
               pa->name, pa->kind == CCOMP_INT ? "an integer" : "a number", pa->min, pa->max, x);
    }
    if (bad) return fail(rd, p, "%s", perr);
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
                        e->compressor->nparams, e->compressor, e->comp_params)))
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
                            e->memory->nparams, NULL, e->mem_params)))
        return rc;
    }
  } else if (mobj) {
    return fail(rd, "compressor.memory", "memory \"none\" takes no parameters; write \"none\"");
  }
  return 0;
}

static int read_platform(reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *p = object_at(rd, root, "platform", &rc);
  if (!p) return rc;
  static const char *const known[] = {"file", "generate", "hosts", "bandwidth", "latency",
                                      "network_model", "crosstraffic", NULL};
  if ((rc = check_keys(rd, p, "platform", known, NULL, NULL, NULL))) return rc;
  json_t *file = json_object_get(p, "file");
  json_t *gen = json_object_get(p, "generate");
  if (file && gen) return fail(rd, "platform", "give either \"file\" or \"generate\", not both");
  if (!file && !gen) json_object_set_new(p, "generate", json_string("crossbar"));
  if (file) {
    const char *f;
    if ((rc = read_string(rd, p, "platform", "file", NULL, &f))) return rc;
    static const char *const gen_only[] = {"hosts", "bandwidth", "latency", NULL};
    for (const char *const *k = gen_only; *k; k++)
      if (json_object_get(p, *k)) {
        char path[64];
        join(path, sizeof path, "platform", *k);
        return fail(rd, path, "only for generated platforms; a platform file sets its own");
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
  } else {
    const char *g;
    static const char *const generators[] = {"crossbar", NULL};
    int gi;
    if ((rc = read_string(rd, p, "platform", "generate", "crossbar", &g))) return rc;
    if ((rc = one_of(rd, "platform.generate", g, generators, &gi))) return rc;
    e->platform.generate = strdup(g);
    long long hosts;
    if ((rc = read_int(rd, p, "platform", "hosts", 0, e->workers, 1, 1 << 20, &hosts))) return rc;
    e->platform.hosts = (int)hosts;
    if (hosts < e->workers)
      return fail(rd, "workers", "%d workers but the platform has %lld hosts (platform.hosts)",
                  e->workers, hosts);
    if ((rc = read_unit(rd, p, "platform", "bandwidth", "25Gbps", U_BANDWIDTH, &e->platform.bandwidth)))
      return rc;
    if ((rc = read_unit(rd, p, "platform", "latency", "5us", U_TIME, &e->platform.latency))) return rc;
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

/* "model": {"elements": N} or {"size": "4MB"}.  implied > 0 when the
 * gradient source fixes the element count (a trace, a trained model): then
 * the section may be left out (the count is written in) and a count given
 * must agree with it; `what` names where it comes from. */
static int read_model(reader *rd, experiment *e, json_t *root, size_t implied, const char *what) {
  int rc = 0;
  json_t *m = object_at(rd, root, "model", &rc);
  if (!m) return rc;
  static const char *const known[] = {"elements", "size", NULL};
  if ((rc = check_keys(rd, m, "model", known, NULL, NULL, NULL))) return rc;
  int has_e = json_object_get(m, "elements") != NULL, has_s = json_object_get(m, "size") != NULL;
  if (implied && !has_e && !has_s) {
    json_object_set_new(m, "elements", json_integer((json_int_t)implied));
    has_e = 1;
  }
  if (has_e == has_s)
    return fail(rd, "model", "give exactly one of \"elements\" (fp32 count) or \"size\" (e.g. \"4MB\")");
  if (has_e) {
    long long n;
    if ((rc = read_int(rd, m, "model", "elements", 1, 0, 1, 1ll << 40, &n))) return rc;
    e->model.elements = (size_t)n;
  } else {
    double bytes;
    if ((rc = read_unit(rd, m, "model", "size", NULL, U_SIZE, &bytes))) return rc;
    if (bytes < 4) return fail(rd, "model.size", "expected at least 4 bytes (one fp32), got %g", bytes);
    e->model.elements = (size_t)(bytes / 4);
  }
  if (implied && e->model.elements != implied)
    return fail(rd, has_e ? "model.elements" : "model.size",
                "%zu elements, but %s has %zu; leave the model section out (it follows the "
                "gradient source) or make them agree",
                e->model.elements, what, implied);
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

/* A data file: relative to the experiment file first, then to ccsim's
 * source tree (where workloads/data lives). */
static int resolve_data(reader *rd, experiment *e, const char *path, const char *f, char **out) {
  *out = resolve(e, f);
  if (access(*out, R_OK) == 0 || f[0] == '/') goto check;
#ifdef CCSIM_SOURCE_ROOT
  {
    size_t need = strlen(CCSIM_SOURCE_ROOT) + strlen(f) + 2;
    char *alt = malloc(need);
    snprintf(alt, need, "%s/%s", CCSIM_SOURCE_ROOT, f);
    if (access(alt, R_OK) == 0) {
      free(*out);
      *out = alt;
      return 0;
    }
    free(alt);
    return fail(rd, path, "cannot read \"%s\" (tried %s and %s/%s): %s", f, *out,
                CCSIM_SOURCE_ROOT, f, strerror(errno));
  }
#endif
check:
  if (access(*out, R_OK) != 0)
    return fail(rd, path, "cannot read \"%s\": %s", *out, strerror(errno));
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

/* The "train" section (gradients.source "train"): dataset, model, shards,
 * batches, optimizer, evaluation.  *nparams = the model's parameter count. */
static int read_train(reader *rd, experiment *e, json_t *root, size_t *nparams) {
  int rc = 0;
  json_t *t = object_at(rd, root, "train", &rc);
  if (!t) return rc;
  train_config *c = &e->train;
  static const char *const known[] = {"dataset", "data", "teacher", "model", "shards",
                                      "shards_per_worker", "batch", "test_fraction", "optimizer",
                                      "eval_every", "target_accuracy", NULL};
  if ((rc = check_keys(rd, t, "train", known, NULL, NULL, NULL))) return rc;
  static const char *const datasets[] = {"digits", "teacher", NULL};
  const char *s;
  int i;
  long long x;
  if ((rc = read_string(rd, t, "train", "dataset", "digits", &s))) return rc;
  if ((rc = one_of(rd, "train.dataset", s, datasets, &i))) return rc;
  c->dataset = (enum train_dataset)i;
  if (c->dataset == TRAIN_DIGITS) {
    if (json_object_get(t, "teacher"))
      return fail(rd, "train.teacher", "only for dataset \"teacher\"");
    if ((rc = read_string(rd, t, "train", "data", "workloads/data/digits.csv.gz", &s))) return rc;
    if ((rc = resolve_data(rd, e, "train.data", s, &c->data))) return rc;
    c->model.inputs = 64; /* 8 x 8 pixels, 10 digits: data.h */
    c->model.classes = 10;
  } else {
    if (json_object_get(t, "data"))
      return fail(rd, "train.data", "only for dataset \"digits\" (the teacher task is generated)");
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
  static const char *const kinds[] = {"softmax", "mlp", NULL};
  if ((rc = read_string(rd, m, "train.model", "kind", "mlp", &s))) return rc;
  if ((rc = one_of(rd, "train.model.kind", s, kinds, &i))) return rc;
  c->model.kind = (enum tmodel_kind)i;
  if (c->model.kind == TMODEL_SOFTMAX) {
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
  tmodel_free(probe);

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
  if ((rc = read_real(rd, t, "train", "test_fraction", 0.2, 1e-9, 0.99, &c->test_fraction))) return rc;

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

/* "gradients": {"source": "synthetic" | "trace" | "train", ...}.  *implied =
 * the element count the source fixes (0: synthetic), described in what. */
static int read_gradients(reader *rd, experiment *e, json_t *root, size_t *implied, char *what,
                          size_t whatlen) {
  int rc = 0;
  *implied = 0;
  json_t *g = object_at(rd, root, "gradients", &rc);
  if (!g) return rc;
  static const char *const known[] = {"source", "trace", "distribution", "scale", "correlation", NULL};
  if ((rc = check_keys(rd, g, "gradients", known, NULL, NULL, NULL))) return rc;
  static const char *const sources[] = {"synthetic", "trace", "train", NULL};
  static const char *const dists[] = {"normal", "laplace", "uniform", NULL};
  const char *s;
  int i;
  if ((rc = read_string(rd, g, "gradients", "source", "synthetic", &s))) return rc;
  if ((rc = one_of(rd, "gradients.source", s, sources, &i))) return rc;
  e->gradients.source = (enum grad_source_kind)i;
  if (e->gradients.source != GRAD_TRAIN && json_object_get(root, "train"))
    return fail(rd, "train", "only with gradients.source \"train\" (the source is \"%s\")", s);
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
  if ((rc = read_params(rd, c, "collective", t->name, t->params, t->nparams, NULL, e->coll_params)))
    return rc;
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
  static const char *const known[] = {"dir", NULL};
  if ((rc = check_keys(rd, o, "output", known, NULL, NULL, NULL))) return rc;
  char def[512];
  snprintf(def, sizeof def, "results/%s", e->name);
  const char *dir;
  if ((rc = read_string(rd, o, "output", "dir", def, &dir))) return rc;
  e->out_dir = strdup(dir);
  return 0;
}

static int read_all(reader *rd, experiment *e, json_t *root) {
  int rc;
  static const char *const known[] = {"name", "description", "seed", "workers", "iterations",
                                      "platform", "model", "gradients", "train", "compressor",
                                      "collective", "output", NULL};
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
  if ((rc = read_output(rd, e, root))) return rc;
  /* Setup-dependent compressor checks (levels vs workers, ...). */
  char cerr[CCOMP_ERRLEN];
  ccomp_setup su = {.n = e->model.elements, .workers = (uint32_t)e->workers, .rank = 0, .seed = e->seed};
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
  free(e->gradients.trace);
  free(e->train.data);
  json_decref(e->resolved);
  free(e);
}
