/* src/train/blas.h — the CBLAS the trained models' GEMMs run on.
 *
 * The models call tblas_sgemm, GSL's cblas_sgemm signature (gsl_cblas.h),
 * through a pointer bound once, at the first training of the process, to
 * the library the build names (meson option `blas`: OpenBLAS,
 * libopenblas.so.0, or GSL's reference CBLAS, libgslcblas.so.0;
 * docs/training.md), loaded then with dlopen.  OpenBLAS is not linked: its
 * initialiser starts a thread pool from OPENBLAS_NUM_THREADS, so a linked
 * OpenBLAS had made ccsim execute itself again with the variable set (libc's
 * initialiser resets one set from inside before OpenBLAS's runs), and every
 * process paid for loading it; now ccsim sets the variable at the start of
 * main (cli/process.h), and only a run that trains loads the library.
 * tblas_name says which library is bound, so that benchmarks can say so. */
#ifndef CCSIM_TRAIN_BLAS_H
#define CCSIM_TRAIN_BLAS_H

#include <gsl/gsl_cblas.h>

#include "error.h"

/* Bind the CBLAS now (idempotent, safe from any thread): 0, or
 * CCSIM_ERR_RUNTIME with the library that could not be loaded and why.  A
 * trainer binds before its run starts; tblas_sgemm binds itself otherwise
 * (tests), and ends the process with that message if it cannot. */
int tblas_bind(ccsim_error *err);

/* tblas_bind to the library file lib instead of the build's (a benchmark
 * comparing them, bench/blas.sh): before anything else binds; an error if
 * the process is bound already, or if lib cannot be loaded. */
int tblas_bind_to(const char *lib, ccsim_error *err);

/* Under a limit of address space or data (ulimit -v, -d), room for the
 * work buffer OpenBLAS maps in each of `threads` threads at its first GEMM
 * (blas.c: OpenBLAS before 0.3.30 retries a failed map forever), held
 * until each thread's first tblas_sgemm: 0, or CCSIM_ERR_RUNTIME naming
 * the limit.  Nothing to do (0) without a limit or with another CBLAS.
 * Binds first. */
int tblas_reserve(int threads, ccsim_error *err);

/* What the calling thread computes from now on: a failure inside
 * tblas_sgemm (no room for OpenBLAS's buffer in a thread tblas_reserve did
 * not count, which ends the process with exit 1) names the experiment's
 * file (kept, not copied; NULL: none), this iteration and worker, or the
 * test split's evaluation where worker < 0.  Thread-local; a thread never
 * told names none of them. */
void tblas_context(const char *file, long iteration, long worker);

/* cblas_sgemm of the bound CBLAS. */
void tblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc);

/* The file name of the library tblas_sgemm runs, e.g. "libopenblas.so.0"
 * or "libgslcblas.so.0" (binding it if not yet; "?" if it cannot be). */
const char *tblas_name(void);

#endif
