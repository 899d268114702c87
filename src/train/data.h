/* src/train/data.h — datasets for ccsim's trained models, their train/test
 * split, their sharding across workers, and mini-batch sampling.
 *
 * Datasets:
 *   - digits: the UCI optical-recognition-of-handwritten-digits set as
 *     shipped at workloads/data/digits.csv.gz (1797 samples, 8 x 8 pixels
 *     with values 0..16, 10 classes; see workloads/data/README.md), features
 *     scaled to [0, 1] by dividing by 16.
 *   - teacher: a synthetic task with a known optimum.  Inputs are i.i.d.
 *     standard normal, labels the argmax of a fixed random teacher network
 *     (linear or MLP), so a student of at least the teacher's shape can reach
 *     100% accuracy.  The spec's seed determines every bit of it.
 *
 * Every random choice (split, shards, batches, teacher) is a pure function of
 * a seed and a coordinate through compressors/ccomp/rng.h: the same seed gives the
 * same split, shards and batches on every run, in any call order.
 *
 * Ownership: _new / loader functions return new objects, _free accepts NULL,
 * pointer parameters are borrowed.  Errors are returned in a ccsim_error. */
#ifndef CCSIM_TRAIN_DATA_H
#define CCSIM_TRAIN_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "train/model.h"
#include "train_spec.h" /* the datasets' and shards' specs */

/* n samples of `features` floats (row-major X) with labels y in [0, classes). */
typedef struct tdataset {
  size_t n, features, classes;
  float *X; /* n x features */
  int *y;   /* n */
} tdataset;

void tdata_free(tdataset *d);

/* The digits file (gzip or plain CSV): one sample per line, 64 integers in
 * 0..16 then the label 0..9, comma-separated, each line ending in a newline.
 * Errors name the file and line: a missing file, a truncated or corrupt
 * gzip stream, a line with a wrong field count, a non-integer or out-of-range
 * value, an empty file. */
tdataset *tdata_load_digits(const char *path, ccsim_error *err);

/* One idx pair (idx.c): an image file of unsigned bytes with 3 dimensions
 * (n x rows x cols) and a label file with 1 (n), gzip or plain.  Features are
 * the pixels scaled to [0, 1] (divided by 255), labels must be in 0..9.
 * Errors name the file and what was expected: a bad magic (not 00 00 08 D),
 * a dimension of size 0, sizes whose product overflows (over 2^40 bytes),
 * a file cut short or longer than its header says, a corrupt gzip stream,
 * label and image counts that differ, a label out of range. */
tdataset *tdata_load_idx(const char *images, const char *labels, ccsim_error *err);

/* Fashion-MNIST (Xiao, Rasul & Vollgraf, arXiv 1708.07747) from dir, laid
 * out as Debian's dataset-fashion-mnist installs it
 * (/usr/share/datasets/fashion-mnist): train-{images-idx3,labels-idx1}-
 * ubyte.gz (60,000 images of 28 x 28) into *train and t10k-* (10,000) into
 * *test, its published split. */
int tdata_load_fashion_mnist(const char *dir, tdataset **train, tdataset **test,
                             ccsim_error *err);

/* The rows of d whose ranks in a seeded permutation are below n, in
 * ascending row order: a uniform random subset of n rows (n <= d->n). */
tdataset *tdata_take(const tdataset *d, size_t n, uint64_t seed, ccsim_error *err);

/* A synthetic Zipf language (text.c), as ttext_spec (train_spec.h) says. */
tdataset *tdata_zipf_text(const ttext_spec *spec, ccsim_error *err);

/* Next-word samples from a real text corpus (corpus.c): the V most
 * frequent words plus <unk> (id V), `context` preceding words one-hot in
 * blocks of V + 1 features, the next word's id the label; `samples`
 * positions drawn by a fixed-key permutation.  Errors name the file: one
 * that cannot be read, a corrupt gzip stream, fewer positions than samples,
 * fewer distinct words than V (tcorpus_spec: train_spec.h). */
tdataset *tdata_corpus_text(const char *path, const tcorpus_spec *spec, ccsim_error *err);

