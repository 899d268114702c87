/* tests/test_model.c — the trained models: layer table, initialisation,
 * gradients against double-precision finite differences, independence of
 * workspaces and chunking, and real training on the digits set.
 *
 * Usage: test_model SOURCE_ROOT   (reads SOURCE_ROOT/workloads/data/digits.csv.gz)
 *
 * Gradient check: the loss is recomputed in double precision by an
 * independent reference forward pass in this file (which reads theta only
 * through the layer table), and central differences with h = 1e-5 give the
 * reference gradient to about 1e-10 (truncation h^2 |f'''| plus rounding
 * 1e-16 / h).  The model computes in fp32, so its gradient is compared with
 * tolerance |g - g_ref| <= 1e-6 + 1e-4 |g_ref| on EVERY parameter (the
 * largest errors measured were 1.7e-8 for softmax 6-5 and 7.2e-8 for MLP
 * 5-7-6-4, about fp32 rounding of sums of ~10 terms of size ~1).  The reference pass also checks that no
 * hidden pre-activation is within 1e-3 of the ReLU kink, where a finite
 * difference would straddle it.
 *
 * Training on digits (1797 samples, 20% held out by split seed 1: 1438
 * train, 359 test), mini-batch SGD with heavy-ball momentum 0.9, batch 32,
 * batches drawn by tshards_batch from one iid shard, 40 epochs; measured:
 *   softmax regression, lr 0.1:  test accuracy 0.9805 (asserted >= 0.94)
 *   MLP 64-128-10,      lr 0.05: test accuracy 0.9833 (asserted >= 0.96)
 * Over split seeds 1..8 (init seed 100 x split seed) the same recipe gave
 * softmax 0.950..0.978 (mean 0.968) and MLP 0.969..0.989 (mean 0.978): 359
 * test samples make one error worth 0.28%.  The run is deterministic (fixed
 * seeds, single-threaded reference BLAS); the margins absorb another
 * compiler's float contraction, not randomness.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "data/gradients.h"
#include "ccomp/rng.h"
#include "train/blas.h"
#include "train/data.h"
#include "train/model.h"

/* ---- reference forward pass in double ------------------------------------ */

/* Mean cross-entropy of a model given only by its layer table; *min_abs_z =
 * the smallest |pre-activation| of any hidden unit. */
static double ref_loss(const tmodel *m, const double *theta, const float *X, const int *y,
                       size_t n, double *min_abs_z) {
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  const size_t L = nt / 2;
  size_t maxw = 0;
  for (size_t l = 0; l < L; l++) {
    if (t[2 * l].rows > maxw) maxw = t[2 * l].rows;
    if (t[2 * l].cols > maxw) maxw = t[2 * l].cols;
  }
  double *a = malloc(maxw * sizeof *a), *z = malloc(maxw * sizeof *z), loss = 0;
  *min_abs_z = INFINITY;
  for (size_t s = 0; s < n; s++) {
    const size_t in0 = t[0].rows;
    for (size_t i = 0; i < in0; i++) a[i] = X[s * in0 + i];
    for (size_t l = 0; l < L; l++) {
      const tmodel_tensor *w = &t[2 * l], *b = &t[2 * l + 1];
      for (size_t k = 0; k < w->cols; k++) {
        double acc = theta[b->offset + k];
        for (size_t i = 0; i < w->rows; i++) acc += a[i] * theta[w->offset + i * w->cols + k];
        z[k] = acc;
      }
      if (l + 1 < L) {
        for (size_t k = 0; k < w->cols; k++) {
          if (fabs(z[k]) < *min_abs_z) *min_abs_z = fabs(z[k]);
          a[k] = z[k] > 0 ? z[k] : 0;
        }
      } else {
        double mx = z[0], s2 = 0;
        for (size_t k = 1; k < w->cols; k++) mx = z[k] > mx ? z[k] : mx;
        for (size_t k = 0; k < w->cols; k++) s2 += exp(z[k] - mx);
        loss += log(s2) + mx - z[y[s]];
      }
    }
  }
  free(a);
  free(z);
  return loss / n;
}

