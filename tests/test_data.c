/* tests/test_data.c — datasets, split, shards, batches, teacher task.
 *
 * Usage: test_data SOURCE_ROOT   (reads SOURCE_ROOT/workloads/data/digits.csv.gz)
 *
 * Exact checks throughout: the shipped digits file's shape and per-class
 * counts, permutations that are bijections, splits and shards that partition,
 * batches that are pure functions of (seed, worker, iteration), a teacher
 * task regenerated bit for bit whose teacher scores 100% on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "train/data.h"

/* Per-class counts of workloads/data/digits.csv.gz, counted from the file
 * (zcat | cut -d, -f65 | sort | uniq -c). */
static const size_t digits_counts[10] = {178, 182, 177, 183, 181, 182, 181, 179, 174, 180};

static char tmpdir[] = "/tmp/ccsim-test-data-XXXXXX";

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(data, 1, len, f) == len, "write %s", path);
  if (f) fclose(f);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(*len);
  if (fread(buf, 1, *len, f) != *len) *len = 0;
  fclose(f);
  return buf;
}

static void check_digits(const tdataset *d) {
  CHECK(d->n == 1797 && d->features == 64 && d->classes == 10, "digits shape %zu x %zu, %zu",
        d->n, d->features, d->classes);
  size_t counts[10];
  tdata_class_counts(d, counts);
  for (int k = 0; k < 10; k++)
    CHECK(counts[k] == digits_counts[k], "class %d: %zu samples, expected %zu", k, counts[k],
          digits_counts[k]);
  float lo = 1, hi = 0;
  size_t off_grid = 0;
  for (size_t t = 0; t < d->n * d->features; t++) {
    lo = d->X[t] < lo ? d->X[t] : lo;
    hi = d->X[t] > hi ? d->X[t] : hi;
    off_grid += d->X[t] * 16 != (float)(int)(d->X[t] * 16);
  }
  CHECK(lo == 0.0f && hi == 1.0f && off_grid == 0, "features in [0,1] on a 1/16 grid: %g..%g, %zu",
        lo, hi, off_grid);
  /* first line of the file: 0,0,5,13,9,1,0,0,...,0  (label 0) */
  CHECK(d->X[2] == 5.0f / 16 && d->X[3] == 13.0f / 16 && d->y[0] == 0, "first row");
}

/* The loader rejects each broken file with a message naming file and line. */
static void expect_load_error(const char *path, const char *needle) {
  ccsim_error err = {0};
  tdataset *d = tdata_load_digits(path, &err);
  CHECK(d == NULL, "%s loaded", path);
  CHECK(err.code == CCSIM_ERR_INPUT && strstr(err.msg, path) && strstr(err.msg, needle),
        "error for %s should name it and say '%s': got '%s'", path, needle, err.msg);
  if (err.msg[0]) fprintf(stderr, "  expected error: %s\n", err.msg);
  tdata_free(d);
}

/* A digits-format line: fields 1..64 hold (f-1) % 17, field 65 (and any
 * beyond) 3; field bad_field (1-based, 0 = none) holds bad_value instead. */
static void make_row(char *buf, size_t cap, int fields, int bad_field, const char *bad_value,
                     int newline) {
  size_t k = 0;
  for (int f = 1; f <= fields; f++) {
    if (f == bad_field)
      k += (size_t)snprintf(buf + k, cap - k, "%s", bad_value);
    else
      k += (size_t)snprintf(buf + k, cap - k, "%d", f <= 64 ? (f - 1) % 17 : 3);
    k += (size_t)snprintf(buf + k, cap - k, "%s", f < fields ? "," : newline ? "\n" : "");
  }
}

