/* src/data/train_section.c — the "train" section (gradients.source "train"):
 * dataset, model, shards, batches, optimizer, evaluation. */
#include "data/train_section.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input/resolve.h"
#include "timemodel/profile.h"
#include "train/data.h"
#include "train/model.h"

/* An array of 0 .. TMODEL_MAX_HIDDEN layer widths (min_len .. ). */
static int read_widths(cfg_reader *rd, json_t *obj, const char *path, const char *key, size_t min_len,
                       json_t *def, size_t *count, size_t *w) {
  char p[256], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, def);
  if (!json_is_array(v) || json_array_size(v) < min_len || json_array_size(v) > TMODEL_MAX_HIDDEN)
    return cfg_fail(rd, p, "expected an array of %zu to %d layer widths (positive integers), got %s",
                min_len, TMODEL_MAX_HIDDEN, cfg_show(v, b, sizeof b));
  *count = json_array_size(v);
  for (size_t i = 0; i < *count; i++) {
    json_t *x = json_array_get(v, i);
    if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > (1 << 24))
      return cfg_fail(rd, p, "element %zu: expected a layer width in [1, %d], got %s", i, 1 << 24,
                  cfg_show(x, b, sizeof b));
    w[i] = (size_t)json_integer_value(x);
  }
  return 0;
}

/* The trained model's tensors as the time model's layer table (forward
 * order, per sample, with the flops the model counts: train/model.h). */
static model_profile *trained_layers(const tmodel *m) {
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  model_profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->name = strdup("train.model");
  p->source = strdup("the trained model (train.model)");
  p->input = strdup("one training sample");
  p->layers = calloc(nt, sizeof *p->layers);
  p->nlayers = p->layers ? nt : 0; /* profile_free frees what was made */
  int ok = p->name && p->source && p->input && p->layers;
  for (size_t i = 0; ok && i < nt; i++) {
    profile_layer *l = &p->layers[i];
    l->name = strdup(t[i].name);
    l->params = t[i].count;
    l->fwd_flops = t[i].fwd_flops;
    l->bwd_flops = t[i].bwd_flops;
    p->total_params += l->params;
    p->total_fwd_flops += l->fwd_flops;
    p->total_bwd_flops += l->bwd_flops;
    ok = l->name != NULL;
  }
  if (!ok) {
    profile_free(p);
    return NULL;
  }
  return p;
}

/* train.dataset "zipf-text" (train/text.c): train.text {vocab, samples,
 * zipf, follow}; the inputs are one-hot tokens, the classes the vocabulary. */
static int read_train_text(cfg_reader *rd, experiment *e, json_t *t) {
  train_config *c = &e->train;
  int rc;
  long long x;
  char b[80];
  if (json_object_get(t, "teacher")) return cfg_fail(rd, "train.teacher", "only for dataset \"teacher\"");
  if (json_object_get(t, "data"))
    return cfg_fail(rd, "train.data", "not for \"zipf-text\" (the language is generated)");
  json_t *ts = json_object_get(t, "text");
  if (!ts) {
    json_object_set_new(t, "text", json_object());
    ts = json_object_get(t, "text");
  }
  if (!json_is_object(ts))
    return cfg_fail(rd, "train.text", "expected an object, got %s", cfg_show(ts, b, sizeof b));
  static const char *const known[] = {"vocab", "samples", "zipf", "follow", NULL};
  if ((rc = cfg_keys(rd, ts, "train.text", known, NULL, NULL, NULL))) return rc;
  ttext_spec *sp = &c->text;
  if ((rc = cfg_int(rd, ts, "train.text", "vocab", 0, 1000, 2, 1 << 16, &x))) return rc;
  sp->vocab = (size_t)x;
  if ((rc = cfg_int(rd, ts, "train.text", "samples", 0, 10000, 2, 1 << 22, &x))) return rc;
  sp->samples = (size_t)x;
  if ((rc = cfg_real(rd, ts, "train.text", "zipf", 1.1, 0.01, 10.0, &sp->zipf))) return rc;
  if ((rc = cfg_real(rd, ts, "train.text", "follow", 0.5, 0.0, 1.0, &sp->follow))) return rc;
  sp->seed = e->seed;
  c->model.inputs = sp->vocab;
  c->model.classes = sp->vocab;
  return 0;
}

