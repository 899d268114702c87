/* src/sweep/sweep.c — `ccsim sweep SWEEP.json`: a base experiment run over a grid
 * of values, one `ccsim run` process per point (SimGrid starts once per
 * process), several at a time with --jobs, resumable.
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
 * value's "set" object (field -> JSON value).  Point p's results go to
 * DIR/<axis>=<label>,<axis>=<label>/ (percent-encoded, results.h); a point
 * whose summary.json holds the hash of its experiment is done already, one
 * whose experiment changed is run again: a killed sweep resumes where it
 * stopped (docs/outputs-and-sweeps.md).  One sweep at a time per DIR (a lock).
 * Every point is loaded and checked before the first one runs, so a bad
 * value stops the sweep with exit 2 before any simulation.  At the end
 * DIR/sweep.csv lists every point with its headline figures. */
#include "sweep.h"

#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "config/input.h"
#include "experiment.h"
#include "outputs/lock.h"
#include "outputs/outdir.h"
#include "results.h"
#include "sim/resources.h"
#include "sweep_slurm.h"

typedef struct point {
  char id[512];   /* "workers=4,method=marsit" */
  char **sets;    /* --set assignments */
  int nsets;
  char **labels;  /* one per axis */
  int status;     /* 0 to run, 1 done earlier, 2 ran ok, 3 failed */
} point;

typedef struct sweep {
  char *file, *dir, *base, *out, *name;
  int naxes;
  char **axis_names;
  point *points;
  size_t npoints;
} sweep;

static char *dump(json_t *v) { return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT); }

/* "key=<v as compact JSON>", a --set assignment; a new string. */
static char *assignment(const char *key, json_t *v) {
  char *text = dump(v);
  size_t need = strlen(key) + strlen(text) + 2;
  char *a = malloc(need);
  snprintf(a, need, "%s=%s", key, text);
  free(text);
  return a;
}

/* A label for a plain value: its JSON text without quotes, '/' as '-'. */
static void label_of(json_t *v, char *buf, size_t len) {
  char *s = json_is_string(v) ? strdup(json_string_value(v)) : dump(v);
  snprintf(buf, len, "%s", s);
  free(s);
  for (char *c = buf; *c; c++)
    if (*c == '/' || *c == ',' || *c == ' ' || *c == '"') *c = '-';
}

static void sweep_free(sweep *s) {
  for (size_t p = 0; s->points && p < s->npoints; p++) {
    for (int k = 0; k < s->points[p].nsets; k++) free(s->points[p].sets[k]);
    for (int a = 0; a < s->naxes; a++) free(s->points[p].labels[a]);
    free(s->points[p].sets);
    free(s->points[p].labels);
  }
  for (int a = 0; a < s->naxes; a++) free(s->axis_names[a]);
  free(s->axis_names);
  free(s->points);
  free(s->file), free(s->dir), free(s->base), free(s->out), free(s->name);
}

/* One axis value: its label and its assignments. */
typedef struct choice {
  char label[128];
  char *sets[32];
  int nsets;
} choice;

/* A field path of a --set: non-empty names joined by '.', and no '=' (which
 * would end the path of the assignment early). */
static int field_path_ok(const char *p) {
  return *p && !strchr(p, '=') && p[0] != '.' && p[strlen(p) - 1] != '.' && !strstr(p, "..");
}

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
  if (jp && !field_path_ok(json_string_value(jp)))
    return cfg_fail(&rd, path, "\"path\" must be names joined by '.' such as \"platform.bandwidth\", got \"%s\"",
                    json_string_value(jp));
  *name = strdup(json_string_value(jn ? jn : jp));
  *count = json_array_size(vals);
  *out = calloc(*count, sizeof **out);
  size_t k;
  json_t *v;
  json_array_foreach(vals, k, v) {
    choice *c = &(*out)[k];
    char vp[96];
    snprintf(vp, sizeof vp, "%s.values[%zu]", path, k);
    if (jp) { /* a plain value for one field */
      label_of(v, c->label, sizeof c->label);
      c->sets[0] = assignment(json_string_value(jp), v);
      c->nsets = 1;
      continue;
    }
    json_t *lab = json_object_get(v, "label"), *set = json_object_get(v, "set");
    if (!json_is_object(v) || !json_is_string(lab) || !json_is_object(set))
      return cfg_fail(&rd, vp, "expected {\"label\": \"...\", \"set\": {FIELD: VALUE, ...}}");
    static const char *const vknown[] = {"label", "set", NULL};
    if ((rc = cfg_keys(&rd, v, vp, vknown, NULL, NULL, NULL))) return rc;
    if (!json_string_length(lab)) return cfg_fail(&rd, vp, "\"label\" must not be empty");
    label_of(lab, c->label, sizeof c->label);
    const char *key;
    json_t *x;
    json_object_foreach(set, key, x) {
      if (!field_path_ok(key))
        return cfg_fail(&rd, vp, "set: \"%s\" is not a field path (names joined by '.')", key);
      if (c->nsets == 32) return cfg_fail(&rd, vp, "at most 32 fields per value");
      c->sets[c->nsets++] = assignment(key, x);
    }
  }
  return 0;
}