static void check_loader_errors(const char *real) {
  char p[256];
  CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
  snprintf(p, sizeof p, "%s/missing.csv.gz", tmpdir);
  expect_load_error(p, "cannot open");

  size_t len = 0;
  char *gz = read_file(real, &len);
  CHECK(gz && len > 1000, "read %s", real);
  snprintf(p, sizeof p, "%s/truncated.csv.gz", tmpdir);
  write_file(p, gz, len / 2);
  expect_load_error(p, "truncated gzip");
  gz[len - 6] ^= 0x55; /* a flipped byte in the gzip trailer's CRC-32 */
  snprintf(p, sizeof p, "%s/badcrc.csv.gz", tmpdir);
  write_file(p, gz, len);
  expect_load_error(p, "incorrect data check");
  gz[len - 6] ^= 0x55;
  gz[len / 2] ^= 0x55; /* one in the deflate data: garbage text or a bad code */
  snprintf(p, sizeof p, "%s/corrupt.csv.gz", tmpdir);
  write_file(p, gz, len);
  expect_load_error(p, ":895: ");
  free(gz);

  char good[400];
  make_row(good, sizeof good, 65, 0, NULL, 1);
  const struct {
    const char *name;
    int fields, bad_field; /* bad_field: 1-based, 0 = none */
    const char *bad_value;
    int newline;
    const char *needle;
  } bad[] = {
      {"short.csv", 3, 0, NULL, 1, ":3: expected 65 comma-separated fields, found 3"},
      {"range.csv", 65, 5, "17", 1, ":3: field 5: pixel value 17 out of range"},
      {"label.csv", 65, 65, "10", 1, ":3: field 65: label 10 out of range"},
      {"text.csv", 65, 1, "x", 1, ":3: field 1: expected an integer"},
      {"empty-field.csv", 65, 9, "", 1, ":3: field 9: expected an integer"},
      {"long.csv", 66, 0, NULL, 1, ":3: expected 65 comma-separated fields, found more"},
      {"nonewline.csv", 65, 0, NULL, 0, ":3: truncated: the last line has no newline"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char row[400];
    make_row(row, sizeof row, bad[i].fields, bad[i].bad_field, bad[i].bad_value, bad[i].newline);
    snprintf(p, sizeof p, "%s/%s", tmpdir, bad[i].name);
    gzFile out = gzopen(p, i % 2 ? "wb" : "wbT"); /* gzip and plain files alike */
    gzputs(out, good);
    gzputs(out, good);
    gzputs(out, row);
    gzclose(out);
    expect_load_error(p, bad[i].needle);
  }
  snprintf(p, sizeof p, "%s/empty.csv", tmpdir);
  write_file(p, "", 0);
  expect_load_error(p, "no samples");

  /* a good plain-text file of two rows loads */
  snprintf(p, sizeof p, "%s/good.csv", tmpdir);
  char two[800];
  snprintf(two, sizeof two, "%s%s", good, good);
  write_file(p, two, strlen(two));
  ccsim_error err = {0};
  tdataset *d = tdata_load_digits(p, &err);
  CHECK(d && d->n == 2 && d->y[1] == 3 && d->X[64 + 16] == 16.0f / 16, "two-row file: %s",
        err.msg);
  tdata_free(d);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  CHECK(system(cmd) == 0, "cleanup %s", tmpdir);
}

static void check_perm(void) {
  const size_t ns[] = {1, 2, 3, 5, 64, 1000, 1023, 1024, 1025, 4097};
  for (size_t c = 0; c < sizeof ns / sizeof ns[0]; c++) {
    const size_t n = ns[c];
    tperm p, q;
    tperm_init(&p, n, 17);
    tperm_init(&q, n, 18);
    char *seen = calloc(n, 1);
    size_t ok = 1, fixed = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
      const size_t v = tperm_at(&p, i);
      if (v >= n || seen[v]) ok = 0;
      else seen[v] = 1;
      fixed += v == i;
      same += v == tperm_at(&q, i);
    }
    CHECK(ok, "tperm on %zu is not a bijection", n);
    /* a random permutation has 1 fixed point and agrees with another in 1
     * place on average; allow 8 (P < 1e-5 each, Poisson(1)) */
    if (n >= 64) CHECK(fixed <= 8 && same <= 8, "n %zu: %zu fixed points, %zu agreements", n,
                       fixed, same);
    free(seen);
  }
}

