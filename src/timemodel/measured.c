/* src/timemodel/measured.c — read and check measured device files, and turn
 * their tables into seconds.
 *
 * The reader is strict, as the profile reader is: every key known, every
 * number in range, sizes increasing, ready times within backward, so that a
 * truncated or hand-edited file is refused before a run rather than timing a
 * device that does not exist.  Errors name the file and the JSON path. */
#include "timemodel/measured.h"
#include "datapath.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "suggest.h"
#include "timemodel/profile.h"

#define FORMAT "ccsim-device-1"

/* Messages name the file and the JSON path (src/config/input.h). */
typedef cfg_reader rd;

/* path + "." + key into p[len] (a JSON path for a message: cut, if ever
 * that long, with "..." at the end). */
static const char *join(char *p, size_t len, const char *path, const char *key) {
  if ((size_t)snprintf(p, len, "%s%s%s", path, *path ? "." : "", key) >= len && len > 4) strcpy(p + len - 4, "...");
  return p;
}

/* obj[key], an object (required). */
static json_t *object(rd *r, const char *path, json_t *obj, const char *key, int *rc) {
  char p[512], b[80];
  json_t *v = json_object_get(obj, key);
  if (!json_is_object(v)) *rc = cfg_fail(r, join(p, sizeof p, path, key), "expected an object, got %s", cfg_show(v, b, sizeof b));
  return json_is_object(v) ? v : NULL;
}

