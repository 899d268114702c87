/* tests/test_cnn.c — the convolutional networks (train/cnn.c): layer tables,
 * gradients against double-precision finite differences per layer type and
 * per network, chunking, and a short real training run on Fashion-MNIST.
 *
 * Usage: test_cnn [FASHION_MNIST_DIR]   (the training check needs the
 * Debian package dataset-fashion-mnist; scripts/install-deps.sh installs it)
 *
 * Gradient check.  The loss is recomputed in double precision by a reference
 * forward pass written independently here (direct convolution loops, no
 * im2col, reading theta only through the layer table), and central
 * differences with h = 1e-4 in double give the reference gradient to about
 * 1e-9 (truncation h^2 |f'''| ~ 1e-8 |f'''|, rounding 1e-16 / h).  The model
 * computes in fp32, so its gradient is compared with the bound
 * |g - g_ref| <= 2e-6 + 2e-3 |g_ref| on every checked coordinate: fp32
 * rounding of sums of up to a few thousand terms (the wide network's fc1
 * has 3136 inputs) is about sqrt(n) 6e-8 relative, below 1e-5 relative; the
 * largest errors measured are printed (see the commit's figures).  The
 * reference pass also records which side of every kink (each ReLU's sign,
 * each pooling window's argmax) it evaluates on; a coordinate whose +-h
 * evaluations do not both match the base point straddles a kink, where a
 * finite difference means nothing: it is skipped and counted, and at most
 * 5% may be (measured: none in the small networks, a few in the large).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "data/gradients.h"
#include "ccomp/rng.h"
#include "train/data.h"
#include "train/model.h"

/* ---- reference forward pass in double ------------------------------------ */

/* Mean cross-entropy over n samples; *pattern = a hash of which side of
 * every kink the evaluation lies on (each ReLU's sign, each pooling
 * window's argmax): two points with the same pattern lie in one smooth
 * piece of the loss. */