/* A dataset whose row i is identifiable: X[i] = i, y[i] = i % classes. */
static tdataset *numbered(size_t n, size_t classes) {
  tdataset *d = calloc(1, sizeof *d);
  d->n = n;
  d->features = 1;
  d->classes = classes;
  d->X = malloc(n * sizeof *d->X);
  d->y = malloc(n * sizeof *d->y);
  for (size_t i = 0; i < n; i++) {
    d->X[i] = (float)i;
    d->y[i] = (int)(i % classes);
  }
  return d;
}

static void check_split(void) {
  tdataset *d = numbered(1000, 10), *tr, *te, *tr2, *te2;
  ccsim_error err = {0};
  CHECK(tdata_split(d, 0.2, 3, &tr, &te, &err) == 0, "split: %s", err.msg);
  CHECK(tr->n == 800 && te->n == 200, "sizes %zu + %zu", tr->n, te->n);
  char *seen = calloc(1000, 1);
  size_t dup = 0, ascending = 1;
  for (size_t i = 0; i < tr->n; i++) dup += seen[(size_t)tr->X[i]]++;
  for (size_t i = 0; i < te->n; i++) dup += seen[(size_t)te->X[i]]++;
  for (size_t i = 1; i < te->n; i++) ascending &= te->X[i] > te->X[i - 1];
  for (size_t i = 0; i < tr->n; i++) CHECK(tr->y[i] == (int)tr->X[i] % 10, "labels follow rows");
  CHECK(dup == 0 && ascending, "split overlaps (%zu) or is unordered", dup);
  CHECK(tdata_split(d, 0.2, 3, &tr2, &te2, &err) == 0 &&
            memcmp(te->X, te2->X, 200 * sizeof(float)) == 0,
        "same seed, same split");
  tdata_free(tr2);
  tdata_free(te2);
  CHECK(tdata_split(d, 0.2, 4, &tr2, &te2, &err) == 0 &&
            memcmp(te->X, te2->X, 200 * sizeof(float)) != 0,
        "another seed, another split");
  tdata_free(tr2);
  tdata_free(te2);
  CHECK(tdata_split(d, 1.0, 3, &tr2, &te2, &err) == CCSIM_ERR_INPUT && !tr2 && !te2,
        "fraction 1 rejected");
  CHECK(tdata_split(d, 0.0001, 3, &tr2, &te2, &err) == CCSIM_ERR_INPUT, "empty test rejected");
  free(seen);
  tdata_free(tr);
  tdata_free(te);
  tdata_free(d);
}

/* Shards partition the rows; returns the largest number of labels any worker has. */
static size_t check_partition(const tdataset *d, const tshards *s, const char *what) {
  char *seen = calloc(d->n, 1);
  size_t dup = 0, unordered = 0, max_labels = 0;
  CHECK(s->offset[0] == 0 && s->offset[s->workers] == d->n, "%s: sizes sum to %zu of %zu", what,
        s->offset[s->workers], d->n);
  for (uint32_t w = 0; w < s->workers; w++) {
    size_t labels[64] = {0}, nl = 0;
    CHECK(tshards_size(s, w) >= 1, "%s: worker %u empty", what, w);
    for (size_t k = s->offset[w]; k < s->offset[w + 1]; k++) {
      dup += seen[s->index[k]]++;
      if (k > s->offset[w]) unordered += s->index[k] <= s->index[k - 1];
      nl += labels[d->y[s->index[k]]]++ == 0;
    }
    max_labels = nl > max_labels ? nl : max_labels;
  }
  CHECK(dup == 0 && unordered == 0, "%s: %zu duplicates, %zu out of order", what, dup, unordered);
  free(seen);
  return max_labels;
}

