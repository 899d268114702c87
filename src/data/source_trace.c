/* src/data/source_trace.c — the "trace" gradient source: a recorded
 * gradient trace (trace.h) replayed by range.  The trace fixes the element
 * count; it is checked whole (every value read once) before the run starts,
 * and read through one reader, so its workers fill one at a time. */
#include <stdio.h>
#include <stdlib.h>

#include "config/sections.h"
#include "source.h"
#include "trace.h"

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
  return 0;
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