static double ref_loss(const tmodel *m, const double *theta, const float *X, const int *y, size_t n,
                       uint64_t *pattern) {
  const tmodel_spec *sp = tmodel_get_spec(m);
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  size_t maxsz = sp->inputs;
  {
    size_t C = sp->channels, H = sp->height, W = sp->width;
    for (size_t i = 0; i < sp->nlayers; i++) {
      const tlayer_spec *L = &sp->layer[i];
      if (L->kind == TLAYER_CONV) H = H + 2 * L->pad - L->k + 1, W = W + 2 * L->pad - L->k + 1, C = L->out;
      else if (L->kind == TLAYER_POOL) H /= 2, W /= 2;
      else C = L->out, H = W = 1;
      if (C * H * W > maxsz) maxsz = C * H * W;
    }
  }
  double *a = malloc(maxsz * sizeof *a), *z = malloc(maxsz * sizeof *z), loss = 0;
  uint64_t hash = 0x9e3779b97f4a7c15ull;
  for (size_t s = 0; s < n; s++) {
    size_t C = sp->channels, H = sp->height, W = sp->width, ti = 0;
    for (size_t i = 0; i < sp->inputs; i++) a[i] = X[s * sp->inputs + i];
    for (size_t li = 0; li < sp->nlayers; li++) {
      const tlayer_spec *L = &sp->layer[li];
      size_t C2, H2, W2;
      if (L->kind == TLAYER_CONV) {
        const double *w = theta + t[ti].offset, *b = theta + t[ti + 1].offset;
        ti += 2;
        C2 = L->out, H2 = H + 2 * L->pad - L->k + 1, W2 = W + 2 * L->pad - L->k + 1;
        for (size_t co = 0; co < C2; co++)
          for (size_t oy = 0; oy < H2; oy++)
            for (size_t ox = 0; ox < W2; ox++) {
              double acc = b[co];
              for (size_t ci = 0; ci < C; ci++)
                for (size_t ky = 0; ky < L->k; ky++)
                  for (size_t kx = 0; kx < L->k; kx++) {
                    const long yy = (long)(oy + ky) - (long)L->pad, xx = (long)(ox + kx) - (long)L->pad;
                    if (yy < 0 || xx < 0 || yy >= (long)H || xx >= (long)W) continue;
                    acc += w[co * C * L->k * L->k + (ci * L->k + ky) * L->k + kx] *
                           a[(ci * H + (size_t)yy) * W + (size_t)xx];
                  }
              z[(co * H2 + oy) * W2 + ox] = acc;
            }
      } else if (L->kind == TLAYER_POOL) {
        C2 = C, H2 = H / 2, W2 = W / 2;
        for (size_t ch = 0; ch < C; ch++)
          for (size_t oy = 0; oy < H2; oy++)
            for (size_t ox = 0; ox < W2; ox++) {
              double v[4];
              for (int q = 0; q < 4; q++) v[q] = a[(ch * H + 2 * oy + q / 2) * W + 2 * ox + q % 2];
              int best = 0;
              for (int q = 1; q < 4; q++)
                if (v[q] > v[best]) best = q;
              if (v[best] > 0) hash = ccr_mix(hash ^ (uint64_t)best); /* all-zero windows: no gradient */
              z[(ch * H2 + oy) * W2 + ox] = v[best];
            }
      } else {
        const double *w = theta + t[ti].offset, *b = theta + t[ti + 1].offset;
        ti += 2;
        const size_t in = C * H * W;
        C2 = L->out, H2 = W2 = 1;
        for (size_t k = 0; k < C2; k++) {
          double acc = b[k];
          for (size_t i = 0; i < in; i++) acc += a[i] * w[i * C2 + k];
          z[k] = acc;
        }
      }
      const size_t sz = C2 * H2 * W2;
      for (size_t i = 0; i < sz; i++) {
        if (L->relu) {
          hash = ccr_mix(hash ^ (z[i] > 0));
          a[i] = z[i] > 0 ? z[i] : 0;
        } else {
          a[i] = z[i];
        }
      }
      C = C2, H = H2, W = W2;
    }
    double mx = a[0], s2 = 0;
    for (size_t k = 1; k < sp->classes; k++) mx = a[k] > mx ? a[k] : mx;
    for (size_t k = 0; k < sp->classes; k++) s2 += exp(a[k] - mx);
    loss += log(s2) + mx - a[y[s]];
  }
  free(a);
  free(z);
  *pattern = hash;
  return loss / (double)n;
}

static void random_batch(size_t n, size_t in, size_t classes, uint64_t key, float *X, int *y) {
  for (size_t t = 0; t < n * in; t++) X[t] = (float)grad_normal(key, t);
  for (size_t s = 0; s < n; s++) y[s] = (int)(ccr_u64(key ^ 0x5a5a, s) % classes);
}

/* Check every coordinate of small models, or up to per_tensor coordinates
 * of each tensor (evenly spaced, first and last included) of large ones. */