static int sweep_load(const char *file, const char *out_override, sweep *s, ccsim_error *err) {
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
  if ((rc = cfg_keys(&rd, root, "", known, NULL, NULL, NULL))) goto out;
  s->file = strdup(file);
  char *tmp = strdup(file), *slash = strrchr(tmp, '/');
  if (slash) *slash = 0;
  s->dir = strdup(slash ? tmp : ".");
  free(tmp);
  json_t *jname = json_object_get(root, "name"), *jbase = json_object_get(root, "base");
  json_t *axes = json_object_get(root, "axes"), *jout = json_object_get(root, "output");
  if (jname && (!json_is_string(jname) || !json_string_length(jname))) {
    rc = cfg_fail(&rd, "name", "expected a non-empty string");
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
    const size_t l = strlen(s->name);
    if (l > 5 && !strcmp(s->name + l - 5, ".json")) s->name[l - 5] = 0;
  }
  const char *b = json_string_value(jbase);
  size_t need = strlen(s->dir) + strlen(b) + 2;
  s->base = malloc(need);
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
  if (!json_is_array(axes) || json_array_size(axes) == 0 || json_array_size(axes) > 8) {
    rc = cfg_fail(&rd, "axes", "expected an array of 1 to 8 axes");
    goto out;
  }
  s->naxes = (int)json_array_size(axes);
  s->axis_names = calloc((size_t)s->naxes, sizeof *s->axis_names);
  choices = calloc((size_t)s->naxes, sizeof *choices);
  counts = calloc((size_t)s->naxes, sizeof *counts);
  s->npoints = 1;
  for (int a = 0; a < s->naxes; a++) {
    if ((rc = read_axis(json_array_get(axes, (size_t)a), file, a, &choices[a], &counts[a],
                        &s->axis_names[a], err)))
      goto out;
    /* checked at each axis: the product of a few long axes overflows */
    if (counts[a] > 100000 || (s->npoints *= counts[a]) > 100000) {
      rc = cfg_fail(&rd, "axes", "more than 100000 points: too many");
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
  s->points = calloc(s->npoints, sizeof *s->points);
  for (size_t p = 0; p < s->npoints; p++) {
    point *pt = &s->points[p];
    pt->labels = calloc((size_t)s->naxes, sizeof *pt->labels);
    pt->sets = calloc(32 * (size_t)s->naxes + ncommon + 1, sizeof *pt->sets);
    if (common) {
      const char *key;
      json_t *x;
      json_object_foreach(common, key, x) {
        pt->sets[pt->nsets++] = assignment(key, x);
      }
    }
    size_t rest = p;
    size_t idx[8];
    for (int a = s->naxes - 1; a >= 0; a--) idx[a] = rest % counts[a], rest /= counts[a];
    for (int a = 0; a < s->naxes; a++) {
      const choice *c = &choices[a][idx[a]];
      pt->labels[a] = strdup(c->label);
      char part[160];
      snprintf(part, sizeof part, "%s%s=%s", a ? "," : "", s->axis_names[a], c->label);
      strncat(pt->id, part, sizeof pt->id - strlen(pt->id) - 1);
      for (int k = 0; k < c->nsets; k++) pt->sets[pt->nsets++] = strdup(c->sets[k]);
    }
  }
out:
  for (int a = 0; choices && a < s->naxes; a++) {
    for (size_t k = 0; choices[a] && k < counts[a]; k++)
      for (int j = 0; j < choices[a][k].nsets; j++) free(choices[a][k].sets[j]);
    free(choices[a]);
  }
  free(choices);
  free(counts);
  json_decref(root);
  return rc;
}

/* The directory of point p: DIR/<its id as one safe component> (a new
 * string, results_component: "../", "/" and long ids stay inside DIR), or
 * NULL with err when the path would be too long. */
static char *point_dir(const sweep *s, const point *p, ccsim_error *err) {
  char *leaf = results_component(p->id);
  if (!leaf) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
    return NULL;
  }
  char *dir = results_path(s->out, leaf, err);
  free(leaf);
  return dir;
}

/* What each point is, for resume and for sweep.csv. */
typedef struct point_run {
  char *dir;
  char hash[17];   /* of its resolved experiment */
  int changed;     /* its directory holds results of another experiment */
  char reason[600]; /* why it failed: the child's error line, or its signal */
  double need;      /* its memory estimate, bytes */
} point_run;

/* qsort of point indices by directory (sort_by 0) or experiment hash (1),
 * then by index so the pair named is the first in sweep order. */
static const point_run *sort_pr;
static int sort_by;
static int cmp_point(const void *a, const void *b) {
  const point_run *x = &sort_pr[*(const size_t *)a], *y = &sort_pr[*(const size_t *)b];
  return sort_by ? strcmp(x->hash, y->hash) : strcmp(x->dir, y->dir);
}

/* Every point's directory and hash; two points in one directory, or two
 * that are the same experiment, refused. */
static int plan_points(const sweep *s, point_run *pr, ccsim_error *err) {
  for (size_t i = 0; i < s->npoints; i++) {
    if (!(pr[i].dir = point_dir(s, &s->points[i], err))) return CCSIM_ERR_INPUT;
    experiment *e = experiment_load(s->base, s->points[i].sets, s->points[i].nsets, err);
    if (!e) {
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: point %s: %s", s->file, s->points[i].id, msg);
    }
    int rc = outdir_hash(e, pr[i].hash, err);
    resource_estimate est;
    resources_estimate(e, &est);
    pr[i].need = est.total;
    experiment_free(e);
    if (rc) return rc;
  }
  /* pairs found by sorting (100000 points: no n^2 comparisons) */
  size_t *ix = malloc((s->npoints + 1) * sizeof *ix);
  if (!ix) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  int rc = 0;
  for (int by = 0; by < 2 && !rc; by++) {
    for (size_t i = 0; i < s->npoints; i++) ix[i] = i;
    sort_pr = pr, sort_by = by;
    qsort(ix, s->npoints, sizeof *ix, cmp_point);
    for (size_t k = 0; k + 1 < s->npoints && !rc; k++) {
      size_t i = ix[k], j = ix[k + 1];
      if (cmp_point(&ix[k], &ix[k + 1])) continue;
      if (i > j) i = ix[k + 1], j = ix[k];
      if (by == 0)
        rc = ccsim_fail(err, CCSIM_ERR_INPUT,
                        "%s: axes: points \"%s\" and \"%s\" would share the directory %s: make their "
                        "labels differ in more than '/', ',', ' ' and '\"' and in their first 127 characters",
                        s->file, s->points[i].id, s->points[j].id, pr[i].dir);
      else
        rc = ccsim_fail(err, CCSIM_ERR_INPUT,
                        "%s: axes: points \"%s\" and \"%s\" are the same experiment (hash %s): an axis "
                        "repeats a value, or two axes set the same field",
                        s->file, s->points[i].id, s->points[j].id, pr[i].hash);
    }
  }
  free(ix);
  if (rc) return rc;
  /* a point directory that is a symbolic link was planted, not made by a
   * sweep: its results would land wherever it points */
  for (size_t i = 0; i < s->npoints; i++) {
    struct stat st;
    if (lstat(pr[i].dir, &st) == 0 && S_ISLNK(st.st_mode))
      return ccsim_fail(err, CCSIM_ERR_INPUT,
                        "%s: point %s: its directory %s is a symbolic link; a sweep writes only into "
                        "directories it made (remove the link)",
                        s->file, s->points[i].id, pr[i].dir);
  }
  return 0;
}

static volatile sig_atomic_t stop_signal; /* SIGINT or SIGTERM received */
static void on_stop(int sig) { stop_signal = sig; }

/* Start `ccsim run` for point p in its directory; its stderr goes to the
 * file errfd.  The child dies with this process, however this one dies
 * (PR_SET_PDEATHSIG survives exec), and shares its process group, so a
 * terminal's ^C reaches both. */
static pid_t start(const sweep *s, const point *p, const point_run *pr, int errfd) {
  const int argc = 7 + 2 * p->nsets;
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  if (!argv) return -1;
  int k = 0;
  argv[k++] = "ccsim";
  argv[k++] = "run";
  argv[k++] = s->base;
  argv[k++] = "--quiet";
  argv[k++] = "--out";
  argv[k++] = pr->dir;
  if (pr->changed) argv[k++] = "--force"; /* its old results are of another experiment */
  for (int i = 0; i < p->nsets; i++) argv[k++] = "--set", argv[k++] = p->sets[i];
  fflush(NULL);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1); /* the parent died before prctl */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* the run's one-screen summary is in its summary.json: keep the terminal quiet */
    if (!freopen("/dev/null", "w", stdout) || dup2(errfd, 2) < 0) _exit(1);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "ccsim sweep: cannot run /proc/self/exe: %s\n", strerror(errno));
    _exit(1);
  }
  free(argv);
  return pid;
}

