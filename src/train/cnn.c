/* src/train/cnn.c — convolutional networks: convolution by im2col + SGEMM,
 * 2 x 2 max-pooling, ReLU, fully connected layers, softmax cross-entropy.
 *
 * Layouts.  A chunk of b samples flows through the convolutional part as
 * one "CNHW" array: element (channel c, sample s, row y, column x) at
 * c (b H W) + s (H W) + y W + x, so that a convolution over the whole chunk
 * is ONE GEMM (Chellapilla, Puri & Simard, "High Performance Convolutional
 * Neural Networks for Document Processing", 2006):
 *
 *   col  = im2col(A)          (C_in k k) x (b H_out W_out)
 *   Z    = W col + bias       W: C_out x (C_in k k), Z: C_out x (b H_out W_out)
 *   dW   = D col^T            GEMM (NoTrans, Trans)
 *   dcol = W^T D,  dA = col2im(dcol)   GEMM (Trans, NoTrans)
 *
 * Each conv layer's col is kept from the forward pass for dW (recomputing
 * it cost about as much as the layer's GEMMs with OpenBLAS: bench/
 * cnn_iteration.c).  The first fully connected layer flattens the map to
 * [b][C H W] (per sample in c-h-w order, as the tensor's rows are listed);
 * from there on activations are [b][features] and a layer is
 * Z = A W + 1 b^T with W stored in x out, as in the MLP (model.c).
 * Max-pooling keeps the index of each window's maximum (the first on ties)
 * for the backward scatter.  The loss is the mean softmax cross-entropy.
 */
#include "train/cnn.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/blas.h"
#include "variates.h"
#include "ccomp/rng.h"

#define TAG_INIT 0x696e6974ull /* "init" */

typedef struct clayer {
  enum tlayer_kind kind;
  int relu;
  int spatial_in;               /* the input is a CNHW map (conv, pool, first fc) */
  size_t cin, hin, win;         /* input map (fc: cin = features, hin = win = 1) */
  size_t cout, hout, wout;      /* output map (fc: cout = units) */
  size_t k, pad;
  size_t in_size, out_size;     /* per sample */
  size_t wt, bt;                /* tensor indices of weight and bias (conv, fc) */
  size_t pool_off;              /* pool: offset of its argmax block, per sample unit */
} clayer;

struct tcnn {
  size_t n;
  clayer l[TMODEL_MAX_LAYERS];
  size_t channels, inputs, classes;
  size_t nparams, ntensors;
  size_t max_map;   /* largest per-sample in or out size */
  size_t max_col;   /* largest per-sample im2col size: cin k k hout wout */
  size_t max_flat;  /* largest spatial fc input */
  size_t pool_total;
  tmodel_tensor tensors[2 * TMODEL_MAX_LAYERS];
  char names[2 * TMODEL_MAX_LAYERS][24];
};

struct tcnn_ws {
  const tcnn *c;
  size_t cap;
  float *act[TMODEL_MAX_LAYERS];
  float *cols[TMODEL_MAX_LAYERS]; /* a conv layer's im2col of its input, kept for backward */
  float *d[3], *col, *flat, *xin; /* col: the input gradient's columns */
  int *arg;
  void *block, *iblock;
};

size_t tcnn_nparams(const tcnn *c) { return c->nparams; }

const tmodel_tensor *tcnn_layers(const tcnn *c, size_t *count) {
  *count = c->ntensors;
  return c->tensors;
}

void tcnn_free(tcnn *c) { free(c); }

static int mul_ok(size_t a, size_t b, size_t *out) {
  if (a && b > SIZE_MAX / a) return 0;
  *out = a * b;
  return 1;
}

static tcnn *bad(tcnn *c, ccsim_error *err, size_t l, const char *why) {
  ccsim_fail(err, CCSIM_ERR_INPUT, "model: layer %zu: %s", l + 1, why);
  free(c);
  return NULL;
}

