/* bench/train_speed.c — gradient throughput of ccsim's trained models on one
 * core, to size the host-time budget of simulations that train live.
 *
 * Usage: bench_train_speed [SECONDS_PER_CASE]   (default 2)
 *
 * For each model and batch size: tmodel_loss_grad on Gaussian inputs (so the
 * ReLU layers are about half active, as in training), repeated for at least
 * SECONDS_PER_CASE; prints samples/s and the GFLOP/s this implies at
 * 6 flops per weight per sample (2 forward, 4 backward, the usual count).
 * Also times the three sgemm shapes the model uses and the transposed-
 * right-operand shape it avoids, on the CBLAS bound (train/blas.h). */
#include <stdio.h>
#include <stdlib.h>

#include "data/gradients.h"
#include "hostclock.h"
#include "train/blas.h"
#include "train/data.h"
#include "train/model.h"

static void bench_model(const char *name, const tmodel_spec *spec, size_t batch, double secs) {
  ccsim_error err = {0};
  tmodel *m = tmodel_new(spec, &err);
  if (!m) {
    fprintf(stderr, "%s\n", err.msg);
    exit(1);
  }
  const size_t np = tmodel_nparams(m), f = spec->inputs;
  size_t weights = 0, nt;
  const tmodel_tensor *t = tmodel_layers(m, &nt);
  for (size_t i = 0; i < nt; i += 2) weights += t[i].count;
  float *th = malloc(np * sizeof *th), *g = malloc(np * sizeof *g);
  float *X = malloc(batch * f * sizeof *X);
  int *y = malloc(batch * sizeof *y);
  tmodel_init(m, th, 1);
  for (size_t i = 0; i < batch * f; i++) X[i] = (float)grad_normal(2, i);
  for (size_t i = 0; i < batch; i++) y[i] = (int)(i % spec->classes);
  tmodel_ws *ws = tmodel_ws_new(m, batch, &err);
  tmodel_loss_grad(m, ws, th, X, y, batch, g); /* warm up */
  size_t reps = 0;
  const double t0 = host_clock();
  double el;
  do {
    tmodel_loss_grad(m, ws, th, X, y, batch, g);
    reps++;
    el = host_clock() - t0;
  } while (el < secs);
  const double sps = (double)(reps * batch) / el;
  printf("%-24s %10zu %6zu %12.1f %10.2f %8.2f\n", name, np, batch, sps, 1e3 * el / reps,
         6.0 * (double)weights * sps / 1e9);
  tmodel_ws_free(ws);
  free(th);
  free(g);
  free(X);
  free(y);
  tmodel_free(m);
}

static void bench_gemm(void) {
  const int M = 128, N = 1024, K = 1024;
  float *A = malloc(sizeof(float) * K * K), *B = malloc(sizeof(float) * K * N);
  float *C = malloc(sizeof(float) * K * N);
  for (int i = 0; i < K * K; i++) A[i] = (float)grad_normal(3, (uint64_t)i);
  for (int i = 0; i < K * N; i++) B[i] = (float)grad_normal(4, (uint64_t)i);
  const char *names[] = {"NN (b x in)(in x out)", "TN (in x b)(b x out)", "NT (b x out)(in x out)^T"};
  printf("\n%s cblas_sgemm, dense operands, %d x %d x %d:\n", tblas_name(), M, N, K);
  for (int v = 0; v < 3; v++) {
    const double t0 = host_clock();
    int reps = 0;
    do {
      if (v == 0)
        tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, A, K, B, N, 0, C, N);
      else if (v == 1)
        tblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K, N, M, 1, A, K, B, N, 0, C, N);
      else
        tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1, A, K, B, K, 0, C, N);
      reps++;
    } while (host_clock() - t0 < 1.0);
    const double el = (host_clock() - t0) / reps;
    printf("  %-28s %6.2f GFLOP/s\n", names[v], 2.0 * M * N * K / el / 1e9);
  }
  free(A);
  free(B);
  free(C);
}

int main(int argc, char **argv) {
  const double secs = argc > 1 ? atof(argv[1]) : 2.0;
  printf("%-24s %10s %6s %12s %10s %8s\n", "model", "params", "batch", "samples/s", "ms/batch",
         "GFLOP/s");
  const tmodel_spec big = {.kind = TMODEL_MLP, .inputs = 784, .classes = 10, .nhidden = 2,
                           .hidden = {1024, 1024}};
  const tmodel_spec mid = {.kind = TMODEL_MLP, .inputs = 784, .classes = 10, .nhidden = 1,
                           .hidden = {256}};
  const tmodel_spec dig = {.kind = TMODEL_MLP, .inputs = 64, .classes = 10, .nhidden = 1,
                           .hidden = {128}};
  const tmodel_spec soft = {.kind = TMODEL_SOFTMAX, .inputs = 64, .classes = 10};
  const size_t batches[] = {32, 64, 128};
  for (size_t i = 0; i < 3; i++) bench_model("mlp 784-1024-1024-10", &big, batches[i], secs);
  bench_model("mlp 784-256-10", &mid, 64, secs);
  bench_model("mlp 64-128-10 (digits)", &dig, 32, secs);
  bench_model("softmax 64-10 (digits)", &soft, 32, secs);
  bench_gemm();
  return 0;
}
