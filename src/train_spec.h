/* src/train_spec.h — what the "train" section of an experiment asks for:
 * the model (its kind, widths, layers), the synthetic datasets' and the
 * corpus' parameters, how the training set is split across workers.  Plain
 * types, shared by the resolved experiment (experiment.h) and the trainer
 * that builds from them (train/model.h, train/data.h), so the experiment
 * needs nothing of train/. */
#ifndef CCSIM_TRAIN_SPEC_H
#define CCSIM_TRAIN_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define TMODEL_MAX_HIDDEN 8

#define TMODEL_MAX_LAYERS 12

/* TMODEL_CNN: a convolutional network (cnn.c) given as a layer list. */
enum tmodel_kind { TMODEL_SOFTMAX, TMODEL_MLP, TMODEL_CNN };

/* One layer of a TMODEL_CNN, in forward order:
 *   TLAYER_CONV  out channels, k x k kernel, stride 1, zero padding pad
 *   TLAYER_POOL  2 x 2 max-pooling, stride 2 (odd sizes drop the last row/col)
 *   TLAYER_FC    out units (the first one flattens the feature map, c-h-w order)
 * relu: a ReLU follows (conv and fc; the last layer, an fc giving the
 * logits, has none). */
enum tlayer_kind { TLAYER_CONV, TLAYER_POOL, TLAYER_FC };
typedef struct tlayer_spec {
  enum tlayer_kind kind;
  size_t out, k, pad;
  int relu;
} tlayer_spec;

typedef struct tmodel_spec {
  enum tmodel_kind kind;
  size_t inputs;  /* features per sample (cnn: channels x height x width) */
  size_t classes; /* >= 2 */
  size_t nhidden; /* hidden layers: 0 for softmax, 1..TMODEL_MAX_HIDDEN for mlp */
  size_t hidden[TMODEL_MAX_HIDDEN]; /* their widths, first to last */
  /* cnn only: the input image (channels x height x width, c-h-w order per
   * sample) and the layers; the last must be an fc of `classes` units. */
  size_t channels, height, width;
  size_t nlayers;
  tlayer_spec layer[TMODEL_MAX_LAYERS];
} tmodel_spec;

/* A synthetic Zipf language (text.c): `samples` (one-hot token, next
 * token) pairs over a vocabulary of `vocab`, Zipf exponent `zipf`, the
 * next token the current one's fixed successor with probability `follow`. */
typedef struct ttext_spec {
  size_t vocab, samples;
  double zipf, follow;
  uint64_t seed;
} ttext_spec;

/* The corpus-text dataset (train/corpus.c): the V most frequent words, the
 * words of context, the samples drawn (train/data.h describes it). */
#define TCORPUS_MAX_CONTEXT 8
/* scripts/kjv-corpus.sh writes the King James Bible here (install-deps.sh) */
#define TCORPUS_DEFAULT_FILE "/usr/local/share/ccsim/kjv.txt"
typedef struct tcorpus_spec {
  size_t vocab, context, samples;
} tcorpus_spec;

/* The synthetic teacher task. */
typedef struct tteacher_spec {
  size_t samples;  /* n >= 1 */
  size_t inputs;   /* features per sample */
  size_t classes;  /* >= 2 */
  size_t nhidden;  /* teacher's hidden layers: 0 = linear teacher */
  size_t hidden[TMODEL_MAX_HIDDEN];
  uint64_t seed;
} tteacher_spec;

/* How a training set is split across workers. */
enum tshard_kind {
  TSHARD_IID,    /* a seeded shuffle dealt round-robin: sizes differ by <= 1 */
  TSHARD_NONIID, /* by label, as McMahan et al. 2017 (see tshards_new) */
};

#endif
