/* src/timemodel/profile.c — load and check model profiles.
 *
 * The loader is strict: every key must be known, every number in range, and
 * the totals must equal the sums over the layers, so that a hand-edited or
 * truncated profile is refused before a simulation starts rather than timing
 * a model that does not exist.  Errors name the file and the JSON path. */
#include "timemodel/profile.h"
#include "datapath.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "suggest.h"

/* obj[key] as a new string; required keys must be present, optional ones may be absent (NULL). */
static int read_string(ccsim_error *err, const char *file, const char *path, json_t *obj,
                       const char *key, int required, char **out) {
  char p[256], b[80];
  snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
  json_t *v = json_object_get(obj, key);
  *out = NULL;
  if (!v && !required) return 0;
  if (!v) return cfg_fail(&(cfg_reader){file, err}, p, "missing; expected a non-empty string");
  if (!json_is_string(v) || json_string_length(v) == 0)
    return cfg_fail(&(cfg_reader){file, err}, p, "expected a non-empty string, got %s", cfg_show(v, b, sizeof b));
  if (!(*out = strdup(json_string_value(v)))) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  return 0;
}

/* obj[key]: an integer >= 1 (a real with an integral value is accepted). */
static int read_count(ccsim_error *err, const char *file, const char *path, json_t *obj,
                      const char *key, size_t *out) {
  char p[256], b[80];
  snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
  json_t *v = json_object_get(obj, key);
  if (!v) return cfg_fail(&(cfg_reader){file, err}, p, "missing; expected a positive integer");
  double x = json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : NAN;
  if (!(x >= 1 && x == floor(x) && x < 9007199254740992.0 && x <= (double)SIZE_MAX))
    return cfg_fail(&(cfg_reader){file, err}, p, "expected a positive integer, got %s", cfg_show(v, b, sizeof b));
  *out = (size_t)x;
  return 0;
}

/* obj[key]: a finite number >= 0. */
static int read_flops(ccsim_error *err, const char *file, const char *path, json_t *obj,
                      const char *key, double *out) {
  char p[256], b[80];
  snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", key);
  json_t *v = json_object_get(obj, key);
  if (!v) return cfg_fail(&(cfg_reader){file, err}, p, "missing; expected a number of flops >= 0");
  double x = json_is_number(v) ? json_number_value(v) : NAN;
  if (!(x >= 0 && isfinite(x)))
    return cfg_fail(&(cfg_reader){file, err}, p, "expected a number of flops >= 0, got %s", cfg_show(v, b, sizeof b));
  *out = x;
  return 0;
}

/* A total must equal its sum; flops are doubles, so allow rounding (1e-9 relative). */
static int check_total(ccsim_error *err, const char *file, const char *key, double total, double sum) {
  if (fabs(total - sum) <= 1e-9 * fmax(fabs(total), fabs(sum))) return 0;
  return cfg_fail(&(cfg_reader){file, err}, key, "%.17g, but the layers sum to %.17g", total, sum);
}

static int read_layer(ccsim_error *err, const char *file, json_t *layers, size_t i, profile_layer *l) {
  static const char *const known[] = {"name", "params", "fwd_flops", "bwd_flops", NULL};
  char path[64], b[80];
  snprintf(path, sizeof path, "layers[%zu]", i);
  json_t *o = json_array_get(layers, i);
  if (!json_is_object(o)) return cfg_fail(&(cfg_reader){file, err}, path, "expected an object, got %s", cfg_show(o, b, sizeof b));
  int rc;
  if ((rc = cfg_keys(&(cfg_reader){file, err}, o, path, known, NULL, NULL, NULL)) ||
      (rc = read_string(err, file, path, o, "name", 1, &l->name)) ||
      (rc = read_count(err, file, path, o, "params", &l->params)) ||
      (rc = read_flops(err, file, path, o, "fwd_flops", &l->fwd_flops)) ||
      (rc = read_flops(err, file, path, o, "bwd_flops", &l->bwd_flops)))
    return rc;
  return 0;
}

