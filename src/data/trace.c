/* src/data/trace.c — reading gradient traces (the format: trace.h).
 *
 * index.json is validated once, strictly, in trace_open.  A .npy file is
 * opened when first read: its header is parsed and its size checked against
 * the header, then ranges are pread at 10 + HLEN + 4 lo.  Open descriptors
 * are kept in a first-in-first-out cache sized from RLIMIT_NOFILE, so a
 * trace with more files than the process may open still replays; a file
 * evicted and touched again is re-opened and re-validated (a few syscalls). */
#include "data/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "input/input.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "trace.c reads little-endian float32 in place: little-endian hosts only"
#endif

#define MAX_WORKERS (1u << 20)
#define MAX_ITERATIONS (1u << 30)
#define MAX_FILES (1ull << 24) /* the file table: 8 bytes each */
#define MAX_ELEMENTS (1ull << 40)

typedef struct tfile {
  int fd;            /* -1 when not open */
  uint32_t data_off; /* 10 + HLEN, valid while open */
} tfile;

struct trace_reader {
  char *dir;
  unsigned workers, iterations;
  size_t elements, nlayers;
  trace_layer *layers;
  char *source;
  tfile *files; /* [worker * iterations + iteration] */
  size_t *open_ring; /* file indices of open descriptors, oldest first */
  size_t ring_cap, ring_head, ring_len;
};

/* ---- index.json ---- */

static const char *const INDEX_KEYS[] = {"format", "version", "workers", "iterations", "layers",
                                         "elements", "files", "source", NULL};
static const char *const LAYER_KEYS[] = {"name", "shape", "count", NULL};

/* The keys of obj are exactly known[]: none unknown, none missing. */
static int exact_keys(cfg_reader *rd, json_t *obj, const char *path, const char *const *known) {
  int rc = cfg_keys(rd, obj, path, known, NULL, NULL, NULL);
  return rc ? rc : cfg_require(rd, obj, path, known);
}

/* A JSON integer in [min, max] (max <= 2^40). */
static int get_int(cfg_reader *rd, json_t *v, const char *path, unsigned long long min,
                   unsigned long long max, unsigned long long *out) {
  long long n;
  int rc = cfg_int_value(rd, v, path, (long long)min, (long long)max, &n);
  if (!rc) *out = (unsigned long long)n;
  return rc;
}

static int read_layer(cfg_reader *rd, json_t *l, size_t i, size_t offset, trace_layer *out) {
  char path[64], p[96], b[80];
  snprintf(path, sizeof path, "layers[%zu]", i);
  if (!json_is_object(l))
    return cfg_fail(rd, path, "expected an object {\"name\", \"shape\", \"count\"}, got %s",
                  cfg_show(l, b, sizeof b));
  int rc = exact_keys(rd, l, path, LAYER_KEYS);
  if (rc) return rc;
  json_t *name = json_object_get(l, "name"), *shape = json_object_get(l, "shape");
  snprintf(p, sizeof p, "%s.name", path);
  if (!json_is_string(name) || json_string_length(name) == 0)
    return cfg_fail(rd, p, "expected a non-empty string, got %s", cfg_show(name, b, sizeof b));
  snprintf(p, sizeof p, "%s.shape", path);
  if (!json_is_array(shape) || json_array_size(shape) > TRACE_MAX_DIMS)
    return cfg_fail(rd, p, "expected an array of at most %d positive integers, got %s",
                  TRACE_MAX_DIMS, cfg_show(shape, b, sizeof b));
  out->ndim = (unsigned)json_array_size(shape);
  unsigned long long count = 1;
  for (unsigned d = 0; d < out->ndim; d++) {
    unsigned long long n;
    snprintf(p, sizeof p, "%s.shape[%u]", path, d);
    if ((rc = get_int(rd, json_array_get(shape, d), p, 1, MAX_ELEMENTS, &n))) return rc;
    if (count > MAX_ELEMENTS / n) {
      snprintf(p, sizeof p, "%s.shape", path);
      return cfg_fail(rd, p, "more than %llu elements", MAX_ELEMENTS);
    }
    count *= n;
    out->shape[d] = (size_t)n;
  }
  unsigned long long claimed;
  snprintf(p, sizeof p, "%s.count", path);
  if ((rc = get_int(rd, json_object_get(l, "count"), p, 1, MAX_ELEMENTS, &claimed))) return rc;
  if (claimed != count)
    return cfg_fail(rd, p, "expected %llu (the product of shape %s), got %llu", count,
                  cfg_show(shape, b, sizeof b), claimed);
  out->count = (size_t)count;
  out->offset = offset;
  out->name = strdup(json_string_value(name));
  if (!out->name) return ccsim_fail_at(rd->err, CCSIM_ERR_RUNTIME, rd->file, NULL, 0, 0, "out of memory");
  return 0;
}

