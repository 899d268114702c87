/* src/train/blas.c — the CBLAS bound at the first training (blas.h). */
#include "train/blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CCSIM_BLAS_LIB
#define CCSIM_BLAS_LIB "libopenblas.so.0"
#endif

typedef void (*sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, float,
                         const float *, int, const float *, int, float, float *, int);

static const char *want = CCSIM_BLAS_LIB; /* the library to load */
static sgemm_fn sgemm;
static char why[768]; /* the binding's failure, if it failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind_once(void) {
  /* RTLD_LOCAL: the models call it through the pointer; nothing else in
   * the process binds to it (SimGrid's own libgslcblas stays its own) */
  void *lib = dlopen(want, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load the CBLAS for training (%s): %s", want, e ? e : "dlopen failed");
    return;
  }
  void *f = dlsym(lib, "cblas_sgemm");
  if (!f) {
    snprintf(why, sizeof why, "cannot load the CBLAS for training: %s has no cblas_sgemm", want);
    return;
  }
  /* OpenBLAS: one thread per GEMM, whatever its initialiser read (a
   * simulated worker's gradient is computed on one thread, several workers
   * already share the cores, and a fixed thread count keeps its sums
   * reproducible) */
  void (*set)(int) = (void (*)(int))dlsym(lib, "openblas_set_num_threads");
  if (set) set(1);
  __atomic_store_n(&sgemm, (sgemm_fn)f, __ATOMIC_RELEASE);
}

int tblas_bind(ccsim_error *err) {
  pthread_once(&once, bind_once);
  if (sgemm) return 0;
  return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s", why);
}

int tblas_bind_to(const char *lib, ccsim_error *err) {
  if (__atomic_load_n(&sgemm, __ATOMIC_ACQUIRE) || why[0])
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "tblas_bind_to(%s): the CBLAS is bound already", lib);
  want = lib;
  return tblas_bind(err);
}

void tblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
  sgemm_fn g = __atomic_load_n(&sgemm, __ATOMIC_ACQUIRE);
  if (__builtin_expect(!g, 0)) {
    ccsim_error err = {0};
    if (tblas_bind(&err)) { /* only a caller that never bound (a test) gets here */
      fprintf(stderr, "ccsim: %s\n", err.msg);
      exit(1);
    }
    g = sgemm;
  }
  g(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

const char *tblas_name(void) {
  Dl_info info;
  if (tblas_bind(NULL) || !dladdr((void *)sgemm, &info) || !info.dli_fname) return "?";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}
