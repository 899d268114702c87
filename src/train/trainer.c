/* src/train/trainer.c — one shared model trained by the simulated workers with
 * the aggregate their collective produced (trainer.h says why one copy of
 * theta is enough and when each update is applied). */
#include "train/trainer.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/collective.h"
#include "comm/comm.h"
#include "ccomp/rng.h"
#include "collectives/numcheck.h"
#include "train/blas.h"
#include "train/data.h"

struct trainer {
  const experiment *e;
  const train_config *c;
  tmodel *model;
  tmodel_ws *ws; /* the evaluation's, and the gradients' on thread 0 */
  tdataset *train, *test;
  tshards *shards;
  size_t np;
  float *theta, *velocity;
  float *pending;     /* the aggregate of iteration pending_it */
  long pending_it;    /* -1: none yet */
  long applied;       /* updates applied so far (iterations 0 .. applied-1) */
  double pending_norm; /* ||pending||_2 */
  double spread;      /* max over workers and iterations of ||agg_w - applied|| / ||applied|| */
  float *grads;       /* [workers][np]: each worker's gradient of its current iteration */
  uint32_t delay;     /* the compressor's communication delay m (1: none) */
  float *local;       /* delay > 1: [workers][np], each worker's local model in a round */
  float *X;           /* [batch][features] */
  int *y;             /* [batch] */
  size_t *idx;        /* [batch] */
  double *loss_sum;   /* [iterations] */
  double *wloss;      /* [workers]: each worker's batch loss of the current iteration */
  char *wbad;         /* [workers]: 0, or the loss (1) or the gradient (2) is not finite */
  /* scratch of the gradients' work (comm_work), one per thread: [0] is ws,
   * X, y, idx above; the others made when a run has more threads */
  struct tscratch {
    tmodel_ws *ws;
    float *X;
    int *y;
    size_t *idx;
  } *scr;
  int nscr;
  trainer_row *rows;  /* [iterations] */
  int status;
  char msg[4096 + 512]; /* the experiment's path (PATH_MAX) and a sentence */
};

size_t trainer_nparams(const trainer *t) { return t->np; }

const tmodel_tensor *trainer_layers(const trainer *t, size_t *count) {
  return tmodel_layers(t->model, count);
}

const float *trainer_theta(const trainer *t) { return t->theta; }

const trainer_row *trainer_metrics(const trainer *t) { return t->rows; }

double trainer_spread(const trainer *t) { return t->spread; }

int trainer_status(const trainer *t, ccsim_error *err) {
  if (!t->status) return 0;
  return ccsim_fail(err, t->status, "%s", t->msg);
}

void trainer_free(trainer *t) {
  if (!t) return;
  for (int i = 1; i < t->nscr; i++) {
    tmodel_ws_free(t->scr[i].ws);
    free(t->scr[i].X);
    free(t->scr[i].y);
    free(t->scr[i].idx);
  }
  free(t->scr);
  tmodel_ws_free(t->ws);
  tmodel_free(t->model);
  tdata_free(t->train);
  tdata_free(t->test);
  tshards_free(t->shards);
  free(t->theta);
  free(t->velocity);
  free(t->pending);
  free(t->grads);
  free(t->local);
  free(t->X);
  free(t->y);
  free(t->idx);
  free(t->loss_sum);
  free(t->wloss);
  free(t->wbad);
  free(t->rows);
  free(t);
}

static trainer *fail_new(trainer *t, ccsim_error *err, const ccsim_error *why, const char *path) {
  ccsim_fail(err, why->code ? why->code : CCSIM_ERR_INPUT, "%s: %s: %s", t->e->file, path, why->msg);
  trainer_free(t);
  return NULL;
}

/* Fashion-MNIST's published split, each part cut to its seeded subset when
 * train.train_samples / test_samples ask for one. */
static int load_fashion(trainer *t, ccsim_error *why) {
  const train_config *c = t->c;
  if (tdata_load_fashion_mnist(c->data, &t->train, &t->test, why)) return why->code;
  const size_t want[2] = {c->train_samples, c->test_samples};
  tdataset **part[2] = {&t->train, &t->test};
  for (int p = 0; p < 2; p++) {
    if (!want[p] || want[p] == (*part[p])->n) continue;
    tdataset *sub = tdata_take(*part[p], want[p], ccr_key(t->e->seed, (uint64_t)p), why);
    tdata_free(*part[p]);
    *part[p] = sub;
    if (!sub) return why->code;
  }
  return 0;
}

/* The compressor's communication delay m (a parameter "delay", SBC's): with
 * m > 1 each worker trains a local copy for m steps per round (trainer.h).
 * Returns 0, or fails (freeing t) when the memory cannot carry the delayed
 * steps. */
