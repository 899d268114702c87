/* src/data/trace_write.c — writing gradient traces (the format: trace.h).
 *
 * Files are written as they come, each by the atomic idiom of results.h (a
 * temporary in the same directory, written, fsync'd, renamed), so no .npy
 * file is ever seen half-written; index.json, the one file that makes the
 * directory a trace, is written last the same way, and only once every
 * (worker, iteration) is on disk.  A recording that dies half-way therefore
 * leaves a directory trace_open refuses, and never a truncated file. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/trace.h"
#include "error.h"
#include "outputs/results.h"

struct trace_writer {
  char *dir;
  unsigned workers, iterations;
  size_t elements;
  json_t *index;          /* index.json, complete but for nothing */
  unsigned char *written; /* [worker * iterations + iteration] */
  unsigned char *made;    /* [worker]: w{worker}/ exists */
};

/* index.json for these layers, or NULL with err set. */
static json_t *make_index(const char *dir, unsigned workers, unsigned iterations,
                          const trace_layer *layers, size_t nlayers, const char *source,
                          size_t *elements, ccsim_error *err) {
  json_t *arr = json_array();
  unsigned long long total = 0;
  for (size_t i = 0; i < nlayers; i++) {
    const trace_layer *L = &layers[i];
    if (!L->name || !*L->name || L->ndim > TRACE_MAX_DIMS) {
      json_decref(arr);
      ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0, "layer %zu: needs a non-empty name and at most %d dims", i, TRACE_MAX_DIMS);
      return NULL;
    }
    for (size_t j = 0; j < i; j++)
      if (strcmp(layers[j].name, L->name) == 0) {
        json_decref(arr);
        ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0, "layers %zu and %zu are both named \"%s\"", j,
             i, L->name);
        return NULL;
      }
    json_t *shape = json_array();
    unsigned long long count = 1;
    for (unsigned d = 0; d < L->ndim; d++) {
      if (L->shape[d] == 0 || count > (1ull << 40) / L->shape[d]) {
        json_decref(shape);
        json_decref(arr);
        ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0,
             "layer \"%s\": dimension %u is %zu; dimensions are positive and a trace has "
             "at most 2^40 elements", L->name, d, L->shape[d]);
        return NULL;
      }
      count *= L->shape[d];
      json_array_append_new(shape, json_integer((json_int_t)L->shape[d]));
    }
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(L->name));
    json_object_set_new(o, "shape", shape);
    json_object_set_new(o, "count", json_integer((json_int_t)count));
    json_array_append_new(arr, o);
    total += count;
  }
  if (nlayers == 0 || workers == 0 || iterations == 0 || total > (1ull << 40)) {
    json_decref(arr);
    ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0,
         "a trace needs at least one layer, worker and iteration and at most 2^40 elements");
    return NULL;
  }
  json_t *ix = json_object();
  json_object_set_new(ix, "format", json_string(TRACE_FORMAT));
  json_object_set_new(ix, "version", json_integer(TRACE_VERSION));
  json_object_set_new(ix, "workers", json_integer(workers));
  json_object_set_new(ix, "iterations", json_integer(iterations));
  json_object_set_new(ix, "layers", arr);
  json_object_set_new(ix, "elements", json_integer((json_int_t)total));
  json_object_set_new(ix, "files", json_string(TRACE_FILES));
  json_object_set_new(ix, "source", json_string(source ? source : ""));
  *elements = (size_t)total;
  return ix;
}

void trace_writer_free(trace_writer *w) {
  if (!w) return;
  json_decref(w->index);
  free(w->written);
  free(w->made);
  free(w->dir);
  free(w);
}