static int read_index(trace_reader *t, cfg_reader *rd, json_t *root) {
  char b[80];
  int rc;
  if (!json_is_object(root)) return cfg_fail(rd, "", "expected a JSON object");
  if ((rc = exact_keys(rd, root, "", INDEX_KEYS))) return rc;
  json_t *v = json_object_get(root, "format");
  if (!json_is_string(v) || strcmp(json_string_value(v), TRACE_FORMAT) != 0)
    return cfg_fail(rd, "format", "expected \"%s\", got %s", TRACE_FORMAT, cfg_show(v, b, sizeof b));
  v = json_object_get(root, "version");
  if (!json_is_integer(v) || json_integer_value(v) != TRACE_VERSION)
    return cfg_fail(rd, "version", "expected %d (the version this ccsim reads), got %s",
                  TRACE_VERSION, cfg_show(v, b, sizeof b));
  unsigned long long w, it, el;
  if ((rc = get_int(rd, json_object_get(root, "workers"), "workers", 1, MAX_WORKERS, &w))) return rc;
  if ((rc = get_int(rd, json_object_get(root, "iterations"), "iterations", 1, MAX_ITERATIONS, &it)))
    return rc;
  if (w * it > MAX_FILES)
    return cfg_fail(rd, "iterations", "workers x iterations = %llu files; at most %llu", w * it,
                  MAX_FILES);
  t->workers = (unsigned)w;
  t->iterations = (unsigned)it;
  v = json_object_get(root, "files");
  if (!json_is_string(v) || strcmp(json_string_value(v), TRACE_FILES) != 0)
    return cfg_fail(rd, "files", "expected \"%s\" (the layout of version 1), got %s", TRACE_FILES,
                  cfg_show(v, b, sizeof b));
  v = json_object_get(root, "source");
  if (!json_is_string(v)) return cfg_fail(rd, "source", "expected a string, got %s", cfg_show(v, b, sizeof b));
  if (!(t->source = strdup(json_string_value(v))))
    return ccsim_fail_at(rd->err, CCSIM_ERR_RUNTIME, rd->file, NULL, 0, 0, "out of memory");

  json_t *layers = json_object_get(root, "layers");
  if (!json_is_array(layers) || json_array_size(layers) == 0)
    return cfg_fail(rd, "layers", "expected a non-empty array of layers, got %s",
                  cfg_show(layers, b, sizeof b));
  t->layers = calloc(json_array_size(layers), sizeof *t->layers);
  if (!t->layers) return ccsim_fail_at(rd->err, CCSIM_ERR_RUNTIME, rd->file, NULL, 0, 0, "out of memory");
  unsigned long long total = 0;
  for (size_t i = 0; i < json_array_size(layers); i++) {
    trace_layer *L = &t->layers[i];
    if ((rc = read_layer(rd, json_array_get(layers, i), i, (size_t)total, L))) return rc;
    t->nlayers = i + 1;
    for (size_t j = 0; j < i; j++)
      if (strcmp(t->layers[j].name, L->name) == 0) {
        char p[64];
        snprintf(p, sizeof p, "layers[%zu].name", i);
        return cfg_fail(rd, p, "\"%s\" is also layers[%zu]'s name; names must be unique", L->name, j);
      }
    total += L->count;
    if (total > MAX_ELEMENTS) return cfg_fail(rd, "layers", "more than %llu elements", MAX_ELEMENTS);
  }
  if ((rc = get_int(rd, json_object_get(root, "elements"), "elements", 1, MAX_ELEMENTS, &el))) return rc;
  if (el != total)
    return cfg_fail(rd, "elements", "expected %llu (the sum of the layers' counts), got %llu", total, el);
  t->elements = (size_t)el;
  return 0;
}