static void check_shards(const tdataset *digits) {
  ccsim_error err = {0};
  tdataset *tr, *te;
  CHECK(tdata_split(digits, 0.2, 1, &tr, &te, &err) == 0, "split: %s", err.msg);
  CHECK(tr->n == 1438 && te->n == 359, "digits split %zu + %zu", tr->n, te->n);
  tshards *iid = tshards_new(tr, 7, TSHARD_IID, 0, 9, &err);
  check_partition(tr, iid, "iid");
  size_t mn = SIZE_MAX, mx = 0, min_labels = 10;
  for (uint32_t w = 0; w < 7; w++) {
    size_t sz = tshards_size(iid, w), labels[10] = {0}, nl = 0;
    mn = sz < mn ? sz : mn;
    mx = sz > mx ? sz : mx;
    for (size_t k = iid->offset[w]; k < iid->offset[w + 1]; k++) nl += labels[tr->y[iid->index[k]]]++ == 0;
    min_labels = nl < min_labels ? nl : min_labels;
  }
  CHECK(mx - mn <= 1, "iid sizes %zu..%zu", mn, mx);
  CHECK(min_labels == 10, "an iid worker has only %zu labels", min_labels);

  /* McMahan et al.'s partition, 10 workers x 2 shards of ~72 rows; the
   * smallest class in the training split has >= 130 rows, so a shard spans
   * <= 2 labels and a worker <= 4 */
  tshards *non = tshards_new(tr, 10, TSHARD_NONIID, 2, 9, &err);
  CHECK(non != NULL, "noniid: %s", err.msg);
  const size_t max_labels = check_partition(tr, non, "noniid");
  CHECK(max_labels <= 4, "a non-iid worker has %zu labels", max_labels);
  fprintf(stderr, "non-iid 10 x 2 shards: at most %zu labels per worker\n", max_labels);
  tshards *non2 = tshards_new(tr, 10, TSHARD_NONIID, 2, 9, &err);
  CHECK(memcmp(non->index, non2->index, tr->n * sizeof *non->index) == 0, "same seed, same shards");
  tshards_free(non2);
  CHECK(tshards_new(tr, 2000, TSHARD_IID, 0, 1, &err) == NULL && err.code == CCSIM_ERR_INPUT,
        "more workers than rows");
  CHECK(tshards_new(tr, 10, TSHARD_NONIID, 0, 1, &err) == NULL, "0 shards per worker");
  CHECK(tshards_new(tr, 10, TSHARD_NONIID, 144, 1, &err) == NULL, "more shards than rows");

  /* batches: pure in (seed, worker, iteration), epochs without repeats */
  const uint32_t w = 3;
  const size_t nw = tshards_size(non, w), B = 16;
  size_t a[16], b[16];
  tshards_batch(non, 5, w, 7, B, a);
  for (uint64_t it = 0; it < 10; it++) tshards_batch(non, 5, w, it, B, b);
  tshards_batch(non, 5, w, 7, B, b);
  CHECK(memcmp(a, b, sizeof a) == 0, "batch depends on call order");
  tshards_batch(non, 6, w, 7, B, b);
  CHECK(memcmp(a, b, sizeof a) != 0, "batch ignores the seed");
  tshards_batch(non, 5, w + 1, 7, B, b);
  CHECK(memcmp(a, b, sizeof a) != 0, "batch ignores the worker");
  /* the first two epochs, batch by batch */
  const size_t iters = (2 * nw + B - 1) / B;
  size_t *stream = malloc(iters * B * sizeof *stream);
  for (uint64_t it = 0; it < iters; it++) tshards_batch(non, 5, w, it, B, stream + it * B);
  char *in_shard = calloc(tr->n, 1);
  for (size_t k = non->offset[w]; k < non->offset[w + 1]; k++) in_shard[non->index[k]] = 1;
  for (int e = 0; e < 2; e++) {
    char *seen = calloc(tr->n, 1);
    size_t bad = 0;
    for (size_t k = e * nw; k < (e + 1) * nw; k++) bad += !in_shard[stream[k]] || seen[stream[k]]++;
    CHECK(bad == 0, "epoch %d is not a permutation of the shard (%zu bad)", e, bad);
    free(seen);
  }
  CHECK(memcmp(stream, stream + nw, 16 * sizeof *stream) != 0, "epochs share an order");
  size_t one;
  tshards_batch(non, 5, w, nw + 3, 1, &one); /* batch 1: position nw + 3 */
  CHECK(one == stream[nw + 3], "batch size 1 at iteration nw+3 is stream position nw+3");
  free(stream);
  free(in_shard);
  tshards_free(iid);
  tshards_free(non);
  tdata_free(tr);
  tdata_free(te);
}

