/* tests/test_trace_read.c — reading gradient traces (src/data/trace.h): the
 * reader's tests, and the tools below.
 *
 *   test_trace                 unit tests: write a trace, read back exact bits at
 *                              random ranges; every refusal of the reader names
 *                              its file (the writer's: test_trace_write.c)
 *   test_trace --check DIR     trace_open + trace_check; exit 2 and one line on
 *                              stderr when DIR is refused
 *   test_trace --dump DIR OUT  check DIR, then write every value (worker, then
 *                              iteration, then element) as raw <f4 to OUT, read
 *                              with trace_read in irregular ranges
 *   test_trace --write DIR     write the unit tests' trace (3 workers x 4
 *                              iterations) to DIR, for numpy to read
 *   test_trace --bench         throughput of writing, trace_check and trace_read
 *                              on a 256 MiB trace in $TMPDIR (meson test --benchmark)
 * --check, --dump and --write serve tests/trace_torch.sh. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "data/trace.h"
#include "error.h"
#include "hostclock.h"
#include "trace_helpers.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#define W 3
#define T 4

/* Write a .npy file by hand: magic, version, dict padded to 64, data. */
static void write_npy(const char *path, int major, const char *dict, const void *data,
                      size_t nbytes) {
  char hdr[512];
  size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
  memcpy(hdr, "\x93NUMPY", 6);
  hdr[6] = (char)major;
  hdr[7] = 0;
  hdr[8] = (char)((total - 10) & 0xff);
  hdr[9] = (char)((total - 10) >> 8);
  memcpy(hdr + 10, dict, len);
  memset(hdr + 10 + len, ' ', total - 11 - len);
  hdr[total - 1] = '\n';
  FILE *f = fopen(path, "wb");
  fwrite(hdr, 1, total, f);
  fwrite(data, 1, nbytes, f);
  fclose(f);
}

static void test_round_trip(void) {
  char dir[512];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  snprintf(dir, sizeof dir, "%s/good", root);
  CHECK(write_test_trace(dir, W, T, &e_) == 0, "write: %s", err);
  trace_reader *t = trace_open(dir, &e_);
  CHECK(t != NULL, "open: %s", err);
  if (!t) return;
  CHECK(trace_workers(t) == W && trace_iterations(t) == T && trace_elements(t) == ELEMENTS,
        "dimensions %u x %u x %zu", trace_workers(t), trace_iterations(t), trace_elements(t));
  CHECK(trace_nlayers(t) == NLAYERS, "%zu layers", trace_nlayers(t));
  CHECK(strcmp(trace_source(t), "tests/test_trace.c") == 0, "source %s", trace_source(t));
  size_t off = 0;
  for (size_t i = 0; i < NLAYERS && i < trace_nlayers(t); i++) {
    const trace_layer *L = trace_layer_at(t, i);
    size_t count = 1;
    for (unsigned d = 0; d < LAYERS[i].ndim; d++) count *= LAYERS[i].shape[d];
    CHECK(strcmp(L->name, LAYERS[i].name) == 0 && L->ndim == LAYERS[i].ndim &&
              memcmp(L->shape, LAYERS[i].shape, sizeof L->shape) == 0 && L->count == count &&
              L->offset == off,
          "layer %zu: %s ndim %u count %zu offset %zu", i, L->name, L->ndim, L->count, L->offset);
    CHECK(trace_layer_of(t, off) == i && trace_layer_of(t, off + count - 1) == i,
          "trace_layer_of at layer %zu's ends", i);
    off += count;
  }
  CHECK(trace_check(t, &e_) == 0, "check: %s", err);
  /* exact bits at random ranges, files touched in random order */
  float got[ELEMENTS], want[ELEMENTS];
  int mismatches = 0;
  for (int k = 0; k < 2000; k++) {
    unsigned w = (unsigned)(next_u64() % W), it = (unsigned)(next_u64() % T);
    size_t lo = next_u64() % (ELEMENTS + 1), hi = next_u64() % (ELEMENTS + 1);
    if (lo > hi) {
      size_t s = lo;
      lo = hi;
      hi = s;
    }
    for (size_t e = lo; e < hi; e++) want[e - lo] = value(w, it, e);
    if (trace_read(t, w, it, lo, hi, got, &e_) != 0) {
      CHECK(0, "read w%u it%u [%zu, %zu): %s", w, it, lo, hi, err);
      break;
    }
    mismatches += memcmp(got, want, (hi - lo) * sizeof *got) != 0;
  }
  CHECK(mismatches == 0, "%d of 2000 random ranges differ from what was written", mismatches);
  /* out of range is refused, not read */
  CHECK(trace_read(t, W, 0, 0, 1, got, &e_) != 0 && strstr(err, "outside"), "%s", err);
  CHECK(trace_read(t, 0, 0, 5, ELEMENTS + 1, got, &e_) != 0, "range past the end");
  trace_close(t);

  /* a descriptor limit far below the file count: files are closed and
   * re-opened as the reader goes, and the values stay exact */
  struct rlimit old, low;
  getrlimit(RLIMIT_NOFILE, &old);
  low = old;
  low.rlim_cur = 20; /* room for 5 open trace files */
  setrlimit(RLIMIT_NOFILE, &low);
  t = trace_open(dir, &e_);
  CHECK(t != NULL, "open with 20 descriptors: %s", err);
  mismatches = 0;
  for (int k = 0; t && k < 500; k++) {
    unsigned w = (unsigned)(next_u64() % W), it = (unsigned)(next_u64() % T);
    size_t e = next_u64() % ELEMENTS;
    float v;
    if (trace_read(t, w, it, e, e + 1, &v, &e_) != 0) {
      CHECK(0, "read with few descriptors: %s", err);
      break;
    }
    float x = value(w, it, e);
    mismatches += memcmp(&v, &x, 4) != 0;
  }
  CHECK(mismatches == 0, "%d of 500 single reads differ under a low descriptor limit", mismatches);
  trace_close(t);
  setrlimit(RLIMIT_NOFILE, &old);
}