/* train.dataset "corpus-text" (train/corpus.c): train.data (a plain or
 * gzip text file, by default the King James Bible as scripts/kjv-corpus.sh
 * writes it), train.corpus {vocab, context, samples}; the inputs are
 * `context` one-hot words, the classes the vocabulary and <unk>. */
static int read_train_corpus(cfg_reader *rd, experiment *e, json_t *t) {
  train_config *c = &e->train;
  int rc;
  long long x;
  char b[80];
  const char *s;
  if (json_object_get(t, "teacher")) return cfg_fail(rd, "train.teacher", "only for dataset \"teacher\"");
  if ((rc = cfg_string(rd, t, "train", "data", TCORPUS_DEFAULT_FILE, &s))) return rc;
  if ((rc = exp_resolve_data(rd, e, "train.data", s, &c->data))) return rc;
  json_t *ts = json_object_get(t, "corpus");
  if (!ts) {
    json_object_set_new(t, "corpus", json_object());
    ts = json_object_get(t, "corpus");
  }
  if (!json_is_object(ts))
    return cfg_fail(rd, "train.corpus", "expected an object, got %s", cfg_show(ts, b, sizeof b));
  static const char *const known[] = {"vocab", "context", "samples", NULL};
  if ((rc = cfg_keys(rd, ts, "train.corpus", known, NULL, NULL, NULL))) return rc;
  tcorpus_spec *sp = &c->corpus;
  if ((rc = cfg_int(rd, ts, "train.corpus", "vocab", 0, 1000, 1, 1 << 16, &x))) return rc;
  sp->vocab = (size_t)x;
  if ((rc = cfg_int(rd, ts, "train.corpus", "context", 0, 1, 1, TCORPUS_MAX_CONTEXT, &x))) return rc;
  sp->context = (size_t)x;
  if ((rc = cfg_int(rd, ts, "train.corpus", "samples", 0, 20000, 2, 1 << 22, &x))) return rc;
  sp->samples = (size_t)x;
  c->model.inputs = sp->context * (sp->vocab + 1);
  c->model.classes = sp->vocab + 1;
  return 0;
}

/* train.dataset "fashion-mnist": train.data (the directory of the idx
 * files), train_samples and test_samples (0: all; the subsets are seeded
 * draws without replacement, train/data.h tdata_take); the published
 * train/test split replaces test_fraction. */