static void gradient_check(const char *what, const tmodel_spec *spec, size_t batch,
                           size_t per_tensor, uint64_t seed) {
  ccsim_error err = {0};
  tmodel *m = tmodel_new(spec, &err);
  CHECK(m != NULL, "%s: %s", what, err.msg);
  if (!m) return;
  const size_t np = tmodel_nparams(m), in = spec->inputs;
  float *theta = malloc(np * sizeof *theta), *g = malloc(np * sizeof *g);
  double *th = malloc(np * sizeof *th);
  float *X = malloc(batch * in * sizeof *X);
  int *y = malloc(batch * sizeof *y);
  tmodel_init(m, theta, seed);
  /* biases away from 0 so that units are not all on one side */
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  for (size_t k = 1; k < nt; k += 2)
    for (size_t j = 0; j < t[k].count; j++)
      theta[t[k].offset + j] = (float)(0.1 * grad_normal(seed * 7 + k, j));
  random_batch(batch, in, spec->classes, seed * 13 + 1, X, y);
  tmodel_ws *ws = tmodel_ws_new(m, batch, &err);
  const double loss = tmodel_loss_grad(m, ws, theta, X, y, batch, g);
  for (size_t i = 0; i < np; i++) th[i] = theta[i];
  uint64_t base;
  const double rl = ref_loss(m, th, X, y, batch, &base);
  CHECK(fabs(rl - loss) <= 1e-5 * (1 + fabs(rl)), "%s: loss %.9g vs reference %.9g", what, loss, rl);
  const double h = 1e-4;
  double worst_abs = 0, worst_rel = 0;
  size_t checked = 0, bad = 0, straddled = 0;
  for (size_t k = 0; k < nt; k++) {
    const size_t cnt = t[k].count, step = per_tensor && cnt > per_tensor ? (cnt - 1) / (per_tensor - 1) : 1;
    for (size_t j = 0; j < cnt; j += step) {
      const size_t i = t[k].offset + j;
      const double keep = th[i];
      uint64_t pp, pm;
      th[i] = keep + h;
      const double lp = ref_loss(m, th, X, y, batch, &pp);
      th[i] = keep - h;
      const double lm = ref_loss(m, th, X, y, batch, &pm);
      th[i] = keep;
      if (pp != base || pm != base) { /* the difference straddles a kink: not comparable */
        straddled++;
        continue;
      }
      const double ref = (lp - lm) / (2 * h), d = fabs(g[i] - ref);
      if (d > worst_abs) worst_abs = d;
      if (fabs(ref) > 1e-4 && d / fabs(ref) > worst_rel) worst_rel = d / fabs(ref);
      checked++;
      if (d > 2e-6 + 2e-3 * fabs(ref)) {
        if (bad++ < 5)
          fprintf(stderr, "  %s %s[%zu]: model %.9g, reference %.9g\n", what, t[k].name, j, g[i], ref);
      }
    }
  }
  CHECK(bad == 0, "%s: %zu of %zu coordinates outside |g - ref| <= 2e-6 + 2e-3 |ref|", what, bad,
        checked);
  CHECK(straddled * 20 <= checked + straddled, "%s: %zu of %zu differences straddle a kink (> 5%%)",
        what, straddled, checked + straddled);
  fprintf(stderr, "%s: %zu parameters, %zu checked (%zu straddled a kink, skipped), largest error "
          "%.2g abs, %.2g relative (|ref| > 1e-4)\n",
          what, np, checked, straddled, worst_abs, worst_rel);
  /* chunks of 2 give the same gradient up to float summation order: smaller
   * GEMMs may take another BLAS kernel (OpenBLAS's small-matrix sgemm on
   * AVX-512 machines) whose float32 sums round differently, so the loss
   * agrees to a few float32 ulps (1.2e-7), not to double precision */
  tmodel_ws *ws2 = tmodel_ws_new(m, 2, &err);
  float *g2 = malloc(np * sizeof *g2);
  const double loss2 = tmodel_loss_grad(m, ws2, theta, X, y, batch, g2);
  double dmax = 0, gmax = 0;
  for (size_t i = 0; i < np; i++) {
    dmax = fmax(dmax, fabs(g2[i] - g[i]));
    gmax = fmax(gmax, fabs(g[i]));
  }
  CHECK(fabs(loss2 - loss) <= 1e-6 * (1 + fabs(loss)) && dmax <= 1e-5 * gmax,
        "%s: chunked gradient differs by %.3g (max |g| %.3g), loss %.12g vs %.12g", what, dmax, gmax,
        loss2, loss);
  free(g2);
  tmodel_ws_free(ws2);
  tmodel_ws_free(ws);
  free(theta);
  free(g);
  free(th);
  free(X);
  free(y);
  tmodel_free(m);
}