static int setup_delay(trainer *t, ccsim_error *err) {
  const experiment *e = t->e;
  const int k = ccomp_param_index(e->compressor, "delay");
  t->delay = k >= 0 ? (uint32_t)e->comp_params[k] : 1;
  if (t->delay <= 1) return 0;
  if (!e->memory || strcmp(e->memory->name, "residual") != 0) {
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "%s: compressor.delay: %u needs compressor.memory \"residual\" in training (the "
               "memory carries the m local steps to the step that sends them)",
               e->file, t->delay);
    trainer_free(t);
    return -1;
  }
  t->local = malloc((size_t)e->workers * t->np * sizeof *t->local);
  if (!t->local) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %d local models", e->workers);
    trainer_free(t);
    return -1;
  }
  return 0;
}

/* Whether iteration `it` communicates (always, without a delay). */
static int sends(const trainer *t, uint32_t it) { return it % t->delay == t->delay - 1; }

trainer *trainer_new(const experiment *e, ccsim_error *err) {
  trainer *t = calloc(1, sizeof *t);
  if (!t) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the trainer");
    return NULL;
  }
  t->e = e;
  t->c = &e->train;
  const train_config *c = t->c;
  ccsim_error why = {0};
  if (tblas_bind(&why)) { /* the GEMMs' library, loaded now (train/blas.h) */
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s", why.msg);
    trainer_free(t);
    return NULL;
  }
  tdataset *all = NULL;
  if (c->dataset == TRAIN_FASHION) {
    if (load_fashion(t, &why)) return fail_new(t, err, &why, "train.data");
  } else {
    if (c->dataset == TRAIN_DIGITS) {
      all = tdata_load_digits(c->data, &why);
      if (!all) return fail_new(t, err, &why, "train.data");
    } else if (c->dataset == TRAIN_TEXT) {
      all = tdata_zipf_text(&c->text, &why);
      if (!all) return fail_new(t, err, &why, "train.text");
    } else if (c->dataset == TRAIN_CORPUS) {
      all = tdata_corpus_text(c->data, &c->corpus, &why);
      if (!all) return fail_new(t, err, &why, "train.data");
    } else {
      all = tdata_teacher(&c->teacher, NULL, NULL, &why);
      if (!all) return fail_new(t, err, &why, "train.teacher");
    }
    /* a corpus's split is the same in every run (seed 0), so that seeds
     * vary the initialisation, shards and batches, not the test set */
    const uint64_t split_seed = c->dataset == TRAIN_CORPUS ? 0 : e->seed;
    int bad = tdata_split(all, c->test_fraction, split_seed, &t->train, &t->test, &why);
    tdata_free(all);
    if (bad) return fail_new(t, err, &why, "train.test_fraction");
  }
  t->shards = tshards_new(t->train, (uint32_t)e->workers, c->shards, c->shards_per_worker, e->seed, &why);
  if (!t->shards) return fail_new(t, err, &why, "train.shards");
  t->model = tmodel_new(&c->model, &why);
  if (!t->model) return fail_new(t, err, &why, "train.model");
  t->np = tmodel_nparams(t->model);
  t->ws = tmodel_ws_new(t->model, c->batch > 256 ? c->batch : 256, &why);
  if (!t->ws) return fail_new(t, err, &why, "train.batch");
  const size_t np = t->np, N = (size_t)e->workers, T = (size_t)e->iterations;
  t->theta = malloc(np * sizeof *t->theta);
  t->velocity = calloc(np, sizeof *t->velocity);
  t->pending = malloc(np * sizeof *t->pending);
  t->grads = malloc(N * np * sizeof *t->grads);
  t->X = malloc(c->batch * t->train->features * sizeof *t->X);
  t->y = malloc(c->batch * sizeof *t->y);
  t->idx = malloc(c->batch * sizeof *t->idx);
  t->loss_sum = calloc(T, sizeof *t->loss_sum);
  t->wloss = calloc((size_t)e->workers, sizeof *t->wloss);
  t->wbad = calloc((size_t)e->workers, sizeof *t->wbad);
  t->rows = malloc(T * sizeof *t->rows);
  if (!t->theta || !t->velocity || !t->pending || !t->grads || !t->X || !t->y || !t->idx ||
      !t->loss_sum || !t->wloss || !t->wbad || !t->rows) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for training %zu parameters on %zu workers",
               np, N);
    trainer_free(t);
    return NULL;
  }
  for (size_t i = 0; i < T; i++) t->rows[i] = (trainer_row){NAN, NAN, NAN};
  if (setup_delay(t, err)) return NULL;
  tmodel_init(t->model, t->theta, e->seed);
  t->pending_it = -1;
  return t;
}