/* Add a parameter tensor named base+ordinal.suffix. */
static void add_tensor(tcnn *c, const char *base, unsigned ord, const char *suffix, size_t rows,
                       size_t cols, double fwd, double bwd) {
  const size_t t = c->ntensors++;
  snprintf(c->names[t], sizeof c->names[t], "%s%u.%s", base, ord, suffix);
  c->tensors[t] = (tmodel_tensor){c->names[t], c->nparams, rows * cols, rows, cols, fwd, bwd};
  c->nparams += rows * cols;
}

tcnn *tcnn_new(const tmodel_spec *spec, ccsim_error *err) {
  tcnn *c = calloc(1, sizeof *c);
  if (!c) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "model: out of memory");
    return NULL;
  }
  if (spec->nlayers < 1 || spec->nlayers > TMODEL_MAX_LAYERS)
    return bad(c, err, 0, "a cnn needs 1..12 layers");
  if (spec->channels < 1 || spec->height < 1 || spec->width < 1 ||
      spec->inputs != spec->channels * spec->height * spec->width)
    return bad(c, err, 0, "the input must be channels x height x width = inputs");
  c->n = spec->nlayers;
  c->channels = spec->channels;
  c->inputs = spec->inputs;
  c->classes = spec->classes;
  size_t C = spec->channels, H = spec->height, W = spec->width;
  int spatial = 1, first_param = 1;
  unsigned nconv = 0, nfc = 0;
  c->max_map = spec->inputs;
  for (size_t i = 0; i < c->n; i++) {
    const tlayer_spec *s = &spec->layer[i];
    clayer *L = &c->l[i];
    L->kind = s->kind;
    L->relu = s->relu;
    L->spatial_in = spatial;
    L->cin = C, L->hin = H, L->win = W;
    L->in_size = C * H * W;
    size_t w;
    switch (s->kind) {
    case TLAYER_CONV: {
      if (!spatial) return bad(c, err, i, "a convolution cannot follow a fully connected layer");
      if (s->out < 1 || s->k < 1 || H + 2 * s->pad < s->k || W + 2 * s->pad < s->k)
        return bad(c, err, i, "the kernel is larger than the padded input, or 0 channels");
      L->k = s->k, L->pad = s->pad, L->cout = s->out;
      L->hout = H + 2 * s->pad - s->k + 1, L->wout = W + 2 * s->pad - s->k + 1;
      const size_t K = C * s->k * s->k, hw = L->hout * L->wout;
      if (!mul_ok(K, s->out, &w) || w > INT_MAX || !mul_ok(K, hw, &w) || w > INT_MAX)
        return bad(c, err, i, "too large: a tensor must hold < 2^31 elements");
      if (K * hw > c->max_col) c->max_col = K * hw;
      const double f = 2.0 * (double)s->out * (double)K * (double)hw;
      L->wt = c->ntensors;
      add_tensor(c, "conv", ++nconv, "weight", s->out, K, f, first_param ? f : 2 * f);
      L->bt = c->ntensors;
      add_tensor(c, "conv", nconv, "bias", 1, s->out, 2.0 * (double)(s->out * hw),
                 (double)(s->out * hw));
      C = s->out, H = L->hout, W = L->wout;
      first_param = 0;
      break;
    }
    case TLAYER_POOL:
      if (!spatial || H < 2 || W < 2) return bad(c, err, i, "max-pooling needs a map of 2 x 2 or more");
      if (s->relu) return bad(c, err, i, "max-pooling takes no ReLU");
      L->cout = C, L->hout = H / 2, L->wout = W / 2;
      L->pool_off = c->pool_total;
      c->pool_total += C * L->hout * L->wout;
      /* a comparison per input element forward, a scatter backward: charged
       * to the bias of the layer before (its map is the one pooled) */
      if (c->ntensors) {
        c->tensors[c->ntensors - 1].fwd_flops += (double)(C * H * W);
        c->tensors[c->ntensors - 1].bwd_flops += (double)(C * L->hout * L->wout);
      }
      H = L->hout, W = L->wout;
      break;
    case TLAYER_FC: {
      const size_t in = C * H * W;
      if (s->out < 1) return bad(c, err, i, "a fully connected layer needs >= 1 unit");
      if (!mul_ok(in, s->out, &w) || w > INT_MAX)
        return bad(c, err, i, "too large: a tensor must hold < 2^31 elements");
      L->spatial_in = spatial && i > 0; /* a first fc reads X as [b][features] */
      if (L->spatial_in && in > c->max_flat) c->max_flat = in;
      L->cin = in, L->hin = L->win = 1, L->cout = s->out, L->hout = L->wout = 1;
      const double f = 2.0 * (double)in * (double)s->out;
      L->wt = c->ntensors;
      add_tensor(c, "fc", ++nfc, "weight", in, s->out, f, first_param ? f : 2 * f);
      L->bt = c->ntensors;
      add_tensor(c, "fc", nfc, "bias", 1, s->out, 2.0 * (double)s->out, (double)s->out);
      C = s->out, H = W = 1;
      spatial = 0;
      first_param = 0;
      break;
    }
    default:
      return bad(c, err, i, "unknown layer kind");
    }
    L->out_size = C * H * W;
    if (L->out_size > c->max_map) c->max_map = L->out_size;
    if (L->in_size > c->max_map) c->max_map = L->in_size;
  }
  const clayer *last = &c->l[c->n - 1];
  if (last->kind != TLAYER_FC || last->relu || last->cout != spec->classes)
    return bad(c, err, c->n - 1, "the last layer must be fully connected, of `classes` units, "
                                 "without a ReLU");
  return c;
}