static tmodel_spec small(size_t c, size_t h, size_t w, size_t classes, size_t n,
                         const tlayer_spec *layers) {
  tmodel_spec s = {.kind = TMODEL_CNN, .inputs = c * h * w, .classes = classes, .channels = c,
                   .height = h, .width = w, .nlayers = n};
  memcpy(s.layer, layers, n * sizeof *layers);
  return s;
}

static void check_layer_gradients(void) {
  /* convolution (2 input channels, padding) + ReLU, then fc */
  const tlayer_spec conv[] = {{TLAYER_CONV, 3, 3, 1, 1}, {TLAYER_FC, 4, 0, 0, 0}};
  tmodel_spec s = small(2, 5, 6, 4, 2, conv);
  gradient_check("conv+relu+fc", &s, 3, 0, 1);
  /* convolution without ReLU, max-pooling over an odd map, fc */
  const tlayer_spec pool[] = {{TLAYER_CONV, 2, 2, 0, 0}, {TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_FC, 3, 0, 0, 0}};
  s = small(1, 7, 7, 3, 3, pool);
  gradient_check("conv+pool+fc", &s, 3, 0, 2);
  /* fully connected layers on an image (the first flattens) */
  const tlayer_spec fc[] = {{TLAYER_FC, 6, 0, 0, 1}, {TLAYER_FC, 5, 0, 0, 1}, {TLAYER_FC, 3, 0, 0, 0}};
  s = small(2, 3, 3, 3, 3, fc);
  gradient_check("fc+relu", &s, 4, 0, 3);
  /* a convolution after a convolution (the input gradient through col2im) */
  const tlayer_spec deep[] = {{TLAYER_CONV, 3, 3, 0, 1}, {TLAYER_CONV, 4, 3, 2, 1},
                              {TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_FC, 5, 0, 0, 1}, {TLAYER_FC, 3, 0, 0, 0}};
  s = small(2, 6, 6, 3, 5, deep);
  gradient_check("conv+conv+pool+fc+fc", &s, 3, 0, 4);
}

static void check_networks(void) {
  tmodel_spec s;
  CHECK(tmodel_preset("lenet5", 1, 28, 28, 10, &s) == 0, "lenet5 preset");
  ccsim_error err = {0};
  tmodel *m = tmodel_new(&s, &err);
  CHECK(m && tmodel_nparams(m) == 61706, "lenet5: %zu parameters, expected 61,706",
        m ? tmodel_nparams(m) : 0);
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  /* conv1: 6 x (1 x 5 x 5) on 28 x 28 outputs, first layer: backward = forward;
   * conv1.bias: add + ReLU on 6 x 28 x 28, plus pooling's 4704 comparisons */
  CHECK(nt == 10 && strcmp(t[0].name, "conv1.weight") == 0 && t[0].fwd_flops == 2.0 * 6 * 25 * 784 &&
            t[0].bwd_flops == t[0].fwd_flops && t[1].fwd_flops == 2.0 * 4704 + 4704 &&
            t[1].bwd_flops == 4704 + 1176 && strcmp(t[4].name, "fc1.weight") == 0 &&
            t[4].rows == 400 && t[4].cols == 120 && t[2].bwd_flops == 2 * t[2].fwd_flops &&
            t[2].fwd_flops == 2.0 * 16 * 150 * 100,
        "lenet5 layer table");
  tmodel_free(m);
  gradient_check("lenet5", &s, 2, 12, 5);
  CHECK(tmodel_preset("cnn", 1, 28, 28, 10, &s) == 0, "cnn preset");
  m = tmodel_new(&s, &err);
  CHECK(m && tmodel_nparams(m) == 824458, "cnn: %zu parameters, expected 824,458",
        m ? tmodel_nparams(m) : 0);
  tmodel_free(m);
  gradient_check("cnn", &s, 2, 6, 6);
  CHECK(tmodel_preset("resnet", 1, 28, 28, 10, &s) != 0, "unknown preset refused");
}

