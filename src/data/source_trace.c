/* src/data/source_trace.c — the "trace" gradient source: a recorded
 * gradient trace (trace.h) replayed by range.  The trace fixes the element
 * count; it is checked whole (every value read once) before the run starts,
 * and read through one reader, so its workers fill one at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/source.h"
#include "data/trace.h"
#include "input/resolve.h"
#include "outputs/provenance.h"
#include "outputs/sha256.h"

/* The trace's data as one input: the SHA-256 of each file the run replays
 * (workers x iterations of them), folded with its name in order, so an
 * edited value reruns a resumed point as an edited index does.  0, or an
 * error with rd (a path too long, out of memory). */
static int add_trace_data(cfg_reader *rd, experiment *e) {
  sha256_ctx c;
  sha256_init(&c);
  char file[4200], hex[65];
  for (int w = 0; w < e->workers; w++)
    for (int it = 0; it < e->iterations; it++) {
      const int n = snprintf(file, sizeof file, "%s/w%d/it%d.npy", e->gradients.trace, w, it);
      ccsim_error why = {0};
      if (n < 0 || (size_t)n >= sizeof file) return cfg_fail(rd, "gradients.trace", "path too long");
      /* a file that cannot be digested is named, worker and iteration, by
       * the trace's own check before the run (trace_check): no result is
       * written with this digest */
      if (provenance_file_sha256(file, hex, &why)) snprintf(hex, sizeof hex, "unreadable");
      sha256_update(&c, file + strlen(e->gradients.trace) + 1, strlen(file + strlen(e->gradients.trace) + 1) + 1);
      sha256_update(&c, hex, sizeof hex);
    }
  sha256_hex(&c, hex);
  return experiment_add_input_digest(e, "trace data", e->gradients.trace, hex, "gradients.trace", rd->err);
}

static int read_trace(cfg_reader *rd, experiment *e, json_t *root, json_t *g, size_t *implied, char *what,
                      size_t whatlen) {
  (void)root;
  const char *s;
  int rc;
  if ((rc = cfg_string(rd, g, "gradients", "trace", NULL, &s))) return rc;
  if (!(e->gradients.trace = exp_resolve(e, s))) return cfg_oom(rd, "gradients.trace");
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
  char *index = exp_resolve(e, s); /* its index.json: what the trace holds (trace.h) */
  size_t n = index ? strlen(index) + sizeof "/index.json" : 0;
  char *ip = n ? malloc(n) : NULL;
  if (ip) snprintf(ip, n, "%s/index.json", index);
  rc = ip ? experiment_add_input(e, "trace index", ip, "gradients.trace", rd->err) : ccsim_fail(rd->err, CCSIM_ERR_RUNTIME, "out of memory");
  free(index);
  free(ip);
  return rc ? rc : add_trace_data(rd, e);
}

static void *trace_source_open(const experiment *e, ccsim_error *err) {
  trace_reader *t = trace_open(e->gradients.trace, err);
  if (!t || trace_check(t, err)) {
    /* the experiment's field first; the trace file's own location kept in the text */
    if (err && err->code == CCSIM_ERR_INPUT)
      ccsim_fail_at(err, CCSIM_ERR_INPUT, e->file, "gradients.trace", 0, 0, "%s", err->msg);
    trace_close(t);
    return NULL;
  }
  return t;
}

static void trace_source_close(void *s) { trace_close(s); }

static int trace_source_fill(void *s, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out,
                             ccsim_error *err) {
  return trace_read(s, w, it, lo, hi, out, err) ? -1 : 0;
}

/* The replayed trace's own layers, kept by the reader. */
static trace_layer *trace_source_layers(void *s, size_t *count) {
  *count = trace_nlayers(s);
  trace_layer *l = calloc(*count, sizeof *l);
  for (size_t i = 0; l && i < *count; i++) l[i] = *trace_layer_at(s, i);
  return l;
}

const grad_source_type gsrc_trace = {
    .name = "trace",
    .summary = "a recorded gradient trace directory (trace), e.g. from ccsim run --record-trace",
    .keys = (const char *const[]){"trace", NULL},
    .flags = GSRC_SERIAL,
    .read = read_trace,
    .open = trace_source_open,
    .close = trace_source_close,
    .fill = trace_source_fill,
    .layers = trace_source_layers,
};
