/* src/config/exp_gradients.c — the "gradients" section: where the workers'
 * gradients come from (synthetic, sparse, a trace, or live training). */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gradients.h"
#include "trace.h"

/* gradients.source "sparse" (gradients.h): scale, row_width, tokens, zipf;
 * distribution and correlation are the dense source's. */
static int read_sparse_source(cfg_reader *rd, experiment *e, json_t *g, const char *s) {
  int rc;
  long long x;
  static const char *const dense_only[] = {"distribution", "correlation", NULL};
  for (const char *const *k = dense_only; *k; k++)
    if (json_object_get(g, *k)) {
      char p[64];
      cfg_join(p, sizeof p, "gradients", *k);
      return cfg_fail(rd, p, "only for source \"synthetic\" (the source is \"%s\")", s);
    }
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

/* "gradients": {"source": "synthetic" | "trace" | "train", ...}.  *implied =
 * the element count the source fixes (0: synthetic), described in what. */
int exp_gradients(cfg_reader *rd, experiment *e, json_t *root, size_t *implied, char *what,
                          size_t whatlen) {
  int rc = 0;
  *implied = 0;
  json_t *g = cfg_object(rd, root, "", "gradients", &rc);
  if (!g) return rc;
  static const char *const known[] = {"source", "trace", "distribution", "scale", "correlation",
                                      "row_width", "tokens", "zipf", NULL};
  if ((rc = cfg_keys(rd, g, "gradients", known, NULL, NULL, NULL))) return rc;
  static const char *const sources[] = {"synthetic", "trace", "train", "sparse", NULL};
  static const char *const dists[] = {"normal", "laplace", "uniform", NULL};
  const char *s;
  int i;
  if ((rc = cfg_string(rd, g, "gradients", "source", "synthetic", &s))) return rc;
  if ((rc = cfg_one_of(rd, "gradients.source", s, sources, &i))) return rc;
  e->gradients.source = (enum grad_source_kind)i;
  if (e->gradients.source != GRAD_TRAIN && json_object_get(root, "train"))
    return cfg_fail(rd, "train", "only with gradients.source \"train\" (the source is \"%s\")", s);
  if (e->gradients.source != GRAD_SPARSE) {
    static const char *const sparse_only[] = {"row_width", "tokens", "zipf", NULL};
    for (const char *const *k = sparse_only; *k; k++)
      if (json_object_get(g, *k)) {
        char p[64];
        cfg_join(p, sizeof p, "gradients", *k);
        return cfg_fail(rd, p, "only for source \"sparse\" (the source is \"%s\")", s);
      }
  }
  if (e->gradients.source == GRAD_SPARSE) {
    if ((rc = read_sparse_source(rd, e, g, s))) return rc;
    return 0;
  }
  if (e->gradients.source != GRAD_SYNTHETIC) {
    static const char *const synth_only[] = {"distribution", "scale", "correlation", NULL};
    for (const char *const *k = synth_only; *k; k++)
      if (json_object_get(g, *k)) {
        char p[64];
        cfg_join(p, sizeof p, "gradients", *k);
        return cfg_fail(rd, p, "only for source \"synthetic\" (the source is \"%s\")", s);
      }
  }
  if (e->gradients.source != GRAD_TRACE && json_object_get(g, "trace"))
    return cfg_fail(rd, "gradients.trace", "only for source \"trace\" (the source is \"%s\")", s);

  if (e->gradients.source == GRAD_TRAIN) {
    if ((rc = exp_train(rd, e, root, implied))) return rc;
    snprintf(what, whatlen, "the trained model (train.model)");
    return 0;
  }
  if (e->gradients.source == GRAD_TRACE) {
    if ((rc = cfg_string(rd, g, "gradients", "trace", NULL, &s))) return rc;
    e->gradients.trace = exp_resolve(e, s);
    ccsim_error terr;
    trace_reader *t = trace_open(e->gradients.trace, &terr);
    /* the experiment's field first; the trace file's own location kept in the text */
    if (!t) {
      if (terr.code != CCSIM_ERR_INPUT) return ccsim_fail(rd->err, terr.code, "%s", terr.msg);
      return cfg_fail(rd, "gradients.trace", "%s", terr.msg);
    }
    const unsigned tw = trace_workers(t), ti = trace_iterations(t);
    *implied = trace_elements(t);
    trace_close(t);
    if (tw < (unsigned)e->workers)
      return cfg_fail(rd, "gradients.trace", "the trace %s holds %u workers, the experiment has %d",
                  e->gradients.trace, tw, e->workers);
    if (ti < (unsigned)e->iterations)
      return cfg_fail(rd, "gradients.trace", "the trace %s holds %u iterations, the experiment runs %d",
                  e->gradients.trace, ti, e->iterations);
    snprintf(what, whatlen, "the trace %s", e->gradients.trace);
    return 0;
  }
  if ((rc = cfg_string(rd, g, "gradients", "distribution", "normal", &s))) return rc;
  if ((rc = cfg_one_of(rd, "gradients.distribution", s, dists, &i))) return rc;
  e->gradients.distribution = (enum grad_distribution)i;
  if ((rc = cfg_real(rd, g, "gradients", "scale", 1.0, 1e-30, 1e30, &e->gradients.scale))) return rc;
  if ((rc = cfg_real(rd, g, "gradients", "correlation", 0.0, 0.0, 1.0, &e->gradients.correlation)))
    return rc;
  return 0;
}