static void check_bad_specs(void) {
  ccsim_error err = {0};
  const tlayer_spec after_fc[] = {{TLAYER_FC, 4, 0, 0, 1}, {TLAYER_CONV, 2, 3, 0, 1}, {TLAYER_FC, 3, 0, 0, 0}};
  tmodel_spec s = small(1, 5, 5, 3, 3, after_fc);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "layer 2"), "conv after fc: %s", err.msg);
  const tlayer_spec big_kernel[] = {{TLAYER_CONV, 2, 9, 1, 1}, {TLAYER_FC, 3, 0, 0, 0}};
  s = small(1, 5, 5, 3, 2, big_kernel);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "kernel"), "kernel too large: %s", err.msg);
  const tlayer_spec relu_last[] = {{TLAYER_CONV, 2, 3, 1, 1}, {TLAYER_FC, 3, 0, 0, 1}};
  s = small(1, 5, 5, 3, 2, relu_last);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "last layer"), "ReLU on the logits: %s", err.msg);
  const tlayer_spec wrong_classes[] = {{TLAYER_CONV, 2, 3, 1, 1}, {TLAYER_FC, 4, 0, 0, 0}};
  s = small(1, 5, 5, 3, 2, wrong_classes);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "last layer"), "last fc != classes: %s", err.msg);
  const tlayer_spec tiny_pool[] = {{TLAYER_POOL, 0, 0, 0, 0}, {TLAYER_POOL, 0, 0, 0, 0},
                                   {TLAYER_FC, 3, 0, 0, 0}};
  s = small(1, 3, 3, 3, 3, tiny_pool);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "2 x 2"), "pooling a 1 x 1 map: %s", err.msg);
  const tlayer_spec huge[] = {{TLAYER_FC, 70000, 0, 0, 1}, {TLAYER_FC, 3, 0, 0, 0}};
  s = small(1, 256, 256, 3, 2, huge);
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "2^31"), "a 2^32-element tensor: %s", err.msg);
  s = small(1, 5, 5, 3, 2, relu_last);
  s.inputs = 24;
  CHECK(!tmodel_new(&s, &err) && strstr(err.msg, "channels x height x width"), "inputs: %s", err.msg);
}

/* LeNet-5 learns Fashion-MNIST: 300 steps of SGD (lr 0.05, momentum 0.9,
 * batch 32) on 6,000 training images, tested on 2,000 test images.
 * Measured: 0.77 test accuracy (asserted >= 0.70; chance is 0.10). */
static void check_training(const char *dir) {
  ccsim_error err = {0};
  tdataset *train = NULL, *test = NULL;
  if (tdata_load_fashion_mnist(dir, &train, &test, &err)) {
    CHECK(0, "load %s: %s", dir, err.msg);
    return;
  }
  tdataset *tr = tdata_take(train, 6000, 1, &err), *te = tdata_take(test, 2000, 1, &err);
  tmodel_spec s;
  tmodel_preset("lenet5", 1, 28, 28, 10, &s);
  tmodel *m = tmodel_new(&s, &err);
  const size_t np = tmodel_nparams(m), B = 32;
  float *theta = malloc(np * sizeof *theta), *g = malloc(np * sizeof *g), *v = calloc(np, sizeof *v);
  float *X = malloc(B * 784 * sizeof *X);
  int *y = malloc(B * sizeof *y);
  size_t idx[32];
  tmodel_init(m, theta, 1);
  tmodel_ws *ws = tmodel_ws_new(m, 256, &err);
  tshards *sh = tshards_new(tr, 1, TSHARD_IID, 0, 1, &err);
  for (int it = 0; it < 300; it++) {
    tshards_batch(sh, 1, 0, (uint64_t)it, B, idx);
    tdata_gather(tr, idx, B, X, y);
    tmodel_loss_grad(m, ws, theta, X, y, B, g);
    for (size_t i = 0; i < np; i++) {
      v[i] = 0.9f * v[i] + g[i];
      theta[i] -= 0.05f * v[i];
    }
  }
  double acc;
  tmodel_evaluate(m, ws, theta, te->X, te->y, te->n, &acc);
  fprintf(stderr, "lenet5 on 6000 Fashion-MNIST images, 300 steps: test accuracy %.4f\n", acc);
  CHECK(acc >= 0.70, "lenet5 test accuracy %.4f < 0.70", acc);
  tshards_free(sh);
  tmodel_ws_free(ws);
  free(theta), free(g), free(v), free(X), free(y);
  tmodel_free(m);
  tdata_free(tr), tdata_free(te), tdata_free(train), tdata_free(test);
}

