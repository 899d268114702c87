/* bench/cnn_iteration.c — host time of one data-parallel training iteration
 * of the convolutional models: W workers each compute the gradient of their
 * own mini-batch of B Fashion-MNIST images at the same parameters, one
 * after the other on one thread, as a training run does.
 *
 * Usage: bench_cnn_iteration DIR [MODEL [WORKERS [BATCH [REPS [CBLAS]]]]]
 *   DIR      the Fashion-MNIST directory (/usr/share/datasets/fashion-mnist)
 *   CBLAS    the library file the GEMMs bind to (default: the build's)
 *   defaults lenet5 16 32 20
 *
 * Prints the BLAS in use (bench/blas.sh runs this binary once with GSL's
 * CBLAS and once with OpenBLAS, in one sitting), the median and
 * the best of REPS iterations in ms of this thread's CPU time (the host is
 * shared: wall time counts the other processes too, and is printed
 * beside it), and a 64-bit hash of the workers' gradients: reruns on one
 * machine must print the same hash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this thread: on a shared host, wall time also counts the
 * other processes. */
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#include "ccomp/rng.h"
#include "hostclock.h"
#include "train/blas.h"
#include "train/data.h"
#include "train/model.h"

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FASHION_MNIST_DIR [MODEL [WORKERS [BATCH [REPS [CBLAS]]]]]\n", argv[0]);
    return 2;
  }
  const char *model = argc > 2 ? argv[2] : "lenet5";
  const size_t W = argc > 3 ? (size_t)atoi(argv[3]) : 16, B = argc > 4 ? (size_t)atoi(argv[4]) : 32;
  const int reps = argc > 5 ? atoi(argv[5]) : 20;
  ccsim_error berr = {0};
  if (argc > 6 ? tblas_bind_to(argv[6], &berr) : tblas_bind(&berr)) {
    fprintf(stderr, "%s\n", berr.msg);
    return 1;
  }
  ccsim_error err = {0};
  tdataset *train = NULL, *test = NULL;
  if (tdata_load_fashion_mnist(argv[1], &train, &test, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  tmodel_spec s;
  if (tmodel_preset(model, 1, 28, 28, 10, &s)) {
    fprintf(stderr, "unknown model %s\n", model);
    return 2;
  }
  tmodel *m = tmodel_new(&s, &err);
  const size_t np = tmodel_nparams(m);
  float *theta = malloc(np * sizeof *theta), *g = malloc(W * np * sizeof *g);
  float *X = malloc(B * 784 * sizeof *X);
  int *y = malloc(B * sizeof *y);
  size_t *idx = malloc(B * sizeof *idx);
  tmodel_init(m, theta, 1);
  tmodel_ws *ws = tmodel_ws_new(m, B, &err);
  tshards *sh = tshards_new(train, (uint32_t)W, TSHARD_IID, 0, 1, &err);
  double *t = malloc((size_t)reps * sizeof *t), *ct = malloc((size_t)reps * sizeof *ct);
  uint64_t hash = 0;
  for (int r = -1; r < reps; r++) { /* r = -1 warms up */
    const double t0 = host_clock(), c0 = cpu_now();
    for (size_t w = 0; w < W; w++) {
      tshards_batch(sh, 1, (uint32_t)w, (uint64_t)(r + 1), B, idx);
      tdata_gather(train, idx, B, X, y);
      tmodel_loss_grad(m, ws, theta, X, y, B, g + w * np);
    }
    if (r >= 0) t[r] = host_clock() - t0, ct[r] = cpu_now() - c0;
    for (size_t i = 0; i < W * np; i++) {
      uint32_t u;
      memcpy(&u, &g[i], sizeof u);
      hash = ccr_mix(hash ^ u);
    }
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  qsort(ct, (size_t)reps, sizeof *ct, cmp);
  printf("%s: %s, %zu workers x batch %zu, %d reps: CPU median %.1f ms, best %.1f ms; wall median "
         "%.1f ms, best %.1f ms per iteration; gradient hash %016llx\n",
         tblas_name(), model, W, B, reps, 1e3 * ct[reps / 2], 1e3 * ct[0], 1e3 * t[reps / 2],
         1e3 * t[0], (unsigned long long)hash);
  free(t), free(ct), free(theta), free(g), free(X), free(y), free(idx);
  tshards_free(sh);
  tmodel_ws_free(ws);
  tmodel_free(m);
  tdata_free(train), tdata_free(test);
  return 0;
}
