/* tests/test_ring.c — the ring all-reduce moves real data: the aggregate it
 * produces equals the float64 mean of the workers' gradients within fp32
 * rounding, for any element count (not only multiples of N, and fewer
 * elements than workers).
 *
 * usage: test_ring WORKERS ELEMENTS COMPRESSOR
 * (one simulation per process: SimGrid starts once per process)
 *
 * Bound, per element, for `none`: the ring sums N fp32 values with N-1
 * roundings, |fl(sum) - sum| <= (N-1) u sum|g_i| with u = 2^-24 (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 4.4), then
 * multiplies by fl(1/N): two more roundings of the result, 2u |sum|.
 * For fp16 every hop re-rounds to binary16 (u16 = 2^-11) and each worker's
 * input is rounded once: (2N-1) u16 sum|g_i| plus the subnormal floor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "experiment.h"
#include "gradients.h"
#include "run.h"

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: test_ring WORKERS ELEMENTS COMPRESSOR\n");
    return 2;
  }
  const int N = atoi(argv[1]);
  const size_t E = (size_t)atol(argv[2]);
  const char *comp = argv[3];
  char dir[] = "/tmp/ccsim-test-ring-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[256], sets[4][128];
  snprintf(path, sizeof path, "%s/exp.json", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "{\"name\": \"ring\", \"seed\": 11, \"workers\": 2, \"iterations\": 2,\n"
             " \"model\": {\"elements\": 8}, \"gradients\": {\"scale\": 0.1},\n"
             " \"compressor\": \"none\", \"output\": {\"dir\": \"%s/out\"}}\n", dir);
  fclose(f);
  snprintf(sets[0], sizeof sets[0], "workers=%d", N);
  snprintf(sets[1], sizeof sets[1], "model.elements=%zu", E);
  snprintf(sets[2], sizeof sets[2], "compressor.name=%s", comp);
  char *setv[] = {sets[0], sets[1], sets[2]};
  ccsim_error err = {0};
  experiment *e = experiment_load(path, setv, 3, &err);
  CHECK(e != NULL, "load: %s", err.msg);
  if (!e) return check_status("test_ring");
  run_opts o = {.quiet = 1, .keep_aggregate = 1};
  run_report rep;
  int rc = run_experiment(e, &o, &rep, &err);
  CHECK(rc == 0, "run: %s", err.msg);
  if (rc) return check_status("test_ring");

  /* The exact mean of the last iteration, from the generator, in float64. */
  grad_source g;
  grad_source_init(&g, e);
  double *sum = calloc(E, sizeof *sum), *abssum = calloc(E, sizeof *abssum);
  float *gi = malloc(E * sizeof *gi + 4);
  for (int w = 0; w < N; w++) {
    grad_fill(&g, (uint32_t)w, (uint32_t)e->iterations - 1, 0, E, gi);
    for (size_t i = 0; i < E; i++) sum[i] += gi[i], abssum[i] += fabs(gi[i]);
  }
  const int fp16 = !strcmp(comp, "fp16");
  const double u = fp16 ? 0x1p-11 : 0x1p-24;
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < E; i++) {
    double mean = sum[i] / N;
    double bound = fp16 ? ((2.0 * N - 1) * u * abssum[i] + N * 0x1p-25) / N + 2 * 0x1p-24 * fabs(mean)
                        : ((N - 1) * u * abssum[i] + 2 * u * fabs(sum[i])) / N;
    double d = fabs((double)rep.aggregate[i] - mean);
    if (d > bound * (1 + 1e-9) + 1e-300) {
      if (bad < 5) fprintf(stderr, "element %zu: aggregate %.9g, mean %.9g, |diff| %.3g > bound %.3g\n", i,
                           rep.aggregate[i], mean, d, bound);
      bad++;
    }
    if (bound > 0 && d / bound > worst) worst = d / bound;
  }
  CHECK(bad == 0, "%zu of %zu elements outside the fp32 rounding bound", bad, E);
  fprintf(stderr, "N=%d E=%zu %s: worst |agg - mean| / bound = %.3f\n", N, E, comp, worst);

  /* What the result files say agrees with the data. */
  CHECK(rep.agg_cosine > 0.99, "cosine %g", rep.agg_cosine);
  const double dense = 2.0 * (N - 1) * 4.0 * E * e->iterations;
  CHECK(fabs(rep.bytes_on_wire - dense / (fp16 ? 2 : 1)) < 0.5, "bytes on wire %.0f, want %.0f",
        rep.bytes_on_wire, dense / (fp16 ? 2 : 1));
  free(rep.aggregate);
  free(sum), free(abssum), free(gi);
  experiment_free(e);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_status("test_ring");
}
