#!/usr/bin/env bash
# bench/blas.sh BUILD [REPS] — GSL's reference CBLAS against OpenBLAS on one
# training iteration of the convolutional models (bench/cnn_iteration.c:
# 16 workers x batch 32, one after the other on one thread), in one sitting.
# The same binary runs with each library, named as its last argument (it
# binds the models' cblas_sgemm to that file: src/train/blas.h; each line
# names the library actually bound); OpenBLAS runs single-threaded (the
# binding calls openblas_set_num_threads(1)).
# Each case runs twice: the gradient hashes of the two runs must agree.
set -eu
B=$1
REPS=${2:-10}
FM=/usr/share/datasets/fashion-mnist
LIB=/usr/lib/x86_64-linux-gnu
for model in lenet5 cnn; do
  for lib in "$LIB/libgslcblas.so.0" "$LIB/libopenblas.so.0"; do
    for run in 1 2; do
      "$B/tests/bench_cnn_iteration" "$FM" "$model" 16 32 "$REPS" "$lib"
    done
  done
done
