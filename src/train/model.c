/* src/train/model.c — softmax regression and MLP: forward and backward over a
 * mini-batch with GEMMs.
 *
 * Layer l (1..L) maps width[l-1] inputs to width[l] outputs; width[0] is the
 * input dimension, width[L] the class count.  For a chunk of b samples, with
 * A_0 = X and row-major (b x width) activations:
 *
 *   forward   Z_l = A_{l-1} W_l + 1 b_l^T       GEMM  (b x in)(in x out)
 *             A_l = relu(Z_l)  (l < L)
 *   loss      mean over the batch of logsumexp(Z_L) - Z_L[y]
 *   backward  D_L = (softmax(Z_L) - onehot(y)) / batch
 *             dW_l = A_{l-1}^T D_l                  GEMM  (in x b)(b x out)
 *             db_l = column sums of D_l
 *             D_{l-1} = (D_l W_l^T) .* [A_{l-1} > 0]  GEMM (b x out)(out x in)
 *
 * Speed with GSL's reference CBLAS: its sgemm skips a multiply-add row when
 * the scalar taken from the left operand is 0, so every GEMM here keeps the
 * sparse ReLU output (A or D) on the left: about half the work of a hidden
 * layer is skipped.  D_l W_l^T is computed as D_l (W_l^T) with W_l^T copied
 * out first (a no-transpose GEMM) because GSL's transposed-right-operand
 * path is a dot-product loop, 1.4 to 2.5 times slower than the others on the
 * development machine (bench/train_speed.c prints all three); end to end the
 * copy made a 784-1024-1024-10 gradient at batch 64 about 1.4 times faster,
 * with bit-identical results (both sum over the output index in order).
 */
#include "train/model.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/blas.h"
#include "train/cnn.h"
#include "variates.h"
#include "ccomp/rng.h"

#define MAX_LAYERS (TMODEL_MAX_HIDDEN + 1)
#define TAG_INIT 0x696e6974ull /* "init" */

struct tmodel {
  tmodel_spec spec;
  size_t layers;                 /* L dense layers */
  size_t width[MAX_LAYERS + 1];  /* width[0] = inputs, width[L] = classes */
  size_t woff[MAX_LAYERS + 1];   /* offset of W_l in theta (index l) */
  size_t boff[MAX_LAYERS + 1];   /* offset of b_l */
  size_t nparams;
  size_t max_width;  /* over width[1..L] and width[0] */
  size_t max_wt;     /* largest in x out over layers 2..L (transposed copies) */
  size_t act_total;  /* sum of width[1..L] */
  tmodel_tensor tensors[2 * MAX_LAYERS];
  char names[2 * MAX_LAYERS][24];
  tcnn *cnn; /* kind TMODEL_CNN: everything is there (cnn.c) */
};

struct tmodel_ws {
  const tmodel *m;
  size_t cap;                   /* max samples per chunk */
  float *act[MAX_LAYERS + 1];   /* act[l]: cap x width[l], l = 1..L (act[0] is X) */
  float *d, *d2;                /* cap x max_width: backward deltas, ping-pong */
  float *wt;                    /* max_wt: W_l^T */
  float *block;                 /* one allocation holding all of the above */
  tcnn_ws *cws;                 /* a cnn's workspace */
};

static int mul_ok(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return 0;
  *out = a * b;
  return 1;
}