void tcnn_init(const tcnn *c, float *theta, uint64_t seed) {
  const uint64_t root = ccr_key(seed, TAG_INIT);
  for (size_t i = 0; i < c->n; i++) {
    const clayer *L = &c->l[i];
    if (L->kind == TLAYER_POOL) continue;
    const tmodel_tensor *tw = &c->tensors[L->wt], *tb = &c->tensors[L->bt];
    const uint64_t key = ccr_key(root, L->wt / 2 + 1);
    float *w = theta + tw->offset;
    /* conv weight: out x (in k k); fc weight: in x out */
    const double fan_in = (double)(L->kind == TLAYER_FC ? tw->rows : tw->cols);
    const double fan_out = (double)(L->kind == TLAYER_FC ? tw->cols : tw->rows * L->k * L->k);
    if (L->relu) {
      const double sd = sqrt(2.0 / fan_in);
      for (size_t t = 0; t < tw->count; t++) w[t] = (float)(sd * grad_normal(key, t));
    } else {
      const double a = sqrt(6.0 / (fan_in + fan_out));
      for (size_t t = 0; t < tw->count; t++) w[t] = (float)(a * (2.0 * ccr_unit(key, t) - 1.0));
    }
    memset(theta + tb->offset, 0, tb->count * sizeof *theta);
  }
}