trace_reader *trace_open(const char *dir, ccsim_error *err) {
  trace_reader *t = calloc(1, sizeof *t);
  char file[4096];
  if (!t || !(t->dir = strdup(dir))) {
    free(t);
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, dir, NULL, 0, 0, "out of memory");
    return NULL;
  }
  if ((size_t)snprintf(file, sizeof file, "%s/index.json", dir) >= sizeof file) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0, "path too long for a trace directory");
    trace_close(t);
    return NULL;
  }
  cfg_reader rd = {file, err};
  struct stat dst;
  if (stat(dir, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
    int e = errno;
    ccsim_fail_at(err, CCSIM_ERR_INPUT, dir, NULL, 0, 0,
                  "%s; a trace is a directory holding index.json",
                  stat(dir, &dst) != 0 ? strerror(e) : "not a directory");
    trace_close(t);
    return NULL;
  }
  json_t *root = cfg_load_json(file, "trace index (written when recording ends)", CFG_MAX_JSON, err);
  if (!root) {
    trace_close(t);
    return NULL;
  }
  int rc = read_index(t, &rd, root);
  json_decref(root);
  if (rc) {
    trace_close(t);
    return NULL;
  }
  size_t nfiles = (size_t)t->workers * t->iterations;
  struct rlimit rl;
  size_t cap = 256;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur / 4 < cap)
    cap = rl.rlim_cur / 4 > 4 ? (size_t)(rl.rlim_cur / 4) : 4;
  t->ring_cap = cap < nfiles ? cap : nfiles;
  t->files = malloc(nfiles * sizeof *t->files);
  t->open_ring = malloc(t->ring_cap * sizeof *t->open_ring);
  if (!t->files || !t->open_ring) {
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "out of memory for %zu files", nfiles);
    trace_close(t);
    return NULL;
  }
  for (size_t i = 0; i < nfiles; i++) t->files[i] = (tfile){-1, 0};
  return t;
}

void trace_close(trace_reader *t) {
  if (!t) return;
  if (t->files)
    for (size_t i = 0; i < t->ring_len; i++) {
      size_t k = t->open_ring[(t->ring_head + i) % t->ring_cap];
      close(t->files[k].fd);
    }
  for (size_t i = 0; i < t->nlayers; i++) free((char *)t->layers[i].name);
  free(t->layers);
  free(t->files);
  free(t->open_ring);
  free(t->source);
  free(t->dir);
  free(t);
}

unsigned trace_workers(const trace_reader *t) { return t->workers; }
unsigned trace_iterations(const trace_reader *t) { return t->iterations; }
size_t trace_elements(const trace_reader *t) { return t->elements; }
size_t trace_nlayers(const trace_reader *t) { return t->nlayers; }
const trace_layer *trace_layer_at(const trace_reader *t, size_t i) { return &t->layers[i]; }
const char *trace_source(const trace_reader *t) { return t->source; }