tmodel *tmodel_new(const tmodel_spec *spec, ccsim_error *err) {
  if (spec->kind == TMODEL_CNN) {
    if (spec->classes < 2) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "model: need classes >= 2 (got %zu)", spec->classes);
      return NULL;
    }
    tmodel *m = calloc(1, sizeof *m);
    if (!m) {
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "model: out of memory");
      return NULL;
    }
    m->spec = *spec;
    m->cnn = tcnn_new(spec, err);
    if (!m->cnn) {
      free(m);
      return NULL;
    }
    m->nparams = tcnn_nparams(m->cnn);
    return m;
  }
  if (spec->kind == TMODEL_SOFTMAX && spec->nhidden != 0) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model: softmax regression has no hidden layers (got %zu)",
               spec->nhidden);
    return NULL;
  }
  if (spec->kind == TMODEL_MLP && (spec->nhidden < 1 || spec->nhidden > TMODEL_MAX_HIDDEN)) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model: an mlp needs 1..%d hidden layers (got %zu)",
               TMODEL_MAX_HIDDEN, spec->nhidden);
    return NULL;
  }
  if (spec->kind != TMODEL_SOFTMAX && spec->kind != TMODEL_MLP) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model: unknown kind %d", (int)spec->kind);
    return NULL;
  }
  if (spec->inputs < 1 || spec->classes < 2) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model: need inputs >= 1 and classes >= 2 (got %zu, %zu)",
               spec->inputs, spec->classes);
    return NULL;
  }
  tmodel *m = calloc(1, sizeof *m);
  if (!m) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "model: out of memory");
    return NULL;
  }
  m->spec = *spec;
  m->layers = spec->nhidden + 1;
  m->width[0] = spec->inputs;
  for (size_t l = 1; l < m->layers; l++) {
    if (spec->hidden[l - 1] < 1) {
      ccsim_fail(err, CCSIM_ERR_INPUT, "model: hidden layer %zu has width 0", l);
      free(m);
      return NULL;
    }
    m->width[l] = spec->hidden[l - 1];
  }
  m->width[m->layers] = spec->classes;
  size_t off = 0, acts = 0;
  m->max_width = m->width[0];
  for (size_t l = 1; l <= m->layers; l++) {
    size_t in = m->width[l - 1], out = m->width[l], w;
    /* GSL's CBLAS indexes a matrix with an int: keep every tensor below 2^31 */
    if (!mul_ok(in, out, &w) || w > INT_MAX || off > SIZE_MAX / 2 - w - out ||
        acts > SIZE_MAX / 2 - out) {
      ccsim_fail(err, CCSIM_ERR_INPUT,
                 "model: layer %zu (%zu x %zu) too large: a weight tensor must hold < 2^31 "
                 "elements",
                 l, in, out);
      free(m);
      return NULL;
    }
    if (l >= 2 && w > m->max_wt) m->max_wt = w;
    if (out > m->max_width) m->max_width = out;
    acts += out;
    const char *base = spec->kind == TMODEL_SOFTMAX ? "linear" : "fc";
    char idx[8] = "";
    if (spec->kind == TMODEL_MLP) snprintf(idx, sizeof idx, "%zu", l);
    size_t t = 2 * (l - 1);
    snprintf(m->names[t], sizeof m->names[t], "%s%s.weight", base, idx);
    snprintf(m->names[t + 1], sizeof m->names[t + 1], "%s%s.bias", base, idx);
    m->woff[l] = off;
    /* flops per sample: tmodel_flops in model.h */
    const double fw = 2.0 * (double)w;
    m->tensors[t] = (tmodel_tensor){m->names[t], off, w, in, out, fw, l == 1 ? fw : 2 * fw};
    off += w;
    m->boff[l] = off;
    m->tensors[t + 1] =
        (tmodel_tensor){m->names[t + 1], off, out, 1, out, 2.0 * (double)out, (double)out};
    off += out;
  }
  m->nparams = off;
  m->act_total = acts;
  return m;
}

void tmodel_free(tmodel *m) {
  if (!m) return;
  tcnn_free(m->cnn);
  free(m);
}

const tmodel_spec *tmodel_get_spec(const tmodel *m) { return &m->spec; }

size_t tmodel_nparams(const tmodel *m) { return m->nparams; }

const tmodel_tensor *tmodel_layers(const tmodel *m, size_t *count) {
  if (m->cnn) return tcnn_layers(m->cnn, count);
  *count = 2 * m->layers;
  return m->tensors;
}

void tmodel_init(const tmodel *m, float *theta, uint64_t seed) {
  if (m->cnn) {
    tcnn_init(m->cnn, theta, seed);
    return;
  }
  const uint64_t root = ccr_key(seed, TAG_INIT);
  for (size_t l = 1; l <= m->layers; l++) {
    const size_t in = m->width[l - 1], out = m->width[l], n = in * out;
    const uint64_t key = ccr_key(root, l);
    float *w = theta + m->woff[l];
    if (l < m->layers) {
      const double sd = sqrt(2.0 / (double)in);
      for (size_t t = 0; t < n; t++) w[t] = (float)(sd * grad_normal(key, t));
    } else {
      const double a = sqrt(6.0 / (double)(in + out));
      for (size_t t = 0; t < n; t++) w[t] = (float)(a * (2.0 * ccr_unit(key, t) - 1.0));
    }
    memset(theta + m->boff[l], 0, out * sizeof *theta);
  }
}