static tmodel *make(enum tmodel_kind kind, size_t in, size_t classes, size_t nh,
                    const size_t *hidden) {
  tmodel_spec s = {.kind = kind, .inputs = in, .classes = classes, .nhidden = nh};
  for (size_t i = 0; i < nh; i++) s.hidden[i] = hidden[i];
  ccsim_error err = {0};
  tmodel *m = tmodel_new(&s, &err);
  CHECK(m != NULL, "tmodel_new: %s", err.msg);
  return m;
}

static void random_batch(size_t n, size_t in, size_t classes, uint64_t key, float *X, int *y) {
  for (size_t t = 0; t < n * in; t++) X[t] = (float)grad_normal(key, t);
  for (size_t s = 0; s < n; s++) y[s] = (int)(ccr_u64(key ^ 1, s) % classes);
}

/* Every parameter's gradient against central differences of ref_loss. */
static void gradient_check(const char *what, tmodel *m, size_t in, size_t classes) {
  const size_t n = 9, np = tmodel_nparams(m);
  float *theta = malloc(np * sizeof *theta), *grad = malloc(np * sizeof *grad);
  float *grad1 = malloc(np * sizeof *grad1), *X = malloc(n * in * sizeof *X);
  double *td = malloc(np * sizeof *td);
  int y[9];
  tmodel_init(m, theta, 42);
  /* non-zero biases, so their gradients are exercised off the init point */
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  for (size_t l = 1; l < nt; l += 2)
    for (size_t k = 0; k < t[l].count; k++)
      theta[t[l].offset + k] = (float)(0.1 * grad_normal(77, t[l].offset + k));
  random_batch(n, in, classes, 1234, X, y);
  ccsim_error err = {0};
  tmodel_ws *ws4 = tmodel_ws_new(m, 4, &err), *ws16 = tmodel_ws_new(m, 16, &err);
  /* batch 9 in chunks of 4, 4, 1 against one chunk of 9 */
  const double loss = tmodel_loss_grad(m, ws4, theta, X, y, n, grad);
  const double loss1 = tmodel_loss_grad(m, ws16, theta, X, y, n, grad1);
  for (size_t i = 0; i < np; i++) td[i] = theta[i];
  double minz;
  const double lref = ref_loss(m, td, X, y, n, &minz);
  CHECK_NEAR(loss, lref, 1e-5, "loss vs double reference");
  CHECK_NEAR(loss1, lref, 1e-5, "loss (one chunk) vs double reference");
  CHECK(minz > 1e-3, "%s: a hidden pre-activation %.3g is too near the ReLU kink", what, minz);
  const double h = 1e-5;
  double worst = 0, worst_chunk = 0;
  size_t bad = 0;
  for (size_t i = 0; i < np; i++) {
    double z;
    td[i] = (double)theta[i] + h;
    const double lp = ref_loss(m, td, X, y, n, &z);
    td[i] = (double)theta[i] - h;
    const double lm = ref_loss(m, td, X, y, n, &z);
    td[i] = theta[i];
    const double g = (lp - lm) / (2 * h), e = fabs(grad[i] - g);
    if (e > worst) worst = e;
    if (fabs(grad[i] - grad1[i]) > worst_chunk) worst_chunk = fabs(grad[i] - grad1[i]);
    if (e > 1e-6 + 1e-4 * fabs(g)) {
      if (bad++ < 5) fprintf(stderr, "%s: param %zu: grad %.9g vs fd %.9g\n", what, i, grad[i], g);
    }
  }
  CHECK(bad == 0, "%s: %zu of %zu parameters outside tolerance", what, bad, np);
  CHECK(worst_chunk <= 1e-6, "%s: chunked vs whole-batch gradient differ by %g", what,
        worst_chunk);
  fprintf(stderr, "%s: %zu params, max |grad - fd| = %.3g, chunked vs whole %.3g\n", what, np,
          worst, worst_chunk);

  /* loss decreases along the negative gradient: 50 steps of plain descent,
   * each one lowering the loss */
  double prev = loss;
  size_t rises = 0;
  for (int it = 0; it < 50; it++) {
    tmodel_loss_grad(m, ws16, theta, X, y, n, grad);
    for (size_t i = 0; i < np; i++) theta[i] -= 0.1f * grad[i];
    const double l = tmodel_evaluate(m, ws16, theta, X, y, n, NULL);
    rises += l >= prev;
    prev = l;
  }
  CHECK(rises == 0 && prev < 0.5 * loss, "%s: loss %g -> %g in 50 descent steps, %zu rises",
        what, loss, prev, rises);
  tmodel_ws_free(ws4);
  tmodel_ws_free(ws16);
  free(theta);
  free(grad);
  free(grad1);
  free(X);
  free(td);
}

