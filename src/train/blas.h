/* src/train/blas.h — which CBLAS the trained models' GEMMs run on.
 *
 * The models call cblas_sgemm through GSL's header; the symbol is bound at
 * link time (meson option `blas`, docs/training.md) or by a preload
 * (bench/blas.sh) to GSL's reference CBLAS or to OpenBLAS.  These helpers
 * ask the dynamic linker which one it is, so that results and benchmarks
 * can say so. */
#ifndef CCSIM_TRAIN_BLAS_H
#define CCSIM_TRAIN_BLAS_H

/* The file name of the library cblas_sgemm resolves to, e.g.
 * "libopenblas.so.0" or "libgslcblas.so.0" ("?" if unknown). */
const char *tblas_name(void);

/* If cblas_sgemm is OpenBLAS's, set its thread count to 1: a simulated
 * worker's gradient is computed on one thread (several simulated workers
 * already share the host's cores), and OpenBLAS's sgemm with a fixed thread
 * count is deterministic.  Idempotent; a no-op for other BLAS. */
void tblas_single_thread(void);

#endif
