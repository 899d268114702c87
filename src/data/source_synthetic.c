/* src/data/source_synthetic.c — the generated gradient sources
 * (gradients.h): "synthetic", dense draws from a distribution, optionally
 * correlated across workers; "sparse", an embedding table's row-sparse
 * gradient with Zipf row frequencies.  Both draw any element from counters,
 * so they run on any number of threads and take coordinate sampling. */
#include <stdlib.h>

#include "data/gradients.h"
#include "data/source.h"

static int read_synthetic(cfg_reader *rd, experiment *e, json_t *root, json_t *g, size_t *implied,
                          char *what, size_t whatlen) {
  (void)root, (void)implied, (void)what, (void)whatlen;
  static const char *const dists[] = {"normal", "laplace", "uniform", NULL};
  const char *s;
  int i, rc;
  if ((rc = cfg_string(rd, g, "gradients", "distribution", "normal", &s))) return rc;
  if ((rc = cfg_one_of(rd, "gradients.distribution", s, dists, &i))) return rc;
  e->gradients.distribution = (enum grad_distribution)i;
  if ((rc = cfg_real(rd, g, "gradients", "scale", 1.0, 1e-30, 1e30, &e->gradients.scale))) return rc;
  return cfg_real(rd, g, "gradients", "correlation", 0.0, 0.0, 1.0, &e->gradients.correlation);
}

static int read_sparse(cfg_reader *rd, experiment *e, json_t *root, json_t *g, size_t *implied,
                       char *what, size_t whatlen) {
  (void)root, (void)implied, (void)what, (void)whatlen;
  int rc;
  long long x;
  if ((rc = cfg_real(rd, g, "gradients", "scale", 1.0, 1e-30, 1e30, &e->gradients.scale))) return rc;
  if ((rc = cfg_int(rd, g, "gradients", "row_width", 0, 64, 1, 1 << 20, &x))) return rc;
  e->gradients.row_width = (size_t)x;
  if ((rc = cfg_int(rd, g, "gradients", "tokens", 0, 512, 1, GRAD_SPARSE_MAX_TOKENS, &x))) return rc;
  e->gradients.tokens = (size_t)x;
  if ((rc = cfg_real(rd, g, "gradients", "zipf", 1.0, 0.01, 10.0, &e->gradients.zipf))) return rc;
  e->gradients.distribution = GRAD_NORMAL;
  e->gradients.correlation = 0;
  return 0;
}

static void *generated_open(const experiment *e, ccsim_error *err) {
  grad_source *g = malloc(sizeof *g);
  if (!g) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
    return NULL;
  }
  grad_source_init(g, e);
  return g;
}

static int generated_fill(void *s, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out,
                          ccsim_error *err) {
  (void)err;
  grad_fill(s, w, it, lo, hi, out);
  return 0;
}

const grad_source_type gsrc_synthetic = {
    .name = "synthetic",
    .summary = "generated draws (distribution, scale), shared across workers by correlation",
    .keys = (const char *const[]){"distribution", "scale", "correlation", NULL},
    .flags = GSRC_GENERATED,
    .read = read_synthetic,
    .open = generated_open,
    .close = free,
    .fill = generated_fill,
};

const grad_source_type gsrc_sparse = {
    .name = "sparse",
    .summary = "generated row-sparse: tokens rows of row_width from a Zipf law (zipf), scale",
    .keys = (const char *const[]){"scale", "row_width", "tokens", "zipf", NULL},
    .flags = GSRC_GENERATED,
    .read = read_sparse,
    .open = generated_open,
    .close = free,
    .fill = generated_fill,
};
