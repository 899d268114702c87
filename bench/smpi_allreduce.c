/* bench/smpi_allreduce.c — ITERATIONS MPI_Allreduce calls of COUNT floats
 * with a barrier between them, under SimGrid SMPI: the reference
 * bench/engine.sh times ccsim against.  Built there with smpicc.
 *   smpi_allreduce COUNT ITERATIONS   -> "smpi_s T" (simulated, rank 0) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1048576, iterations = argc > 2 ? atoi(argv[2]) : 1;
  float *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * sizeof *out);
  for (int i = 0; i < count; i++) in[i] = (float)(rank + 1) * 1e-3f + (float)i * 1e-9f;
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; it++) {
    MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  const double t1 = MPI_Wtime();
  /* the data really was reduced: element 0 is the sum of (r + 1) 1e-3 */
  const double want = 1e-3 * size * (size + 1) / 2.0;
  if (rank == 0) {
    if (out[0] < want * 0.999 || out[0] > want * 1.001) {
      fprintf(stderr, "MPI_Allreduce gave %g, want %g\n", out[0], want);
      return 1;
    }
    printf("smpi_s %.12g\n", t1 - t0);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