/* ---- the idx loader ------------------------------------------------------ */

static char tmpdir[] = "/tmp/ccsim-test-idx-XXXXXX";

/* An idx file at tmpdir/name: the magic's type and dims bytes, sizes, then
 * `len` data bytes (value (i * 7) % mod), gzip-compressed when gz. */
static const char *write_idx(const char *name, int type, int ndims, const uint32_t *sizes,
                             size_t len, int mod, int gz) {
  static char path[32][512]; /* a ring: the test holds a few paths at once */
  static int which;
  char *p = path[which++ % 32];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  size_t n = 4 + 4 * (size_t)ndims + len;
  uint8_t *b = malloc(n);
  b[0] = 0, b[1] = 0, b[2] = (uint8_t)type, b[3] = (uint8_t)ndims;
  for (int d = 0; d < ndims; d++)
    for (int k = 0; k < 4; k++) b[4 + 4 * d + k] = (uint8_t)(sizes[d] >> (24 - 8 * k));
  for (size_t i = 0; i < len; i++) b[4 + 4 * ndims + i] = (uint8_t)((i * 7) % (size_t)mod);
  if (gz) {
    gzFile f = gzopen(p, "wb");
    gzwrite(f, b, (unsigned)n);
    gzclose(f);
  } else {
    FILE *f = fopen(p, "wb");
    fwrite(b, 1, n, f);
    fclose(f);
  }
  free(b);
  return p;
}

static void expect_idx_error(const char *images, const char *labels, const char *file,
                             const char *needle) {
  ccsim_error err = {0};
  tdataset *d = tdata_load_idx(images, labels, &err);
  CHECK(d == NULL && err.code == CCSIM_ERR_INPUT && strstr(err.msg, file) && strstr(err.msg, needle),
        "expected an error naming %s and saying '%s', got '%s'", file, needle, err.msg);
  if (err.msg[0]) fprintf(stderr, "  expected error: %s\n", err.msg);
  tdata_free(d);
}