static void diverged(trainer *t, const char *what, uint32_t w, uint32_t it) {
  if (t->status) return;
  t->status = CCSIM_ERR_RUNTIME;
  snprintf(t->msg, sizeof t->msg,
           "%s: training diverged: worker %u's %s at iteration %u is not finite (train.optimizer.lr "
           "= %g is likely too large for compressor %s)",
           t->e->file, w, what, it, t->c->lr, t->e->compressor->name);
}

/* theta and the optimizer state take the aggregate of iteration `it`; then
 * the test split is evaluated if this iteration is due. */
static void apply_update(trainer *t, uint32_t it) {
  assert(t->pending_it == (long)it && t->applied == (long)it);
  const size_t np = t->np;
  const float lr = (float)t->c->lr, mom = (float)t->c->momentum, wd = (float)t->c->weight_decay;
  float *th = t->theta, *v = t->velocity;
  const float *a = t->pending;
  if (!sends(t, it)) {
    /* a delayed step: nothing was sent, the aggregate is zero, and the
     * global model (and its momentum) waits for the round's end */
  } else if (wd != 0) {
    for (size_t i = 0; i < np; i++) {
      v[i] = mom * v[i] + (a[i] + wd * th[i]);
      th[i] -= lr * v[i];
    }
  } else {
    for (size_t i = 0; i < np; i++) {
      v[i] = mom * v[i] + a[i];
      th[i] -= lr * v[i];
    }
  }
  t->applied = (long)it + 1;
  const int T = t->e->iterations;
  /* no evaluation once the run has failed: its GEMMs would run in a thread
   * no room was kept for, under the limit that failed it */
  if (!t->status && ((it + 1) % (uint32_t)t->c->eval_every == 0 || (int)it == T - 1)) {
    double acc;
    tblas_context(t->e->file, it, -1);
    const double loss =
        tmodel_evaluate(t->model, t->ws, th, t->test->X, t->test->y, t->test->n, &acc);
    t->rows[it].test_loss = loss;
    t->rows[it].test_accuracy = acc;
  }
}

/* Scratch for `threads` threads (slot 0: the trainer's own); 0, or -1
 * out of memory. */
static int ensure_scratch(trainer *t, int threads) {
  if (t->nscr >= threads) return 0;
  struct tscratch *s = realloc(t->scr, (size_t)threads * sizeof *s);
  if (!s) return -1;
  t->scr = s;
  if (t->nscr == 0) s[t->nscr++] = (struct tscratch){t->ws, t->X, t->y, t->idx};
  const size_t B = t->c->batch;
  for (; t->nscr < threads; t->nscr++) {
    ccsim_error why = {0};
    struct tscratch *k = &s[t->nscr];
    *k = (struct tscratch){tmodel_ws_new(t->model, B > 256 ? B : 256, &why), malloc(B * t->train->features * sizeof *k->X),
                           malloc(B * sizeof *k->y), malloc(B * sizeof *k->idx)};
    if (!k->ws || !k->X || !k->y || !k->idx) {
      tmodel_ws_free(k->ws);
      free(k->X), free(k->y), free(k->idx);
      return -1;
    }
  }
  return 0;
}

/* One worker's gradient at the current parameters (comm_work: touches
 * only the worker's gradient and local model, and its thread's scratch;
 * theta is not changed while any worker computes, trainer.h). */
typedef struct grad_work {
  trainer *t;
  uint32_t w, it;
  double loss;
  int bad; /* the loss or the gradient is not finite */
} grad_work;

static void grad_work_run(void *arg, int thread) {
  grad_work *k = arg;
  trainer *t = k->t;
  struct tscratch *s = &t->scr[thread];
  const size_t B = t->c->batch, np = t->np;
  float *g = t->grads + (size_t)k->w * np;
  tblas_context(t->e->file, k->it, k->w);
  tshards_batch(t->shards, t->e->seed, k->w, k->it, B, s->idx);
  tdata_gather(t->train, s->idx, B, s->X, s->y);
  const float *at = t->theta;
  float *lw = NULL;
  if (t->delay > 1) { /* local SGD within a round of m steps, from the global model */
    lw = t->local + (size_t)k->w * np;
    if (k->it % t->delay == 0) memcpy(lw, t->theta, np * sizeof *lw);
    at = lw;
  }
  k->loss = tmodel_loss_grad(t->model, s->ws, at, s->X, s->y, B, g);
  k->bad = !isfinite(k->loss) || numcheck_first_bad(g, np) < np;
  if (k->bad) memset(g, 0, np * sizeof *g); /* finite data for the compressors; the run fails at the end */
  if (lw && !sends(t, k->it)) {
    const float lr = (float)t->c->lr;
    for (size_t i = 0; i < np; i++) lw[i] -= lr * g[i];
  }
}