tmodel_ws *tmodel_ws_new(const tmodel *m, size_t max_batch, ccsim_error *err) {
  if (m->cnn) {
    tcnn_ws *cws = tcnn_ws_new(m->cnn, max_batch, err);
    tmodel_ws *ws = cws ? calloc(1, sizeof *ws) : NULL;
    if (!ws) {
      if (cws) ccsim_fail(err, CCSIM_ERR_RUNTIME, "model workspace: out of memory");
      tcnn_ws_free(cws);
      return NULL;
    }
    ws->m = m;
    ws->cap = max_batch;
    ws->cws = cws;
    return ws;
  }
  if (max_batch < 1) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model workspace: max_batch must be >= 1");
    return NULL;
  }
  size_t acts, deltas, total;
  if (!mul_ok(max_batch, m->act_total, &acts) || !mul_ok(max_batch, m->max_width, &deltas) ||
      deltas > INT_MAX || acts > SIZE_MAX / 8 || m->max_wt > SIZE_MAX / 8) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model workspace: size overflows (max_batch %zu)",
               max_batch);
    return NULL;
  }
  total = acts + 2 * deltas + m->max_wt;
  tmodel_ws *ws = calloc(1, sizeof *ws);
  float *block = ws ? malloc(total * sizeof *block) : NULL;
  if (!block) {
    free(ws);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "model workspace: out of memory (%zu floats)", total);
    return NULL;
  }
  ws->m = m;
  ws->cap = max_batch;
  ws->block = block;
  float *p = block;
  for (size_t l = 1; l <= m->layers; l++) {
    ws->act[l] = p;
    p += max_batch * m->width[l];
  }
  ws->d = p;
  p += deltas;
  ws->d2 = p;
  p += deltas;
  ws->wt = p;
  return ws;
}

void tmodel_ws_free(tmodel_ws *ws) {
  if (!ws) return;
  tcnn_ws_free(ws->cws);
  free(ws->block);
  free(ws);
}

size_t tmodel_argmax(const float *v, size_t n) {
  size_t best = 0;
  for (size_t k = 1; k < n; k++)
    if (v[k] > v[best]) best = k;
  return best;
}

/* Activations of b <= cap samples: ws->act[l] for l = 1..L (act[L] = logits). */
static void forward(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X, size_t b) {
  const float *in_act = X;
  for (size_t l = 1; l <= m->layers; l++) {
    const size_t in = m->width[l - 1], out = m->width[l];
    float *z = ws->act[l];
    const float *bias = theta + m->boff[l];
    for (size_t r = 0; r < b; r++) memcpy(z + r * out, bias, out * sizeof *z);
    tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)out, (int)in, 1.0f,
                in_act, (int)in, theta + m->woff[l], (int)out, 1.0f, z, (int)out);
    if (l < m->layers)
      for (size_t t = 0; t < b * out; t++) z[t] = z[t] > 0.0f ? z[t] : 0.0f;
    in_act = z;
  }
}

/* Cross-entropy of one row of logits; if d is not NULL, d[k] = scale *
 * (softmax(z)_k - [k == y]).  Sums in double: the loss is reported, not
 * just used. */
double tmodel_xent(const float *z, size_t c, int y, float *d, double scale) {
  const float mx = z[tmodel_argmax(z, c)];
  double s = 0;
  for (size_t k = 0; k < c; k++) s += exp((double)z[k] - mx);
  if (d) {
    for (size_t k = 0; k < c; k++)
      d[k] = (float)(scale * (exp((double)z[k] - mx) / s - (k == (size_t)y ? 1.0 : 0.0)));
  }
  return log(s) + mx - z[y];
}

/* One chunk of b samples of a batch of `batch`: returns the chunk's summed
 * loss, and writes (first) or adds its share of the mean-loss gradient. */
