/* src/train/data.c — datasets in memory and the digits loader.
 *
 * The digits file is read through zlib's gzip reader, which also reads an
 * uncompressed file unchanged, so a plain CSV works too.  A gzip stream cut
 * short is reported by zlib ("unexpected end of file"); a plain file cut
 * short is caught by its last line lacking a newline. */
#include "train/data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input/input.h"

#define DIGITS_FEATURES 64
#define DIGITS_CLASSES 10
#define DIGITS_MAXVAL 16

/* An empty dataset with room for n rows (n may be 0 for a growing one). */
static tdataset *dataset_alloc(size_t n, size_t features, size_t classes) {
  tdataset *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->n = n;
  d->features = features;
  d->classes = classes;
  if (n) {
    if (features && n > SIZE_MAX / sizeof(float) / features) {
      free(d);
      return NULL;
    }
    d->X = malloc(n * features * sizeof *d->X);
    d->y = malloc(n * sizeof *d->y);
    if (!d->X || !d->y) {
      tdata_free(d);
      return NULL;
    }
  }
  return d;
}

void tdata_free(tdataset *d) {
  if (!d) return;
  free(d->X);
  free(d->y);
  free(d);
}

tdataset *tdata_subset(const tdataset *d, const size_t *idx, size_t n, ccsim_error *err) {
  tdataset *s = dataset_alloc(n, d->features, d->classes);
  if (!s) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "dataset: out of memory for %zu rows", n);
    return NULL;
  }
  tdata_gather(d, idx, n, s->X, s->y);
  return s;
}

void tdata_gather(const tdataset *d, const size_t *idx, size_t n, float *X, int *y) {
  const size_t f = d->features;
  for (size_t r = 0; r < n; r++) {
    memcpy(X + r * f, d->X + idx[r] * f, f * sizeof *X);
    y[r] = d->y[idx[r]];
  }
}

void tdata_class_counts(const tdataset *d, size_t *counts) {
  memset(counts, 0, d->classes * sizeof *counts);
  for (size_t i = 0; i < d->n; i++) counts[d->y[i]]++;
}

/* Parse one CSV line of the digits format into x[64] (scaled) and *label.
 * Returns 0, or an error code with err set naming path:line and the field. */
static int parse_digits_line(char *line, const char *path, size_t lineno, float *x, int *label,
                             ccsim_error *err) {
  char *p = line;
  for (int f = 0; f <= DIGITS_FEATURES; f++) {
    const int is_label = f == DIGITS_FEATURES;
    const long max = is_label ? DIGITS_CLASSES - 1 : DIGITS_MAXVAL;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (end == p || errno) {
      return ccsim_fail(err, CCSIM_ERR_INPUT,
                        "%s:%zu: field %d: expected an integer, got '%.20s'", path, lineno,
                        f + 1, p);
    }
    if (v < 0 || v > max) {
      return ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%zu: field %d: %s %ld out of range 0..%ld",
                        path, lineno, f + 1, is_label ? "label" : "pixel value", v, max);
    }
    if (is_label) {
      *label = (int)v;
      if (*end != '\0') {
        return ccsim_fail(err, CCSIM_ERR_INPUT,
                          "%s:%zu: expected %d comma-separated fields, found more", path,
                          lineno, DIGITS_FEATURES + 1);
      }
    } else {
      x[f] = (float)v / (float)DIGITS_MAXVAL;
      if (*end != ',') {
        return ccsim_fail(err, CCSIM_ERR_INPUT,
                          "%s:%zu: expected %d comma-separated fields, found %d%s", path, lineno,
                          DIGITS_FEATURES + 1, f + 1,
                          *end ? " and a stray character" : "");
      }
      p = end + 1;
    }
  }
  return 0;
}

/* Append one row to a growing dataset. */
static int dataset_push(tdataset *d, size_t *cap, const float *x, int label) {
  if (d->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 1024;
    float *X = realloc(d->X, nc * d->features * sizeof *X);
    if (!X) return -1;
    d->X = X;
    int *y = realloc(d->y, nc * sizeof *y);
    if (!y) return -1;
    d->y = y;
    *cap = nc;
  }
  memcpy(d->X + d->n * d->features, x, d->features * sizeof *x);
  d->y[d->n++] = label;
  return 0;
}

/* zlib's error state for the stream; its message, which zlib prefixes with
 * the path, without that prefix (ours names the path and line). */
static const char *zlib_error(gzFile gz, const char *path, int *zerr) {
  const char *msg = gzerror(gz, zerr);
  if (*zerr == Z_ERRNO) return strerror(errno);
  const size_t pl = strlen(path);
  if (strncmp(msg, path, pl) == 0 && msg[pl] == ':' && msg[pl + 1] == ' ') return msg + pl + 2;
  return msg;
}

tdataset *tdata_load_digits(const char *path, ccsim_error *err) {
  /* a regular file only: a FIFO or device would block or never end */
  int fd = cfg_open_regular(path, "digits file", NULL, err);
  if (fd < 0) return NULL;
  gzFile gz = gzdopen(fd, "rb");
  if (!gz) {
    close(fd);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", path);
    return NULL;
  }
  tdataset *d = dataset_alloc(0, DIGITS_FEATURES, DIGITS_CLASSES);
  size_t cap = 0, lineno = 0;
  char line[1024];
  float x[DIGITS_FEATURES];
  int ok = d != NULL;
  if (!d) ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", path);
  while (ok && gzgets(gz, line, sizeof line)) {
    lineno++;
    size_t len = strlen(line);
    int zerr;
    if (len == 0 || line[len - 1] != '\n') {
      const char *zmsg = zlib_error(gz, path, &zerr);
      if (zerr != Z_OK)
        ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%zu: corrupt or truncated gzip data: %s", path,
                   lineno, zmsg);
      else if (len == sizeof line - 1)
        ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%zu: line longer than %zu bytes", path, lineno,
                   sizeof line - 2);
      else
        ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%zu: truncated: the last line has no newline",
                   path, lineno);
      ok = 0;
      break;
    }
    line[--len] = '\0';
    if (len && line[len - 1] == '\r') line[--len] = '\0';
    int label = 0;
    if (parse_digits_line(line, path, lineno, x, &label, err) != 0) {
      ok = 0;
    } else if (dataset_push(d, &cap, x, label) != 0) {
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory at line %zu", path, lineno);
      ok = 0;
    }
  }
  if (ok) {
    int zerr;
    const char *zmsg = zlib_error(gz, path, &zerr);
    if (zerr != Z_OK) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s:%zu: corrupt or truncated gzip data: %s", path,
                 lineno + 1, zmsg);
      ok = 0;
    } else if (d->n == 0) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: no samples (empty file)", path);
      ok = 0;
    }
  }
  gzclose(gz);
  if (!ok) {
    tdata_free(d);
    return NULL;
  }
  return d;
}