/* The run fails at iteration it, for why (the first failure is the one kept): -1. */
static int prepare_failed(trainer *t, uint32_t it, const char *why) {
  if (!t->status) {
    t->status = CCSIM_ERR_RUNTIME;
    snprintf(t->msg, sizeof t->msg, "%s: iteration %u: %.480s", t->e->file, it, why); /* ~300 characters: fits */
  }
  return -1;
}

int trainer_prepare_iteration(trainer *t, uint32_t it, int threads) {
  if (it > 0 && t->applied < (long)it) apply_update(t, it - 1);
  if (t->status) return -1; /* failed already (kept: the first failure) */
  if (ensure_scratch(t, threads)) {
    char why[96];
    snprintf(why, sizeof why, "out of memory for the training scratch of %d threads", threads);
    return prepare_failed(t, it, why);
  }
  ccsim_error why = {0};
  if (tblas_reserve(threads, &why)) return prepare_failed(t, it, why.msg); /* OpenBLAS under ulimit -v: a message, not a hang */
  return 0;
}

double trainer_begin_iteration(trainer *t, uint32_t w, uint32_t it) {
  /* Not prepared for this (no scratch for this lane, a failed status):
   * trainer_prepare_iteration's failure stops the run before its workers
   * begin, so this is a guard.  The row is zeroed, not left as it was:
   * grads is malloc'd, and an uncomputed row once fed the compressors
   * whatever the heap held (a -Inf there ended a run with a message about
   * the gradient instead of the cause). */
  if (t->status || t->nscr <= comm_lane()) {
    memset(t->grads + (size_t)w * t->np, 0, t->np * sizeof *t->grads);
    return 0.0;
  }
  grad_work k = {t, w, it, 0, 0};
  comm_work(grad_work_run, &k, t->c->batch * t->np);
  t->wloss[w] = k.loss; /* summed in rank order by trainer_settle_iteration */
  t->wbad[w] = (char)(k.bad ? (isfinite(k.loss) ? 2 : 1) : 0);
  return 0.0; /* no device time model yet */
}

void trainer_settle_iteration(trainer *t, uint32_t it) {
  for (int w = 0; w < t->e->workers; w++) {
    t->loss_sum[it] += t->wloss[w];
    if (t->wbad[w]) diverged(t, t->wbad[w] == 2 ? "gradient" : "loss", (uint32_t)w, it);
    t->wloss[w] = 0;
    t->wbad[w] = 0;
  }
}

void trainer_gradient(const trainer *t, uint32_t w, size_t lo, size_t hi, float *out) {
  memcpy(out, t->grads + (size_t)w * t->np + lo, (hi - lo) * sizeof *out);
}

void trainer_end_iteration(trainer *t, uint32_t w, uint32_t it, const float *agg) {
  (void)w;
  if (t->pending_it != (long)it) {
    /* The first worker to end `it`: update it - 1 was applied when it began. */
    assert(t->pending_it == (long)it - 1 && t->applied == (long)it);
    memcpy(t->pending, agg, t->np * sizeof *agg);
    t->pending_it = it;
    double n2 = 0;
    for (size_t i = 0; i < t->np; i++) n2 += (double)agg[i] * agg[i];
    t->pending_norm = sqrt(n2);
  } else if (memcmp(t->pending, agg, t->np * sizeof *agg) != 0) {
    double d2 = 0;
    for (size_t i = 0; i < t->np; i++) {
      const double d = (double)agg[i] - t->pending[i];
      d2 += d * d;
    }
    const double rel = t->pending_norm > 0 ? sqrt(d2) / t->pending_norm : INFINITY;
    if (rel > t->spread) t->spread = rel;
    if (rel > TRAINER_MAX_SPREAD && !t->status) {
      t->status = CCSIM_ERR_RUNTIME;
      snprintf(t->msg, sizeof t->msg,
               "%s: worker %u's aggregate at iteration %u differs from the one applied by %.3g "
               "(relative L2; collective %s): more than summation order explains",
               t->e->file, w, it, rel, t->e->collective->name);
    }
  }
}

void trainer_finish(trainer *t) {
  const int T = t->e->iterations;
  if (T > 0 && t->applied < T && t->pending_it == T - 1) apply_update(t, (uint32_t)T - 1);
  for (int i = 0; i < T; i++) t->rows[i].train_loss = t->loss_sum[i] / t->e->workers;
}