tcnn_ws *tcnn_ws_new(const tcnn *c, size_t max_batch, ccsim_error *err) {
  if (max_batch < 1) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model workspace: max_batch must be >= 1");
    return NULL;
  }
  size_t acts = 0, x = 0, total;
  int ok = 1;
  for (size_t i = 0; i < c->n; i++) {
    ok &= mul_ok(max_batch, c->l[i].out_size, &x) && x <= INT_MAX;
    acts += x;
  }
  size_t map = 0, col = 0, flat = 0, xin = 0, args = 0, cols = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->l[i].kind == TLAYER_CONV) {
      const clayer *L = &c->l[i];
      ok &= mul_ok(max_batch, L->cin * L->k * L->k * L->hout * L->wout, &x) && x <= INT_MAX;
      cols += x;
    }
  ok &= mul_ok(max_batch, c->max_map, &map) && map <= INT_MAX;
  ok &= mul_ok(max_batch, c->max_col, &col) && col <= INT_MAX;
  ok &= mul_ok(max_batch, c->max_flat, &flat) && mul_ok(max_batch, c->pool_total, &args);
  ok &= mul_ok(max_batch, c->channels > 1 ? c->inputs : 0, &xin);
  if (!ok || acts > SIZE_MAX / 16) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "model workspace: size overflows (max_batch %zu)", max_batch);
    return NULL;
  }
  total = acts + cols + 3 * map + col + flat + xin;
  tcnn_ws *ws = calloc(1, sizeof *ws);
  float *block = ws ? malloc(total * sizeof *block) : NULL;
  int *iblock = block ? malloc((args ? args : 1) * sizeof *iblock) : NULL;
  if (!iblock) {
    free(block);
    free(ws);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "model workspace: out of memory (%zu floats)", total);
    return NULL;
  }
  ws->c = c;
  ws->cap = max_batch;
  ws->block = block;
  ws->iblock = iblock;
  ws->arg = iblock;
  float *p = block;
  for (size_t i = 0; i < c->n; i++) ws->act[i] = p, p += max_batch * c->l[i].out_size;
  for (size_t i = 0; i < c->n; i++)
    if (c->l[i].kind == TLAYER_CONV) {
      const clayer *L = &c->l[i];
      ws->cols[i] = p, p += max_batch * L->cin * L->k * L->k * L->hout * L->wout;
    }
  for (int k = 0; k < 3; k++) ws->d[k] = p, p += map;
  ws->col = p, p += col;
  ws->flat = p, p += flat;
  ws->xin = xin ? p : NULL;
  return ws;
}

void tcnn_ws_free(tcnn_ws *ws) {
  if (!ws) return;
  free(ws->block);
  free(ws->iblock);
  free(ws);
}

/* The output columns [*lo, *hi) whose input column ox + kx - pad lies in
 * [0, W): the others read the zero padding. */
static void valid_range(size_t Wo, size_t W, size_t kx, size_t pad, size_t *lo, size_t *hi) {
  *lo = kx < pad ? pad - kx : 0;
  /* ox + kx - pad < W  <=>  ox < W + pad - kx */
  const size_t lim = W + pad > kx ? W + pad - kx : 0;
  *hi = lim < Wo ? lim : Wo;
  if (*lo > *hi) *lo = *hi;
}

/* col[(ci k + ky) k + kx][s Ho Wo + oy Wo + ox] = in[ci][s][oy + ky - pad][ox + kx - pad],
 * 0 outside the map.  Stride 1, so each output row's valid part is one copy. */
static void im2col(const clayer *L, const float *in, size_t b, float *col) {
  const size_t H = L->hin, W = L->win, Ho = L->hout, Wo = L->wout, k = L->k, pad = L->pad;
  const size_t N = b * Ho * Wo;
  for (size_t ci = 0; ci < L->cin; ci++)
    for (size_t ky = 0; ky < k; ky++)
      for (size_t kx = 0; kx < k; kx++) {
        float *row = col + ((ci * k + ky) * k + kx) * N;
        size_t lo, hi;
        valid_range(Wo, W, kx, pad, &lo, &hi);
        for (size_t s = 0; s < b; s++) {
          const float *plane = in + (ci * b + s) * H * W;
          for (size_t oy = 0; oy < Ho; oy++) {
            const long y = (long)(oy + ky) - (long)pad;
            float *r = row + (s * Ho + oy) * Wo;
            if (y < 0 || y >= (long)H) {
              memset(r, 0, Wo * sizeof *r);
              continue;
            }
            if (lo) memset(r, 0, lo * sizeof *r);
            if (hi > lo) memcpy(r + lo, plane + (size_t)y * W + lo + kx - pad, (hi - lo) * sizeof *r);
            if (hi < Wo) memset(r + hi, 0, (Wo - hi) * sizeof *r);
          }
        }
      }
}

