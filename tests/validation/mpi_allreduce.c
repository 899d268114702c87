/* tests/validation/mpi_allreduce.c — the reference: one MPI_Allreduce of
 * COUNT floats, timed in simulated seconds under SimGrid SMPI.  Built by
 * tests/validation/smpi.sh with smpicc; never linked into ccsim.
 * Prints the time from the earliest start to the latest end over all ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1048576;
  float *in = malloc((size_t)count * sizeof *in), *out = malloc((size_t)count * sizeof *out);
  for (int i = 0; i < count; i++) in[i] = (float)(rank + 1) * 1e-3f + (float)i * 1e-9f;
  double t0 = MPI_Wtime();
  MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double t1 = MPI_Wtime(), start, end;
  MPI_Reduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&t1, &end, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* the data really was reduced: element 0 is the sum of (r + 1) 1e-3 */
  double want = 1e-3 * size * (size + 1) / 2.0;
  if (rank == 0) {
    if (out[0] < want * 0.999 || out[0] > want * 1.001) {
      fprintf(stderr, "MPI_Allreduce gave %g, want %g\n", out[0], want);
      return 1;
    }
    printf("smpi_allreduce_s %.12g\n", end - start);
  }
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
