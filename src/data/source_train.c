/* src/data/source_train.c — the "train" gradient source: live training
 * (trainer.h).  Each worker computes the gradient of its mini-batch at the
 * current parameters, and the aggregate it receives is applied; the model
 * (the "train" section, which only this source reads) fixes the element
 * count. */
#include <stdio.h>
#include <stdlib.h>

#include "data/source.h"
#include "data/train_section.h"
#include "train/trainer.h"

static int read_train(cfg_reader *rd, experiment *e, json_t *root, json_t *g, size_t *implied, char *what,
                      size_t whatlen) {
  (void)g;
  int rc;
  if ((rc = exp_train(rd, e, root, implied))) return rc;
  snprintf(what, whatlen, "the trained model (train.model)");
  return 0;
}

static void *train_open(const experiment *e, ccsim_error *err) { return trainer_new(e, err); }
static void train_close(void *s) { trainer_free(s); }

static int train_fill(void *s, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out, ccsim_error *err) {
  (void)it, (void)err;
  trainer_gradient(s, w, lo, hi, out);
  return 0;
}

static double train_begin(void *s, uint32_t w, uint32_t it) { return trainer_begin_iteration(s, w, it); }
static void train_end(void *s, uint32_t w, uint32_t it, const float *agg) {
  trainer_end_iteration(s, w, it, agg);
}
/* a failure (this one's, or one kept in the trainer's status since: a
 * diverged loss, aggregates that differ) stops the run here */
static int train_iteration_begin(void *s, uint32_t it, int threads, ccsim_error *err) {
  if (!trainer_prepare_iteration(s, it, threads)) return 0;
  if (!trainer_status(s, err)) abort(); /* trainer.h: -1 comes with a status */
  return err->code;
}
static void train_iteration_end(void *s, uint32_t it) { trainer_settle_iteration(s, it); }

static int train_finish(void *s, ccsim_error *err) {
  trainer_finish(s);
  return trainer_status(s, err) ? err->code : 0;
}

/* The model's tensors, 2-D where they have rows. */
static trace_layer *train_layers(void *s, size_t *count) {
  size_t nt;
  const tmodel_tensor *t = trainer_layers(s, &nt);
  trace_layer *l = calloc(nt, sizeof *l);
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
  return l;
}

const grad_source_type gsrc_train = {
    .name = "train",
    .summary = "computed live: each worker trains the \"train\" section's model on its shard",
    .keys = (const char *const[]){NULL},
    .section = "train",
    .flags = GSRC_TRAINS,
    .read = read_train,
    .open = train_open,
    .close = train_close,
    .fill = train_fill,
    .begin = train_begin,
    .end = train_end,
    .iteration_begin = train_iteration_begin,
    .iteration_end = train_iteration_end,
    .finish = train_finish,
    .layers = train_layers,
};