/* The adjoint of im2col: out (zeroed here) += every col entry at its source. */
static void col2im(const clayer *L, const float *col, size_t b, float *out) {
  const size_t H = L->hin, W = L->win, Ho = L->hout, Wo = L->wout, k = L->k, pad = L->pad;
  const size_t N = b * Ho * Wo;
  memset(out, 0, L->cin * b * H * W * sizeof *out);
  for (size_t ci = 0; ci < L->cin; ci++)
    for (size_t ky = 0; ky < k; ky++)
      for (size_t kx = 0; kx < k; kx++) {
        const float *row = col + ((ci * k + ky) * k + kx) * N;
        size_t lo, hi;
        valid_range(Wo, W, kx, pad, &lo, &hi);
        for (size_t s = 0; s < b; s++) {
          float *plane = out + (ci * b + s) * H * W;
          for (size_t oy = 0; oy < Ho; oy++) {
            const long y = (long)(oy + ky) - (long)pad;
            if (y < 0 || y >= (long)H) continue;
            const float *r = row + (s * Ho + oy) * Wo;
            float *dst = plane + (size_t)y * W + kx - pad; /* dst[ox] for ox in [lo, hi) */
            for (size_t ox = lo; ox < hi; ox++) dst[ox] += r[ox];
          }
        }
      }
}

/* d[t] = 0 where out[t] <= 0 (the ReLU's gradient); written as a select
 * so that it vectorises. */
static void relu_mask(float *restrict d, const float *restrict out, size_t n) {
  for (size_t t = 0; t < n; t++) d[t] = out[t] > 0.0f ? d[t] : 0.0f;
}

/* The sum of x[0..n) in double, over 8 interleaved partial sums (a fixed
 * order, so deterministic, and one that vectorises). */
static double sum_lanes(const float *x, size_t n) {
  double acc[8] = {0};
  size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int q = 0; q < 8; q++) acc[q] += x[j + q];
  for (; j < n; j++) acc[j % 8] += x[j];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* The chunk's input in the first layer's layout (CNHW for a map). */
static const float *input_of(const tcnn *c, tcnn_ws *ws, const float *X, size_t b) {
  if (c->l[0].kind == TLAYER_FC || c->channels == 1) return X; /* [b][HW] is CNHW for C = 1 */
  const size_t C = c->channels, hw = c->inputs / C;
  for (size_t s = 0; s < b; s++)
    for (size_t ch = 0; ch < C; ch++)
      memcpy(ws->xin + (ch * b + s) * hw, X + s * c->inputs + ch * hw, hw * sizeof *X);
  return ws->xin;
}