static void check_table_and_init(void) {
  const size_t hid[] = {1024, 1024};
  tmodel *m = make(TMODEL_MLP, 784, 10, 2, hid);
  size_t nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  const char *names[] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight",
                         "fc3.bias"};
  const size_t rows[] = {784, 1, 1024, 1, 1024, 1}, cols[] = {1024, 1024, 1024, 1024, 10, 10};
  CHECK(nt == 6, "tensor count %zu", nt);
  size_t off = 0;
  for (size_t i = 0; i < nt && i < 6; i++) {
    CHECK(strcmp(t[i].name, names[i]) == 0, "tensor %zu named %s", i, t[i].name);
    CHECK(t[i].offset == off && t[i].rows == rows[i] && t[i].cols == cols[i] &&
              t[i].count == rows[i] * cols[i],
          "tensor %s: offset %zu count %zu shape %zux%zu", t[i].name, t[i].offset, t[i].count,
          t[i].rows, t[i].cols);
    off += t[i].count;
  }
  /* 784*1024 + 1024 + 1024*1024 + 1024 + 1024*10 + 10: a 1M+ parameter student */
  CHECK(tmodel_nparams(m) == 1863690 && off == 1863690, "nparams %zu", tmodel_nparams(m));

  const size_t np = tmodel_nparams(m);
  float *a = malloc(np * sizeof *a), *b = malloc(np * sizeof *b);
  tmodel_init(m, a, 9);
  tmodel_init(m, b, 9);
  CHECK(memcmp(a, b, np * sizeof *a) == 0, "same seed, same init");
  tmodel_init(m, b, 10);
  size_t same = 0;
  for (size_t i = 0; i < np; i++) same += a[i] == b[i];
  /* the 2058 biases stay 0; a weight may coincide by chance (p ~ 1e-7 each) */
  CHECK(same >= 2058 && same < 2058 + 10, "another seed changes the weights (%zu equal)", same);
  /* He normal on fc1: variance 2/784 (802816 samples, SE of variance ~0.16%) */
  double s2 = 0;
  for (size_t i = 0; i < t[0].count; i++) s2 += (double)a[i] * a[i];
  const double var1 = s2 / t[0].count;
  CHECK(fabs(var1 / (2.0 / 784) - 1) < 0.01, "fc1 variance %g vs 2/784", var1);
  /* Glorot uniform on fc3: |w| <= a, variance a^2/3 (10240 samples, SE 0.9%) */
  const double lim = sqrt(6.0 / (1024 + 10));
  double mx = 0;
  s2 = 0;
  for (size_t i = 0; i < t[4].count; i++) {
    const double v = a[t[4].offset + i];
    mx = fabs(v) > mx ? fabs(v) : mx;
    s2 += v * v;
  }
  CHECK(mx <= lim, "fc3 max |w| %g > %g", mx, lim);
  CHECK(fabs(s2 / t[4].count / (lim * lim / 3) - 1) < 0.05, "fc3 variance %g vs %g",
        s2 / t[4].count, lim * lim / 3);
  size_t nonzero_bias = 0;
  for (size_t l = 1; l < nt; l += 2)
    for (size_t k = 0; k < t[l].count; k++) nonzero_bias += a[t[l].offset + k] != 0;
  CHECK(nonzero_bias == 0, "%zu biases not zero at init", nonzero_bias);
  free(a);
  free(b);
  tmodel_free(m);

  tmodel *s = make(TMODEL_SOFTMAX, 64, 10, 0, NULL);
  t = tmodel_layers(s, &nt);
  CHECK(nt == 2 && strcmp(t[0].name, "linear.weight") == 0 && strcmp(t[1].name, "linear.bias") == 0,
        "softmax tensors");
  CHECK(tmodel_nparams(s) == 650, "softmax nparams %zu", tmodel_nparams(s));
  tmodel_free(s);
}