static int read_profile(ccsim_error *err, const char *file, json_t *root, model_profile *p) {
  static const char *const known[] = {"name", "source", "input", "generated_by", "flops_convention",
                                      "backward_convention", "total_params", "total_fwd_flops",
                                      "total_bwd_flops", "layers", NULL};
  char b[80];
  int rc;
  char *info = NULL;
  if (!json_is_object(root)) return cfg_fail(&(cfg_reader){file, err}, "", "expected an object, got %s", cfg_show(root, b, sizeof b));
  if ((rc = cfg_keys(&(cfg_reader){file, err}, root, "", known, NULL, NULL, NULL)) ||
      (rc = read_string(err, file, "", root, "name", 1, &p->name)) ||
      (rc = read_string(err, file, "", root, "source", 1, &p->source)) ||
      (rc = read_string(err, file, "", root, "input", 1, &p->input)))
    return rc;
  /* Descriptive strings: checked, not kept. */
  static const char *const notes[] = {"generated_by", "flops_convention", "backward_convention"};
  for (size_t k = 0; k < sizeof notes / sizeof notes[0]; k++) {
    if ((rc = read_string(err, file, "", root, notes[k], 0, &info))) return rc;
    free(info);
  }
  if ((rc = read_count(err, file, "", root, "total_params", &p->total_params)) ||
      (rc = read_flops(err, file, "", root, "total_fwd_flops", &p->total_fwd_flops)) ||
      (rc = read_flops(err, file, "", root, "total_bwd_flops", &p->total_bwd_flops)))
    return rc;
  json_t *layers = json_object_get(root, "layers");
  if (!json_is_array(layers) || json_array_size(layers) == 0)
    return cfg_fail(&(cfg_reader){file, err}, "layers", "expected a non-empty array of {name, params, fwd_flops, bwd_flops}, got %s",
                layers ? cfg_show(layers, b, sizeof b) : "nothing");
  p->nlayers = json_array_size(layers);
  if (!(p->layers = calloc(p->nlayers, sizeof *p->layers))) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  size_t params = 0;
  double fwd = 0, bwd = 0;
  for (size_t i = 0; i < p->nlayers; i++) {
    profile_layer *l = &p->layers[i];
    if ((rc = read_layer(err, file, layers, i, l))) return rc;
    for (size_t j = 0; j < i; j++)
      if (strcmp(p->layers[j].name, l->name) == 0) {
        char path[64];
        snprintf(path, sizeof path, "layers[%zu].name", i);
        return cfg_fail(&(cfg_reader){file, err}, path, "\"%s\" already names layers[%zu]", l->name, j);
      }
    params += l->params;
    fwd += l->fwd_flops;
    bwd += l->bwd_flops;
  }
  if (params != p->total_params)
    return cfg_fail(&(cfg_reader){file, err}, "total_params", "%zu, but the layers sum to %zu", p->total_params, params);
  if ((rc = check_total(err, file, "total_fwd_flops", p->total_fwd_flops, fwd)) ||
      (rc = check_total(err, file, "total_bwd_flops", p->total_bwd_flops, bwd)))
    return rc;
  return 0;
}

model_profile *profile_load(const char *path, ccsim_error *err) {
  json_t *root = cfg_load_json(path, "model profile", CFG_MAX_JSON, err);
  if (!root) return NULL;
  model_profile *p = calloc(1, sizeof *p);
  if (!p) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  } else if (read_profile(err, path, root, p) != 0) {
    profile_free(p);
    p = NULL;
  }
  json_decref(root);
  return p;
}

void profile_free(model_profile *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nlayers; i++) free(p->layers[i].name);
  free(p->layers);
  free(p->name);
  free(p->source);
  free(p->input);
  free(p);
}

int profile_path(const char *models_dir, const char *name, char *buf, size_t len, ccsim_error *err) {
  int plain = name[0] != '\0' && name[0] != '.';
  for (const char *c = name; *c && plain; c++)
    plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            *c == '-' || *c == '_' || *c == '.';
  if (!plain)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "model profile \"%s\": expected a profile name (letters, digits, '-', '_', '.')", name);
  if ((size_t)snprintf(buf, len, "%s/%s.json", models_dir, name) >= len)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "model profile \"%s\": path %s/%s.json too long", name,
                      models_dir, name);
  FILE *f = fopen(buf, "r");
  if (f) {
    fclose(f);
    return 0;
  }
  int e = errno;
  size_t n;
  char **names = datapath_json_names(models_dir, &n);
  char list[1024] = "";
  for (size_t i = 0; i < n; i++) {
    if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, names[i], sizeof list - strlen(list) - 1);
  }
  datapath_names_free(names, n);
  char hint[96];
  return ccsim_fail(err, CCSIM_ERR_INPUT, "unknown model profile \"%s\": %s: %s (%sknown in %s: %s)", name, buf,
                    strerror(e), suggest_hint(name, NULL, list, hint, sizeof hint), models_dir, n ? list : "none");
}

void profile_list(FILE *out, const char *models_dir) {
  size_t n;
  char **names = datapath_json_names(models_dir, &n);
  if (!n) fprintf(out, "(no model profiles in %s)\n", models_dir);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    ccsim_error err = {0};
    model_profile *p = NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s.json", models_dir, names[i]) < sizeof path)
      p = profile_load(path, &err);
    else
      snprintf(err.msg, sizeof err.msg, "path too long");
    if (p)
      fprintf(out, "%-12s %4zu tensors %12zu params %9.3f GFLOPs fwd/sample  %s\n", names[i], p->nlayers,
              p->total_params, p->total_fwd_flops / 1e9, p->input);
    else
      fprintf(out, "%-12s (does not load: %s)\n", names[i], err.msg);
    profile_free(p);
  }
  datapath_names_free(names, n);
}