/* The reason a child failed: its last stderr line, or how it ended. */
static void failure_reason(int st, int errfd, char *out, size_t len) {
  char buf[4096];
  const ssize_t n = pread(errfd, buf, sizeof buf - 1, 0);
  buf[n > 0 ? n : 0] = 0;
  size_t l = strlen(buf);
  while (l && (buf[l - 1] == '\n' || buf[l - 1] == '\r')) buf[--l] = 0;
  /* ccsim's own error line (the last one), else the last line at all */
  char *line = NULL;
  for (char *p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
    if (!strncmp(p, "ccsim: ", 7)) line = p;
  if (line) *strchrnul(line, '\n') = 0;
  else line = strrchr(buf, '\n') ? strrchr(buf, '\n') + 1 : buf;
  if (!strncmp(line, "ccsim: ", 7)) line += 7;
  if (WIFSIGNALED(st))
    snprintf(out, len, "killed by signal %d (SIG%s)%s%.400s", WTERMSIG(st), sigabbrev_np(WTERMSIG(st)) ?
             sigabbrev_np(WTERMSIG(st)) : "?", line[0] ? ": " : "", line);
  else
    snprintf(out, len, "%s", line[0] ? line : "exit status without a message");
  for (char *c = out; *c; c++)
    if ((unsigned char)*c < 0x20) *c = ' ';
}

/* A CSV cell: quoted, quotes doubled. */
static void csv_text(FILE *f, const char *t) {
  fputc('"', f);
  for (; *t; t++) {
    if (*t == '"') fputc('"', f);
    fputc(*t, f);
  }
  fputc('"', f);
}

/* A number from summary.json, or an empty cell where it has none. */
static void csv_number(FILE *f, json_t *j, const char *key, const char *fmt) {
  fputc(',', f);
  json_t *v = json_object_get(j, key);
  if (json_is_number(v)) fprintf(f, fmt, json_number_value(v));
}

/* DIR/sweep.csv: every point, its status (done, failed with the reason,
 * pending) and, when done, its figures read back from its summary.json. */
static int write_index(const sweep *s, const point_run *pr, ccsim_error *err) {
  FILE *f = results_open(s->out, "sweep.csv", err);
  if (!f) return err->code;
  fprintf(f, "point");
  for (int a = 0; a < s->naxes; a++) fprintf(f, ",%s", s->axis_names[a]);
  fprintf(f, ",status,reason,workers,compressor,collective,iteration_time_s,compute_s,compress_s,"
             "communicate_s,exposed_communicate_s,bytes_on_wire,compression_ratio,"
             "agg_rel_error,agg_cosine,last_hop_rel_error,host_time_s\n");
  for (size_t i = 0; i < s->npoints; i++) {
    const point *p = &s->points[i];
    char have[17];
    json_t *j = NULL;
    if (outdir_finished_hash(pr[i].dir, have) && !strcmp(have, pr[i].hash))
      j = outdir_read_json(pr[i].dir, "summary.json");
    csv_text(f, p->id);
    for (int a = 0; a < s->naxes; a++) fprintf(f, ",%s", p->labels[a]); /* no ',' or '"' (label_of) */
    if (!j) {
      fprintf(f, ",%s,", p->status == 3 ? "failed" : "pending");
      csv_text(f, p->status == 3 ? pr[i].reason : "not run yet");
      fprintf(f, ",,,,,,,,,,,,,,\n");
      continue;
    }
    fprintf(f, ",done,");
    csv_number(f, j, "workers", "%.0f");
    fprintf(f, ",%s", json_string_value(json_object_get(j, "compressor")) ?: ""); /* registry names */
    fprintf(f, ",%s", json_string_value(json_object_get(j, "collective")) ?: "");
    csv_number(f, j, "iteration_time_s", "%.10g");
    /* the time breakdown per iteration (summary.json holds totals) */
    const json_t *tb = json_object_get(j, "time_breakdown_s");
    const json_t *it = json_object_get(j, "iterations");
    static const char *const parts[] = {"compute", "compress", "communicate", "exposed_communicate"};
    for (int k = 0; k < 4; k++) {
      const json_t *v = json_object_get(tb, parts[k]);
      fputc(',', f);
      if (json_is_number(v) && json_integer_value(it) > 0)
        fprintf(f, "%.10g", json_number_value(v) / (double)json_integer_value(it));
    }
    csv_number(f, j, "bytes_on_wire", "%.0f");
    csv_number(f, j, "compression_ratio", "%.10g");
    csv_number(f, j, "agg_rel_error", "%.10g");
    csv_number(f, j, "agg_cosine", "%.12g");
    csv_number(f, j, "last_hop_rel_error", "%.10g");
    csv_number(f, j, "host_time_s", "%.4g");
    fputc('\n', f);
    json_decref(j);
  }
  return results_commit(f, s->out, "sweep.csv", err);
}

/* Run the points marked 0, jobs at a time; stop (killing the children) on
 * SIGINT or SIGTERM.  Returns how many failed. */
static size_t run_points(sweep *s, point_run *pr, size_t todo, int jobs, int quiet) {
  pid_t *pids = calloc(s->npoints, sizeof *pids);
  int *errfds = calloc(s->npoints, sizeof *errfds);
  size_t finished = 0, failed = 0, next = 0, running = 0;
  while (finished < todo && pids && errfds) {
    while (!stop_signal && running < (size_t)jobs && next < s->npoints) {
      if (s->points[next].status == 0) {
        errfds[next] = memfd_create("ccsim-point-stderr", MFD_CLOEXEC);
        pids[next] = errfds[next] < 0 ? -1 : start(s, &s->points[next], &pr[next], errfds[next]);
        if (pids[next] < 0) {
          snprintf(pr[next].reason, sizeof pr[next].reason, "cannot start: %s", strerror(errno));
          s->points[next].status = 3, failed++, finished++;
        } else {
          running++;
        }
      }
      next++;
    }
    if (stop_signal && running == 0) break;
    int st;
    const pid_t pid = wait(&st);
    if (pid < 0) {
      if (errno == EINTR && stop_signal) { /* pass it on to the children, then reap them */
        for (size_t i = 0; i < s->npoints; i++)
          if (pids[i] > 0 && s->points[i].status == 0) kill(pids[i], SIGTERM);
        continue;
      }
      if (errno == EINTR) continue;
      break;
    }
    for (size_t i = 0; i < s->npoints; i++)
      if (pids[i] == pid) {
        const int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        s->points[i].status = ok ? 2 : 3;
        if (!ok) failure_reason(st, errfds[i], pr[i].reason, sizeof pr[i].reason);
        close(errfds[i]);
        pids[i] = 0;
        failed += !ok;
        running--;
        finished++;
        if (!quiet || !ok)
          fprintf(stderr, "ccsim sweep: [%zu/%zu] %s %s%s%s\n", finished, todo, s->points[i].id,
                  ok ? "done" : "FAILED", ok ? "" : ": ", ok ? "" : pr[i].reason);
      }
  }
  free(pids);
  free(errfds);
  return failed;
}

/* Slurm: submit the points to run as a job array (sweep_slurm.h). */
static int submit(sweep *s, const sweep_opts *o, ccsim_error *err) {
  char file[PATH_MAX], out[PATH_MAX];
  if (!realpath(s->file, file) || !realpath(s->out, out))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: %s", s->file, strerror(errno));
  size_t *todo = calloc(s->npoints + 1, sizeof *todo), ntodo = 0;
  char **ids = calloc(s->npoints + 1, sizeof *ids);
  if (!todo || !ids) return free(todo), free(ids), ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  for (size_t i = 0; i < s->npoints; i++) {
    ids[i] = s->points[i].id;
    if (s->points[i].status == 0) todo[ntodo++] = i;
  }
  int rc = 0;
  if (ntodo == 0) fprintf(stderr, "ccsim sweep %s: every point is done; nothing to submit\n", s->name);
  else rc = slurm_submit(s->name, file, out, ids, s->npoints, todo, ntodo, &o->slurm, err);
  free(todo), free(ids);
  return rc;
}

/* --point K, a Slurm array task: run point K as a local sweep would, and
 * record how it ended for --collect. */
static int run_point(sweep *s, point_run *pr, const sweep_opts *o, ccsim_error *err) {
  const size_t k = (size_t)o->point;
  if (k >= s->npoints)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "--point %zu: the sweep has %zu points", k, s->npoints);
  int rc = slurm_check_point(s->out, k, s->points[k].id, err);
  if (rc) return rc;
  int code = 0;
  if (s->points[k].status == 0) {
    int st;
    const int errfd = memfd_create("ccsim-point-stderr", MFD_CLOEXEC);
    pid_t pid = errfd < 0 ? -1 : start(s, &s->points[k], &pr[k], errfd);
    code = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : CCSIM_ERR_RUNTIME;
    if (errfd >= 0) close(errfd);
  }
  slurm_record_status(s->out, k, code);
  if (code) ccsim_fail(err, code, "point %s failed (exit %d)", s->points[k].id, code);
  return code;
}

