/* src/outputs/outdir.c — claiming an output directory (outdir.h). */
#include "outputs/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonmem.h"
#include "outputs/provenance.h"
#include "outputs/results.h"

/* What a run writes into its directory, summary.json first: it is removed
 * before the others so that a run killed while cleaning up is never taken
 * for a finished one. */
static const char *const result_files[] = {"summary.json", "iterations.csv", "hops.csv",
                                           "timeline.csv", "platform.xml",   NULL};

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

int outdir_hash(const experiment *e, char out[17], ccsim_error *err) {
  uint64_t h = 0xcbf29ce484222325ull;
  /* a copy or a text made without all its memory may lack a part (jsonmem.h):
   * its hash would name another experiment */
  const unsigned long denied = jsonmem_denied();
  json_t *r = json_deep_copy(e->resolved);
  if (!r) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
  json_t *o = json_object_get(r, "output");
  if (json_is_object(o)) json_object_del(o, "dir");
  char *text = json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
  json_decref(r);
  if (!text || jsonmem_denied() != denied) {
    free(text);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
  }
  h = fnv(h, text, strlen(text) + 1);
  free(text);
  h = fnv(h, CCSIM_VERSION, sizeof CCSIM_VERSION);
  /* the inputs by role and content (not by path: a moved file is the same
   * input), then the options */
  for (int i = 0; i < e->ninputs; i++) { /* digests taken as each was read */
    h = fnv(h, e->inputs[i].role, strlen(e->inputs[i].role) + 1);
    h = fnv(h, e->inputs[i].sha256, sizeof e->inputs[i].sha256);
  }
  size_t i;
  json_t *v;
  json_array_foreach(e->options, i, v) h = fnv(h, json_string_value(v), strlen(json_string_value(v)) + 1);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
  return 0;
}

int outdir_why_changed(const char *dir, const experiment *e, char *why, size_t len) {
  char want[17];
  ccsim_error err = {0};
  if (outdir_hash(e, want, &err)) return snprintf(why, len, "%s", err.msg), 1;
  json_t *s = outdir_read_json(dir, "summary.json");
  const char *h = json_string_value(json_object_get(s, "experiment_hash"));
  if (!h || !strcmp(h, want)) {
    json_decref(s);
    return 0;
  }
  json_t *prov = provenance_new(e, &err);
  int kind = 2;
  if (prov) kind = provenance_why(e, prov, s, why, len);
  else snprintf(why, len, "%s", err.msg);
  json_decref(prov);
  json_decref(s);
  return kind;
}

json_t *outdir_read_json(const char *dir, const char *name) {
  char *path = results_path(dir, name, NULL);
  if (!path) return NULL;
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  free(path);
  struct stat st;
  if (fd < 0) return NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
    close(fd);
    return NULL;
  }
  json_t *j = json_loadfd(fd, 0, NULL);
  close(fd);
  return j;
}

/* The "experiment_hash" string of dir/name into out[17]: 1 if found. */
static int read_hash(const char *dir, const char *name, char out[17], char *exp_name, size_t len) {
  json_t *j = outdir_read_json(dir, name);
  const char *h = json_string_value(json_object_get(j, "experiment_hash"));
  const int ok = h && strlen(h) == 16;
  if (ok) snprintf(out, 17, "%s", h);
  if (exp_name) snprintf(exp_name, len, "%s", json_is_string(json_object_get(j, "name"))
                                                  ? json_string_value(json_object_get(j, "name"))
                                                  : "?");
  json_decref(j);
  return ok;
}

int outdir_finished_hash(const char *dir, char out[17]) { return read_hash(dir, "summary.json", out, NULL, 0); }


/* Refuse when dir/name is the same file as the input `input`. */
static int not_an_input(const char *dir, const char *name, const char *input, ccsim_error *err) {
  struct stat a, b;
  char *path = results_path(dir, name, err);
  if (!path) return err->code; /* too long, or out of memory */
  int rc = 0;
  if (input && stat(path, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    rc = ccsim_fail(err, CCSIM_ERR_INPUT,
                    "%s: the output file would overwrite the input %s: choose another output directory",
                    path, input);
  free(path);
  return rc;
}

int outdir_claim(const char *dir, const experiment *e, int force, ccsim_error *err) {
  int rc;
  char want[17], have[17] = "", who[256] = "?";
  if ((rc = outdir_hash(e, want, err))) return rc;
  if ((rc = results_mkdir(dir, err))) return rc;
  for (const char *const *n = result_files; *n; n++) {
    if ((rc = not_an_input(dir, *n, e->file, err))) return rc;
    if ((rc = not_an_input(dir, *n, e->platform.file, err))) return rc;
  }
  if (results_present(dir, "sweep.csv") || results_present(dir, ".ccsim-sweep.lock"))
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: holds a sweep (sweep.csv): give each run its own output directory", dir);
  int other = 0;
  if (read_hash(dir, OUTDIR_MARKER, have, who, sizeof who) || read_hash(dir, "summary.json", have, who, sizeof who))
    other = strcmp(have, want) != 0;
  else
    for (const char *const *n = result_files; *n && !other; n++)
      if (strcmp(*n, "platform.xml") && results_present(dir, *n)) other = 1, snprintf(have, sizeof have, "unknown");
  if (other && !force) {
    /* the marker without summary.json: a run of it started and never
     * finished (killed, or failed): no results, but still not this one's */
    const int finished = results_present(dir, "summary.json") || !results_present(dir, OUTDIR_MARKER);
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "%s: holds %s of another experiment (\"%s\", hash %s; this one is %s): "
                      "use --force to replace %s, or another --out",
                      dir, finished ? "the results" : "an unfinished run", who, have, want, finished ? "them" : "it");
  }
  if ((rc = results_remove_stale(dir, err))) return rc;
  for (const char *const *n = result_files; *n; n++) {
    char *path = results_path(dir, *n, err);
    if (!path) return err->code;
    if (unlink(path) != 0 && errno != ENOENT) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot remove an earlier result: %s", path, strerror(errno));
      free(path);
      return rc;
    }
    free(path);
  }
  json_t *m = json_pack("{s:s,s:s,s:s}", "name", e->name, "experiment_hash", want, "ccsim_version",
                        CCSIM_VERSION);
  rc = m ? results_write_json(dir, OUTDIR_MARKER, m, err) : ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
  json_decref(m);
  return rc;
}
