/* src/data/feed.c — a run's gradient source (source.h) and the trace recorder. */
#include "data/feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/source.h"
#include "data/trace.h"

struct feed {
  const experiment *e;
  const grad_source_type *type; /* e->gradients.source */
  void *src;                    /* its instance */
  trace_writer *rec;
  float *scratch; /* [elements]: a full gradient on its way to the recorder */
  int status;     /* first failure inside the simulation */
  char msg[2048]; /* a ccsim_error's msg */
};

/* A source that trains holds a trainer (source.h, GSRC_TRAINS). */
const trainer *feed_trainer(const feed *f) { return f->type->flags & GSRC_TRAINS ? f->src : NULL; }

int feed_private_outputs(const feed *f) { return (f->type->flags & GSRC_TRAINS) != 0; }

/* A source says whether its workers may fill at once; recording writes one
 * file. */
int feed_threadsafe(const feed *f) { return !(f->type->flags & GSRC_SERIAL) && !f->rec; }

void feed_free(feed *f) {
  if (!f) return;
  if (f->src) f->type->close(f->src);
  trace_writer_free(f->rec);
  free(f->scratch);
  free(f);
}

/* The recorder's layers: the source's own (a model's tensors, a replayed
 * trace's layers), or one layer "gradient". */
static trace_layer *record_layers(feed *f, size_t *count) {
  if (f->type->layers) return f->type->layers(f->src, count);
  trace_layer *l = calloc(1, sizeof *l);
  if (l) *l = (trace_layer){.name = "gradient", .ndim = 1, .shape = {f->e->model.elements}};
  *count = 1;
  return l;
}

static int start_recording(feed *f, const char *dir, ccsim_error *err) {
  const experiment *e = f->e;
  size_t nl;
  trace_layer *layers = record_layers(f, &nl);
  f->scratch = malloc((e->model.elements + 1) * sizeof *f->scratch);
  if (!layers || !f->scratch) {
    free(layers);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "--record-trace %s: out of memory", dir);
  }
  char source[1024];
  snprintf(source, sizeof source,
           "ccsim %s run of %s (%s): gradients.source %s, seed %llu, the workers' gradients "
           "before error feedback",
           CCSIM_VERSION, e->file, e->name, e->gradients.source->name,
           (unsigned long long)e->seed);
  f->rec = trace_writer_new(dir, (unsigned)e->workers, (unsigned)e->iterations, layers, nl, source,
                            err);
  free(layers);
  if (!f->rec) return ccsim_error_prefix(err, "--record-trace: ");
  return 0;
}

feed *feed_new(const experiment *e, const char *record_dir, ccsim_error *err) {
  feed *f = calloc(1, sizeof *f);
  if (!f) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory");
    return NULL;
  }
  f->e = e;
  f->type = e->gradients.source;
  f->src = f->type->open(e, err);
  if (!f->src) {
    feed_free(f);
    return NULL;
  }
  if (record_dir && start_recording(f, record_dir, err)) {
    feed_free(f);
    return NULL;
  }
  return f;
}

static void failed(feed *f, int code, const char *msg) {
  if (f->status) return;
  f->status = code;
  snprintf(f->msg, sizeof f->msg, "%s", msg);
}

void feed_fill(feed *f, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out) {
  ccsim_error ferr;
  if (f->type->fill(f->src, w, it, lo, hi, out, &ferr)) {
    failed(f, CCSIM_ERR_RUNTIME, ferr.msg); /* checked up front: the files changed underneath */
    memset(out, 0, (hi - lo) * sizeof *out);
  }
}

double feed_begin(feed *f, uint32_t w, uint32_t it) {
  const double compute_s = f->type->begin ? f->type->begin(f->src, w, it) : 0.0;
  if (f->rec) {
    const size_t n = f->e->model.elements;
    ccsim_error terr;
    feed_fill(f, w, it, 0, n, f->scratch);
    if (!f->status && trace_write(f->rec, w, it, f->scratch, n, &terr)) {
      failed(f, CCSIM_ERR_RUNTIME, terr.msg);
      trace_writer_free(f->rec);
      f->rec = NULL;
    }
  }
  return compute_s;
}

void feed_end(feed *f, uint32_t w, uint32_t it, const float *agg) {
  if (f->type->end) f->type->end(f->src, w, it, agg);
}

int feed_iteration_begin(feed *f, uint32_t it, int threads, ccsim_error *err) {
  /* the order feed_finish reports them in: the source's failure first */
  if (f->type->iteration_begin && f->type->iteration_begin(f->src, it, threads, err)) return err->code;
  if (f->status) return ccsim_fail(err, f->status, "%s", f->msg);
  return 0;
}

void feed_iteration_end(feed *f, uint32_t it) {
  if (f->type->iteration_end) f->type->iteration_end(f->src, it);
}

int feed_finish(feed *f, ccsim_error *err) {
  if (f->type->finish && f->type->finish(f->src, err)) return err->code;
  if (f->status) return ccsim_fail(err, f->status, "%s", f->msg);
  if (f->rec) {
    trace_writer *rec = f->rec;
    f->rec = NULL;
    if (trace_writer_close(rec, err)) return ccsim_error_prefix(err, "--record-trace: ");
  }
  return 0;
}