static void check_idx(void) {
  CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");
  const uint32_t im3[3] = {5, 3, 4}, lb1[1] = {5};
  /* a good pair, plain and gzip: pixels / 255, labels as written */
  for (int gz = 0; gz < 2; gz++) {
    const char *im = write_idx(gz ? "im.gz" : "im", 8, 3, im3, 60, 256, gz);
    const char *lb = write_idx(gz ? "lb.gz" : "lb", 8, 1, lb1, 5, 10, gz);
    ccsim_error err = {0};
    tdataset *d = tdata_load_idx(im, lb, &err);
    CHECK(d && d->n == 5 && d->features == 12 && d->classes == 10, "good idx pair (gz %d): %s", gz,
          err.msg);
    if (d)
      CHECK(d->X[13] == (float)(13 * 7 % 256) / 255.0f && d->y[3] == 21 % 10,
            "values: %g, label %d", d->X[13], d->y[3]);
    tdata_free(d);
  }
  const char *lb = write_idx("lb", 8, 1, lb1, 5, 10, 0);
  const char *im = write_idx("im", 8, 3, im3, 60, 256, 0);
  expect_idx_error(write_idx("magic", 9, 3, im3, 60, 256, 0), lb, "magic", "bad magic");
  expect_idx_error(write_idx("dims", 8, 2, im3, 60, 256, 0), lb, "dims", "bad magic");
  const uint32_t zero[3] = {5, 0, 4};
  expect_idx_error(write_idx("zero", 8, 3, zero, 0, 256, 0), lb, "zero", "size 0");
  const uint32_t huge[3] = {0xffffffffu, 0xffffffffu, 4};
  expect_idx_error(write_idx("huge", 8, 3, huge, 0, 256, 0), lb, "huge", "overflow");
  expect_idx_error(write_idx("short", 8, 3, im3, 59, 256, 0), lb, "short", "truncated");
  expect_idx_error(write_idx("short.gz", 8, 3, im3, 59, 256, 1), lb, "short.gz", "truncated");
  expect_idx_error(write_idx("long", 8, 3, im3, 61, 256, 0), lb, "long", "more data");
  expect_idx_error(write_idx("head", 8, 3, im3, 0, 256, 0), lb, "head", "truncated");
  {
    FILE *f = fopen(im, "rb");
    uint8_t buf[80];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char p[512];
    snprintf(p, sizeof p, "%s/cut.gz", tmpdir);
    gzFile g = gzopen(p, "wb");
    gzwrite(g, buf, (unsigned)n);
    gzclose(g);
    /* a gzip stream cut in the middle */
    f = fopen(p, "rb");
    uint8_t z[200];
    size_t zn = fread(z, 1, sizeof z, f);
    fclose(f);
    f = fopen(p, "wb");
    fwrite(z, 1, zn / 2, f);
    fclose(f);
    expect_idx_error(p, lb, "cut.gz", "");
  }
  expect_idx_error(im, write_idx("labels11", 8, 1, lb1, 5, 11, 0), "labels11", "expected 0..9");
  const uint32_t lb4[1] = {4};
  expect_idx_error(im, write_idx("labels4", 8, 1, lb4, 4, 10, 0), "labels4", "4 labels");
  char missing[600];
  snprintf(missing, sizeof missing, "%s/nope", tmpdir);
  expect_idx_error(missing, lb, "nope", "cannot open");
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  CHECK(system(cmd) == 0, "rm %s", tmpdir);
}

/* The shipped Fashion-MNIST: 60,000 + 10,000 images of 28 x 28, 6,000 and
 * 1,000 of each class. */
static void check_fashion_mnist(const char *dir) {
  ccsim_error err = {0};
  tdataset *train = NULL, *test = NULL;
  CHECK(tdata_load_fashion_mnist(dir, &train, &test, &err) == 0, "load %s: %s", dir, err.msg);
  if (!train) return;
  CHECK(train->n == 60000 && test->n == 10000 && train->features == 784, "sizes %zu, %zu",
        train->n, test->n);
  size_t ca[10], cb[10];
  tdata_class_counts(train, ca);
  tdata_class_counts(test, cb);
  for (int k = 0; k < 10; k++)
    CHECK(ca[k] == 6000 && cb[k] == 1000, "class %d: %zu train, %zu test", k, ca[k], cb[k]);
  tdataset *sub = tdata_take(train, 100, 3, &err), *sub2 = tdata_take(train, 100, 3, &err);
  CHECK(sub && sub2 && memcmp(sub->X, sub2->X, 100 * 784 * sizeof(float)) == 0,
        "tdata_take is a function of the seed");
  tdata_free(sub), tdata_free(sub2);
  CHECK(!tdata_take(train, 60001, 3, &err) && strstr(err.msg, "60001"), "take too many: %s", err.msg);
  tdata_free(train), tdata_free(test);
  char bad[600];
  snprintf(bad, sizeof bad, "%s/nowhere", dir);
  CHECK(tdata_load_fashion_mnist(bad, &train, &test, &err) != 0 && strstr(err.msg, "nowhere") &&
            !train && !test,
        "missing directory: %s", err.msg);
}

