/* src/sweep/sweep_load.c — a sweep file read and checked into its points.
 *
 *   {
 *     "name": "cascade",
 *     "base": "base.json",                       relative to the sweep file
 *     "set": {"iterations": 24},                 optional, every point
 *     "axes": [
 *       {"name": "workers", "path": "workers", "values": [4, 8, 16]},
 *       {"name": "method", "values": [
 *          {"label": "marsit", "set": {"compressor": "marsit",
 *                                      "collective": "allreduce/ring"}},
 *          ...]}
 *     ],
 *     "output": {"dir": "results/cascade"}        relative to the working dir
 *   }
 *
 * A "path" axis sets one field to each value; a labelled axis applies each
 * value's "set" object (field -> JSON value); "set" at the top applies to
 * every point.  Point p is one value of each axis (the last axis varies
 * fastest), named "<axis>=<label>,<axis>=<label>".  Every point is loaded
 * here, so a bad value stops the sweep with exit 2 before any simulation. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "input/input.h"
#include "sweep/sweep_internal.h"

static char *dump(json_t *v) { return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT); }

/* "key=<v as compact JSON>", a --set assignment; a new string. */
static char *assignment(const char *key, json_t *v) {
  char *text = dump(v);
  if (!text) return NULL;
  size_t need = strlen(key) + strlen(text) + 2;
  char *a = malloc(need);
  if (a) snprintf(a, need, "%s=%s", key, text);
  free(text);
  return a;
}

/* One axis value: its label and its assignments. */
typedef struct choice {
  char label[128];
  char *sets[32];
  int nsets;
  char *path_at[32], *value_at[32]; /* where in the sweep file (point.path_at) */
} choice;

/* A label for a plain value: its JSON text without quotes, cut to len - 1
 * bytes, with the bytes below as '-'; 0, 1 when cut, -1 out of memory. */
static int label_of(json_t *v, char *buf, size_t len) {
  char *s = json_is_string(v) ? strdup(json_string_value(v)) : dump(v);
  if (!s) return -1;
  const int fits = (size_t)snprintf(buf, len, "%s", s) < len;
  free(s);
  /* a label names a directory, a CSV field and a line of points.txt: no
   * path separator, CSV or shell metacharacter, quote or control byte */
  for (char *c = buf; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f || strchr("/, \"'`$;&|<>\\", *c)) *c = '-';
  return fits ? 0 : 1;
}

/* Checks that value k of an axis (made: label_of succeeded) has a label that differs from the labels
 * before it (after label_of's replacements), so that point ids are unique. */
static int label_check(cfg_reader *rd, const char *vp, const choice *c, size_t k, int made) {
  if (!made) return ccsim_fail(rd->err, CCSIM_ERR_RUNTIME, "%s: %s: out of memory", rd->file, vp);
  /* a long label is cut: sweep_plan_points refuses two that then share a directory */
  for (size_t j = 0; j < k; j++)
    if (!strcmp(c[-(long)(k - j)].label, c->label))
      return cfg_fail(rd, vp, "its label \"%s\" is values[%zu]'s too (characters such as / , space, quotes and "
                      "shell metacharacters become '-'); give each value its own label", c->label, j);
  return 0;
}

/* sweep_internal.h */
void sweep_free(sweep *s) {
  for (size_t p = 0; s->points && p < s->npoints; p++) {
    for (int k = 0; k < s->points[p].nsets; k++) {
      free(s->points[p].sets[k]);
      free(s->points[p].path_at ? s->points[p].path_at[k] : NULL);
      free(s->points[p].value_at ? s->points[p].value_at[k] : NULL);
    }
    free(s->points[p].path_at);
    free(s->points[p].value_at);
    for (int a = 0; s->points[p].labels && a < s->naxes; a++) free(s->points[p].labels[a]);
    free(s->points[p].sets);
    free(s->points[p].labels);
  }
  for (int a = 0; s->axis_names && a < s->naxes; a++) free(s->axis_names[a]);
  free(s->axis_names);
  free(s->points);
  free(s->file), free(s->dir), free(s->base), free(s->out), free(s->name);
}