static void check_bad_specs(void) {
  const tmodel_spec bad[] = {
      {.kind = TMODEL_SOFTMAX, .inputs = 4, .classes = 3, .nhidden = 1, .hidden = {5}},
      {.kind = TMODEL_MLP, .inputs = 4, .classes = 3, .nhidden = 0},
      {.kind = TMODEL_MLP, .inputs = 4, .classes = 3, .nhidden = 2, .hidden = {5, 0}},
      {.kind = TMODEL_MLP, .inputs = 4, .classes = 1, .nhidden = 1, .hidden = {5}},
      {.kind = TMODEL_SOFTMAX, .inputs = 0, .classes = 3},
      {.kind = TMODEL_MLP, .inputs = 4, .classes = 3, .nhidden = TMODEL_MAX_HIDDEN + 1},
      {.kind = TMODEL_MLP, .inputs = SIZE_MAX / 2, .classes = 3, .nhidden = 1, .hidden = {16}},
      {.kind = TMODEL_MLP, .inputs = 10, .classes = 3, .nhidden = 2, .hidden = {50000, 50000}},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ccsim_error err = {0};
    tmodel *m = tmodel_new(&bad[i], &err);
    CHECK(m == NULL && err.code == CCSIM_ERR_INPUT && strncmp(err.msg, "model:", 6) == 0,
          "bad spec %zu accepted or unclear: '%s'", i, err.msg);
    tmodel_free(m);
  }
  ccsim_error err = {0};
  tmodel *m = make(TMODEL_SOFTMAX, 3, 2, 0, NULL);
  CHECK(tmodel_ws_new(m, 0, &err) == NULL && err.code == CCSIM_ERR_INPUT, "max_batch 0");
  err.code = 0;
  CHECK(tmodel_ws_new(m, (size_t)1 << 40, &err) == NULL && err.code == CCSIM_ERR_INPUT,
        "max_batch 2^40");
  tmodel_free(m);
}

/* Two workspaces used in turn give the results one would alone; forward is
 * independent of the chunk size bit for bit with GSL's CBLAS (GEMM rows are
 * independent), to rounding with OpenBLAS (its blocking follows the sizes). */
