/* src/data/feed.c — the gradient sources of a run and the trace recorder. */
#include "feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gradients.h"
#include "trace.h"

struct feed {
  const experiment *e;
  grad_source synth;
  trace_reader *trace;
  trainer *tr;
  trace_writer *rec;
  float *scratch; /* [elements]: a full gradient on its way to the recorder */
  int status;     /* first failure inside the simulation */
  char msg[2048]; /* a ccsim_error's msg */
};

const trainer *feed_trainer(const feed *f) { return f->tr; }

int feed_private_outputs(const feed *f) { return f->tr != NULL; }

/* Synthetic and sparse gradients are drawn from counters, a worker's from
 * its own stream, and training computes each worker's gradient into its
 * own buffer at a model nobody changes meanwhile; a trace is read through
 * one reader, and recording writes one file. */
int feed_threadsafe(const feed *f) { return f->e->gradients.source != GRAD_TRACE && !f->rec; }

void feed_free(feed *f) {
  if (!f) return;
  trace_close(f->trace);
  trainer_free(f->tr);
  trace_writer_free(f->rec);
  free(f->scratch);
  free(f);
}

/* The recorder's layers: the model's tensors, the replayed trace's layers,
 * or one layer "gradient" for synthetic data.  *names keeps the strings. */
static trace_layer *record_layers(feed *f, size_t *count) {
  const size_t n = f->e->model.elements;
  trace_layer *l;
  if (f->tr) {
    size_t nt;
    const tmodel_tensor *t = trainer_layers(f->tr, &nt);
    l = calloc(nt, sizeof *l);
    for (size_t i = 0; l && i < nt; i++) {
      l[i].name = t[i].name;
      if (t[i].rows == 1) {
        l[i].ndim = 1;
        l[i].shape[0] = t[i].cols;
      } else {
        l[i].ndim = 2;
        l[i].shape[0] = t[i].rows;
        l[i].shape[1] = t[i].cols;
      }
    }
    *count = nt;
  } else if (f->trace) {
    *count = trace_nlayers(f->trace);
    l = calloc(*count, sizeof *l);
    for (size_t i = 0; l && i < *count; i++) l[i] = *trace_layer_at(f->trace, i);
  } else {
    l = calloc(1, sizeof *l);
    if (l) *l = (trace_layer){.name = "gradient", .ndim = 1, .shape = {n}};
    *count = 1;
  }
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
  static const char *const sources[] = {"synthetic", "trace", "train", "sparse"};
  char source[1024];
  snprintf(source, sizeof source,
           "ccsim %s run of %s (%s): gradients.source %s, seed %llu, the workers' gradients "
           "before error feedback",
           CCSIM_VERSION, e->file, e->name, sources[e->gradients.source],
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
  switch (e->gradients.source) {
  case GRAD_SYNTHETIC:
  case GRAD_SPARSE:
    grad_source_init(&f->synth, e);
    break;
  case GRAD_TRACE:
    f->trace = trace_open(e->gradients.trace, err);
    if (!f->trace || trace_check(f->trace, err)) {
      /* the experiment's field first; the trace file's own location kept in the text */
      if (err && err->code == CCSIM_ERR_INPUT)
        ccsim_fail_at(err, CCSIM_ERR_INPUT, e->file, "gradients.trace", 0, 0, "%s", err->msg);
      feed_free(f);
      return NULL;
    }
    break;
  case GRAD_TRAIN:
    f->tr = trainer_new(e, err);
    if (!f->tr) {
      feed_free(f);
      return NULL;
    }
    break;
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
  switch (f->e->gradients.source) {
  case GRAD_SYNTHETIC:
  case GRAD_SPARSE:
    grad_fill(&f->synth, w, it, lo, hi, out);
    return;
  case GRAD_TRACE: {
    ccsim_error terr;
    if (trace_read(f->trace, w, it, lo, hi, out, &terr)) {
      failed(f, CCSIM_ERR_RUNTIME, terr.msg); /* checked up front: the files changed underneath */
      memset(out, 0, (hi - lo) * sizeof *out);
    }
    return;
  }
  case GRAD_TRAIN:
    trainer_gradient(f->tr, w, lo, hi, out);
    return;
  }
}

double feed_begin(feed *f, uint32_t w, uint32_t it) {
  const double compute_s = f->tr ? trainer_begin_iteration(f->tr, w, it) : 0.0;
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
  if (f->tr) trainer_end_iteration(f->tr, w, it, agg);
}

void feed_iteration_begin(feed *f, uint32_t it, int threads) {
  if (f->tr) trainer_prepare_iteration(f->tr, it, threads); /* a failure: its status, at the end */
}

void feed_iteration_end(feed *f, uint32_t it) {
  if (f->tr) trainer_settle_iteration(f->tr, it);
}

int feed_finish(feed *f, ccsim_error *err) {
  if (f->tr) {
    trainer_finish(f->tr);
    if (trainer_status(f->tr, err)) return err->code;
  }
  if (f->status) return ccsim_fail(err, f->status, "%s", f->msg);
  if (f->rec) {
    trace_writer *rec = f->rec;
    f->rec = NULL;
    if (trace_writer_close(rec, err)) return ccsim_error_prefix(err, "--record-trace: ");
  }
  return 0;
}
