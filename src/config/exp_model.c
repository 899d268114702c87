/* src/config/exp_model.c — the time-model sections: "model" (elements, size,
 * profile or inline layers; sampling; batch), "device" (built-in or
 * measured) and "schedule". */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/source.h"
#include "datapath.h"
#include "timemodel/device.h"
#include "timemodel/measured.h"
#include "timemodel/profile.h"

/* One layer named name of n parameters and no flops (a plain tensor);
 * NULL without memory. */
static model_profile *single_layer(size_t n) {
  model_profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->name = strdup("tensor");
  p->source = strdup("model.elements");
  p->input = strdup("-");
  p->layers = calloc(1, sizeof *p->layers);
  if (p->layers) p->nlayers = 1, p->layers[0].name = strdup("gradient");
  if (!p->name || !p->source || !p->input || !p->layers || !p->layers[0].name) {
    profile_free(p); /* every field NULL or owned */
    return NULL;
  }
  p->layers[0].params = n;
  p->total_params = n;
  return p;
}



/* "layers": [{"name", "params", "fwd_flops", "bwd_flops"}, ...] inline. */
static int read_layers(cfg_reader *rd, experiment *e, json_t *arr) {
  char p[128], b[80];
  if (!json_is_array(arr) || json_array_size(arr) == 0)
    return cfg_fail(rd, "model.layers", "expected a non-empty array of {\"name\", \"params\", \"fwd_flops\", \"bwd_flops\"}");
  model_profile *pr = calloc(1, sizeof *pr);
  if (!pr) return cfg_oom(rd, "model.layers");
  e->model.layers = pr; /* freed with e, also when partly made */
  pr->name = strdup("inline");
  pr->source = strdup("model.layers");
  pr->input = strdup("one sample");
  pr->layers = calloc(json_array_size(arr), sizeof *pr->layers);
  if (!pr->name || !pr->source || !pr->input || !pr->layers) return cfg_oom(rd, "model.layers");
  pr->nlayers = json_array_size(arr);
  for (size_t i = 0; i < pr->nlayers; i++) {
    json_t *l = json_array_get(arr, i);
    snprintf(p, sizeof p, "model.layers[%zu]", i);
    if (!json_is_object(l)) return cfg_fail(rd, p, "expected an object, got %s", cfg_show(l, b, sizeof b));
    static const char *const known[] = {"name", "params", "fwd_flops", "bwd_flops", NULL};
    int rc;
    if ((rc = cfg_keys(rd, l, p, known, NULL, NULL, NULL))) return rc;
    const char *name;
    long long n;
    char def[32];
    snprintf(def, sizeof def, "layer%zu", i);
    if ((rc = cfg_string(rd, l, p, "name", def, &name))) return rc;
    if ((rc = cfg_int(rd, l, p, "params", 1, 0, 1, 1ll << 40, &n))) return rc;
    if (!(pr->layers[i].name = strdup(name))) return cfg_oom(rd, p);
    pr->layers[i].params = (size_t)n;
    if ((rc = cfg_real(rd, l, p, "fwd_flops", 0, 0, 1e30, &pr->layers[i].fwd_flops))) return rc;
    if ((rc = cfg_real(rd, l, p, "bwd_flops", 2 * pr->layers[i].fwd_flops, 0, 1e30,
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
int exp_model(cfg_reader *rd, experiment *e, json_t *root, size_t implied, const char *what) {
  int rc = 0;
  json_t *m = cfg_object(rd, root, "", "model", &rc);
  if (!m) return rc;
  static const char *const known[] = {"elements", "size", "profile", "layers", "sample", "batch", NULL};
  if ((rc = cfg_keys(rd, m, "model", known, NULL, NULL, NULL))) return rc;
  if (implied && !json_object_get(m, "elements") && !json_object_get(m, "size") &&
      !json_object_get(m, "profile") && !json_object_get(m, "layers"))
    json_object_set_new(m, "elements", json_integer((json_int_t)implied));
  const int given = (json_object_get(m, "elements") != NULL) + (json_object_get(m, "size") != NULL) +
                    (json_object_get(m, "profile") != NULL) + (json_object_get(m, "layers") != NULL);
  if (e->model.layers && (json_object_get(m, "profile") || json_object_get(m, "layers")))
    return cfg_fail(rd, json_object_get(m, "profile") ? "model.profile" : "model.layers",
                "%s fixes the layers and their flops; leave the model section out", what);
  if (given != 1)
    return cfg_fail(rd, "model",
                "give exactly one of \"elements\" (fp32 count), \"size\" (e.g. \"4MB\"), \"profile\" "
                "(a model: `ccsim list models`) or \"layers\" (inline)");
  if (json_object_get(m, "elements")) {
    long long n;
    if ((rc = cfg_int(rd, m, "model", "elements", 1, 0, 1, 1ll << 40, &n))) return rc;
    e->model.elements = (size_t)n;
  } else if (json_object_get(m, "size")) {
    double bytes;
    if ((rc = cfg_unit(rd, m, "model", "size", NULL, CFG_SIZE, &bytes))) return rc;
    /* checked as a real before the conversion, and whole: "6B" is not
     * silently one element, "1e30B" not a wrapped count */
    const double n = bytes / 4;
    if (bytes < 4) return cfg_fail(rd, "model.size", "expected at least 4 bytes (one fp32), got %g", bytes);
    if (n > (double)(1ll << 40))
      return cfg_fail(rd, "model.size", "expected at most %lld fp32 elements (%lld bytes), got %g bytes",
                      1ll << 40, 1ll << 42, bytes);
    if (n != floor(n))
      return cfg_fail(rd, "model.size", "%.17g bytes is not a whole number of fp32 elements (4 bytes each)", bytes);
    e->model.elements = (size_t)n;
  } else if (json_object_get(m, "layers")) {
    if ((rc = read_layers(rd, e, json_object_get(m, "layers")))) return rc;
  } else {
    const char *name;
    if ((rc = cfg_string(rd, m, "model", "profile", NULL, &name))) return rc;
    char path[1200];
    ccsim_error perr = {0};
    if (strchr(name, '/') || strstr(name, ".json")) {
      if (name[0] == '/') snprintf(path, sizeof path, "%s", name);
      else snprintf(path, sizeof path, "%s/%s", e->dir, name);
    } else {
      int found;
      const char *mdir = models_dir(&found);
      if (!found)
        return cfg_fail(rd, "model.profile", "profile \"%s\": no model profile directory (tried %s)",
                    name, mdir);
      if (profile_path(mdir, name, path, sizeof path, &perr))
        return cfg_fail(rd, "model.profile", "%s", perr.msg);
    }
    e->model.layers = profile_load(path, &perr);
    if (!e->model.layers) return cfg_fail(rd, "model.profile", "%s", perr.msg);
    if ((rc = experiment_add_input(e, "model profile", path, "model.profile", rd->err))) return rc;
    e->model.elements = e->model.layers->total_params;
  }
  if (implied && e->model.elements != implied)
    return cfg_fail(rd, json_object_get(m, "elements") ? "model.elements" : "model",
                "%zu elements, but %s has %zu; leave the model section out (it follows the "
                "gradient source) or make them agree",
                e->model.elements, what, implied);
  if (!e->model.layers && !(e->model.layers = single_layer(e->model.elements))) return cfg_oom(rd, "model");
  const int trained = (e->gradients.source->flags & GSRC_TRAINS) != 0;
  long long batch;
  if ((rc = cfg_int(rd, m, "model", "batch", 0, trained ? (long long)e->train.batch : 32, 1,
                     1000000000, &batch)))
    return rc;
  e->model.batch = (double)batch;
  if (trained && e->model.batch != (double)e->train.batch)
    return cfg_fail(rd, "model.batch", "%g, but train.batch is %zu: the time model follows the "
                "training batch; leave model.batch out", e->model.batch, e->train.batch);
  /* Coordinate sampling (docs/design.md): the data plane runs on `sample`
   * evenly spaced coordinates, the network carries full-size messages. */
  long long k;
  if ((rc = cfg_int(rd, m, "model", "sample", 0, 0, 0, 1ll << 40, &k))) return rc;
  e->model.sample = k > 0 && (size_t)k < e->model.elements ? (size_t)k : 0;
  if (implied && e->model.sample)
    return cfg_fail(rd, "model.sample", "coordinate sampling needs the synthetic gradient source (%s "
                "needs every element)", what);
  return 0;
}

/* The measured device called name (a file in the devices folder, or a path
 * when the name has a '/' or ends in ".json", relative to the experiment),
 * loaded into e->measured, with the tables this experiment's model,
 * precision and compressor use resolved; what they do not cover goes to the
 * roofline, and e->time_note says what and why. */
static int read_measured(cfg_reader *rd, experiment *e, const char *name, const char *path, json_t *obj) {
  char file[1200];
  ccsim_error derr = {0};
  if (strchr(name, '/') || strstr(name, ".json")) {
    if (name[0] == '/') snprintf(file, sizeof file, "%s", name);
    else snprintf(file, sizeof file, "%s/%s", e->dir, name);
  } else if (measured_path(measured_devices_dir(), name, file, sizeof file, &derr)) {
    return cfg_fail(rd, path, "%s", derr.msg);
  }
  if (!(e->measured = measured_load(file, &derr))) return cfg_fail(rd, path, "%s", derr.msg);
  e->device = e->measured->roofline;
  const char *prec = "fp32", *timing = "isolated";
  int rc;
  if ((rc = experiment_add_input(e, "device file", file, path, rd->err))) return rc;
  if (obj) {
    static const char *const precs[] = {"fp32", "tf32", "bf16", NULL};
    static const char *const timings[] = {"isolated", "back_to_back", NULL};
    if ((rc = cfg_string(rd, obj, "device", "precision", prec, &prec))) return rc;
    if ((rc = cfg_string(rd, obj, "device", "compression_timing", timing, &timing))) return rc;
    int ok = 0;
    for (int i = 0; precs[i]; i++) ok |= strcmp(prec, precs[i]) == 0;
    if (!ok) return cfg_fail(rd, "device.precision", "expected fp32, tf32 or bf16, got \"%s\"", prec);
    if (strcmp(timing, timings[0]) && strcmp(timing, timings[1]))
      return cfg_fail(rd, "device.compression_timing", "expected isolated or back_to_back, got \"%s\"", timing);
  }
  snprintf(e->precision, sizeof e->precision, "%s", prec);
  e->timing = strcmp(timing, "isolated") == 0 ? MEASURED_ISOLATED : MEASURED_BACK_TO_BACK;
  const model_profile *m = e->model.layers;
  char note[2][200] = {"", ""};
  e->measured_model = m->name ? measured_find_model(e->measured, m->name, prec) : NULL;
  if (e->measured_model && measured_check_model(e->measured, e->measured_model, m, &derr))
    return cfg_fail(rd, path, "%s", derr.msg);
  if (!e->measured_model)
    snprintf(note[0], sizeof note[0], "compute: %s at %s not measured", m->name ? m->name : "this model", prec);
  const measured_compressor *mc = measured_find_compressor(e->measured, e->compressor->name);
  ccsim_error why;
  if (mc && !measured_params_check(mc, e->comp_params, &why)) e->measured_comp = mc;
  else if (mc) snprintf(note[1], sizeof note[1], "compression: %.180s", why.text); /* note[1] is 200 bytes */
  if (!mc) snprintf(note[1], sizeof note[1], "compression: %s not measured", e->compressor->name);
  if (note[0][0] || note[1][0])
    snprintf(e->time_note, sizeof e->time_note, "roofline %s for %s%s%s", e->device->name, note[0],
             note[0][0] && note[1][0] ? "; " : "", note[1]);
  return 0;
}

/* "device": "v100" or {"name": "v100", "efficiency": 0.5}; "none": no time;
 * a measured device's name or file, optionally {"name", "precision",
 * "compression_timing"}. */
int exp_device(cfg_reader *rd, experiment *e, json_t *root) {
  json_t *d = cfg_field(root, "device", json_string("none"));
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
    if ((rc = cfg_keys(rd, d, "device", known, NULL, NULL, NULL))) return rc;
    if ((rc = cfg_string(rd, d, "device", "name", NULL, &name))) return rc;
  } else {
    return cfg_fail(rd, "device", "expected a device name (none%s, or a measured device: `ccsim list devices`) or an object, got %s", names,
                cfg_show(d, b, sizeof b));
  }
  e->device = NULL;
  if (strcmp(name, "none") != 0) {
    e->device = device_find(name);
    if (!e->device && (rc = read_measured(rd, e, name, obj ? "device.name" : "device", obj))) return rc;
  }
  if (!e->measured && obj && (json_object_get(obj, "precision") || json_object_get(obj, "compression_timing")))
    return cfg_fail(rd, json_object_get(obj, "precision") ? "device.precision" : "device.compression_timing",
                "only a measured device has tables to choose from; \"%s\" is a roofline", name);
  e->efficiency = e->device ? e->device->efficiency : 1.0;
  if (obj && (rc = cfg_real(rd, obj, "device", "efficiency", e->efficiency, 1e-6, 1, &e->efficiency)))
    return rc;
  return 0;
}

const char *const schedule_kind_names[] = {"single", "layerwise", "buckets", "mergecomp", "fixed", NULL};

/* "schedule": how the layers' gradients are grouped into collectives. */
int exp_schedule(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  if (!json_object_get(root, "schedule")) json_object_set_new(root, "schedule", json_object());
  json_t *s = cfg_object(rd, root, "", "schedule", &rc);
  if (!s) return rc;
  static const char *const known[] = {"kind", "bucket_mb", "groups", "probes", "cuts", NULL};
  if ((rc = cfg_keys(rd, s, "schedule", known, NULL, NULL, NULL))) return rc;
  const char *k;
  int ki;
  if ((rc = cfg_string(rd, s, "schedule", "kind", "single", &k))) return rc;
  if ((rc = cfg_one_of(rd, "schedule.kind", k, schedule_kind_names, &ki))) return rc;
  e->schedule.kind = (enum schedule_kind)ki;
  double mb;
  if ((rc = cfg_real(rd, s, "schedule", "bucket_mb", 25, 1e-6, 1e6, &mb))) return rc;
  e->schedule.bucket_bytes = mb * 1e6;
  long long g;
  if ((rc = cfg_int(rd, s, "schedule", "groups", 0, 2, 1, 64, &g))) return rc;
  e->schedule.groups = (int)g;
  /* (mergecomp searches y = 1 .. min(groups, layers)) */
  /* mergecomp's probe budget and a fixed plan's cuts: read (and resolved)
   * for those kinds only, so that other experiments resolve as before */
  if (e->schedule.kind == SCHED_MERGECOMP) {
    long long p;
    if ((rc = cfg_int(rd, s, "schedule", "probes", 0, 32, 1, 4096, &p))) return rc;
    e->schedule.probes = (int)p;
  } else if (json_object_get(s, "probes"))
    return cfg_fail(rd, "schedule.probes", "only a \"mergecomp\" schedule takes probes");
  if (e->schedule.kind == SCHED_FIXED) {
    const long long L = (long long)e->model.layers->nlayers;
    if (L < 2) return cfg_fail(rd, "schedule.kind", "\"fixed\" cuts the layers, but the model has one layer");
    if ((rc = cfg_int_array(rd, s, "schedule", "cuts", NULL, 1, L - 1, SCHED_MAX_CUTS, "[40, 120]",
                            e->schedule.cuts, &e->schedule.ncuts)))
      return rc;
    for (int i = 1; i < e->schedule.ncuts; i++)
      if (e->schedule.cuts[i] <= e->schedule.cuts[i - 1])
        return cfg_fail(rd, "schedule.cuts", "expected ascending backward layer indices, got %d after %d",
                        e->schedule.cuts[i], e->schedule.cuts[i - 1]);
  } else if (json_object_get(s, "cuts"))
    return cfg_fail(rd, "schedule.cuts", "only a \"fixed\" schedule takes cuts");
  if (e->schedule.kind != SCHED_SINGLE && e->compressor->phases > 1)
    return cfg_fail(rd, "schedule.kind", "%s runs with the \"single\" schedule only", e->compressor->name);
  return 0;
}
