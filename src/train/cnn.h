/* src/train/cnn.h — convolutional networks (tmodel kind TMODEL_CNN), used
 * by model.c only: model.h's functions dispatch here for a cnn, and the
 * contracts are theirs (one flat theta, an immutable model, scratch in a
 * workspace per caller). */
#ifndef CCSIM_TRAIN_CNN_H
#define CCSIM_TRAIN_CNN_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "train/model.h"

typedef struct tcnn tcnn;
typedef struct tcnn_ws tcnn_ws;

/* A network of spec's layers, or NULL with err set (a layer that leaves no
 * output, a conv after an fc, a last layer that is not an fc of `classes`
 * units with no ReLU, a tensor of 2^31 elements or more). */
tcnn *tcnn_new(const tmodel_spec *spec, ccsim_error *err);
void tcnn_free(tcnn *c);
size_t tcnn_nparams(const tcnn *c);
const tmodel_tensor *tcnn_layers(const tcnn *c, size_t *count);
void tcnn_init(const tcnn *c, float *theta, uint64_t seed);

/* Scratch for chunks of up to max_batch samples. */
tcnn_ws *tcnn_ws_new(const tcnn *c, size_t max_batch, ccsim_error *err);
void tcnn_ws_free(tcnn_ws *ws);

/* The logits [b x classes] of b <= max_batch samples X [b x inputs]; the
 * pointer is into ws, valid until its next use. */
const float *tcnn_forward(const tcnn *c, tcnn_ws *ws, const float *theta, const float *X,
                          size_t b);

/* One chunk of b samples of a mean over `batch`: returns the chunk's summed
 * loss and writes (first) or adds its share of the gradient to grad. */
double tcnn_chunk_grad(const tcnn *c, tcnn_ws *ws, const float *theta, const float *X,
                       const int *y, size_t b, size_t batch, int first, float *grad);

#endif