static void check_workspaces(void) {
  const size_t hid[] = {33, 17}, n = 50, in = 12, c = 7;
  tmodel *m = make(TMODEL_MLP, in, c, 2, hid);
  const size_t np = tmodel_nparams(m);
  float *th = malloc(np * sizeof *th), *g1 = malloc(np * sizeof *g1), *g2 = malloc(np * sizeof *g2);
  float *g3 = malloc(np * sizeof *g3), *X = malloc(n * in * sizeof *X);
  float *z1 = malloc(n * c * sizeof *z1), *z2 = malloc(n * c * sizeof *z2);
  int y[50];
  tmodel_init(m, th, 3);
  random_batch(n, in, c, 99, X, y);
  tmodel_ws *a = tmodel_ws_new(m, 64, NULL), *b = tmodel_ws_new(m, 64, NULL);
  tmodel_ws *small = tmodel_ws_new(m, 3, NULL);
  const double l1 = tmodel_loss_grad(m, a, th, X, y, n, g1);
  tmodel_loss_grad(m, b, th, X + 10 * in, y + 10, 20, g2); /* b works on something else */
  const double l3 = tmodel_loss_grad(m, a, th, X, y, n, g3);
  CHECK(l1 == l3 && memcmp(g1, g3, np * sizeof *g1) == 0, "workspace reuse changes the result");
  tmodel_forward(m, a, th, X, n, z1);
  tmodel_forward(m, small, th, X, n, z2);
  double acc1, acc2;
  const double e1 = tmodel_evaluate(m, a, th, X, y, n, &acc1);
  const double e2 = tmodel_evaluate(m, small, th, X, y, n, &acc2);
  if (strstr(tblas_name(), "gslcblas")) {
    CHECK(memcmp(z1, z2, n * c * sizeof *z1) == 0, "forward depends on the chunk size");
    CHECK(e1 == e2 && acc1 == acc2, "evaluate depends on the chunk size");
  } else {
    /* OpenBLAS picks its kernel blocking by the matrix sizes, so a row's
     * summation order (not its value beyond rounding) depends on the chunk
     * size: docs/training.md */
    double dz = 0, zmax = 0;
    for (size_t i = 0; i < n * c; i++) dz = fmax(dz, fabs(z1[i] - z2[i])), zmax = fmax(zmax, fabs(z1[i]));
    CHECK(dz <= 1e-5 * zmax, "%s: forward differs across chunk sizes by %.3g (max |z| %.3g)",
          tblas_name(), dz, zmax);
    CHECK(fabs(e1 - e2) <= 1e-6 * fabs(e1), "%s: evaluate differs across chunk sizes: %.9g vs %.9g",
          tblas_name(), e1, e2);
  }
  CHECK_NEAR(e1, l1, 1e-12, "evaluate's loss = loss_grad's loss");
  tmodel_ws_free(a);
  tmodel_ws_free(b);
  tmodel_ws_free(small);
  free(th);
  free(g1);
  free(g2);
  free(g3);
  free(X);
  free(z1);
  free(z2);
  tmodel_free(m);
}

/* Mini-batch SGD with heavy-ball momentum on a dataset; returns test accuracy. */
static double train_sgd(tmodel *m, const tdataset *train, const tdataset *test, double lr,
                        int epochs, double *first_loss, double *last_loss, double *train_acc) {
  const size_t np = tmodel_nparams(m), B = 32, f = train->features;
  float *th = malloc(np * sizeof *th), *g = malloc(np * sizeof *g), *v = calloc(np, sizeof *v);
  float *X = malloc(B * f * sizeof *X);
  int *y = malloc(B * sizeof *y);
  size_t idx[32];
  ccsim_error err = {0};
  tshards *one = tshards_new(train, 1, TSHARD_IID, 0, 5, &err);
  tmodel_ws *ws = tmodel_ws_new(m, 256, &err);
  tmodel_init(m, th, 2024);
  const uint64_t iters = (uint64_t)epochs * train->n / B;
  *first_loss = tmodel_evaluate(m, ws, th, train->X, train->y, train->n, NULL);
  for (uint64_t it = 0; it < iters; it++) {
    tshards_batch(one, 11, 0, it, B, idx);
    tdata_gather(train, idx, B, X, y);
    tmodel_loss_grad(m, ws, th, X, y, B, g);
    for (size_t i = 0; i < np; i++) {
      v[i] = 0.9f * v[i] + g[i];
      th[i] -= (float)lr * v[i];
    }
  }
  *last_loss = tmodel_evaluate(m, ws, th, train->X, train->y, train->n, train_acc);
  double acc;
  tmodel_evaluate(m, ws, th, test->X, test->y, test->n, &acc);
  tmodel_ws_free(ws);
  tshards_free(one);
  free(th);
  free(g);
  free(v);
  free(X);
  free(y);
  return acc;
}