/* The point's next --set and where it came from, taken whole or not at all
 * (any NULL: an allocation failed; all three freed, -1), so sweep_free's
 * count never misses a half-made entry. */
static int add_set(point *pt, char *path_at, char *value_at, char *set) {
  if (!path_at || !value_at || !set) return free(path_at), free(value_at), free(set), -1;
  pt->path_at[pt->nsets] = path_at, pt->value_at[pt->nsets] = value_at, pt->sets[pt->nsets] = set;
  pt->nsets++;
  return 0;
}

/* A field path of a --set: non-empty names joined by '.', and no '=' (which
 * would end the path of the assignment early). */
static int field_path_ok(const char *p) {
  return *p && !strchr(p, '=') && p[0] != '.' && p[strlen(p) - 1] != '.' && !strstr(p, "..");
}

/* Axis i of the sweep file: its name and its values (*out, *count, new);
 * 0, or an exit code with err. */
static int read_axis(json_t *ax, const char *file, int i, choice **out, size_t *count, char **name,
                     ccsim_error *err) {
  cfg_reader rd = {file, err};
  char path[64];
  snprintf(path, sizeof path, "axes[%d]", i);
  if (!json_is_object(ax)) return cfg_fail(&rd, path, "expected an object with \"values\"");
  static const char *const known[] = {"name", "path", "values", NULL};
  int rc;
  if ((rc = cfg_keys(&rd, ax, path, known, NULL, NULL, NULL))) return rc;
  json_t *jp = json_object_get(ax, "path"), *jn = json_object_get(ax, "name");
  json_t *vals = json_object_get(ax, "values");
  if (jp && !json_is_string(jp)) return cfg_fail(&rd, path, "\"path\" must be a string such as \"workers\"");
  if (jn && !json_is_string(jn)) return cfg_fail(&rd, path, "\"name\" must be a string");
  if (!jp && !jn) return cfg_fail(&rd, path, "give \"path\" (a field to vary) or \"name\" (labelled values)");
  if (!json_is_array(vals) || json_array_size(vals) == 0)
    return cfg_fail(&rd, path, "\"values\" must be a non-empty array");
  if (jn && !json_string_length(jn)) return cfg_fail(&rd, path, "\"name\" must not be empty");
  /* an axis name heads a CSV column and names point directories */
  for (const char *c = jn ? json_string_value(jn) : ""; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f || strchr(",=\"'`$;&|<>\\", *c))
      return cfg_fail(&rd, path, "\"name\" must be a plain name (no control character, quote, backslash, ',', "
                      "'=' or shell metacharacter; found 0x%02x)", (unsigned char)*c);
  if (jp && !field_path_ok(json_string_value(jp)))
    return cfg_fail(&rd, path, "\"path\" must be names joined by '.' such as \"platform.bandwidth\", got \"%s\"",
                    json_string_value(jp));
  *name = strdup(json_string_value(jn ? jn : jp));
  *out = calloc(json_array_size(vals), sizeof **out);
  if (!*name || !*out) return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, path, 0, 0, "out of memory");
  *count = json_array_size(vals);
  size_t k;
  json_t *v;
  json_array_foreach(vals, k, v) {
    choice *c = &(*out)[k];
    char vp[96];
    snprintf(vp, sizeof vp, "%s.values[%zu]", path, k);
    if (jp) { /* a plain value for one field */
      if ((rc = label_check(&rd, vp, c, k, label_of(v, c->label, sizeof c->label) >= 0))) return rc;
      char at[96];
      snprintf(at, sizeof at, "%s.path", path);
      if (!(c->sets[0] = assignment(json_string_value(jp), v)) || !(c->path_at[0] = strdup(at)) ||
          !(c->value_at[0] = strdup(vp)))
        return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, vp, 0, 0, "out of memory");
      c->nsets = 1;
      continue;
    }
    json_t *lab = json_object_get(v, "label"), *set = json_object_get(v, "set");
    if (!json_is_object(v) || !json_is_string(lab) || !json_is_object(set))
      return cfg_fail(&rd, vp, "expected {\"label\": \"...\", \"set\": {FIELD: VALUE, ...}}");
    static const char *const vknown[] = {"label", "set", NULL};
    if ((rc = cfg_keys(&rd, v, vp, vknown, NULL, NULL, NULL))) return rc;
    if (!json_string_length(lab)) return cfg_fail(&rd, vp, "\"label\" must not be empty");
    if ((rc = label_check(&rd, vp, c, k, label_of(lab, c->label, sizeof c->label) >= 0))) return rc;
    const char *key;
    json_t *x;
    json_object_foreach(set, key, x) {
      if (!field_path_ok(key))
        return cfg_fail(&rd, vp, "set: \"%s\" is not a field path (names joined by '.')", key);
      if (c->nsets == 32) return cfg_fail(&rd, vp, "at most 32 fields per value");
      char at[200];
      snprintf(at, sizeof at, "%s.set.%s", vp, key);
      if (!(c->path_at[c->nsets] = strdup(at)) || !(c->value_at[c->nsets] = strdup(at)) ||
          !(c->sets[c->nsets] = assignment(key, x)) || !c->label[0])
        return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, vp, 0, 0, "out of memory");
      c->nsets++;
    }
  }
  return 0;
}