/* n samples: X[i][j] = standard normal (stream (seed, "x"), counter
 * i * inputs + j); the teacher's weights = tmodel_init(seed'), seed' derived
 * from seed, then each class's logit is standardised over the generated
 * inputs (output weight column and bias rescaled to zero mean and unit
 * variance, so that no class dominates: a random ReLU network's logits have
 * class-dependent offsets and spreads); y[i] = argmax of the final teacher's
 * logits (lowest index on ties).
 * If teacher / theta are not NULL they receive the teacher model and its
 * parameters (new references: tmodel_free, free). */
tdataset *tdata_teacher(const tteacher_spec *spec, tmodel **teacher, float **theta,
                        ccsim_error *err);

/* A new dataset holding rows idx[0..n) of d, in that order. */
tdataset *tdata_subset(const tdataset *d, const size_t *idx, size_t n, ccsim_error *err);

/* Rows idx[0..n) of d into X (n x features) and y (n): a mini-batch. */
void tdata_gather(const tdataset *d, const size_t *idx, size_t n, float *X, int *y);

/* Count of samples of each class: counts[classes]. */
void tdata_class_counts(const tdataset *d, size_t *counts);

/* A seeded permutation of d's rows; the first round(n * test_fraction) of
 * them, in ascending row order, form *test, the others *train (ascending).
 * test_fraction in [0, 1); both parts must be non-empty. */
int tdata_split(const tdataset *d, double test_fraction, uint64_t seed, tdataset **train,
                tdataset **test, ccsim_error *err);

/* A keyed pseudo-random permutation of [0, n), evaluated one element at a
 * time: tperm_at(p, i) for i in [0, n) visits every value once.  (A 6-round
 * Feistel network on the smallest even-bit power of two >= n, with cycle
 * walking: Black & Rogaway, "Ciphers with Arbitrary Finite Domains",
 * CT-RSA 2002; fewer than 4 rounds of the network per element on average.) */
typedef struct tperm {
  size_t n;
  unsigned half_bits;   /* the network permutes [0, 4^half_bits) */
  uint64_t round_key[6];
} tperm;

void tperm_init(tperm *p, size_t n, uint64_t key);
size_t tperm_at(const tperm *p, size_t i);


/* Worker w's samples are index[offset[w] .. offset[w+1]), rows of the
 * dataset the shards were made for, in ascending order. */
typedef struct tshards {
  uint32_t workers;
  size_t *offset; /* workers + 1 */
  size_t *index;  /* offset[workers] = n */
} tshards;

/* Shards of d across `workers`.
 *   iid: rows are permuted by the seed and dealt round-robin.
 *   noniid: the pathological non-IID partition of McMahan et al.,
 *     "Communication-Efficient Learning of Deep Networks from Decentralized
 *     Data", AISTATS 2017, Sec. 3: sort the rows by label (ties in a seeded
 *     random order), cut the sorted sequence into workers x shards_per_worker
 *     contiguous shards of near-equal size, and give each worker
 *     shards_per_worker of them chosen by a seeded permutation (the paper:
 *     100 clients, 2 shards of 300 each).  A shard no longer than the
 *     smallest class spans at most 2 labels, so a worker sees at most
 *     2 x shards_per_worker labels.
 * Every worker must get at least one row. */
tshards *tshards_new(const tdataset *d, uint32_t workers, enum tshard_kind kind,
                     size_t shards_per_worker, uint64_t seed, ccsim_error *err);
void tshards_free(tshards *s);

static inline size_t tshards_size(const tshards *s, uint32_t w) {
  return s->offset[w + 1] - s->offset[w];
}

/* idx[0..batch) = the rows of worker w's mini-batch at `iteration`: a pure
 * function of (seed, w, iteration, batch, the shard).  The worker's sample
 * stream is an endless sequence of epochs, each a fresh seeded permutation of
 * its shard; iteration t takes stream positions [t * batch, (t+1) * batch),
 * so within an epoch no row repeats and every row is visited once per epoch. */
void tshards_batch(const tshards *s, uint64_t seed, uint32_t w, uint64_t iteration, size_t batch,
                   size_t *idx);

#endif