/* ws->act[i] for every layer; returns the logits [b][classes]. */
static const float *forward(const tcnn *c, tcnn_ws *ws, const float *theta, const float *in,
                            size_t b) {
  const float *a = in;
  for (size_t i = 0; i < c->n; i++) {
    const clayer *L = &c->l[i];
    float *out = ws->act[i];
    if (L->kind == TLAYER_CONV) {
      const size_t N = b * L->hout * L->wout, K = L->cin * L->k * L->k;
      const float *w = theta + c->tensors[L->wt].offset, *bias = theta + c->tensors[L->bt].offset;
      im2col(L, a, b, ws->cols[i]);
      for (size_t co = 0; co < L->cout; co++)
        for (size_t j = 0; j < N; j++) out[co * N + j] = bias[co];
      tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)L->cout, (int)N, (int)K, 1.0f,
                  w, (int)K, ws->cols[i], (int)N, 1.0f, out, (int)N);
    } else if (L->kind == TLAYER_POOL) {
      const size_t H = L->hin, W = L->win, Ho = L->hout, Wo = L->wout;
      int *arg = ws->arg + L->pool_off * b;
      /* The first of the window's four (in row order) that is strictly
       * larger than all before it, chosen by selects rather than branches:
       * the comparisons are data-dependent and mispredict half the time. */
      for (size_t p = 0; p < L->cin * b; p++) {
        const float *src = a + p * H * W;
        float *o = out + p * Ho * Wo;
        int *ag = arg + p * Ho * Wo;
        const int base = (int)(p * H * W);
        for (size_t oy = 0; oy < Ho; oy++) {
          const float *r0 = src + 2 * oy * W, *r1 = r0 + W;
          const int i0 = base + (int)(2 * oy * W), i1 = i0 + (int)W;
          for (size_t ox = 0; ox < Wo; ox++) {
            const size_t x = 2 * ox;
            float m = r0[x];
            int bi = i0 + (int)x;
            const float v1 = r0[x + 1], v2 = r1[x], v3 = r1[x + 1];
            bi = v1 > m ? i0 + (int)x + 1 : bi;
            m = v1 > m ? v1 : m;
            bi = v2 > m ? i1 + (int)x : bi;
            m = v2 > m ? v2 : m;
            bi = v3 > m ? i1 + (int)x + 1 : bi;
            m = v3 > m ? v3 : m;
            o[oy * Wo + ox] = m;
            ag[oy * Wo + ox] = bi;
          }
        }
      }
    } else {
      const size_t in_n = L->cin, out_n = L->cout;
      if (L->spatial_in) {
        const size_t hw = c->l[i - 1].hout * c->l[i - 1].wout, C = c->l[i - 1].cout;
        for (size_t s = 0; s < b; s++)
          for (size_t ch = 0; ch < C; ch++)
            memcpy(ws->flat + s * in_n + ch * hw, a + (ch * b + s) * hw, hw * sizeof *a);
        a = ws->flat;
      }
      const float *w = theta + c->tensors[L->wt].offset, *bias = theta + c->tensors[L->bt].offset;
      for (size_t r = 0; r < b; r++) memcpy(out + r * out_n, bias, out_n * sizeof *out);
      tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)b, (int)out_n, (int)in_n, 1.0f,
                  a, (int)in_n, w, (int)out_n, 1.0f, out, (int)out_n);
    }
    if (L->relu)
      for (size_t t = 0; t < b * L->out_size; t++) out[t] = out[t] > 0.0f ? out[t] : 0.0f;
    a = out;
  }
  return ws->act[c->n - 1];
}

const float *tcnn_forward(const tcnn *c, tcnn_ws *ws, const float *theta, const float *X,
                          size_t b) {
  assert(ws->c == c && b <= ws->cap);
  return forward(c, ws, theta, input_of(c, ws, X, b), b);
}