/* Rewrite dir/index.json after fn edits it. */
static void edit_index(const char *dir, void (*fn)(json_t *)) {
  char p[600];
  snprintf(p, sizeof p, "%s/index.json", dir);
  json_t *ix = json_load_file(p, 0, NULL);
  fn(ix);
  json_dump_file(ix, p, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
  json_decref(ix);
}

static json_t *layer(json_t *ix, size_t i) { return json_array_get(json_object_get(ix, "layers"), i); }
static void ix_format(json_t *ix) { json_object_set_new(ix, "format", json_string("npz")); }
static void ix_version(json_t *ix) { json_object_set_new(ix, "version", json_integer(2)); }
static void ix_workers0(json_t *ix) { json_object_set_new(ix, "workers", json_integer(0)); }
static void ix_workers_str(json_t *ix) { json_object_set_new(ix, "workers", json_string("2")); }
static void ix_iter_real(json_t *ix) { json_object_set_new(ix, "iterations", json_real(2.5)); }
static void ix_no_layers(json_t *ix) { json_object_del(ix, "layers"); }
static void ix_empty_layers(json_t *ix) { json_object_set_new(ix, "layers", json_array()); }
static void ix_count(json_t *ix) { json_object_set_new(layer(ix, 2), "count", json_integer(371)); }
static void ix_shape0(json_t *ix) {
  json_array_set_new(json_object_get(layer(ix, 0), "shape"), 1, json_integer(0));
}
static void ix_shape_str(json_t *ix) { json_object_set_new(layer(ix, 1), "shape", json_string("4")); }
static void ix_noname(json_t *ix) { json_object_set_new(layer(ix, 3), "name", json_string("")); }
static void ix_dupname(json_t *ix) { json_object_set_new(layer(ix, 3), "name", json_string("conv.bias")); }
static void ix_layer_key(json_t *ix) { json_object_set_new(layer(ix, 0), "dtype", json_string("f4")); }
static void ix_elements(json_t *ix) { json_object_set_new(ix, "elements", json_integer(420)); }
static void ix_files(json_t *ix) { json_object_set_new(ix, "files", json_string("{layer}.npy")); }
static void ix_unknown(json_t *ix) { json_object_set_new(ix, "lr", json_real(0.1)); }
static void ix_no_source(json_t *ix) { json_object_del(ix, "source"); }
/* more workers than there are files: the reader finds the missing one */
static void ix_more_workers(json_t *ix) { json_object_set_new(ix, "workers", json_integer(3)); }
/* consistent index, but the files hold fewer elements than it says */
static void ix_bigger(json_t *ix) {
  json_object_set_new(layer(ix, 4), "shape", json_pack("[i]", 2));
  json_object_set_new(layer(ix, 4), "count", json_integer(2));
  json_object_set_new(ix, "elements", json_integer(422));
}

static void test_index_refusals(void) {
  char p[600];
  const char *d = fresh("ix");
  snprintf(p, sizeof p, "%s/index.json", d);
  remove(p);
  CHECK_REFUSED(d, "ix/index.json", "cannot open");
  d = fresh("ix");
  FILE *f = fopen(p, "w");
  fputs("{\"format\": \"ccsim-trace\",\n \"version\": 1,,}", f);
  fclose(f);
  CHECK_REFUSED(d, "ix/index.json:2:", "malformed JSON");
  d = fresh("ix");
  f = fopen(p, "w");
  fputs("[1, 2]", f);
  fclose(f);
  CHECK_REFUSED(d, "ix/index.json", "(top level)", "expected a JSON object");

  static const struct {
    void (*fn)(json_t *);
    const char *a, *b;
  } cases[] = {
      {ix_format, "format: expected \"ccsim-trace\"", "\"npz\""},
      {ix_version, "version: expected 1", "got 2"},
      {ix_workers0, "workers: expected an integer in [1,", "got 0"},
      {ix_workers_str, "workers: expected an integer", "\"2\""},
      {ix_iter_real, "iterations: expected an integer", "2.5"},
      {ix_no_layers, "layers: missing", "required here: format, version"},
      {ix_empty_layers, "layers: expected a non-empty array", "[]"},
      {ix_count, "layers[2].count: expected 370", "got 371"},
      {ix_shape0, "layers[0].shape[1]: expected an integer in [1,", "got 0"},
      {ix_shape_str, "layers[1].shape: expected an array", "\"4\""},
      {ix_noname, "layers[3].name: expected a non-empty string", "\"\""},
      {ix_dupname, "layers[3].name", "layers[1]'s name"},
      {ix_layer_key, "layers[0].dtype: unknown key \"dtype\"", "name, shape, count"},
      {ix_elements, "elements: expected 421", "got 420"},
      {ix_files, "files: expected \"w{worker}/it{iteration}.npy\"", "{layer}.npy"},
      {ix_unknown, "lr: unknown key \"lr\"", "known here: format"},
      {ix_no_source, "source: missing", "required here:"},
      {ix_more_workers, "ix/w2/it0.npy: worker 2, iteration 0", "cannot open"},
      {ix_bigger, "ix/w0/it0.npy: worker 0, iteration 0", "shape (421,)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    d = fresh("ix");
    edit_index(d, cases[i].fn);
    const char *want_index = strncmp(cases[i].a, "ix/", 3) == 0 ? "ix/w" : "ix/index.json: ";
    CHECK_REFUSED(d, want_index, cases[i].a, cases[i].b);
  }
}

static void test_npy_refusals(void) {
  char p[600];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  float data[ELEMENTS + 2];
  double data8[ELEMENTS];
  for (size_t e = 0; e < ELEMENTS + 2; e++) data[e] = 0.5f;
  for (size_t e = 0; e < ELEMENTS; e++) data8[e] = 0.5;
  const char *d;
#define NPY(file) (snprintf(p, sizeof p, "%s/%s", d, file), p)

  /* a header or dtype the reader must refuse: the file written, the words
   * its refusal must hold */
  static const struct {
    const char *file;
    int version;
    const char *header;
    int f8;       /* float64 payload */
    size_t bytes; /* of the payload */
    const char *want[3];
  } headers[] = {
      {"w1/it0.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (421,), }", 1, ELEMENTS * 8,
       {"npy/w1/it0.npy: worker 1, iteration 0", "dtype '<f8'", "'<f4'"}},
      {"w0/it1.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (421,), }", 0, ELEMENTS * 4,
       {"npy/w0/it1.npy", "dtype '>f4'"}},
      {"w1/it1.npy", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (421,), }", 0, ELEMENTS * 4,
       {"npy/w1/it1.npy", "fortran_order is True"}},
      {"w1/it1.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (420,), }", 0, 420 * 4,
       {"npy/w1/it1.npy", "shape (420,)", "(421,)"}},
      {"w0/it0.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 421), }", 0, ELEMENTS * 4,
       {"npy/w0/it0.npy", "shape (1,421)"}},
      {"w0/it0.npy", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (421,), }", 0, ELEMENTS * 4,
       {"npy/w0/it0.npy", "format version 2.0"}},
      {"w0/it0.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (421,), 'extra': 1}", 0,
       ELEMENTS * 4, {"npy/w0/it0.npy", "unknown key 'extra'"}},
      {"w0/it0.npy", 1, "{'descr': '<f4', 'shape': (421,)}", 0, ELEMENTS * 4,
       {"npy/w0/it0.npy", "lacks 'fortran_order'"}},
      {"w0/it0.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (421,), ", 0, ELEMENTS * 4,
       {"npy/w0/it0.npy", "malformed .npy header"}},
  };
  for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
    d = fresh("npy");
    write_npy(NPY(headers[i].file), headers[i].version, headers[i].header,
              headers[i].f8 ? (const void *)data8 : data, headers[i].bytes);
    const char *msg = refusal(d);
    int ok = msg[0] != 0;
    for (size_t w = 0; w < 3 && headers[i].want[w] && ok; w++) ok = strstr(msg, headers[i].want[w]) != NULL;
    CHECK(ok, "%s: header %zu: refusal \"%s\" lacks one of the expected phrases (%s ...)", d, i, msg,
          headers[i].want[0]);
  }
  d = fresh("npy");
  FILE *f = fopen(NPY("w1/it0.npy"), "wb");
  fputs("PK\x03\x04 this is a zip, not a .npy file", f);
  fclose(f);
  CHECK_REFUSED(d, "npy/w1/it0.npy", "not a NumPy .npy file");
  /* truncated: 6 bytes short, so the data ends inside element 419 */
  d = fresh("npy");
  struct stat st;
  stat(NPY("w1/it0.npy"), &st);
  CHECK(truncate(p, st.st_size - 6) == 0, "truncate");
  CHECK_REFUSED(d, "npy/w1/it0.npy: worker 1, iteration 0", "truncated", "data ends at element 419");
  d = fresh("npy");
  CHECK(truncate(NPY("w0/it1.npy"), 30) == 0, "truncate");
  CHECK_REFUSED(d, "npy/w0/it1.npy", "truncated .npy header");
  d = fresh("npy");
  write_npy(NPY("w1/it1.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (421,), }",
            data, (ELEMENTS + 2) * 4);
  CHECK_REFUSED(d, "npy/w1/it1.npy", "8 bytes after the last");
  d = fresh("npy");
  remove(NPY("w1/it0.npy"));
  CHECK_REFUSED(d, "npy/w1/it0.npy: worker 1, iteration 0", "cannot open", "No such file");

  /* non-finite values: refused by trace_check and by a read that covers
   * them, and named by layer; a read elsewhere in the file still works */
  static const struct {
    float v;
    size_t at;
    const char *what, *where;
  } bad[] = {
      {NAN, 100, "is NaN", "element 100 (layer \"fc.weight\", its element 60)"},
      {INFINITY, 0, "is +Inf", "element 0 (layer \"conv.weight\", its element 0)"},
      {-INFINITY, 420, "is -Inf", "element 420 (layer \"temperature\", its element 0)"},
  };
  for (size_t i = 0; i < 3; i++) {
    d = fresh("npy");
    for (size_t e = 0; e < ELEMENTS; e++) data[e] = value(0, 1, e);
    data[bad[i].at] = bad[i].v;
    write_npy(NPY("w0/it1.npy"), 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (421,), }",
              data, ELEMENTS * 4);
    CHECK_REFUSED(d, "npy/w0/it1.npy: worker 0, iteration 1", bad[i].what, bad[i].where);
    trace_reader *t = trace_open(d, &e_);
    float out[ELEMENTS];
    size_t lo = bad[i].at == 0 ? 1 : 0, hi = bad[i].at == 0 ? ELEMENTS : bad[i].at;
    CHECK(t && trace_read(t, 0, 1, lo, hi, out, &e_) == 0 &&
              memcmp(out, data + lo, (hi - lo) * 4) == 0,
          "the finite part [%zu, %zu) of a file with a bad value: %s", lo, hi, err);
    CHECK(t && trace_read(t, 0, 1, bad[i].at, bad[i].at + 1, out, &e_) != 0 &&
              strstr(err, bad[i].where),
          "reading the bad value: %s", err);
    trace_close(t);
  }
  /* lazy: a reader opens without touching the files, and a broken file only
   * fails the reads (and the check) that touch it */
  d = fresh("npy");
  remove(NPY("w1/it1.npy"));
  trace_reader *t = trace_open(d, &e_);
  float out[ELEMENTS];
  CHECK(t && trace_read(t, 0, 0, 0, ELEMENTS, out, &e_) == 0, "%s", err);
  CHECK(t && trace_read(t, 1, 1, 3, 4, out, &e_) == CCSIM_ERR_INPUT &&
            strstr(err, "w1/it1.npy"),
        "%s", err);
  trace_close(t);
