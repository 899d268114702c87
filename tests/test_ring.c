/* tests/test_ring.c — every all-reduce moves real data: the aggregate it
 * produces equals the float64 mean of the workers' gradients within fp32
 * rounding, for any element count (not only multiples of N, and fewer
 * elements than workers), on every worker (each gets a private output
 * buffer, so every delivery path runs), and the network carries exactly the
 * collective's dense byte count.
 *
 * usage: test_ring WORKERS ELEMENTS COMPRESSOR [COLLECTIVE [PATH=VALUE]...]
 * (one simulation per process: SimGrid starts once per process)
 *
 * Bound, per element, for `none`: any summation tree adds N fp32 values with
 * N-1 roundings, |fl(sum) - sum| <= (N-1) u sum|g_i| with u = 2^-24 (Higham,
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
#include "collectives/collective.h"
#include "data/gradients.h"
#include "experiment.h"
#include "sim/run.h"

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: test_ring WORKERS ELEMENTS COMPRESSOR [COLLECTIVE [PATH=VALUE]...]\n");
    return 2;
  }
  const int N = atoi(argv[1]);
  const size_t E = (size_t)atol(argv[2]);
  const char *comp = argv[3];
  char dir[] = "/tmp/ccsim-test-ring-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[256], sets[16][128];
  snprintf(path, sizeof path, "%s/exp.json", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "{\"name\": \"ring\", \"seed\": 11, \"workers\": 2, \"iterations\": 2,\n"
             " \"model\": {\"elements\": 8}, \"gradients\": {\"scale\": 0.1},\n"
             " \"compressor\": \"none\", \"output\": {\"dir\": \"%s/out\"}}\n", dir);
  fclose(f);
  snprintf(sets[0], sizeof sets[0], "workers=%d", N);
  snprintf(sets[1], sizeof sets[1], "model.elements=%zu", E);
  snprintf(sets[2], sizeof sets[2], "compressor.name=%s", comp);
  snprintf(sets[3], sizeof sets[3], "collective.name=%s", argc > 4 ? argv[4] : "allreduce/ring");
  char *setv[16] = {sets[0], sets[1], sets[2], sets[3]};
  int nsets = 4;
  for (int a = 5; a < argc && nsets < 16; a++) setv[nsets++] = argv[a];
  ccsim_error err = {0};
  experiment *e = experiment_load(path, setv, nsets, &err);
  CHECK(e != NULL, "load: %s", err.msg);
  if (!e) return check_status("test_ring");
  run_opts o = {.quiet = 1, .keep_aggregate = 1, .private_outputs = 1};
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
  fprintf(stderr, "%s N=%d E=%zu %s: worst |agg - mean| / bound = %.3f\n", argc > 4 ? argv[4] : "allreduce/ring", N, E, comp, worst);

  /* What the result files say agrees with the data. */
  CHECK(rep.agg_cosine > 0.99, "cosine %g", rep.agg_cosine);
  /* Every worker's own copy: identical where all decode the same bytes,
   * within the same bound where each sums in its own order (all-gather). */
  double spread_bound = 0;
  for (size_t i = 0; i < E; i++) spread_bound = fmax(spread_bound, 2 * (N - 1) * u * abssum[i] / N);
  CHECK(rep.worker_spread <= spread_bound, "workers' aggregates differ by %g (bound %g)",
        rep.worker_spread, spread_bound);
  /* Bytes: the collective's dense count (fp16: half), global max exchange aside. */
  const double dense = e->collective->dense_bytes(E, N, e->coll_params) * e->iterations;
  const int ps_fp32_down = !strcmp(e->collective->name, "ps") && e->coll_params[1] == 0;
  const double want = fp16 ? (ps_fp32_down ? 0.75 : 0.5) * dense : dense;
  CHECK(fabs(rep.bytes_on_wire - want) < 0.5, "bytes on wire %.0f, want %.0f", rep.bytes_on_wire,
        want);
  free(rep.aggregate);
  free(sum), free(abssum), free(gi);
  experiment_free(e);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_status("test_ring");
}