double tcnn_chunk_grad(const tcnn *c, tcnn_ws *ws, const float *theta, const float *X,
                       const int *y, size_t b, size_t batch, int first, float *grad) {
  assert(ws->c == c && b <= ws->cap);
  const float *in = input_of(c, ws, X, b);
  const float *logits = forward(c, ws, theta, in, b);
  const size_t K = c->classes;
  float *D = ws->d[0], *Dn = ws->d[1], *D3 = ws->d[2];
  double loss = 0;
  for (size_t r = 0; r < b; r++) {
    assert(y[r] >= 0 && (size_t)y[r] < K);
    loss += tmodel_xent(logits + r * K, K, y[r], D + r * K, 1.0 / (double)batch);
  }
  const float beta = first ? 0.0f : 1.0f;
  for (size_t i = c->n; i-- > 0;) {
    const clayer *L = &c->l[i];
    const float *out = ws->act[i], *a = i ? ws->act[i - 1] : in;
    if (L->relu) relu_mask(D, out, b * L->out_size);
    if (L->kind == TLAYER_POOL) {
      const int *arg = ws->arg + L->pool_off * b;
      memset(Dn, 0, b * L->in_size * sizeof *Dn);
      for (size_t t = 0; t < b * L->out_size; t++) Dn[arg[t]] += D[t];
    } else if (L->kind == TLAYER_CONV) {
      const size_t N = b * L->hout * L->wout, Kc = L->cin * L->k * L->k;
      const tmodel_tensor *tw = &c->tensors[L->wt], *tb = &c->tensors[L->bt];
      tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)L->cout, (int)Kc, (int)N, 1.0f,
                  D, (int)N, ws->cols[i], (int)N, beta, grad + tw->offset, (int)Kc);
      float *gb = grad + tb->offset;
      for (size_t co = 0; co < L->cout; co++)
        gb[co] = (first ? 0.0f : gb[co]) + (float)sum_lanes(D + co * N, N);
      if (i == 0) break;
      tblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)Kc, (int)N, (int)L->cout, 1.0f,
                  theta + tw->offset, (int)Kc, D, (int)N, 0.0f, ws->col, (int)N);
      col2im(L, ws->col, b, Dn);
    } else {
      const size_t in_n = L->cin, out_n = L->cout;
      const tmodel_tensor *tw = &c->tensors[L->wt], *tb = &c->tensors[L->bt];
      const float *A = L->spatial_in ? ws->flat : a;
      tblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)in_n, (int)out_n, (int)b, 1.0f, A,
                  (int)in_n, D, (int)out_n, beta, grad + tw->offset, (int)out_n);
      float *gb = grad + tb->offset;
      if (first) memset(gb, 0, out_n * sizeof *gb);
      for (size_t r = 0; r < b; r++)
        for (size_t k = 0; k < out_n; k++) gb[k] += D[r * out_n + k];
      if (i == 0) break;
      tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)b, (int)in_n, (int)out_n, 1.0f, D,
                  (int)out_n, theta + tw->offset, (int)out_n, 0.0f, Dn, (int)in_n);
      if (L->spatial_in) { /* [b][C H W] back to CNHW */
        const size_t hw = c->l[i - 1].hout * c->l[i - 1].wout, C = c->l[i - 1].cout;
        for (size_t s = 0; s < b; s++)
          for (size_t ch = 0; ch < C; ch++)
            memcpy(D3 + (ch * b + s) * hw, Dn + s * in_n + ch * hw, hw * sizeof *D3);
        float *t = Dn;
        Dn = D3;
        D3 = t;
      }
    }
    float *t = D;
    D = Dn;
    Dn = t;
  }
  return loss;
}

int tmodel_preset(const char *name, size_t c, size_t h, size_t w, size_t classes,
                  tmodel_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->kind = TMODEL_CNN;
  spec->inputs = c * h * w;
  spec->classes = classes;
  spec->channels = c, spec->height = h, spec->width = w;
  static const tlayer_spec lenet5[] = {
      {TLAYER_CONV, 6, 5, 2, 1}, {TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_CONV, 16, 5, 0, 1},
      {TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_FC, 120, 0, 0, 1}, {TLAYER_FC, 84, 0, 0, 1},
      {TLAYER_FC, 0, 0, 0, 0}};
  static const tlayer_spec wide[] = {
      {TLAYER_CONV, 32, 3, 1, 1}, {TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_CONV, 64, 3, 1, 1},
      {TLAYER_POOL, 0, 0, 0, 0},  {TLAYER_FC, 256, 0, 0, 1}, {TLAYER_FC, 0, 0, 0, 0}};
  const tlayer_spec *l;
  size_t n;
  if (strcmp(name, "lenet5") == 0)
    l = lenet5, n = sizeof lenet5 / sizeof *lenet5;
  else if (strcmp(name, "cnn") == 0)
    l = wide, n = sizeof wide / sizeof *wide;
  else
    return -1;
  memcpy(spec->layer, l, n * sizeof *l);
  spec->layer[n - 1].out = classes;
  spec->nlayers = n;
  return 0;
}