static double chunk_grad(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X,
                         const int *y, size_t b, size_t batch, int first, float *grad) {
  const size_t L = m->layers, c = m->width[L];
  forward(m, ws, theta, X, b);
  double loss = 0;
  for (size_t r = 0; r < b; r++) {
    assert(y[r] >= 0 && (size_t)y[r] < c);
    loss += tmodel_xent(ws->act[L] + r * c, c, y[r], ws->d + r * c, 1.0 / (double)batch);
  }
  float *d = ws->d, *dn = ws->d2;
  for (size_t l = L; l >= 1; l--) {
    const size_t in = m->width[l - 1], out = m->width[l];
    const float *a = l == 1 ? X : ws->act[l - 1];
    const float *w = theta + m->woff[l];
    /* dW = A^T D: A's zeros (ReLU) are skipped as left-operand scalars. */
    tblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)in, (int)out, (int)b, 1.0f, a,
                (int)in, d, (int)out, first ? 0.0f : 1.0f, grad + m->woff[l], (int)out);
    float *gb = grad + m->boff[l];
    if (first) memset(gb, 0, out * sizeof *gb);
    for (size_t r = 0; r < b; r++)
      for (size_t k = 0; k < out; k++) gb[k] += d[r * out + k];
    if (l == 1) break;
    /* D_{l-1} = (D W^T) .* [A > 0], with W^T copied out (see the header). */
    for (size_t i = 0; i < in; i++)
      for (size_t k = 0; k < out; k++) ws->wt[k * in + i] = w[i * out + k];
    tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)in, (int)out, 1.0f, d,
                (int)out, ws->wt, (int)in, 0.0f, dn, (int)in);
    for (size_t t = 0; t < b * in; t++)
      if (!(a[t] > 0.0f)) dn[t] = 0.0f;
    float *tmp = d;
    d = dn;
    dn = tmp;
  }
  return loss;
}

/* The logits of chunk [lo, lo + b) of X: a pointer into ws. */
static const float *chunk_logits(const tmodel *m, tmodel_ws *ws, const float *theta,
                                 const float *X, size_t b) {
  if (m->cnn) return tcnn_forward(m->cnn, ws->cws, theta, X, b);
  forward(m, ws, theta, X, b);
  return ws->act[m->layers];
}

double tmodel_loss_grad(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X,
                        const int *y, size_t batch, float *grad) {
  assert(ws->m == m && batch >= 1);
  const size_t f = m->spec.inputs;
  double loss = 0;
  for (size_t lo = 0; lo < batch; lo += ws->cap) {
    const size_t b = batch - lo < ws->cap ? batch - lo : ws->cap;
    loss += m->cnn ? tcnn_chunk_grad(m->cnn, ws->cws, theta, X + lo * f, y + lo, b, batch,
                                     lo == 0, grad)
                   : chunk_grad(m, ws, theta, X + lo * f, y + lo, b, batch, lo == 0, grad);
  }
  return loss / (double)batch;
}

void tmodel_forward(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X, size_t n,
                    float *logits) {
  assert(ws->m == m);
  const size_t c = m->spec.classes, f = m->spec.inputs;
  for (size_t lo = 0; lo < n; lo += ws->cap) {
    const size_t b = n - lo < ws->cap ? n - lo : ws->cap;
    memcpy(logits + lo * c, chunk_logits(m, ws, theta, X + lo * f, b), b * c * sizeof *logits);
  }
}

double tmodel_evaluate(const tmodel *m, tmodel_ws *ws, const float *theta, const float *X,
                       const int *y, size_t n, double *accuracy) {
  assert(ws->m == m);
  const size_t c = m->spec.classes, f = m->spec.inputs;
  double loss = 0;
  size_t correct = 0;
  for (size_t lo = 0; lo < n; lo += ws->cap) {
    const size_t b = n - lo < ws->cap ? n - lo : ws->cap;
    const float *zb = chunk_logits(m, ws, theta, X + lo * f, b);
    for (size_t r = 0; r < b; r++) {
      const float *z = zb + r * c;
      assert(y[lo + r] >= 0 && (size_t)y[lo + r] < c);
      loss += tmodel_xent(z, c, y[lo + r], NULL, 0);
      correct += tmodel_argmax(z, c) == (size_t)y[lo + r];
    }
  }
  if (accuracy) *accuracy = n ? (double)correct / (double)n : NAN; /* no test sample: no accuracy (a split never leaves one empty) */
  return n ? loss / (double)n : NAN;
}
