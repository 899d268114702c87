/* tests/trace_helpers.h — what the trace tests (test_trace_read.c,
 * test_trace_write.c) share: the test trace, its values and its writing,
 * fresh copies of it under root, and the refusal checks. */
#ifndef CCSIM_TEST_TRACE_HELPERS_H
#define CCSIM_TEST_TRACE_HELPERS_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "data/trace.h"
#include "error.h"

/* The test trace: five layers (a scalar among them), 421 elements. */
static const trace_layer LAYERS[] = {
    {.name = "conv.weight", .ndim = 4, .shape = {4, 1, 3, 3}},
    {.name = "conv.bias", .ndim = 1, .shape = {4}},
    {.name = "fc.weight", .ndim = 2, .shape = {10, 37}},
    {.name = "fc.bias", .ndim = 1, .shape = {10}},
    {.name = "temperature", .ndim = 0},
};
#define NLAYERS 5
#define ELEMENTS 421

/* Any finite float32 bit pattern: random sign and mantissa, every exponent
 * but 255 (subnormals, zeros and the largest values included). */
static inline float value(unsigned w, unsigned it, size_t e) {
  uint64_t z = ((uint64_t)w << 48) ^ ((uint64_t)it << 32) ^ e;
  z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
  z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
  z ^= z >> 33;
  uint32_t bits = (uint32_t)z;
  if (((bits >> 23) & 0xff) == 0xff) bits ^= 1u << 23;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* The test trace, workers x iterations of value(), written to dir; 0, or 1
 * with err. */
static inline int write_test_trace(const char *dir, unsigned workers, unsigned iterations,
                            ccsim_error *err) {
  trace_writer *wr =
      trace_writer_new(dir, workers, iterations, LAYERS, NLAYERS, "tests/test_trace.c", err);
  if (!wr) return 1;
  float g[ELEMENTS];
  for (unsigned w = 0; w < workers; w++)
    for (unsigned it = 0; it < iterations; it++) {
      for (size_t e = 0; e < ELEMENTS; e++) g[e] = value(w, it, e);
      if (trace_write(wr, w, it, g, ELEMENTS, err)) {
        trace_writer_free(wr);
        return 1;
      }
    }
  return trace_writer_close(wr, err);
}

/* Removes dir and everything under it. */
static inline int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(p);
}
static inline void rm_rf(const char *dir) { nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static char root[256];

/* root: a new directory under $TMPDIR (or /tmp); 0, or -1 with the reason
 * on stderr. */
static inline int make_root(void) {
  snprintf(root, sizeof root, "%s/ccsim-trace-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (mkdtemp(root)) return 0;
  perror(root);
  return -1;
}

/* A fresh valid trace (2 workers x 2 iterations) in root/NAME. */
static inline const char *fresh(const char *name) {
  static char dir[512];
  ccsim_error e_ = {0};
  const char *err = e_.msg;
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  rm_rf(dir);
  if (write_test_trace(dir, 2, 2, &e_)) {
    fprintf(stderr, "cannot write %s: %s\n", dir, err);
    exit(1);
  }
  return dir;
}

/* Open dir and read every file; return the first error (or "" when none). */
static inline const char *refusal(const char *dir) {
  static ccsim_error e;
  e.msg[0] = 0;
  trace_reader *t = trace_open(dir, &e);
  if (!t) return e.msg;
  if (trace_check(t, &e) == 0) e.msg[0] = 0;
  trace_close(t);
  return e.msg;
}

#define CHECK_REFUSED(dir, ...)                                                           \
  do {                                                                                    \
    const char *msg_ = refusal(dir);                                                      \
    const char *want_[] = {__VA_ARGS__, NULL};                                            \
    int ok_ = msg_[0] != 0;                                                               \
    for (const char **w_ = want_; *w_ && ok_; w_++) ok_ = strstr(msg_, *w_) != NULL;      \
    CHECK(ok_, "%s: refusal \"%s\" lacks one of the expected phrases (%s ...)", dir, msg_, \
          want_[0]);                                                                      \
  } while (0)

#endif