/* 1 when the JSON path e (an error's, in the experiment) is the field path f
 * or lies inside it ("compressor.name" in "compressor"); 2 when f lies
 * inside e ("platfrom.bandwidth" under "platfrom"); else 0. */
static int relates(const char *e, const char *f, size_t flen) {
  size_t elen = strlen(e);
  if (elen >= flen && !strncmp(e, f, flen) && (e[flen] == 0 || e[flen] == '.' || e[flen] == '[')) return 1;
  if (elen < flen && !strncmp(e, f, elen) && f[elen] == '.') return 2;
  return 0;
}

/* sweep_internal.h */
int sweep_blame(const sweep *s, const point *p, ccsim_error *err) {
  if (!err->has_path || strcmp(err->file, s->base) || !p->path_at) return err->code;
  /* the last assignment wins in the experiment: the last that relates is blamed */
  for (int k = p->nsets - 1; k >= 0; k--) {
    const char *eq = strchr(p->sets[k], '=');
    int r = eq ? relates(err->path, p->sets[k], (size_t)(eq - p->sets[k])) : 0;
    if (!r) continue;
    /* an unknown key along the field path: the path is misspelt, not the value */
    const int at_path = !strncmp(err->text, "unknown key", 11) && (r == 2 || !strchr(err->path + (eq - p->sets[k]), '.'));
    ccsim_error was = *err;
    return ccsim_fail_at(err, was.code, s->file, at_path ? p->path_at[k] : p->value_at[k], 0, 0,
                         "point %s: %s: %s (in the base experiment %s)", p->id, was.path[0] ? was.path : "(top level)",
                         was.text, s->base);
  }
  return err->code;
}

