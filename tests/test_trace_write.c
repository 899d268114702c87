/* tests/test_trace_write.c — writing gradient traces (src/data/trace.h): the
 * writer's refusals, and a write that fails half-way leaves the earlier
 * recording whole and no temporary behind (the reader's tests:
 * test_trace_read.c). */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "data/trace.h"
#include "error.h"
#include "trace_helpers.h"

/* The entries of dir whose names start with prefix. */
static int count_entries(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *de; d && (de = readdir(d));) n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
  if (d) closedir(d);
  return n;
}

/* A write that fails half-way (the file size limit, RLIMIT_FSIZE, below one
 * .npy file: the kernel refuses the bytes past it with EFBIG) leaves neither
 * a partial itI.npy nor a temporary; an earlier recording's complete file
 * stays whole until a new one replaces it in one rename. */
static void test_partial_write(void) {
  char dir[512], sub[600], file[640];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  snprintf(dir, sizeof dir, "%s/partial", root);
  snprintf(sub, sizeof sub, "%s/w0", dir);
  snprintf(file, sizeof file, "%s/it0.npy", sub);
  CHECK(write_test_trace(dir, 1, 1, &e_) == 0, "write: %s", err);
  struct stat st0, st1;
  CHECK(stat(file, &st0) == 0 && st0.st_size > 1000, "the complete file is %lld bytes", (long long)st0.st_size);

  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 1000; /* the file is 128 + 4 x 421 = 1812 bytes */
  void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
  trace_writer *wr = trace_writer_new(dir, 1, 1, LAYERS, NLAYERS, "x", &e_);
  CHECK(wr != NULL, "writer_new: %s", err);
  float g[ELEMENTS];
  for (size_t e = 0; e < ELEMENTS; e++) g[e] = -value(0, 0, e);
  int rc = -1;
  if (wr && setrlimit(RLIMIT_FSIZE, &lim) == 0) {
    rc = trace_write(wr, 0, 0, g, ELEMENTS, &e_);
    setrlimit(RLIMIT_FSIZE, &old);
  }
  signal(SIGXFSZ, prev);
  CHECK(rc == CCSIM_ERR_RUNTIME && strstr(err, "w0/it0.npy") && strstr(err, "cannot write"),
        "a write past RLIMIT_FSIZE: rc %d, %s", rc, err);
  CHECK(count_entries(sub, ".tmp-") == 0, "%d temporaries left in %s", count_entries(sub, ".tmp-"), sub);
  CHECK(stat(file, &st1) == 0 && st1.st_size == st0.st_size && st1.st_ino == st0.st_ino,
        "the earlier complete it0.npy was touched (%lld bytes)", (long long)st1.st_size);
  trace_writer_free(wr);
  CHECK(refusal(dir)[0] && strstr(refusal(dir), "index.json"), "a failed recording is not a trace: %s",
        refusal(dir));

  /* a temporary a killed recording left behind is removed by the next one */
  char stale[700];
  snprintf(stale, sizeof stale, "%s/.tmp-00000000deadbeef", sub);
  FILE *f = fopen(stale, "w");
  if (f) fputs("half a file", f), fclose(f);
  CHECK(write_test_trace(dir, 1, 1, &e_) == 0, "rewrite: %s", err);
  CHECK(count_entries(sub, ".tmp-") == 0 && count_entries(sub, "it") == 1,
        "after a rewrite: %d temporaries, %d files", count_entries(sub, ".tmp-"), count_entries(sub, "it"));
  CHECK(refusal(dir)[0] == 0, "the rewritten trace is refused: %s", refusal(dir));
}

static void test_writer(void) {
  char dir[512];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  snprintf(dir, sizeof dir, "%s/writer", root);
  float g[ELEMENTS];
  for (size_t e = 0; e < ELEMENTS; e++) g[e] = value(0, 0, e);
  /* overwriting a trace removes its index first */
  fresh("writer");
  trace_writer *wr = trace_writer_new(dir, 2, 2, LAYERS, NLAYERS, "x", &e_);
  CHECK(wr != NULL, "writer_new: %s", err);
  if (!wr) return;
  char ix[600];
  snprintf(ix, sizeof ix, "%s/index.json", dir);
  CHECK(access(ix, F_OK) != 0, "%s survives a new writer: a killed rewrite would look valid", ix);
  CHECK(trace_write(wr, 0, 0, g, ELEMENTS - 1, &e_) != 0 && strstr(err, "420 elements"),
        "%s", err);
  CHECK(trace_write(wr, 2, 0, g, ELEMENTS, &e_) != 0 && strstr(err, "outside"), "%s", err);
  g[77] = NAN;
  CHECK(trace_write(wr, 0, 0, g, ELEMENTS, &e_) != 0 && strstr(err, "element 77") &&
            strstr(err, "w0/it0.npy"),
        "%s", err);
  g[77] = 1.0f;
  CHECK(trace_write(wr, 0, 0, g, ELEMENTS, &e_) == 0, "%s", err);
  CHECK(trace_write(wr, 0, 0, g, ELEMENTS, &e_) != 0 && strstr(err, "twice"), "%s", err);
  CHECK(trace_write(wr, 1, 1, g, ELEMENTS, &e_) == 0, "%s", err);
  /* incomplete: no index, and the directory is refused */
  CHECK(trace_writer_close(wr, &e_) != 0 && strstr(err, "never written") &&
            strstr(err, "w0/it1.npy"),
        "%s", err);
  CHECK(access(ix, F_OK) != 0, "an incomplete trace got an index.json");
  CHECK_REFUSED(dir, "index.json", "cannot open");
  /* the writer's own refusals */
  trace_layer dup[2] = {LAYERS[1], LAYERS[1]};
  CHECK(trace_writer_new(dir, 1, 1, dup, 2, "x", &e_) == NULL && strstr(err, "both named"),
        "%s", err);
  trace_layer zero = {.name = "z", .ndim = 2, .shape = {3, 0}};
  CHECK(trace_writer_new(dir, 1, 1, &zero, 1, "x", &e_) == NULL && strstr(err, "\"z\""),
        "%s", err);
  CHECK(trace_writer_new(dir, 0, 1, LAYERS, 1, "x", &e_) == NULL, "0 workers accepted");
}

int main(void) {
  if (make_root()) return 1;
  test_writer();
  test_partial_write();
  rm_rf(root);
  return check_status("trace-write");
}