size_t trace_layer_of(const trace_reader *t, size_t e) {
  size_t lo = 0, hi = t->nlayers;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->layers[mid].offset <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

/* ---- .npy files ---- */

/* Errors about one file: "DIR/wW/itI.npy: worker W, iteration I: ...". */
static int ffail(const trace_reader *t, unsigned w, unsigned it, ccsim_error *err,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int ffail(const trace_reader *t, unsigned w, unsigned it, ccsim_error *err,
                 const char *fmt, ...) {
  char what[1024], file[4200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(file, sizeof file, "%s/w%u/it%u.npy", t->dir, w, it);
  return ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "worker %u, iteration %u: %s", w, it,
                       what);
}

typedef struct hparse {
  const char *p, *end;
} hparse;

static void skip_ws(hparse *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t')) h->p++;
}

static int eat(hparse *h, char ch) {
  skip_ws(h);
  if (h->p < h->end && *h->p == ch) {
    h->p++;
    return 1;
  }
  return 0;
}

/* A Python string literal '...' or "..." (no escapes: the keys and dtypes of
 * a float32 array have none) into out. */
static int py_string(hparse *h, char *out, size_t len) {
  skip_ws(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return 0;
  char q = *h->p++;
  const char *s = h->p;
  while (h->p < h->end && *h->p != q && *h->p != '\\') h->p++;
  if (h->p >= h->end || *h->p != q || (size_t)(h->p - s) >= len) return 0;
  memcpy(out, s, (size_t)(h->p - s));
  out[h->p - s] = 0;
  h->p++;
  return 1;
}

static int py_word(hparse *h, const char *w) {
  skip_ws(h);
  size_t n = strlen(w);
  if ((size_t)(h->end - h->p) >= n && memcmp(h->p, w, n) == 0) {
    h->p += n;
    return 1;
  }
  return 0;
}

/* A tuple of non-negative integers, e.g. (1234,) or (3, 4) or (). */
static int py_tuple(hparse *h, unsigned long long *dims, unsigned *ndim) {
  if (!eat(h, '(')) return 0;
  *ndim = 0;
  for (;;) {
    if (eat(h, ')')) return 1;
    skip_ws(h);
    if (h->p >= h->end || *h->p < '0' || *h->p > '9' || *ndim == TRACE_MAX_DIMS) return 0;
    unsigned long long v = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
      if (v > 100000000000000000ull) return 0; /* no overflow; far beyond any trace */
      v = v * 10 + (unsigned long long)(*h->p++ - '0');
    }
    dims[(*ndim)++] = v;
    if (!eat(h, ',')) return eat(h, ')');
  }
}

static void show_shape(char *buf, size_t len, const unsigned long long *dims, unsigned ndim) {
  size_t k = (size_t)snprintf(buf, len, "(");
  for (unsigned d = 0; d < ndim && k < len; d++)
    k += (size_t)snprintf(buf + k, len - k, "%llu%s", dims[d], ndim == 1 || d + 1 < ndim ? "," : "");
  if (k < len) snprintf(buf + k, len - k, ")");
}

/* Parse and check the header of an open file; set *data_off. */
static int check_header(const trace_reader *t, unsigned w, unsigned it, int fd, uint32_t *data_off,
                        ccsim_error *err) {
  unsigned char pre[10];
  ssize_t n = pread(fd, pre, sizeof pre, 0);
  if (n < 0) return ffail(t, w, it, err, "cannot read: %s", strerror(errno));
  if (n < (ssize_t)sizeof pre || memcmp(pre, "\x93NUMPY", 6) != 0)
    return ffail(t, w, it, err, "not a NumPy .npy file (no \\x93NUMPY magic)");
  if (pre[6] != 1 || pre[7] != 0)
    return ffail(t, w, it, err,
                 ".npy format version %u.%u; a trace's files are version 1.0 (numpy.save's)",
                 pre[6], pre[7]);
  size_t hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
  char *hdr = malloc(hlen + 1);
  if (!hdr) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for a .npy header");
  n = pread(fd, hdr, hlen, 10);
  if (n != (ssize_t)hlen) {
    free(hdr);
    return ffail(t, w, it, err, "truncated .npy header (%zd of %zu bytes)", n < 0 ? 0 : n,
                 hlen);
  }
  hparse h = {hdr, hdr + hlen};
  char descr[32] = "", key[32];
  int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0, ok = eat(&h, '{');
  unsigned long long dims[TRACE_MAX_DIMS];
  unsigned ndim = 0;
  while (ok && !eat(&h, '}')) {
    ok = py_string(&h, key, sizeof key) && eat(&h, ':');
    if (!ok) break;
    if (strcmp(key, "descr") == 0) ok = have_descr = py_string(&h, descr, sizeof descr);
    else if (strcmp(key, "fortran_order") == 0) {
      have_fortran = ok = py_word(&h, "True") ? (fortran = 1) : py_word(&h, "False");
    } else if (strcmp(key, "shape") == 0) ok = have_shape = py_tuple(&h, dims, &ndim);
    else {
      free(hdr);
      return ffail(t, w, it, err, ".npy header has an unknown key '%s'", key);
    }
    if (ok && !eat(&h, ',')) ok = eat(&h, '}') ? (h.p--, 1) : 0;
  }
  while (ok && h.p < h.end && (*h.p == ' ' || *h.p == '\n')) h.p++;
  ok = ok && h.p == h.end;
  free(hdr);
  if (!ok) return ffail(t, w, it, err, "malformed .npy header dictionary");
  if (!have_descr || !have_fortran || !have_shape)
    return ffail(t, w, it, err, ".npy header lacks '%s'",
                 !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
  if (strcmp(descr, "<f4") != 0)
    return ffail(t, w, it, err,
                 "dtype '%s'; a trace holds little-endian float32 ('<f4')", descr);
  if (fortran)
    return ffail(t, w, it, err, "fortran_order is True; a trace's arrays are in C order");
  if (ndim != 1 || dims[0] != t->elements) {
    char s[160];
    show_shape(s, sizeof s, dims, ndim);
    return ffail(t, w, it, err,
                 "shape %s; index.json says every file holds (%zu,): all layers' elements", s,
                 t->elements);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) return ffail(t, w, it, err, "cannot stat: %s", strerror(errno));
  const unsigned long long off = 10 + hlen, want = off + 4ull * t->elements;
  const unsigned long long size = (unsigned long long)st.st_size;
  if (size < want)
    return ffail(t, w, it, err,
                 "truncated: %llu bytes, the header promises %llu (%zu float32 values); data "
                 "ends at element %llu",
                 size, want, t->elements, size < off ? 0 : (size - off) / 4);
  if (size > want)
    return ffail(t, w, it, err, "%llu bytes after the last of the %zu elements",
                 size - want, t->elements);
  *data_off = (uint32_t)off;
  return 0;
}

/* The open, validated descriptor of (w, it), or -1 with err set. */
static int file_fd(trace_reader *t, unsigned w, unsigned it, ccsim_error *err) {
  const size_t k = (size_t)w * t->iterations + it;
  if (t->files[k].fd >= 0) return t->files[k].fd;
  char path[4200];
  snprintf(path, sizeof path, "%s/w%u/it%u.npy", t->dir, w, it);
  /* O_NONBLOCK: a FIFO planted for a .npy must not block the run; anything
   * but a regular file is refused before a byte is read */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    ffail(t, w, it, err, "cannot open: %s (index.json lists %u workers x %u iterations)",
          strerror(errno), t->workers, t->iterations);
    return -1;
  }
  struct stat st = {0};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ffail(t, w, it, err, "not a regular file (%s); expected a .npy file",
          S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device" : "a special file");
    close(fd);
    return -1;
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  uint32_t off = 0;
  if (check_header(t, w, it, fd, &off, err)) {
    close(fd);
    return -1;
  }
  if (t->ring_len == t->ring_cap) { /* evict the oldest */
    tfile *old = &t->files[t->open_ring[t->ring_head]];
    close(old->fd);
    old->fd = -1;
    t->ring_head = (t->ring_head + 1) % t->ring_cap;
    t->ring_len--;
  }
  t->open_ring[(t->ring_head + t->ring_len++) % t->ring_cap] = k;
  t->files[k] = (tfile){fd, off};
  return fd;
}

/* Blocks of 256 are tested branch-free (vectorized); only a bad block is
 * searched. */
size_t trace_first_nonfinite(const float *x, size_t n) {
  const uint32_t *u = (const uint32_t *)(const void *)x;
  for (size_t b = 0; b < n; b += 256) {
    const size_t e = n - b < 256 ? n : b + 256;
    uint32_t bad = 0;
    for (size_t i = b; i < e; i++) bad |= (u[i] & 0x7f800000u) == 0x7f800000u;
    if (bad)
      for (size_t i = b; i < e; i++)
        if ((u[i] & 0x7f800000u) == 0x7f800000u) return i;
  }
  return n;
}

static int nonfinite_fail(const trace_reader *t, unsigned w, unsigned it, size_t e, float v,
                          ccsim_error *err) {
  const trace_layer *L = &t->layers[trace_layer_of(t, e)];
  return ffail(t, w, it, err,
               "element %zu (layer \"%s\", its element %zu) is %s; a trace holds finite values", e,
               L->name, e - L->offset, v != v ? "NaN" : v > 0 ? "+Inf" : "-Inf");
}

/* Read elements [lo, hi) of an open file into out, all of them. */
static int read_range(trace_reader *t, unsigned w, unsigned it, int fd, size_t lo, size_t hi,
                      float *out, ccsim_error *err) {
  const size_t k = (size_t)w * t->iterations + it;
  const off_t base = (off_t)t->files[k].data_off + (off_t)lo * 4;
  char *dst = (char *)out;
  size_t want = (hi - lo) * 4, got = 0;
  while (got < want) {
    ssize_t n = pread(fd, dst + got, want - got, base + (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ffail(t, w, it, err, "read failed: %s", strerror(errno));
    if (n == 0)
      return ffail(t, w, it, err, "truncated since it was opened: data ends at element %zu",
                   lo + got / 4);
    got += (size_t)n;
  }
  size_t bad = trace_first_nonfinite(out, hi - lo);
  if (bad < hi - lo) return nonfinite_fail(t, w, it, lo + bad, out[bad], err);
  return 0;
}

int trace_read(trace_reader *t, unsigned worker, unsigned iteration, size_t lo, size_t hi,
               float *out, ccsim_error *err) {
  if (worker >= t->workers || iteration >= t->iterations || lo > hi || hi > t->elements)
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, t->dir, NULL, 0, 0,
                "trace_read(worker %u, iteration %u, [%zu, %zu)) outside the trace's %u "
                "workers x %u iterations x %zu elements",
                worker, iteration, lo, hi, t->workers, t->iterations, t->elements);
  if (lo == hi) return 0;
  int fd = file_fd(t, worker, iteration, err);
  if (fd < 0) return err ? err->code : CCSIM_ERR_INPUT;
  return read_range(t, worker, iteration, fd, lo, hi, out, err);
}

int trace_check(trace_reader *t, ccsim_error *err) {
  const size_t chunk = (size_t)1 << 18; /* 1 MiB of floats */
  const size_t n = t->elements < chunk ? t->elements : chunk;
  float *buf = malloc(n * sizeof *buf);
  if (!buf) return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, t->dir, NULL, 0, 0, "out of memory");
  int rc = 0;
  for (unsigned w = 0; w < t->workers && !rc; w++)
    for (unsigned it = 0; it < t->iterations && !rc; it++) {
      int fd = file_fd(t, w, it, err);
      if (fd < 0) {
        rc = err ? err->code : CCSIM_ERR_INPUT;
        break;
      }
      posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
      for (size_t lo = 0; lo < t->elements && !rc; lo += n) {
        size_t hi = t->elements - lo < n ? t->elements : lo + n;
        rc = read_range(t, w, it, fd, lo, hi, buf, err);
      }
    }
  free(buf);
  return rc;
}
