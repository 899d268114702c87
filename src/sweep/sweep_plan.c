/* src/sweep/sweep_plan.c — where each point of a sweep goes and whether it is
 * done: point p's results go to DIR/<axis>=<label>,<axis>=<label>/
 * (percent-encoded, results.h); a point whose summary.json holds the hash of
 * its experiment is done already, one whose experiment changed is run again:
 * a killed sweep resumes where it stopped (docs/outputs-and-sweeps.md).
 * DIR/sweep.csv lists every point with its headline figures. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiment.h"
#include "jsonmem.h"
#include "outputs/outdir.h"
#include "outputs/results.h"
#include "sim/resources.h"
#include "sweep/sweep_internal.h"

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


/* qsort of point indices by directory (sort_by 0) or experiment hash (1),
 * then by index so the pair named is the first in sweep order. */
static const point_run *sort_pr;
static int sort_by;
static int cmp_point(const void *a, const void *b) {
  const point_run *x = &sort_pr[*(const size_t *)a], *y = &sort_pr[*(const size_t *)b];
  return sort_by ? strcmp(x->hash, y->hash) : strcmp(x->dir, y->dir);
}

/* Every point's directory and hash; two points in one directory, or two
 * that are the same experiment, refused (sweep_internal.h). */
int sweep_plan_points(const sweep *s, point_run *pr, ccsim_error *err) {
  for (size_t i = 0; i < s->npoints; i++) {
    if (!(pr[i].dir = point_dir(s, &s->points[i], err))) return err->code;
    experiment *e = experiment_load(s->base, s->points[i].sets, s->points[i].nsets, err);
    if (!e) {
      sweep_blame(s, &s->points[i], err);
      if (!strcmp(err->file, s->file)) return err->code; /* an axis' field or value */
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg);
      /* the experiment's own code: out of memory stays a runtime failure */
      return ccsim_fail(err, err->code, "%s: point %s: %s", s->file, s->points[i].id, msg);
    }
    int rc = outdir_hash(e, pr[i].hash, err);
    resource_estimate est;
    resources_estimate(e, &est);
    pr[i].need = est.total;
    experiment_free(e);
    if (rc) return ccsim_error_prefix(err, "point %s: ", s->points[i].id);
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
                        "labels differ in more than the characters that become '-' (/ , space, quotes, control and "
                        "shell metacharacters) and in their first 127 characters",
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


/* sweep_internal.h */
size_t sweep_resume(sweep *s, point_run *pr, int dry, size_t *reused, size_t *changed, size_t *fresh) {
  size_t todo = 0;
  *reused = *changed = *fresh = 0;
  for (size_t i = 0; i < s->npoints; i++) {
    char have[17];
    json_t *m = NULL;
    if (outdir_finished_hash(pr[i].dir, have) && !strcmp(have, pr[i].hash)) {
      s->points[i].status = 1, (*reused)++;
      continue;
    }
    todo++;
    const char *mh = (m = outdir_read_json(pr[i].dir, OUTDIR_MARKER))
                         ? json_string_value(json_object_get(m, "experiment_hash")) : NULL;
    if (outdir_finished_hash(pr[i].dir, have) ? strcmp(have, pr[i].hash) : mh && strcmp(mh, pr[i].hash)) {
      pr[i].changed = 1, (*changed)++;
      /* say what changed: an input, an option, a field (loaded again: only
       * the changed points pay for it) */
      char why[1024] = "";
      ccsim_error err = {0};
      experiment *e = experiment_load(s->base, s->points[i].sets, s->points[i].nsets, &err);
      if (!e || !outdir_why_changed(pr[i].dir, e, why, sizeof why))
        snprintf(why, sizeof why, "%s", mh ? "an interrupted run of another version of it is there" : "it changed");
      experiment_free(e);
      ccsim_one_line(why, sizeof why);
      fprintf(stderr, "ccsim sweep: point %s: %s; %s\n", s->points[i].id, why, dry ? "would rerun" : "rerunning");
    } else
      (*fresh)++;
    json_decref(m);
  }
  return todo;
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
int sweep_write_index(const sweep *s, const point_run *pr, ccsim_error *err) {
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
    const unsigned long denied = jsonmem_denied();
    errno = 0;
    const int finished = outdir_finished_hash(pr[i].dir, have) && !strcmp(have, pr[i].hash);
    if (finished) j = outdir_read_json(pr[i].dir, "summary.json");
    /* a finished point unread, or read without all its memory, is not to be
     * listed as pending nor with figures the parser may have dropped a byte of;
     * nor is a point that ran (or was done) found unfinished */
    if (jsonmem_denied() != denied || (finished && !j) || (!finished && (p->status == 1 || p->status == 2))) {
      json_decref(j);
      results_abandon(f);
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/summary.json: cannot read it for sweep.csv: %s", pr[i].dir,
                        jsonmem_denied() != denied ? "out of memory" : errno ? strerror(errno) : "unreadable");
    }
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
