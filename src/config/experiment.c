/* src/config/experiment.c — load, check and resolve an experiment file.
 *
 * Reading walks the JSON once, field by field: each reader names the JSON
 * path it reads, writes the default back into the tree when a field is
 * missing (so the tree becomes the resolved experiment), and reports what it
 * expected when a value is wrong.  Every object's keys are checked against
 * the fields it may hold. */
#include "config/sections.h"
#include "data/gradients.h"
#include "outputs/results.h"
#include "outputs/provenance.h"
#include "datapath.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives/collective.h"
#include "data/trace.h"
#include "platform.h"
#include "timemodel/device.h"
#include "timemodel/measured.h"
#include "timemodel/profile.h"
#include "units.h"

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

static int read_output(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *o = cfg_object(rd, root, "", "output", &rc);
  if (!o) return rc;
  static const char *const known[] = {"dir", "timeline", NULL};
  if ((rc = cfg_keys(rd, o, "output", known, NULL, NULL, NULL))) return rc;
  if ((rc = cfg_bool(rd, o, "output", "timeline", 0, &e->timeline))) return rc;
  char def[512], *leaf = results_component(e->name); /* a name never leaves results/ */
  if (!leaf) return cfg_oom(rd, "output.dir");
  snprintf(def, sizeof def, "results/%s", leaf);
  free(leaf);
  const char *dir;
  if ((rc = cfg_string(rd, o, "output", "dir", def, &dir))) return rc;
  return (e->out_dir = strdup(dir)) ? 0 : cfg_oom(rd, "output.dir");
}

static int read_all(cfg_reader *rd, experiment *e, json_t *root) {
  int rc;
  static const char *const known[] = {"name", "description", "seed", "workers", "iterations",
                                      "platform", "model", "gradients", "train", "compressor",
                                      "collective", "comm", "device", "schedule", "output", NULL};
  /* a sweep file given where an experiment goes (ccsim run SWEEP, or a
   * sweep's base that is a sweep) is said as such, not as an unknown key */
  if (json_object_get(root, "axes") && json_object_get(root, "base") && !json_object_get(root, "workers"))
    return cfg_fail(rd, "", "expected an experiment, got a sweep file (it has \"base\" and \"axes\"): run it "
                            "with ccsim sweep, and give a sweep an experiment as its base");
  if ((rc = cfg_keys(rd, root, "", known, NULL, NULL, NULL))) return rc;
  char *base = strdup(e->file);
  if (!base) return cfg_oom(rd, "name");
  char *stem = basename(base), *dot = strrchr(stem, '.');
  if (dot) *dot = 0;
  const char *name;
  rc = cfg_string(rd, root, "", "name", stem[0] ? stem : "experiment", &name);
  if (!rc && !name[0]) rc = cfg_fail(rd, "name", "expected a non-empty string");
  /* printed on the terminal and into result files: no control characters
   * (a newline or an escape sequence), as a sweep's name */
  for (const char *c = name; !rc && *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      rc = cfg_fail(rd, "name", "expected a name without control characters (newline, tab, ...), got 0x%02x",
                    (unsigned char)*c);
  if (!rc && !(e->name = strdup(name))) rc = cfg_oom(rd, "name");
  free(base);
  if (rc) return rc;
  json_t *d = json_object_get(root, "description");
  char b[80];
  if (d && !json_is_string(d)) return cfg_fail(rd, "description", "expected a string, got %s", cfg_show(d, b, sizeof b));
  long long x;
  if ((rc = cfg_int(rd, root, "", "seed", 0, 1, 0, 1ll << 53, &x))) return rc;
  e->seed = (uint64_t)x;
  if ((rc = cfg_int(rd, root, "", "workers", 1, 0, 1, 1 << 20, &x))) return rc;
  e->workers = (int)x;
  if ((rc = cfg_int(rd, root, "", "iterations", 0, 1, 1, 1 << 30, &x))) return rc;
  e->iterations = (int)x;
  if ((rc = exp_platform(rd, e, root))) return rc;
  /* The gradient source first: a trace or a trained model fixes the
   * element count the model section must agree with. */
  size_t implied;
  char what[1200];
  if ((rc = exp_gradients(rd, e, root, &implied, what, sizeof what))) return rc;
  if ((rc = exp_model(rd, e, root, implied, what))) return rc;
  if ((rc = exp_compressor(rd, e, root))) return rc;
  if ((rc = exp_collective(rd, e, root))) return rc;
  if ((rc = exp_comm(rd, e, root))) return rc;
  if ((rc = exp_device(rd, e, root))) return rc;
  if ((rc = exp_schedule(rd, e, root))) return rc;
  if ((rc = read_output(rd, e, root))) return rc;
  /* Setup-dependent compressor checks (levels vs workers, ...). */
  if (e->model.sample && e->compressor->phases > 1)
    return cfg_fail(rd, "model.sample",
                "coordinate sampling cannot run %s (its payload size follows the matrix shape of "
                "the whole tensor); remove model.sample",
                e->compressor->name);
  char cerr[CCOMP_ERRLEN];
  ccomp_setup su = {.n = e->model.sample ? e->model.sample + e->model.layers->nlayers : e->model.elements, .workers = (uint32_t)e->workers, .rank = 0, .seed = e->seed};
  ccomp *probe = ccomp_new(e->compressor, e->comp_params, &su, cerr, sizeof cerr);
  if (!probe && strstr(cerr, ": out of memory")) /* libccomp's words for it (compressors/compressor.c) */
    return ccsim_fail_at(rd->err, CCSIM_ERR_RUNTIME, rd->file, "compressor", 0, 0, "%s", cerr);
  if (!probe) return cfg_fail(rd, "compressor", "%s", cerr);
  ccomp_free(probe);
  return 0;
}

/* An error met while jansson was refused memory (since `denied`, from
 * cfg_json_denied) is out of memory, whatever it looked like: a default
 * that could not be written reads as a missing field.  Returns NULL. */
static experiment *no_experiment(ccsim_error *err, const char *file, unsigned long denied) {
  if (err && err->code == CCSIM_ERR_INPUT && cfg_json_denied() != denied)
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "out of memory while reading the experiment");
  return NULL;
}

