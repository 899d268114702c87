/* src/train/model.h — the models ccsim's workers train: softmax regression
 * and a multi-layer perceptron (ReLU hidden layers, softmax cross-entropy).
 *
 * All parameters live in ONE flat fp32 vector theta, so a worker's gradient is
 * one vector for the compressors and collectives.  The layer table lists its
 * tensors in forward order, a weight then a bias per dense layer:
 *
 *   theta: | fc1.weight | fc1.bias | fc2.weight | fc2.bias | ... | fcL.bias |
 *           in_1 x out_1   out_1     in_2 x out_2   out_2            classes
 *
 * A weight is stored row-major as (inputs x outputs), so a forward pass over
 * a mini-batch X (batch x inputs, row-major) is Z = X W + 1 b^T, one GEMM per
 * layer (GSL's CBLAS cblas_sgemm).  Softmax regression is the L = 1 case,
 * its tensors named linear.weight and linear.bias.
 *
 * The model object is immutable after tmodel_new and may be shared by any
 * number of callers; all scratch memory lives in a tmodel_ws, one per caller
 * (one per simulated worker, say), so callers never share scratch.
 *
 * Ownership: _new returns a new object, _free accepts NULL; pointer
 * parameters are borrowed.  Errors are returned in a ccsim_error, never
 * printed. */
#ifndef CCSIM_TRAIN_MODEL_H
#define CCSIM_TRAIN_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "train_spec.h" /* tmodel_spec, tlayer_spec */

/* The named convolutional networks, for images of c x h x w and `classes`:
 *   "lenet5"  LeNet-5 as LeCun et al. 1998 lay it out, with ReLU and
 *             max-pooling: conv 5x5 6 (pad 2) - pool - conv 5x5 16 - pool -
 *             fc 120 - fc 84 - fc classes (61,706 parameters on 1 x 28 x 28)
 *   "cnn"     a wider network: conv 3x3 32 (pad 1) - pool - conv 3x3 64
 *             (pad 1) - pool - fc 256 - fc classes (824,458 parameters on
 *             1 x 28 x 28)
 * Returns 0, or -1 for an unknown name. */
int tmodel_preset(const char *name, size_t c, size_t h, size_t w, size_t classes,
                  tmodel_spec *spec);

/* One tensor of theta: theta[offset .. offset+count) is a rows x cols
 * row-major matrix (a bias has rows = 1; a convolution weight is out
 * channels x (in channels x k x k)).  fwd_flops and bwd_flops: its work per
 * sample, for the time model.  A weight costs 2 flops per multiply-add
 * forward (dense: 2 in out; conv: 2 out (in k k) H_out W_out) and twice that
 * backward (its gradient and the input gradient), except the first
 * parameter layer, whose input gradient is not computed (once); a bias costs
 * 2 per output element forward (the add and the ReLU or the softmax's
 * share) and 1 backward (the sum over the batch); a max-pooling's
 * comparisons (one per input element forward, one scatter per output
 * backward) are charged to the bias of the layer it pools.  The usual 1:2
 * forward:backward count, e.g. Kaplan et al. 2020 (arXiv:2001.08361) 2.1. */
typedef struct tmodel_tensor {
  const char *name; /* "fc1.weight", "fc1.bias", "conv1.weight", ...; owned by the model */
  size_t offset, count, rows, cols;
  double fwd_flops, bwd_flops;
} tmodel_tensor;

typedef struct tmodel tmodel;
typedef struct tmodel_ws tmodel_ws;

/* A model of the given shape, or NULL with err set when the spec is invalid
 * (kind and hidden count disagree, a zero width, fewer than 2 classes, a
 * weight tensor of 2^31 elements or more: GSL's CBLAS indexes with int). */
tmodel *tmodel_new(const tmodel_spec *spec, ccsim_error *err);
void tmodel_free(tmodel *m);

const tmodel_spec *tmodel_get_spec(const tmodel *m);

/* Length of theta (and of every gradient). */
size_t tmodel_nparams(const tmodel *m);

/* The tensor table in forward order; *count = 2 x (dense layers).  The array
 * is owned by the model and lives as long as it. */
const tmodel_tensor *tmodel_layers(const tmodel *m, size_t *count);

/* theta[nparams] = a fresh initialisation, a pure function of (shape, seed):
 * weights of layers followed by a ReLU are He-normal, N(0, 2 / fan_in)
 * (He et al., "Delving Deep into Rectifiers", ICCV 2015); the output layer's
 * weights are Glorot-uniform, U(-a, a) with a = sqrt(6 / (fan_in + fan_out))
 * (Glorot & Bengio, AISTATS 2010); biases are zero.  Element t of layer l is
 * drawn from counter-based stream (seed, l) at counter t, so the result does
 * not depend on anything but the shape and the seed. */
void tmodel_init(const tmodel *m, float *theta, uint64_t seed);

/* Scratch for one caller, sized for mini-batches of up to max_batch samples
 * (larger batches are processed in chunks of max_batch, with the same
 * result up to float summation order).  NULL with err set when out of
 * memory, max_batch is 0, or max_batch x the widest layer reaches 2^31. */
tmodel_ws *tmodel_ws_new(const tmodel *m, size_t max_batch, ccsim_error *err);
void tmodel_ws_free(tmodel_ws *ws);

/* The mean softmax cross-entropy over the batch, and grad[nparams] = its
 * gradient with respect to theta.  X is batch x inputs row-major, labels y
 * in [0, classes).  batch >= 1.  ws must have been made for m. */
double tmodel_loss_grad(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X,
                        const int *y, size_t batch, float *grad);

/* logits[n x classes] = the network's outputs (before the softmax). */
void tmodel_forward(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X, size_t n,
                    float *logits);

/* The mean cross-entropy over n samples; *accuracy (if not NULL) = the
 * fraction whose argmax logit (lowest index on ties) equals the label. */
double tmodel_evaluate(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X,
                       const int *y, size_t n, double *accuracy);

/* The index of the largest of v[0..n) (the lowest on ties). */
size_t tmodel_argmax(const float *v, size_t n);

/* Cross-entropy of one row of logits z[c] with label y; if d is not NULL,
 * d[k] = scale * (softmax(z)_k - [k == y]).  Sums in double. */
double tmodel_xent(const float *z, size_t c, int y, float *d, double scale);

#endif