trace_writer *trace_writer_new(const char *dir, unsigned workers, unsigned iterations,
                               const trace_layer *layers, size_t nlayers, const char *source,
                               ccsim_error *err) {
  /* the file paths below ("DIR/wW/itI.npy") fit their buffers: never truncated */
  if (strlen(dir) > 4000) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0,
                  "a trace directory's path may be at most 4000 bytes, this one has %zu",
                  strlen(dir));
    return NULL;
  }
  trace_writer *w = calloc(1, sizeof *w);
  if (!w) {
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, dir, NULL, 0, 0, "out of memory");
    return NULL;
  }
  w->workers = workers;
  w->iterations = iterations;
  w->index = make_index(dir, workers, iterations, layers, nlayers, source, &w->elements, err);
  if (!w->index) {
    trace_writer_free(w);
    return NULL;
  }
  w->dir = strdup(dir);
  w->written = calloc((size_t)workers * iterations, 1);
  w->made = calloc(workers, 1);
  if (!w->dir || !w->written || !w->made) {
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, dir, NULL, 0, 0, "out of memory");
    trace_writer_free(w);
    return NULL;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/index.json", dir);
  if (results_mkdir(dir, err) || results_remove_stale(dir, err)) {
    trace_writer_free(w);
    return NULL;
  }
  /* before anything runs: a planted w<k> that is not a real directory
   * (a symbolic link out of the trace) is refused, not written through */
  for (unsigned k = 0; k < workers; k++) {
    char sub[4200];
    struct stat st;
    snprintf(sub, sizeof sub, "%s/w%u", dir, k);
    if (lstat(sub, &st) == 0 && !S_ISDIR(st.st_mode)) {
      ccsim_fail_at(err, CCSIM_ERR_INPUT, sub, NULL, 0, 0,
                    "%s; expected the directory of worker %u's files (or nothing)",
                    S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a directory", k);
      trace_writer_free(w);
      return NULL;
    }
  }
  if (unlink(path) != 0 && errno != ENOENT) {
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "cannot remove the old index: %s",
         strerror(errno));
    trace_writer_free(w);
    return NULL;
  }
  return w;
}

int trace_write(trace_writer *w, unsigned worker, unsigned iteration, const float *g, size_t n,
                ccsim_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/w%u/it%u.npy", w->dir, worker, iteration);
  if (worker >= w->workers || iteration >= w->iterations)
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "outside the trace's %u workers x %u iterations", w->workers, w->iterations);
  const size_t k = (size_t)worker * w->iterations + iteration;
  if (w->written[k]) return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "written twice");
  if (n != w->elements)
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "%zu elements; the layers hold %zu", n,
                w->elements);
  size_t bad = trace_first_nonfinite(g, n);
  if (bad < n)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "element %zu is %s; a trace holds finite values", bad, g[bad] != g[bad] ? "NaN" : "infinite");
  char sub[4200], name[32];
  snprintf(sub, sizeof sub, "%s/w%u", w->dir, worker);
  snprintf(name, sizeof name, "it%u.npy", iteration);
  if (!w->made[worker]) {
    if (mkdir(sub, 0777) != 0 && errno != EEXIST)
      return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, sub, NULL, 0, 0, "cannot create: %s", strerror(errno));
    /* a w<k> that is a symbolic link (or not a directory) was not made by a
     * recording: writing through it would leave the trace directory */
    struct stat st = {0};
    if (lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
      return ccsim_fail_at(err, CCSIM_ERR_INPUT, sub, NULL, 0, 0,
                           "%s; expected the directory of worker %u's files",
                           S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a directory", worker);
    /* temporaries of an earlier recording that was killed */
    int rc = results_remove_stale(sub, err);
    if (rc) return rc;
    w->made[worker] = 1;
  }
  /* numpy.save's header: padded with spaces so the data starts at a multiple of 64 */
  char hdr[128];
  int len = snprintf(hdr + 10, sizeof hdr - 10,
                     "{'descr': '<f4', 'fortran_order': False, 'shape': (%zu,), }", n);
  size_t total = ((size_t)10 + (size_t)len + 1 + 63) / 64 * 64;
  memcpy(hdr, "\x93NUMPY\x01\x00", 8);
  hdr[8] = (char)((total - 10) & 0xff);
  hdr[9] = (char)((total - 10) >> 8);
  memset(hdr + 10 + len, ' ', total - 11 - (size_t)len);
  hdr[total - 1] = '\n';
  /* a temporary in the same directory, renamed when whole: a run killed or
   * failing mid-write leaves no truncated itI.npy for a later run to read */
  FILE *f = results_open(sub, name, err);
  if (!f) return err ? err->code : CCSIM_ERR_RUNTIME;
  if (fwrite(hdr, 1, total, f) != total || fwrite(g, sizeof *g, n, f) != n) {
    const int e = errno;
    results_abandon(f);
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "cannot write: %s", strerror(e));
  }
  int rc = results_commit(f, sub, name, err);
  if (rc) return rc;
  w->written[k] = 1;
  return 0;
}

int trace_writer_close(trace_writer *w, ccsim_error *err) {
  int rc = 0;
  for (size_t k = 0; k < (size_t)w->workers * w->iterations && !rc; k++)
    if (!w->written[k])
      rc = ccsim_fail_at(err, CCSIM_ERR_RUNTIME, w->dir, NULL, 0, 0,
                         "w%zu/it%zu.npy: never written; no index.json, so this is not a trace",
                         k / w->iterations, k % w->iterations);
  if (!rc) rc = results_write_json(w->dir, "index.json", w->index, err);
  trace_writer_free(w);
  return rc;
}