/* --collect: which points are done, failed (their task ended without a
 * result) or still pending; sweep.csv lists them. */
static int collect(sweep *s, point_run *pr, ccsim_error *err) {
  size_t done = 0, failed = 0, pending = 0;
  for (size_t i = 0; i < s->npoints; i++) {
    if (s->points[i].status) {
      done++;
      continue;
    }
    /* a task that ended without a result failed; one that succeeded but
     * whose result is gone (removed, stale) is to run again: pending */
    const int st = slurm_status(s->out, i);
    if (st > 0) {
      s->points[i].status = 3, failed++;
      snprintf(pr[i].reason, sizeof pr[i].reason, "its Slurm task ended with exit status %d", st);
    } else {
      pending++;
    }
  }
  const int rc = write_index(s, pr, err);
  if (rc) return rc;
  fprintf(stderr, "ccsim sweep %s: %zu done, %zu failed, %zu pending; %s/sweep.csv\n", s->name, done,
          failed, pending, s->out);
  return failed || pending ? CCSIM_ERR_RUNTIME : 0;
}

int sweep_run(const sweep_opts *o) {
  const char *file = o->file, *out = o->out;
  const int jobs = o->jobs, quiet = o->quiet, dry = o->dry_run;
  sweep s;
  ccsim_error err = {0};
  char recorded[PATH_MAX];
  if (o->collect) {
    if (slurm_sweep_file(o->collect, recorded, sizeof recorded, &err)) {
      fprintf(stderr, "ccsim sweep: %s\n", err.msg);
      return err.code;
    }
    file = recorded;
    out = o->collect;
  }
  int rc = sweep_load(file, out, &s, &err);
  point_run *pr = NULL;
  int lock = -1;
  if (rc) goto done;
  /* every point is checked (and placed, and hashed) before anything runs */
  if (!(pr = calloc(s.npoints, sizeof *pr))) {
    rc = ccsim_fail(&err, CCSIM_ERR_RUNTIME, "out of memory for %zu points", s.npoints);
    goto done;
  }
  if ((rc = plan_points(&s, pr, &err))) goto done;
  const int slurm = o->slurm_mode || o->point >= 0 || o->collect;
  if (!dry || slurm) { /* submit() resolves the directory's real path */
    if ((rc = results_mkdir(s.out, &err))) goto done;
  }
  /* a Slurm array runs its tasks into DIR at once: no lock for them */
  if (!dry && !slurm) {
    if ((lock = lock_dir(s.out, ".ccsim-sweep.lock", "another sweep", &err)) < 0) {
      rc = err.code;
      goto done;
    }
    if ((rc = results_remove_stale(s.out, &err))) goto done;
  }
  /* resume: a point is done when its summary.json holds its hash */
  size_t todo = 0, reused = 0, changed = 0, fresh = 0;
  for (size_t i = 0; i < s.npoints; i++) {
    char have[17];
    json_t *m = NULL;
    if (outdir_finished_hash(pr[i].dir, have) && !strcmp(have, pr[i].hash)) {
      s.points[i].status = 1, reused++;
      continue;
    }
    todo++;
    const char *mh = (m = outdir_read_json(pr[i].dir, OUTDIR_MARKER))
                         ? json_string_value(json_object_get(m, "experiment_hash")) : NULL;
    if (outdir_finished_hash(pr[i].dir, have) ? strcmp(have, pr[i].hash) : mh && strcmp(mh, pr[i].hash))
      pr[i].changed = 1, changed++;
    else
      fresh++;
    json_decref(m);
  }
  if (slurm) {
    rc = o->collect ? collect(&s, pr, &err) : o->point >= 0 ? run_point(&s, pr, o, &err) : submit(&s, o, &err);
    if (rc && err.msg[0]) fprintf(stderr, "ccsim sweep: %s\n", err.msg);
    err.code = 0;
    goto done;
  }
  if (jobs > 1 && todo > 1) { /* the points that run side by side must fit together */
    double *need = malloc(todo * sizeof *need);
    const char **ids = malloc(todo * sizeof *ids);
    size_t k = 0;
    for (size_t i = 0; need && ids && i < s.npoints; i++)
      if (!s.points[i].status) need[k] = pr[i].need, ids[k++] = s.points[i].id;
    rc = need && ids ? resources_check_jobs(s.file, need, ids, k, jobs, &err)
                     : ccsim_fail(&err, CCSIM_ERR_RUNTIME, "out of memory");
    free(need);
    free(ids);
    if (rc) goto done;
  }
  if (!quiet || dry)
    fprintf(stderr,
            "ccsim sweep %s: %zu points: %zu reused, %zu rerun as changed, %zu new; %zu to run, %d at a time\n",
            s.name, s.npoints, reused, changed, fresh, todo, jobs);
  if (dry) {
    for (size_t i = 0; i < s.npoints; i++)
      printf("%s %s\n", s.points[i].status ? "done" : pr[i].changed ? "changed" : "todo", s.points[i].id);
    goto done;
  }
  struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: wait() returns */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  const size_t failed = run_points(&s, pr, todo, jobs, quiet);
  if ((rc = write_index(&s, pr, &err))) goto done;
  if (stop_signal) {
    rc = ccsim_fail(&err, CCSIM_ERR_RUNTIME, "%s: stopped by SIG%s; run the sweep again to resume", s.out,
                    sigabbrev_np(stop_signal));
    goto done;
  }
  if (!quiet) fprintf(stderr, "ccsim sweep: results in %s (sweep.csv)\n", s.out);
  rc = failed ? CCSIM_ERR_RUNTIME : 0;
  if (failed) fprintf(stderr, "ccsim sweep: %zu of %zu points failed (sweep.csv gives each reason)\n", failed, todo);
  err.code = 0;
done:
  if (rc && err.code) fprintf(stderr, "ccsim: %s\n", err.msg);
  for (size_t i = 0; pr && i < s.npoints; i++) free(pr[i].dir);
  free(pr);
  if (lock >= 0) close(lock);
  sweep_free(&s);
  return rc;
}