#undef NPY
}

/* The trace in dir, opened and checked whole; NULL, with the reason on
 * stderr, when it is refused. */
static trace_reader *open_checked(const char *dir) {
  ccsim_error e = {0};
  trace_reader *t = trace_open(dir, &e);
  if (!t || trace_check(t, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    trace_close(t);
    return NULL;
  }
  return t;
}

static int cmd_check(const char *dir) {
  trace_reader *t = open_checked(dir);
  if (!t) return 2;
  printf("%s: %u workers x %u iterations x %zu elements in %zu layers: every value finite\n", dir,
         trace_workers(t), trace_iterations(t), trace_elements(t), trace_nlayers(t));
  trace_close(t);
  return 0;
}

static int cmd_dump(const char *dir, const char *out) {
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  trace_reader *t = open_checked(dir);
  if (!t) return 2;
  const size_t n = trace_elements(t);
  float *g = malloc(n * sizeof *g);
  FILE *f = fopen(out, "wb");
  int rc = !g || !f;
  /* iterations outer, workers inner, as a replay reads; irregular chunks */
  for (unsigned w = 0; w < trace_workers(t) && !rc; w++)
    for (unsigned it = 0; it < trace_iterations(t) && !rc; it++) {
      for (size_t lo = 0; lo < n && !rc;) {
        size_t hi = lo + 1 + next_u64() % 5000;
        if (hi > n) hi = n;
        rc = trace_read(t, w, it, lo, hi, g + lo, &e_);
        lo = hi;
      }
      if (!rc && fwrite(g, sizeof *g, n, f) != n) rc = ccsim_fail(&e_, 1, "%s: write", out);
    }
  if (f && fclose(f)) rc = 1;
  if (rc) fprintf(stderr, "%s\n", err);
  free(g);
  trace_close(t);
  return rc ? 2 : 0;
}

/* 8 workers x 4 iterations x 2^21 elements (8 MiB a file, 256 MiB in all),
 * in one layer.  Times are wall clock; the files sit in the page cache after
 * writing, so the read figures are the reader's cost, not the disk's. */
static int cmd_bench(void) {
  enum { BW = 8, BT = 4, BN = 1 << 21 };
  char dir[512];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  snprintf(dir, sizeof dir, "%s/ccsim-trace-bench-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) return perror(dir), 1;
  float *g = malloc((size_t)BN * sizeof *g);
  for (size_t e = 0; e < BN; e++) g[e] = value(0, 0, e);
  const trace_layer L = {.name = "all", .ndim = 1, .shape = {BN}};
  const double mib = (double)BW * BT * BN * 4 / 1048576.0;
  double t0 = host_clock();
  trace_writer *wr = trace_writer_new(dir, BW, BT, &L, 1, "bench", &e_);
  int rc = !wr;
  for (unsigned w = 0; w < BW && !rc; w++)
    for (unsigned it = 0; it < BT && !rc; it++) rc = trace_write(wr, w, it, g, BN, &e_);
  if (!rc) rc = trace_writer_close(wr, &e_);
  double t1 = host_clock();
  if (!rc) printf("write        %7.0f MiB/s  (%.0f MiB, %d files)\n", mib / (t1 - t0), mib, BW * BT);
  trace_reader *t = rc ? NULL : trace_open(dir, &e_);
  if (!rc && !t) rc = 1;
  for (int rep = 0; rep < 3 && !rc; rep++) {
    t0 = host_clock();
    rc = trace_check(t, &e_);
    t1 = host_clock();
    if (!rc) printf("trace_check  %7.0f MiB/s\n", mib / (t1 - t0));
  }
  /* a ring's access pattern: each iteration, every worker's 1/BW-th chunks */
  const size_t chunk = BN / BW;
  t0 = host_clock();
  for (unsigned it = 0; it < BT && !rc; it++)
    for (unsigned c = 0; c < BW && !rc; c++)
      for (unsigned w = 0; w < BW && !rc; w++) {
        size_t lo = (size_t)((c + w) % BW) * chunk;
        rc = trace_read(t, w, it, lo, lo + chunk, g, &e_);
      }
  t1 = host_clock();
  if (!rc) printf("trace_read   %7.0f MiB/s  (%zu KiB chunks)\n", mib / (t1 - t0), chunk * 4 / 1024);
  const int nsmall = 200000;
  t0 = host_clock();
  for (int k = 0; k < nsmall && !rc; k++) {
    size_t lo = next_u64() % (BN - 1024);
    rc = trace_read(t, (unsigned)(next_u64() % BW), (unsigned)(next_u64() % BT), lo, lo + 1024, g,
                    &e_);
  }
  t1 = host_clock();
  if (!rc) printf("trace_read   %7.2f us per random 4 KiB range\n", (t1 - t0) / nsmall * 1e6);
  if (rc) fprintf(stderr, "%s\n", err);
  trace_close(t);
  free(g);
  rm_rf(dir);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--bench") == 0) return cmd_bench();
  if (argc == 3 && strcmp(argv[1], "--check") == 0) return cmd_check(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--dump") == 0) return cmd_dump(argv[2], argv[3]);
  if (argc == 3 && strcmp(argv[1], "--write") == 0) {
    ccsim_error e_ = {0};
    const char *err = e_.msg;
    if (write_test_trace(argv[2], W, T, &e_)) {
      fprintf(stderr, "%s\n", err);
      return 2;
    }
    return 0;
  }
  if (argc != 1) {
    fprintf(stderr, "usage: test_trace [--check DIR | --dump DIR OUT | --write DIR | --bench]\n");
    return 2;
  }
  if (make_root()) return 1;
  test_round_trip();
  test_index_refusals();
  test_npy_refusals();
  rm_rf(root);
  return check_status("trace");
}