static void check_teacher(void) {
  tteacher_spec spec = {.samples = 3000, .inputs = 20, .classes = 5, .nhidden = 1,
                        .hidden = {32}, .seed = 7};
  ccsim_error err = {0};
  tmodel *tm = NULL;
  float *th = NULL;
  tdataset *a = tdata_teacher(&spec, &tm, &th, &err), *b = tdata_teacher(&spec, NULL, NULL, &err);
  CHECK(a && b && tm && th, "teacher: %s", err.msg);
  if (!a || !b || !tm) return;
  CHECK(a->n == 3000 && a->features == 20 && a->classes == 5, "teacher shape");
  CHECK(memcmp(a->X, b->X, a->n * a->features * sizeof *a->X) == 0 &&
            memcmp(a->y, b->y, a->n * sizeof *a->y) == 0,
        "same seed, same task");
  tmodel_ws *ws = tmodel_ws_new(tm, 100, &err);
  double acc;
  tmodel_evaluate(tm, ws, th, a->X, a->y, a->n, &acc);
  CHECK(acc == 1.0, "the teacher scores %.6f on its own task", acc);
  size_t counts[5];
  tdata_class_counts(a, counts);
  fprintf(stderr, "teacher 20-32-5 class counts: %zu %zu %zu %zu %zu\n", counts[0], counts[1],
          counts[2], counts[3], counts[4]);
  for (int k = 0; k < 5; k++)
    CHECK(counts[k] >= a->n / 10, "teacher class %d has %zu of %zu samples", k, counts[k], a->n);
  tmodel_ws_free(ws);
  tmodel_free(tm);
  free(th);
  tdata_free(b);
  spec.seed = 8;
  b = tdata_teacher(&spec, NULL, NULL, &err);
  size_t diff = 0;
  for (size_t i = 0; i < a->n; i++) diff += a->y[i] != b->y[i];
  CHECK(diff > a->n / 2, "another seed, another task (%zu labels differ)", diff);
  tdata_free(a);
  tdata_free(b);

  /* a linear teacher, and a bad spec */
  tteacher_spec lin = {.samples = 500, .inputs = 8, .classes = 3, .seed = 1};
  a = tdata_teacher(&lin, &tm, &th, &err);
  CHECK(a != NULL, "linear teacher: %s", err.msg);
  ws = tmodel_ws_new(tm, 64, &err);
  tmodel_evaluate(tm, ws, th, a->X, a->y, a->n, &acc);
  CHECK(acc == 1.0 && tmodel_nparams(tm) == 27, "linear teacher %.4f, %zu params", acc,
        tmodel_nparams(tm));
  tmodel_ws_free(ws);
  tmodel_free(tm);
  free(th);
  tdata_free(a);
  lin.classes = 1;
  CHECK(tdata_teacher(&lin, NULL, NULL, &err) == NULL && err.code == CCSIM_ERR_INPUT,
        "one class rejected");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SOURCE_ROOT\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/workloads/data/digits.csv.gz", argv[1]);
  ccsim_error err = {0};
  tdataset *digits = tdata_load_digits(path, &err);
  CHECK(digits != NULL, "load %s: %s", path, err.msg);
  if (!digits) return check_status("test_data");
  check_digits(digits);
  check_loader_errors(path);
  check_perm();
  check_split();
  check_shards(digits);
  check_teacher();
  tdata_free(digits);
  return check_status("test_data");
}