/* The Zipf language (train/text.c): deterministic, one-hot inputs, the
 * stated bigram structure; an MLP over it has a row-sparse first-layer
 * (embedding) gradient: exactly the rows of the batch's tokens. */
static void check_text(void) {
  ttext_spec sp = {.vocab = 500, .samples = 4000, .zipf = 1.1, .follow = 0.5, .seed = 3};
  ccsim_error err = {0};
  tdataset *d = tdata_zipf_text(&sp, &err), *d2 = tdata_zipf_text(&sp, &err);
  CHECK(d && d2 && d->features == 500 && d->classes == 500, "zipf text: %s", err.msg);
  if (!d || !d2) return;
  CHECK(memcmp(d->X, d2->X, 4000 * 500 * sizeof(float)) == 0 && memcmp(d->y, d2->y, 4000 * sizeof(int)) == 0,
        "zipf text is a function of its spec");
  /* one-hot rows; the next input is this sample's label (a stream) */
  size_t bad = 0, top = 0;
  for (size_t i = 0; i < d->n; i++) {
    size_t ones = 0, tok = 0;
    for (size_t k = 0; k < 500; k++)
      if (d->X[i * 500 + k] != 0) ones++, tok = k;
    bad += ones != 1 || (i + 1 < d->n && d->X[(i + 1) * 500 + (size_t)d->y[i]] != 1.0f);
    top += tok == 0;
  }
  CHECK(bad == 0, "zipf text: %zu samples not one-hot or not a stream", bad);
  /* token 0 (the most frequent) appears at least as often as Zipf says of the fresh draws */
  double norm = 0;
  for (size_t k = 1; k <= 500; k++) norm += pow((double)k, -1.1);
  CHECK(top >= 0.5 * 4000 / norm - 5 * sqrt(4000 * 0.5 / norm), "token 0 appears %zu times", top);
  tmodel_spec ms = {.kind = TMODEL_MLP, .inputs = 500, .classes = 500, .nhidden = 1, .hidden = {32}};
  tmodel *m = tmodel_new(&ms, &err);
  const size_t np = tmodel_nparams(m);
  float *th = malloc(np * sizeof *th), *g = malloc(np * sizeof *g);
  tmodel_init(m, th, 1);
  tmodel_ws *ws = tmodel_ws_new(m, 32, &err);
  tmodel_loss_grad(m, ws, th, d->X, d->y, 32, g);
  int in_batch[500] = {0};
  for (size_t i = 0; i < 32; i++)
    for (size_t k = 0; k < 500; k++)
      if (d->X[i * 500 + k] != 0) in_batch[k] = 1;
  size_t nz_rows = 0, outside = 0, batch_tokens = 0;
  for (size_t r = 0; r < 500; r++) {
    size_t nz = 0;
    for (size_t k = 0; k < 32; k++) nz += g[r * 32 + k] != 0.0f;
    nz_rows += nz > 0;
    outside += nz > 0 && !in_batch[r];
    batch_tokens += in_batch[r];
  }
  CHECK(outside == 0 && nz_rows <= batch_tokens && nz_rows > 0,
        "embedding gradient: %zu non-zero rows, %zu outside the batch's %zu tokens", nz_rows, outside,
        batch_tokens);
  fprintf(stderr, "zipf text: a batch of 32 touches %zu of 500 embedding rows; %zu have a non-zero gradient\n",
          batch_tokens, nz_rows);
  tmodel_ws_free(ws);
  free(th), free(g);
  tmodel_free(m);
  tdata_free(d), tdata_free(d2);
}

int main(int argc, char **argv) {
  check_text();
  check_idx();
  if (argc > 1) check_fashion_mnist(argv[1]);
  check_layer_gradients();
  check_networks();
  check_bad_specs();
  if (argc > 1) check_training(argv[1]);
  return check_status("test_cnn");
}