static int read_train_fashion(cfg_reader *rd, experiment *e, json_t *t) {
  train_config *c = &e->train;
  const char *s;
  long long x;
  int rc;
  if (json_object_get(t, "teacher")) return cfg_fail(rd, "train.teacher", "only for dataset \"teacher\"");
  if (json_object_get(t, "test_fraction"))
    return cfg_fail(rd, "train.test_fraction", "not for \"fashion-mnist\": it has its own test set "
                "(train.test_samples takes a subset of it)");
  if ((rc = cfg_string(rd, t, "train", "data", "/usr/share/datasets/fashion-mnist", &s))) return rc;
  if ((rc = exp_resolve_data(rd, e, "train.data", s, &c->data))) return rc;
  /* the four files the loader reads (train/idx.c) */
  static const char *const parts[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                      "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
  for (int k = 0; k < 4; k++) {
    char f[4200];
    snprintf(f, sizeof f, "%s/%s", c->data, parts[k]);
    if ((rc = experiment_add_input(e, "training data", f, "train.data", rd->err))) return rc;
  }
  if ((rc = cfg_int(rd, t, "train", "train_samples", 0, 0, 0, 60000, &x))) return rc;
  c->train_samples = (size_t)x;
  if ((rc = cfg_int(rd, t, "train", "test_samples", 0, 0, 0, 10000, &x))) return rc;
  c->test_samples = (size_t)x;
  c->model.inputs = 28 * 28;
  c->model.classes = 10;
  return 0;
}

/* The "train" section (gradients.source "train"): dataset, model, shards,
 * batches, optimizer, evaluation.  *nparams = the model's parameter count. */
int exp_train(cfg_reader *rd, experiment *e, json_t *root, size_t *nparams) {
  int rc = 0;
  json_t *t = cfg_object(rd, root, "", "train", &rc);
  if (!t) return rc;
  train_config *c = &e->train;
  static const char *const known[] = {"dataset", "data", "teacher", "model", "shards",
                                      "shards_per_worker", "batch", "test_fraction", "optimizer",
                                      "eval_every", "target_accuracy", "train_samples",
                                      "test_samples", "text", "corpus", NULL};
  if ((rc = cfg_keys(rd, t, "train", known, NULL, NULL, NULL))) return rc;
  static const char *const datasets[] = {"digits",    "teacher",     "fashion-mnist",
                                         "zipf-text", "corpus-text", NULL};
  const char *s;
  int i;
  long long x;
  if ((rc = cfg_string(rd, t, "train", "dataset", "digits", &s))) return rc;
  if ((rc = cfg_one_of(rd, "train.dataset", s, datasets, &i))) return rc;
  c->dataset = (enum train_dataset)i;
  if (c->dataset != TRAIN_FASHION)
    for (const char *const *k = (const char *const[]){"train_samples", "test_samples", NULL}; *k; k++)
      if (json_object_get(t, *k)) {
        char p[64];
        cfg_join(p, sizeof p, "train", *k);
        return cfg_fail(rd, p, "only for dataset \"fashion-mnist\"");
      }
  if (c->dataset != TRAIN_TEXT && json_object_get(t, "text"))
    return cfg_fail(rd, "train.text", "only for dataset \"zipf-text\"");
  if (c->dataset != TRAIN_CORPUS && json_object_get(t, "corpus"))
    return cfg_fail(rd, "train.corpus", "only for dataset \"corpus-text\"");
  if (c->dataset == TRAIN_FASHION) {
    if ((rc = read_train_fashion(rd, e, t))) return rc;
  } else if (c->dataset == TRAIN_TEXT) {
    if ((rc = read_train_text(rd, e, t))) return rc;
  } else if (c->dataset == TRAIN_CORPUS) {
    if ((rc = read_train_corpus(rd, e, t))) return rc;
  } else if (c->dataset == TRAIN_DIGITS) {
    if (json_object_get(t, "teacher"))
      return cfg_fail(rd, "train.teacher", "only for dataset \"teacher\"");
    if ((rc = cfg_string(rd, t, "train", "data", "workloads/data/digits.csv.gz", &s))) return rc;
    if ((rc = exp_resolve_data(rd, e, "train.data", s, &c->data))) return rc;
    if ((rc = experiment_add_input(e, "training data", c->data, "train.data", rd->err))) return rc;
    c->model.inputs = 64; /* 8 x 8 pixels, 10 digits: data.h */
    c->model.classes = 10;
  } else {
    if (json_object_get(t, "data"))
      return cfg_fail(rd, "train.data", "only for datasets \"digits\", \"fashion-mnist\" and \"corpus-text\" (the "
                  "teacher task is generated)");
    json_t *ts = json_object_get(t, "teacher");
    if (!ts) {
      json_object_set_new(t, "teacher", json_object());
      ts = json_object_get(t, "teacher");
    }
    char b[80];
    if (!json_is_object(ts))
      return cfg_fail(rd, "train.teacher", "expected an object, got %s", cfg_show(ts, b, sizeof b));
    static const char *const tknown[] = {"samples", "inputs", "classes", "hidden", NULL};
    if ((rc = cfg_keys(rd, ts, "train.teacher", tknown, NULL, NULL, NULL))) return rc;
    tteacher_spec *sp = &c->teacher;
    if ((rc = cfg_int(rd, ts, "train.teacher", "samples", 0, 6000, 2, 1 << 24, &x))) return rc;
    sp->samples = (size_t)x;
    if ((rc = cfg_int(rd, ts, "train.teacher", "inputs", 0, 20, 1, 1 << 16, &x))) return rc;
    sp->inputs = (size_t)x;
    if ((rc = cfg_int(rd, ts, "train.teacher", "classes", 0, 5, 2, 1 << 16, &x))) return rc;
    sp->classes = (size_t)x;
    if ((rc = read_widths(rd, ts, "train.teacher", "hidden", 0, json_pack("[i]", 32), &sp->nhidden,
                          sp->hidden)))
      return rc;
    sp->seed = e->seed;
    c->model.inputs = sp->inputs;
    c->model.classes = sp->classes;
  }

  json_t *m = json_object_get(t, "model");
  char b[80];
  if (!m) {
    json_object_set_new(t, "model", json_object());
    m = json_object_get(t, "model");
  }
  if (!json_is_object(m)) return cfg_fail(rd, "train.model", "expected an object, got %s", cfg_show(m, b, sizeof b));
  static const char *const mknown[] = {"kind", "hidden", NULL};
  if ((rc = cfg_keys(rd, m, "train.model", mknown, NULL, NULL, NULL))) return rc;
  static const char *const kinds[] = {"softmax", "mlp", "lenet5", "cnn", NULL};
  if ((rc = cfg_string(rd, m, "train.model", "kind", "mlp", &s))) return rc;
  if ((rc = cfg_one_of(rd, "train.model.kind", s, kinds, &i))) return rc;
  c->model.kind = i < 2 ? (enum tmodel_kind)i : TMODEL_CNN;
  if (c->model.kind == TMODEL_CNN) {
    if (json_object_get(m, "hidden"))
      return cfg_fail(rd, "train.model.hidden", "only for kind \"mlp\" (%s has fixed layers)", s);
    if (c->dataset != TRAIN_FASHION)
      return cfg_fail(rd, "train.model.kind", "\"%s\" needs images: dataset \"fashion-mnist\"", s);
    const size_t classes = c->model.classes;
    tmodel_preset(s, 1, 28, 28, classes, &c->model);
  } else if (c->model.kind == TMODEL_SOFTMAX) {
    json_t *h = json_object_get(m, "hidden");
    if (h && !(json_is_array(h) && json_array_size(h) == 0))
      return cfg_fail(rd, "train.model.hidden", "softmax regression has no hidden layers; use kind \"mlp\"");
    c->model.nhidden = 0;
  } else if ((rc = read_widths(rd, m, "train.model", "hidden", 1, json_pack("[i]", 128),
                               &c->model.nhidden, c->model.hidden))) {
    return rc;
  }
  ccsim_error merr = {0};
  tmodel *probe = tmodel_new(&c->model, &merr);
  if (!probe) return cfg_fail(rd, "train.model", "%s", merr.msg);
  *nparams = tmodel_nparams(probe);
  e->model.layers = trained_layers(probe);
  tmodel_free(probe);
  if (!e->model.layers) return cfg_oom(rd, "train.model");

  static const char *const shard_kinds[] = {"iid", "noniid", NULL};
  if ((rc = cfg_string(rd, t, "train", "shards", "iid", &s))) return rc;
  if ((rc = cfg_one_of(rd, "train.shards", s, shard_kinds, &i))) return rc;
  c->shards = (enum tshard_kind)i;
  if (c->shards == TSHARD_NONIID) {
    if ((rc = cfg_int(rd, t, "train", "shards_per_worker", 0, 2, 1, 1 << 20, &x))) return rc;
    c->shards_per_worker = (size_t)x;
  } else if (json_object_get(t, "shards_per_worker")) {
    return cfg_fail(rd, "train.shards_per_worker", "only for shards \"noniid\"");
  }
  if ((rc = cfg_int(rd, t, "train", "batch", 0, 32, 1, 1 << 20, &x))) return rc;
  c->batch = (size_t)x;
  if (c->dataset != TRAIN_FASHION &&
      (rc = cfg_real(rd, t, "train", "test_fraction", 0.2, 1e-9, 0.99, &c->test_fraction)))
    return rc;

  json_t *o = json_object_get(t, "optimizer");
  if (!o) {
    json_object_set_new(t, "optimizer", json_object());
    o = json_object_get(t, "optimizer");
  }
  if (!json_is_object(o))
    return cfg_fail(rd, "train.optimizer", "expected an object, got %s", cfg_show(o, b, sizeof b));
  static const char *const oknown[] = {"lr", "momentum", "weight_decay", NULL};
  if ((rc = cfg_keys(rd, o, "train.optimizer", oknown, NULL, NULL, NULL))) return rc;
  if ((rc = cfg_real(rd, o, "train.optimizer", "lr", 0.1, 1e-12, 1e3, &c->lr))) return rc;
  if ((rc = cfg_real(rd, o, "train.optimizer", "momentum", 0.9, 0.0, 0.9999, &c->momentum))) return rc;
  if ((rc = cfg_real(rd, o, "train.optimizer", "weight_decay", 0.0, 0.0, 1.0, &c->weight_decay)))
    return rc;
  if ((rc = cfg_int(rd, t, "train", "eval_every", 0, 1, 1, 1 << 30, &x))) return rc;
  c->eval_every = (int)x;
  if ((rc = cfg_real(rd, t, "train", "target_accuracy", 0.95, 0.0, 1.0, &c->target_accuracy)))
    return rc;
  return 0;
}