/* obj[key] as a new string (required, non-empty); optional: NULL if absent or null. */
static int string(rd *r, const char *path, json_t *obj, const char *key, int required, char **out) {
  char p[512], b[80];
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (!required && (!v || json_is_null(v))) return 0;
  if (!json_is_string(v) || json_string_length(v) == 0)
    return cfg_fail(r, join(p, sizeof p, path, key), "expected a non-empty string, got %s", cfg_show(v, b, sizeof b));
  if (!(*out = strdup(json_string_value(v)))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  return 0;
}

/* Measured seconds are at most MAX_S and counts (a batch) at most
 * MAX_COUNT: a forward pass of 1e308 s would leave SimGrid deadlocked, a
 * batch of 1e300 would scale a time to 1e-298 s. */
#define MAX_S 1e6
#define MAX_COUNT 1e9

/* v: a finite number in [lo, hi] (lo excluded when open). */
static int number_v(rd *r, const char *p, json_t *v, double lo, int open, double hi, double *out) {
  char b[80];
  const double x = json_is_number(v) ? json_number_value(v) : NAN;
  if (!(isfinite(x) && (open ? x > lo : x >= lo) && x <= hi))
    return cfg_fail(r, p, "expected a number %s %g%s, got %s", open ? ">" : ">=", lo, hi < INFINITY ? hi == MAX_S ? " (at most 1e6 s)" : " (at most 1e9)" : "",
                    cfg_show(v, b, sizeof b));
  *out = x;
  return 0;
}

/* obj[key], a number >= lo (> lo when open); seconds ("..._s") at most
 * MAX_S, anything else (counts) at most MAX_COUNT. */
static int number(rd *r, const char *path, json_t *obj, const char *key, double lo, int open, double *out) {
  char p[512];
  const size_t n = strlen(key);
  const int seconds = (n > 2 && !strcmp(key + n - 2, "_s")) || strstr(key, "_s_") != NULL;
  return number_v(r, join(p, sizeof p, path, key), json_object_get(obj, key), lo, open, seconds ? MAX_S : MAX_COUNT,
                  out);
}

/* obj[key]: an array of n positive seconds (n = 0: any non-empty length, *n set). */
static int seconds_array(rd *r, const char *path, json_t *obj, const char *key, size_t *n, double **out) {
  char p[512], b[80];
  json_t *a = json_object_get(obj, key);
  join(p, sizeof p, path, key);
  if (!json_is_array(a) || json_array_size(a) == 0 || (*n && json_array_size(a) != *n)) {
    if (*n) return cfg_fail(r, p, "expected an array of %zu numbers (one per size), got %s", *n, cfg_show(a, b, sizeof b));
    return cfg_fail(r, p, "expected a non-empty array of numbers, got %s", cfg_show(a, b, sizeof b));
  }
  *n = json_array_size(a);
  if (!(*out = calloc(*n, sizeof **out))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  for (size_t i = 0; i < *n; i++) {
    char q[560];
    snprintf(q, sizeof q, "%s[%zu]", p, i);
    int rc = number_v(r, q, json_array_get(a, i), 0, 1, MAX_S, &(*out)[i]);
    if (rc) return rc;
  }
  return 0;
}

/* obj[key]: {"isolated_s": [...], "back_to_back_s": [...]}, one figure per size. */
static int curve(rd *r, const char *path, json_t *obj, const char *key, const measured_curve *sizes,
                 measured_curve out[2]) {
  static const char *const known[] = {"isolated_s", "back_to_back_s", NULL};
  char p[512];
  int rc = 0;
  json_t *o = object(r, path, obj, key, &rc);
  if (!o) return rc;
  join(p, sizeof p, path, key);
  if ((rc = cfg_keys(r, o, p, known, NULL, NULL, NULL))) return rc;
  for (int t = 0; t < 2; t++) {
    size_t n = sizes->npoints;
    out[t].npoints = n;
    if (!(out[t].sizes = malloc(n * sizeof *out[t].sizes))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
    memcpy(out[t].sizes, sizes->sizes, n * sizeof *out[t].sizes);
    if ((rc = seconds_array(r, p, o, known[t], &n, &out[t].seconds))) return rc;
  }
  return 0;
}

/* obj["sizes"]: strictly increasing element counts >= 1. */
static int sizes_of(rd *r, const char *path, json_t *obj, measured_curve *s) {
  char p[512], b[80];
  json_t *a = json_object_get(obj, "sizes");
  join(p, sizeof p, path, "sizes");
  if (!json_is_array(a) || json_array_size(a) == 0)
    return cfg_fail(r, p, "expected a non-empty array of element counts, got %s", cfg_show(a, b, sizeof b));
  s->npoints = json_array_size(a);
  if (!(s->sizes = calloc(s->npoints, sizeof *s->sizes))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  for (size_t i = 0; i < s->npoints; i++) {
    json_t *v = json_array_get(a, i);
    const double x = json_is_integer(v) ? (double)json_integer_value(v) : NAN;
    if (!(x >= 1 && (i == 0 || x > s->sizes[i - 1])))
      return cfg_fail(r, p, "element [%zu]: expected an integer >= 1 above the one before, got %s", i, cfg_show(v, b, sizeof b));
    s->sizes[i] = x;
  }
  return 0;
}

static int read_compressor(rd *r, const char *name, json_t *o, measured_compressor *mc) {
  static const char *const known[] = {"implementation", "sizes", "params", "encode", "decode", "combine", NULL};
  static const char *const ops[3] = {"encode", "decode", "combine"};
  char path[256], p[512], b[80], cerr[CCOMP_ERRLEN];
  snprintf(path, sizeof path, "compressors.%s", name);
  int rc;
  if (!(mc->name = strdup(name))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  if (!(mc->type = ccomp_find(name)))
    return cfg_fail(r, path, "unknown compressor \"%s\" (%sknown: %s)", name,
                    suggest_hint(name, NULL, ccomp_names(), (char[96]){0}, 96), ccomp_names());
  if (!json_is_object(o)) return cfg_fail(r, path, "expected an object, got %s", cfg_show(o, b, sizeof b));
  if ((rc = cfg_keys(r, o, path, known, NULL, NULL, NULL))) return rc;
  char *impl;
  if ((rc = string(r, path, o, "implementation", 1, &impl))) return rc;
  free(impl);
  json_t *params = object(r, path, o, "params", &rc);
  if (!params) return rc;
  mc->nparams = json_object_size(params);
  mc->param_names = calloc(mc->nparams + 1, sizeof *mc->param_names);
  mc->param_values = calloc(mc->nparams + 1, sizeof *mc->param_values);
  if (!mc->param_names || !mc->param_values) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  const char *key;
  json_t *v;
  size_t i = 0;
  json_object_foreach(params, key, v) {
    snprintf(p, sizeof p, "%s.params.%s", path, key);
    const int k = ccomp_param_index(mc->type, key);
    if (k < 0) return cfg_fail(r, p, "%s has no parameter \"%s\"", name, key);
    if ((rc = number_v(r, p, v, -INFINITY, 0, INFINITY, &mc->param_values[i]))) return rc;
    if (ccomp_param_check(mc->type, (size_t)k, mc->param_values[i], cerr, sizeof cerr))
      return cfg_fail(r, p, "%s", cerr);
    if (!(mc->param_names[i] = strdup(key))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
    i++;
  }
  measured_curve sizes = {0};
  rc = sizes_of(r, path, o, &sizes);
  for (int op = 0; op < 3 && !rc; op++) {
    if (op == CCOMP_COMBINE && !json_object_get(o, "combine")) continue; /* not summable */
    mc->has[op] = 1;
    rc = curve(r, path, o, ops[op], &sizes, mc->op[op]);
  }
  free(sizes.sizes);
  return rc;
}

/* o["batches"] (optional): iteration totals at batches other than the
 * reference's; with the reference, into mm->batches in increasing order. */
static int read_batches(rd *r, const char *path, json_t *o, measured_model *mm) {
  static const char *const known[] = {"batch", "forward_s", "backward_s", "runs", "iteration_s_min",
                                      "iteration_s_max", NULL};
  char p[512], b[80];
  json_t *a = json_object_get(o, "batches");
  join(p, sizeof p, path, "batches");
  if (a && !json_is_array(a))
    return cfg_fail(r, p, "expected an array of {batch, forward_s, backward_s}, got %s", cfg_show(a, b, sizeof b));
  const size_t n = a ? json_array_size(a) : 0;
  if (!(mm->batches = calloc(n + 1, sizeof *mm->batches))) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  mm->batches[0] = (measured_batch){mm->batch, mm->forward_s, mm->backward_s};
  mm->nbatches = 1;
  for (size_t i = 0; i < n; i++) {
    char q[560];
    snprintf(q, sizeof q, "%s[%zu]", p, i);
    json_t *e = json_array_get(a, i);
    measured_batch m;
    double ignored;
    int rc;
    if (!json_is_object(e)) return cfg_fail(r, q, "expected an object, got %s", cfg_show(e, b, sizeof b));
    if ((rc = cfg_keys(r, e, q, known, NULL, NULL, NULL)) || (rc = number(r, q, e, "batch", 1, 0, &m.batch)) ||
        (rc = number(r, q, e, "forward_s", 0, 1, &m.forward_s)) || (rc = number(r, q, e, "backward_s", 0, 1, &m.backward_s)))
      return rc;
    for (size_t k = 3; known[k]; k++)
      if (json_object_get(e, known[k]) && (rc = number(r, q, e, known[k], 0, 0, &ignored))) return rc;
    size_t at = 0;
    while (at < mm->nbatches && mm->batches[at].batch < m.batch) at++;
    if (at < mm->nbatches && mm->batches[at].batch == m.batch)
      return cfg_fail(r, q, "batch %g is listed twice (the reference batch is the entry's own \"batch\")", m.batch);
    memmove(mm->batches + at + 1, mm->batches + at, (mm->nbatches - at) * sizeof *mm->batches);
    mm->batches[at] = m;
    mm->nbatches++;
  }
  return 0;
}

static int read_model(rd *r, const char *model, const char *prec, json_t *o, measured_model *mm) {
  static const char *const known[] = {"batch", "forward_s", "backward_s", "tensors", "batches",
                                      /* optional numbers, for the reader of the file: */
                                      "repeats", "backward_s_min", "backward_s_max", "runs", "iteration_s_min",
                                      "iteration_s_max", NULL};
  static const char *const tknown[] = {"name", "ready_s", NULL};
  char path[256], p[512], b[80];
  snprintf(path, sizeof path, "models.%s.%s", model, prec);
  int rc;
  if (!(mm->model = strdup(model)) || !(mm->precision = strdup(prec)))
    return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  if (strcmp(prec, "fp32") && strcmp(prec, "tf32") && strcmp(prec, "bf16"))
    return cfg_fail(r, path, "unknown precision \"%s\" (known: fp32, tf32, bf16)", prec);
  if (!json_is_object(o)) return cfg_fail(r, path, "expected an object, got %s", cfg_show(o, b, sizeof b));
  double ignored;
  if ((rc = cfg_keys(r, o, path, known, NULL, NULL, NULL)) || (rc = number(r, path, o, "batch", 1, 0, &mm->batch)) ||
      (rc = number(r, path, o, "forward_s", 0, 1, &mm->forward_s)) ||
      (rc = number(r, path, o, "backward_s", 0, 1, &mm->backward_s)))
    return rc;
  for (size_t k = 5; known[k]; k++)
    if (json_object_get(o, known[k]) && (rc = number(r, path, o, known[k], 0, 0, &ignored))) return rc;
  if ((rc = read_batches(r, path, o, mm))) return rc;
  json_t *a = json_object_get(o, "tensors");
  join(p, sizeof p, path, "tensors");
  if (!json_is_array(a) || json_array_size(a) == 0)
    return cfg_fail(r, p, "expected a non-empty array of {name, ready_s}, got %s", cfg_show(a, b, sizeof b));
  mm->ntensors = json_array_size(a);
  mm->names = calloc(mm->ntensors, sizeof *mm->names);
  mm->ready_s = calloc(mm->ntensors, sizeof *mm->ready_s);
  if (!mm->names || !mm->ready_s) return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  for (size_t i = 0; i < mm->ntensors; i++) {
    char q[560];
    snprintf(q, sizeof q, "%s[%zu]", p, i);
    json_t *t = json_array_get(a, i);
    if (!json_is_object(t)) return cfg_fail(r, q, "expected an object, got %s", cfg_show(t, b, sizeof b));
    if ((rc = cfg_keys(r, t, q, tknown, NULL, NULL, NULL)) || (rc = string(r, q, t, "name", 1, &mm->names[i]))) return rc;
    char qq[600];
    if ((rc = number_v(r, join(qq, sizeof qq, q, "ready_s"), json_object_get(t, "ready_s"), 0, 0,
                       mm->backward_s, &mm->ready_s[i])))
      return cfg_fail(r, qq, "expected seconds in [0, backward_s = %.9g], got %s", mm->backward_s,
                  cfg_show(json_object_get(t, "ready_s"), b, sizeof b));
  }
  return 0;
}

static int read_device(rd *r, json_t *root, measured_device *d) {
  static const char *const known[] = {"format", "name", "summary", "roofline", "provenance", "launch",
                                      "models", "compressors", "ddp_buckets", NULL};
  static const char *const lknown[] = {"op", "isolated_s", "back_to_back_s", NULL};
  static const char *const bknown[] = {"tensors_per_bucket", "sizes", "flatten", "unflatten", NULL};
  char b[80];
  int rc = 0;
  if (!json_is_object(root)) return cfg_fail(r, "", "expected an object, got %s", cfg_show(root, b, sizeof b));
  if ((rc = cfg_keys(r, root, "", known, NULL, NULL, NULL))) return rc;
  json_t *fmt = json_object_get(root, "format");
  if (!json_is_string(fmt) || strcmp(json_string_value(fmt), FORMAT) != 0)
    return cfg_fail(r, "format", "expected \"%s\", got %s", FORMAT, cfg_show(fmt, b, sizeof b));
  char *roof = NULL;
  if ((rc = string(r, "", root, "name", 1, &d->name)) || (rc = string(r, "", root, "summary", 1, &d->summary)) ||
      (rc = string(r, "", root, "roofline", 1, &roof)))
    return rc;
  d->roofline = device_find(roof);
  if (!d->roofline)
    rc = cfg_fail(r, "roofline", "unknown built-in device \"%s\" (%sknown: v100, a100, h100, cpu)", roof,
                  suggest_hint(roof, NULL, "v100, a100, h100, cpu", (char[96]){0}, 96));
  free(roof);
  if (rc) return rc;
  json_t *prov = object(r, "", root, "provenance", &rc);
  if (!prov || (rc = string(r, "provenance", prov, "device", 1, &d->measured_on))) return rc;
  json_t *launch = object(r, "", root, "launch", &rc);
  if (!launch || (rc = cfg_keys(r, launch, "launch", lknown, NULL, NULL, NULL)) ||
      (rc = number(r, "launch", launch, "isolated_s", 0, 1, &d->launch_isolated_s)) ||
      (rc = number(r, "launch", launch, "back_to_back_s", 0, 1, &d->launch_back_to_back_s)))
    return rc;
  json_t *models = object(r, "", root, "models", &rc);
  if (!models) return rc;
  const char *mname, *pname;
  json_t *mv, *pv;
  json_object_foreach(models, mname, mv) {
    char path[256];
    snprintf(path, sizeof path, "models.%s", mname);
    if (!json_is_object(mv)) return cfg_fail(r, path, "expected an object of precisions, got %s", cfg_show(mv, b, sizeof b));
    d->nmodels += json_object_size(mv);
  }
  if (d->nmodels && !(d->models = calloc(d->nmodels, sizeof *d->models)))
    return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  size_t i = 0;
  json_object_foreach(models, mname, mv) {
    json_object_foreach(mv, pname, pv) {
      if ((rc = read_model(r, mname, pname, pv, &d->models[i++]))) return rc;
    }
  }
  json_t *comps = object(r, "", root, "compressors", &rc);
  if (!comps) return rc;
  d->ncompressors = json_object_size(comps);
  if (d->ncompressors && !(d->compressors = calloc(d->ncompressors, sizeof *d->compressors)))
    return ccsim_fail(r->err, CCSIM_ERR_RUNTIME, "out of memory");
  i = 0;
  json_object_foreach(comps, mname, mv) {
    if ((rc = read_compressor(r, mname, mv, &d->compressors[i++]))) return rc;
  }
  /* The DDP bucket figures are checked, not used by the time model yet. */
  json_t *bk = json_object_get(root, "ddp_buckets");
  if (bk) {
    double tpb;
    measured_curve sizes = {0}, c[2] = {{0}};
    if (!json_is_object(bk)) return cfg_fail(r, "ddp_buckets", "expected an object, got %s", cfg_show(bk, b, sizeof b));
    if (!(rc = cfg_keys(r, bk, "ddp_buckets", bknown, NULL, NULL, NULL)) &&
        !(rc = number(r, "ddp_buckets", bk, "tensors_per_bucket", 1, 0, &tpb)) &&
        !(rc = sizes_of(r, "ddp_buckets", bk, &sizes)))
      for (int k = 2; k < 4 && !rc; k++) {
        rc = curve(r, "ddp_buckets", bk, bknown[k], &sizes, c);
        for (int t = 0; t < 2; t++) free(c[t].sizes), free(c[t].seconds), c[t] = (measured_curve){0};
      }
    free(sizes.sizes);
  }
  return rc;
}

measured_device *measured_load(const char *path, ccsim_error *err) {
  json_t *root = cfg_load_json(path, "device file", CFG_MAX_JSON, err);
  if (!root) return NULL;
  measured_device *d = calloc(1, sizeof *d);
  rd r = {.file = path, .err = err};
  if (!d || !(d->file = strdup(path))) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
    measured_free(d);
    d = NULL;
  } else if (read_device(&r, root, d)) {
    measured_free(d);
    d = NULL;
  }
  json_decref(root);
  return d;
}

void measured_free(measured_device *d) {
  if (!d) return;
  for (size_t i = 0; i < d->nmodels; i++) {
    measured_model *m = &d->models[i];
    for (size_t t = 0; m->names && t < m->ntensors; t++) free(m->names[t]);
    free(m->names), free(m->ready_s), free(m->model), free(m->precision), free(m->batches);
  }
  for (size_t i = 0; i < d->ncompressors; i++) {
    measured_compressor *c = &d->compressors[i];
    for (size_t k = 0; c->param_names && k < c->nparams; k++) free(c->param_names[k]);
    free(c->param_names), free(c->param_values), free(c->name);
    for (int op = 0; op < 3; op++)
      for (int t = 0; t < 2; t++) free(c->op[op][t].sizes), free(c->op[op][t].seconds);
  }
  free(d->models), free(d->compressors);
  free(d->name), free(d->summary), free(d->file), free(d->measured_on);
  free(d);
}

const char *measured_devices_dir(void) {
  /* datapath.h: $CCSIM_DEVICES, the installation, $CCSIM_DATA, the source
   * tree; when none has a devices folder, the folders tried (a lookup there
   * then fails naming them) */
  static char dir[4096];
  datapath_dir(DATA_DEVICES, dir, sizeof dir);
  return dir;
}

const measured_model *measured_find_model(const measured_device *d, const char *model, const char *precision) {
  for (size_t i = 0; i < d->nmodels; i++)
    if (strcmp(d->models[i].model, model) == 0 && strcmp(d->models[i].precision, precision) == 0)
      return &d->models[i];
  return NULL;
}

const measured_compressor *measured_find_compressor(const measured_device *d, const char *name) {
  for (size_t i = 0; i < d->ncompressors; i++)
    if (strcmp(d->compressors[i].name, name) == 0) return &d->compressors[i];
  return NULL;
}

int measured_check_model(const measured_device *d, const measured_model *mm, const model_profile *p,
                         ccsim_error *err) {
  if (mm->ntensors != p->nlayers)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: models.%s.%s.tensors: %zu tensors, but the profile %s has %zu",
                      d->file, mm->model, mm->precision, mm->ntensors, p->name, p->nlayers);
  for (size_t i = 0; i < mm->ntensors; i++)
    if (strcmp(mm->names[i], p->layers[i].name) != 0)
      return ccsim_fail(err, CCSIM_ERR_INPUT,
                        "%s: models.%s.%s.tensors[%zu].name: \"%s\", but the profile's tensor %zu is \"%s\" "
                        "(the table must list the profile's tensors in forward order)",
                        d->file, mm->model, mm->precision, i, mm->names[i], i, p->layers[i].name);
  return 0;
}

/* t at batch x on the line through (b, t) whose time at batch 0 is the
 * intercept of the segment (b0, t0)-(b1, t1), clamped to [0, t]. */
static double through(double b, double t, double b0, double t0, double b1, double t1, double x) {
  double a = t0 - (t1 - t0) / (b1 - b0) * b0;
  a = a < 0 ? 0 : a > t ? t : a;
  return a + (t - a) * x / b;
}

void measured_totals(const measured_model *mm, double batch, double *forward, double *backward, char *rule,
                     size_t len) {
  const measured_batch *m = mm->batches;
  const size_t n = mm->nbatches;
  size_t i = 0;
  while (i < n && m[i].batch < batch) i++;
  if (i < n && m[i].batch == batch) {
    *forward = m[i].forward_s, *backward = m[i].backward_s;
    snprintf(rule, len, "measured at batch %g", batch);
  } else if (n == 1) {
    *forward = m[0].forward_s * batch / m[0].batch, *backward = m[0].backward_s * batch / m[0].batch;
    snprintf(rule, len, "scaled in proportion from the only measured batch, %g", m[0].batch);
  } else if (i > 0 && i < n) {
    const double f = (batch - m[i - 1].batch) / (m[i].batch - m[i - 1].batch);
    *forward = m[i - 1].forward_s + f * (m[i].forward_s - m[i - 1].forward_s);
    *backward = m[i - 1].backward_s + f * (m[i].backward_s - m[i - 1].backward_s);
    snprintf(rule, len, "interpolated linearly between measured batches %g and %g", m[i - 1].batch, m[i].batch);
  } else {
    const measured_batch *near = i == 0 ? &m[0] : &m[n - 1], *other = i == 0 ? &m[1] : &m[n - 2];
    *forward = through(near->batch, near->forward_s, other->batch, other->forward_s, near->batch, near->forward_s, batch);
    *backward =
        through(near->batch, near->backward_s, other->batch, other->backward_s, near->batch, near->backward_s, batch);
    snprintf(rule, len, "extrapolated from measured batch %g along the segment to batch %g (intercept clamped)",
             near->batch, other->batch);
  }
}

void measured_compute(const measured_model *mm, double batch, double *forward, double *bwd) {
  double backward;
  char rule[160];
  measured_totals(mm, batch, forward, &backward, rule, sizeof rule);
  const double scale = backward / mm->backward_s;
  const size_t L = mm->ntensors;
  double ready = 0; /* the latest gradient so far, backward order */
  for (size_t j = 0; j < L; j++) {
    const double t = mm->ready_s[L - 1 - j];
    bwd[j] = t > ready ? t - ready : 0;
    if (t > ready) ready = t;
  }
  bwd[L - 1] += mm->backward_s - ready; /* after the last gradient: still backward */
  for (size_t j = 0; j < L; j++) bwd[j] *= scale;
}

int measured_params_check(const measured_compressor *mc, const double *params, ccsim_error *err) {
  for (size_t k = 0; k < mc->nparams; k++) {
    const int i = ccomp_param_index(mc->type, mc->param_names[k]);
    if (params[i] != mc->param_values[k]) {
      return ccsim_fail(err, CCSIM_ERR_INPUT, "%s measured with %s = %g, the experiment has %g", mc->name,
                        mc->param_names[k], mc->param_values[k], params[i]);
    }
  }
  /* A choice parameter picks another algorithm (global-qsgd's dithering):
   * an entry that does not name it was measured with the default. */
  for (size_t i = 0; i < mc->type->nparams; i++) {
    const ccomp_param *p = &mc->type->params[i];
    int listed = 0;
    for (size_t k = 0; k < mc->nparams; k++) listed |= strcmp(mc->param_names[k], p->name) == 0;
    char def[64] = "", got[64] = "";
    if (p->kind != CCOMP_CHOICE || listed || params[i] == p->def) continue;
    ccomp_param_choice_name(p, (size_t)p->def, def, sizeof def);
    ccomp_param_choice_name(p, (size_t)params[i], got, sizeof got);
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s measured with %s = %s, the experiment has %s", mc->name, p->name,
                      def, got);
  }
  return 0;
}

double measured_curve_seconds(const measured_curve *c, double n) {
  const size_t m = c->npoints;
  if (n <= c->sizes[0]) return c->seconds[0];
  if (n >= c->sizes[m - 1]) return c->seconds[m - 1] * n / c->sizes[m - 1];
  size_t i = 0;
  while (c->sizes[i + 1] < n) i++;
  const double f = (log(n) - log(c->sizes[i])) / (log(c->sizes[i + 1]) - log(c->sizes[i]));
  return c->seconds[i] + f * (c->seconds[i + 1] - c->seconds[i]);
}

json_t *measured_report(const measured_device *d, const measured_model *mm, const measured_compressor *mc,
                        const char *precision, int timing, double batch, const char *note) {
  json_t *r = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "device_file", d->file, "roofline", d->roofline->name,
                        "precision", precision, "compute", mm ? "measured" : "roofline", "compression",
                        mc ? "measured" : "roofline", "compression_timing",
                        timing == MEASURED_ISOLATED ? "isolated" : "back_to_back");
  if (mm) {
    json_object_set_new(r, "measured_batch", json_real(mm->batch));
    json_object_set_new(r, "batch", json_real(batch));
    double f, b;
    char rule[160];
    measured_totals(mm, batch, &f, &b, rule, sizeof rule);
    json_object_set_new(r, "compute_scale", json_real((f + b) / (mm->forward_s + mm->backward_s)));
    json_object_set_new(r, "compute_rule", json_string(rule));
    json_t *bs = json_array();
    for (size_t i = 0; i < mm->nbatches; i++) json_array_append_new(bs, json_real(mm->batches[i].batch));
    json_object_set_new(r, "measured_batches", bs);
  }
  if (note && *note) json_object_set_new(r, "note", json_string(note));
  return r;
}

int measured_path(const char *dir, const char *name, char *buf, size_t len, ccsim_error *err) {
  int plain = name[0] != '\0' && name[0] != '.';
  for (const char *c = name; *c && plain; c++)
    plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
            *c == '_' || *c == '.';
  if (!plain || (size_t)snprintf(buf, len, "%s/%s.json", dir, name) >= len)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "device \"%s\": expected a device name or a path to a .json file", name);
  FILE *f = fopen(buf, "r");
  if (f) return fclose(f), 0;
  const int e = errno;
  size_t n;
  char **names = datapath_json_names(dir, &n), list[1024] = "";
  for (size_t i = 0; i < n; i++) {
    if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    free(names[i]);
  }
  free(names);
  char hint[96], all[1100];
  snprintf(all, sizeof all, "none, v100, a100, h100, cpu%s%s", n ? ", " : "", list);
  return ccsim_fail(err, CCSIM_ERR_INPUT, "unknown device \"%s\" (%sbuilt in: none, v100, a100, h100, cpu; %s: %s%s%s)",
                    name, suggest_hint(name, NULL, all, hint, sizeof hint), buf, strerror(e), n ? "; measured: " : "",
                    list);
}

void measured_list(FILE *out, const char *dir) {
  size_t n;
  char **names = datapath_json_names(dir, &n);
  if (!n) fprintf(out, "(no measured devices in %s)\n", dir);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    ccsim_error err = {0};
    measured_device *d = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s.json", dir, names[i]) < sizeof path) d = measured_load(path, &err);
    if (!d) {
      fprintf(out, "%-22s (does not load: %s)\n", names[i], err.msg);
    } else {
      fprintf(out, "%-22s measured, roofline %s elsewhere: %s\n", names[i], d->roofline->name, d->summary);
      fprintf(out, "%-22s   models:", "");
      for (size_t m = 0; m < d->nmodels; m++)
      {
        fprintf(out, " %s/%s (batch", d->models[m].model, d->models[m].precision);
        for (size_t i = 0; i < d->models[m].nbatches; i++) fprintf(out, "%s%g", i ? "," : " ", d->models[m].batches[i].batch);
        fprintf(out, ")");
      }
      fprintf(out, "%s\n%-22s   compressors:", d->nmodels ? "" : " none", "");
      for (size_t c = 0; c < d->ncompressors; c++) fprintf(out, " %s", d->compressors[c].name);
      if (d->ncompressors) {
        const measured_curve *s = &d->compressors[0].op[0][0];
        fprintf(out, " (%g to %g elements)", s->sizes[0], s->sizes[s->npoints - 1]);
      }
      fprintf(out, "%s\n", d->ncompressors ? "" : " none");
    }
    measured_free(d);
    free(names[i]);
  }
  free(names);
}