/* sweep_internal.h */
int sweep_load(const char *file, const char *out_override, sweep *s, ccsim_error *err) {
  memset(s, 0, sizeof *s);
  json_t *root = cfg_load_json(file, "sweep file", CFG_MAX_JSON, err);
  if (!root) return err->code;
  cfg_reader rd = {file, err};
  int rc = 0;
  choice **choices = NULL;
  size_t *counts = NULL;
  static const char *const known[] = {"name", "description", "base", "set", "axes", "output", NULL};
  if (!json_is_object(root)) {
    rc = cfg_fail(&rd, "", "expected a JSON object {\"name\", \"base\", \"axes\", ...}");
    goto out;
  }
  /* an experiment given to ccsim sweep: said as such, not as an unknown key */
  if (!json_object_get(root, "base") && !json_object_get(root, "axes") &&
      (json_object_get(root, "workers") || json_object_get(root, "model") || json_object_get(root, "compressor") ||
       json_object_get(root, "collective") || json_object_get(root, "platform"))) {
    rc = cfg_fail(&rd, "", "expected a sweep file, got an experiment (it has no \"base\" and no \"axes\"): run it "
                           "with ccsim run, or write a sweep whose base it is");
    goto out;
  }
  if ((rc = cfg_keys(&rd, root, "", known, NULL, NULL, NULL))) goto out;
  s->file = strdup(file);
  char *tmp = strdup(file), *slash = tmp ? strrchr(tmp, '/') : NULL;
  if (slash) *slash = 0;
  s->dir = tmp ? strdup(slash ? tmp : ".") : NULL;
  free(tmp);
  if (!s->file || !s->dir) goto oom;
  json_t *jname = json_object_get(root, "name"), *jbase = json_object_get(root, "base");
  json_t *axes = json_object_get(root, "axes"), *jout = json_object_get(root, "output");
  if (jname && (!json_is_string(jname) || !json_string_length(jname))) {
    rc = cfg_fail(&rd, "name", "expected a non-empty string");
    goto out;
  }
  for (const char *c = jname ? json_string_value(jname) : ""; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      rc = cfg_fail(&rd, "name", "expected a name without control characters (newline, tab, ...), got 0x%02x",
                    (unsigned char)*c);
      goto out;
    }
  if (!json_is_string(jbase)) {
    rc = cfg_fail(&rd, "base", "expected the path of the base experiment (relative to this file)");
    goto out;
  }
  if (jname) {
    s->name = strdup(json_string_value(jname));
  } else { /* the file name without .json, as for an experiment */
    const char *leaf = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    s->name = strdup(leaf);
    const size_t l = s->name ? strlen(s->name) : 0;
    if (l > 5 && !strcmp(s->name + l - 5, ".json")) s->name[l - 5] = 0;
  }
  const char *b = json_string_value(jbase);
  size_t need = strlen(s->dir) + strlen(b) + 2;
  if (!s->name || !(s->base = malloc(need))) goto oom;
  if (b[0] == '/') snprintf(s->base, need, "%s", b);
  else snprintf(s->base, need, "%s/%s", s->dir, b);
  json_t *jdir = json_is_object(jout) ? json_object_get(jout, "dir") : NULL;
  if (jout) { /* checked even when --out overrides it */
    static const char *const oknown[] = {"dir", NULL};
    if (!json_is_object(jout)) { rc = cfg_fail(&rd, "output", "expected an object {\"dir\": ...}"); goto out; }
    if ((rc = cfg_keys(&rd, jout, "output", oknown, NULL, NULL, NULL))) goto out;
    if (!json_is_string(jdir) || !json_string_length(jdir)) {
      rc = cfg_fail(&rd, "output.dir", "expected a non-empty string");
      goto out;
    }
  }
  if (out_override) {
    s->out = strdup(out_override);
  } else if (jdir) {
    s->out = strdup(json_string_value(jdir));
  } else {
    char def[512];
    snprintf(def, sizeof def, "results/%s", s->name);
    s->out = strdup(def);
  }
  if (!s->out) goto oom;
  if (!json_is_array(axes) || json_array_size(axes) == 0 || json_array_size(axes) > 8) {
    rc = cfg_fail(&rd, "axes", "expected an array of 1 to 8 axes");
    goto out;
  }
  s->naxes = (int)json_array_size(axes);
  s->axis_names = calloc((size_t)s->naxes, sizeof *s->axis_names);
  choices = calloc((size_t)s->naxes, sizeof *choices);
  counts = calloc((size_t)s->naxes, sizeof *counts);
  if (!s->axis_names || !choices || !counts) goto oom;
  s->npoints = 1;
  for (int a = 0; a < s->naxes; a++) {
    if ((rc = read_axis(json_array_get(axes, (size_t)a), file, a, &choices[a], &counts[a],
                        &s->axis_names[a], err)))
      goto out;
    /* checked at each axis: the product of a few long axes overflows */
    if (counts[a] > 100000 || (s->npoints *= counts[a]) > 100000) {
      double total = 1; /* what all the axes give (read no further: their lengths only) */
      for (size_t b = 0; b < json_array_size(axes); b++) {
        json_t *v = json_object_get(json_array_get(axes, b), "values");
        total *= json_is_array(v) ? (double)json_array_size(v) : 1;
      }
      rc = cfg_fail(&rd, "axes", "%.0f points (the axes' lengths multiplied), more than the 100000 a sweep may have",
                    total);
      goto out;
    }
    for (int b = 0; b < a; b++)
      if (!strcmp(s->axis_names[a], s->axis_names[b])) {
        char ap[32];
        snprintf(ap, sizeof ap, "axes[%d]", a);
        rc = cfg_fail(&rd, ap, "the axis name \"%s\" is axes[%d]'s too; give each axis its own name", s->axis_names[a], b);
        goto out;
      }
  }
  json_t *common = json_object_get(root, "set");
  if (common && !json_is_object(common)) {
    rc = cfg_fail(&rd, "set", "expected an object {FIELD: VALUE, ...} applied to every point");
    goto out;
  }
  if (common) {
    const char *key;
    json_t *x;
    json_object_foreach(common, key, x) {
      if (!field_path_ok(key)) {
        rc = cfg_fail(&rd, "set", "\"%s\" is not a field path (names joined by '.')", key);
        goto out;
      }
    }
  }
  const size_t ncommon = common ? json_object_size(common) : 0;
  if (!(s->points = calloc(s->npoints, sizeof *s->points))) goto oom;
  for (size_t p = 0; p < s->npoints; p++) {
    point *pt = &s->points[p];
    pt->labels = calloc((size_t)s->naxes, sizeof *pt->labels);
    pt->sets = calloc(32 * (size_t)s->naxes + ncommon + 1, sizeof *pt->sets);
    pt->path_at = calloc(32 * (size_t)s->naxes + ncommon + 1, sizeof *pt->path_at);
    pt->value_at = calloc(32 * (size_t)s->naxes + ncommon + 1, sizeof *pt->value_at);
    if (!pt->labels || !pt->sets || !pt->path_at || !pt->value_at) goto oom;
    if (common) {
      const char *key;
      json_t *x;
      json_object_foreach(common, key, x) {
        char at[200];
        snprintf(at, sizeof at, "set.%s", key);
        if (add_set(pt, strdup(at), strdup(at), assignment(key, x))) goto oom;
      }
    }
    size_t rest = p;
    size_t idx[8] = {0}; /* naxes <= 8, each set below before it is read */
    for (int a = s->naxes - 1; a >= 0; a--) idx[a] = rest % counts[a], rest /= counts[a];
    for (int a = 0; a < s->naxes; a++) {
      const choice *c = &choices[a][idx[a]];
      if (!(pt->labels[a] = strdup(c->label))) goto oom;
      char part[512];
      if ((size_t)snprintf(part, sizeof part, "%s%s=%s", a ? "," : "", s->axis_names[a], c->label) >= sizeof part ||
          strlen(pt->id) + strlen(part) >= sizeof pt->id) {
        rc = cfg_fail(&rd, "axes", "point %zu's id (axis names and labels joined) is longer than %zu bytes; "
                      "use shorter names or labels", p, sizeof pt->id - 1);
        goto out;
      }
      strcat(pt->id, part);
      for (int k = 0; k < c->nsets; k++) {
        if (add_set(pt, strdup(c->path_at[k]), strdup(c->value_at[k]), strdup(c->sets[k]))) goto oom;
      }
    }
  }
  if (0) {
  oom:
    rc = ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "out of memory while reading the sweep");
  }
out:
  for (int a = 0; choices && a < s->naxes; a++) {
    for (size_t k = 0; choices[a] && k < counts[a]; k++)
      for (int j = 0; j < 32; j++) /* calloc: unused slots are NULL */
        free(choices[a][k].sets[j]), free(choices[a][k].path_at[j]), free(choices[a][k].value_at[j]);
    free(choices[a]);
  }
  free(choices);
  free(counts);
  json_decref(root);
  return rc;
}