static void check_digits_training(const char *root) {
  char path[4096];
  snprintf(path, sizeof path, "%s/workloads/data/digits.csv.gz", root);
  ccsim_error err = {0};
  tdataset *all = tdata_load_digits(path, &err), *train = NULL, *test = NULL;
  CHECK(all != NULL, "load digits: %s", err.msg);
  if (!all) return;
  CHECK(tdata_split(all, 0.2, 1, &train, &test, &err) == 0, "split: %s", err.msg);
  if (!train) return;
  double l0, l1;
  tmodel *s = make(TMODEL_SOFTMAX, 64, 10, 0, NULL);
  const double acc_s = train_sgd(s, train, test, 0.1, 40, &l0, &l1, NULL);
  fprintf(stderr, "digits softmax: train loss %.4f -> %.4f, test accuracy %.4f\n", l0, l1, acc_s);
  CHECK(l1 < 0.2 * l0, "softmax train loss %g -> %g", l0, l1);
  CHECK(acc_s >= 0.94, "softmax test accuracy %.4f < 0.94", acc_s);
  const size_t hid[] = {128};
  tmodel *mlp = make(TMODEL_MLP, 64, 10, 1, hid);
  const double acc_m = train_sgd(mlp, train, test, 0.05, 40, &l0, &l1, NULL);
  fprintf(stderr, "digits mlp 64-128-10: train loss %.4f -> %.4f, test accuracy %.4f\n", l0, l1,
          acc_m);
  CHECK(l1 < 0.05 * l0, "mlp train loss %g -> %g", l0, l1);
  CHECK(acc_m >= 0.96, "mlp test accuracy %.4f < 0.96", acc_m);
  tmodel_free(s);
  tmodel_free(mlp);
  tdata_free(all);
  tdata_free(train);
  tdata_free(test);
}

/* A student that can represent the teacher fits the teacher task: MLP
 * 20-128-5 on teacher 20-32-5's 6000 samples (4800 train), 40 epochs, lr
 * 0.02; measured train accuracy 0.9985, test 0.8267 (asserted >= 0.98 and
 * >= 0.75: the held-out gap is the sample size, not the model). */
static void check_teacher_student(void) {
  const tteacher_spec ts = {.samples = 6000, .inputs = 20, .classes = 5, .nhidden = 1,
                            .hidden = {32}, .seed = 7};
  ccsim_error err = {0};
  tdataset *all = tdata_teacher(&ts, NULL, NULL, &err), *train = NULL, *test = NULL;
  CHECK(all && tdata_split(all, 0.2, 1, &train, &test, &err) == 0, "teacher: %s", err.msg);
  if (!train) return;
  const size_t hid[] = {128};
  tmodel *m = make(TMODEL_MLP, 20, 5, 1, hid);
  double l0, l1, tr_acc;
  const double te_acc = train_sgd(m, train, test, 0.02, 40, &l0, &l1, &tr_acc);
  fprintf(stderr, "teacher 20-32-5, student 20-128-5: loss %.4f -> %.4f, train %.4f, test %.4f\n",
          l0, l1, tr_acc, te_acc);
  CHECK(tr_acc >= 0.98 && te_acc >= 0.75, "student: train %.4f test %.4f", tr_acc, te_acc);
  tmodel_free(m);
  tdata_free(all);
  tdata_free(train);
  tdata_free(test);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SOURCE_ROOT\n", argv[0]);
    return 2;
  }
  check_table_and_init();
  check_bad_specs();
  {
    tmodel *s = make(TMODEL_SOFTMAX, 6, 5, 0, NULL);
    gradient_check("softmax 6-5", s, 6, 5);
    tmodel_free(s);
    const size_t hid[] = {7, 6};
    tmodel *m = make(TMODEL_MLP, 5, 4, 2, hid);
    gradient_check("mlp 5-7-6-4", m, 5, 4);
    tmodel_free(m);
  }
  check_workspaces();
  check_digits_training(argv[1]);
  check_teacher_student();
  return check_status("test_model");
}