/* A resolved experiment built while jansson was refused memory may lack a
 * default or hold a shorthand unexpanded: out of memory, not a result. */
static experiment *trusted(experiment *e, ccsim_error *err, const char *file, unsigned long denied) {
  if (e && cfg_json_denied() != denied) {
    experiment_free(e);
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "out of memory while reading the experiment");
    return NULL;
  }
  return e;
}

experiment *experiment_load(const char *file, char *const *sets, int nsets, ccsim_error *err) {
  const unsigned long denied = cfg_json_denied();
  json_t *root = cfg_load_json(file, "experiment file", CFG_MAX_JSON, err);
  if (!root) return no_experiment(err, file, denied);
  if (!json_is_object(root)) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, file, "", 0, 0, "expected a JSON object");
    json_decref(root);
    return NULL;
  }
  normalize(root);
  /* --set collective=NAME --set collective.PARAM=..: shorthands after each */
  if (cfg_set_all(root, file, sets, nsets, normalize, err)) {
    json_decref(root);
    return no_experiment(err, file, denied);
  }
  experiment *e = trusted(experiment_from_json(root, file, err), err, file, denied);
  if (!e) return no_experiment(err, file, denied);
  /* the experiment file is the first input (read above, before the others) */
  if (experiment_add_input(e, "experiment file", file, NULL, err)) {
    experiment_free(e);
    return NULL;
  }
  if (e) {
    struct exp_input first = e->inputs[e->ninputs - 1];
    memmove(&e->inputs[1], &e->inputs[0], (size_t)(e->ninputs - 1) * sizeof e->inputs[0]);
    e->inputs[0] = first;
  }
  return e;
}

int experiment_add_input(experiment *e, const char *role, const char *path, const char *json_path,
                         ccsim_error *err) {
  if (e->ninputs >= EXP_MAX_INPUTS)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, e->file, json_path, 0, 0, "more than %d input files (%s %s)",
                         EXP_MAX_INPUTS - 1, role, path);
  char hex[65];
  ccsim_error why = {0};
  if (provenance_file_sha256(path, hex, &why))
    return ccsim_fail_at(err, why.code, e->file, json_path, 0, 0, "%s %s", role, why.msg);
  return experiment_add_input_digest(e, role, path, hex, json_path, err);
}

int experiment_add_input_digest(experiment *e, const char *role, const char *path, const char *sha256,
                                const char *json_path, ccsim_error *err) {
  if (e->ninputs >= EXP_MAX_INPUTS)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, e->file, json_path, 0, 0, "more than %d input files (%s %s)",
                         EXP_MAX_INPUTS - 1, role, path);
  struct exp_input *in = &e->inputs[e->ninputs];
  if (!(in->path = strdup(path))) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
  snprintf(in->sha256, sizeof in->sha256, "%s", sha256);
  in->role = role;
  e->ninputs++;
  return 0;
}

int experiment_set_options(experiment *e, char *const *opts, int n, ccsim_error *err) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    if (json_array_append_new(a, json_string(opts[i]))) json_decref(a), a = NULL;
  if (!a) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
  json_decref(e->options);
  e->options = n ? a : NULL;
  if (!n) json_decref(a);
  return 0;
}


experiment *experiment_from_json(json_t *root, const char *file, ccsim_error *err) {
  experiment *e = calloc(1, sizeof *e);
  if (!e) {
    json_decref(root);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", file);
    return NULL;
  }
  const unsigned long denied = cfg_json_denied();
  e->file = strdup(file);
  char *tmp = strdup(file);
  e->dir = tmp ? strdup(dirname(tmp)) : NULL;
  free(tmp);
  e->resolved = root;
  if (!e->file || !e->dir) {
    experiment_free(e);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", file);
    return NULL;
  }
  cfg_reader rd = {file, err};
  if (read_all(&rd, e, root)) {
    experiment_free(e);
    return no_experiment(err, file, denied);
  }
  return trusted(e, err, file, denied);
}

void experiment_free(experiment *e) {
  if (!e) return;
  free(e->file);
  free(e->dir);
  free(e->name);
  free(e->platform.file);
  free(e->comm_links);
  free(e->platform.generate);
  free(e->platform.params);
  free(e->platform.network_model);
  free(e->out_dir);
  profile_free(e->model.layers);
  measured_free(e->measured);
  free(e->gradients.trace);
  free(e->train.data);
  for (int i = 0; i < e->ninputs; i++) free(e->inputs[i].path);
  json_decref(e->options);
  json_decref(e->resolved);
  free(e);
}
