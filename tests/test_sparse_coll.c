/* tests/test_sparse_coll.c — the sparse all-reduces (allreduce/sparcml,
 * allreduce/omnireduce) on row-sparse gradients (the `sparse` source):
 *   - the aggregate equals the float64 mean of the workers' gradients within
 *     fp32 rounding (the bound of tests/test_ring.c), on every worker, and is
 *     exactly 0 wherever every worker's gradient is 0;
 *   - the bytes on the wire equal, to the byte, a count made here from the
 *     gradients alone: for SparCML the sizes of the merged index sets at
 *     every recursive-doubling step (4 + 8k sparse, 4 + 4n once past the
 *     break-even), for OmniReduce the non-zero blocks of every push and the
 *     union of them in every answer (4 + per block 4 + 4 x its length);
 *   - the sparse run sends fewer bytes than the same collective on dense
 *     input (its dense_bytes).
 *
 * usage: test_sparse_coll WORKERS ROWS WIDTH TOKENS COLLECTIVE [PATH=VALUE]...
 * (one simulation per process) */
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

/* Bytes of a SparCML set with k non-zeros of n. */
static double set_bytes(size_t k, size_t n) {
  return 4.0 + 8.0 * (double)k > 4.0 + 4.0 * (double)n ? 4.0 + 4.0 * (double)n : 4.0 + 8.0 * (double)k;
}

static size_t count(const unsigned char *m, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) k += m[i];
  return k;
}

/* SparCML's bytes for one iteration, from the workers' masks nz[w][n]. */
static double sparcml_bytes(unsigned char **nz, int N, size_t n) {
  int P = 1;
  while (P * 2 <= N) P *= 2;
  const int R = N - P;
  double bytes = 0;
  unsigned char **v = malloc((size_t)P * sizeof *v); /* the participants' unions */
  for (int p = 0; p < P; p++) {
    v[p] = calloc(n + 1, 1);
    const int r = p < R ? 2 * p + 1 : p + R;
    for (size_t i = 0; i < n; i++) v[p][i] = nz[r][i];
    if (p < R) {
      bytes += set_bytes(count(nz[2 * p], n), n); /* the even worker's hand-over */
      for (size_t i = 0; i < n; i++) v[p][i] |= nz[2 * p][i];
    }
  }
  unsigned char *t = calloc(n + 1, 1);
  for (int mask = 1; mask < P; mask <<= 1) {
    for (int p = 0; p < P; p++) bytes += set_bytes(count(v[p], n), n);
    for (int p = 0; p < P; p++)
      if (p < (p ^ mask))
        for (size_t i = 0; i < n; i++) v[p][i] = v[p ^ mask][i] = v[p][i] | v[p ^ mask][i];
  }
  bytes += R * set_bytes(count(v[0], n), n); /* the sums handed back */
  for (int p = 0; p < P; p++) free(v[p]);
  free(v), free(t);
  return bytes;
}

/* OmniReduce's bytes for one iteration. */
static double omni_bytes(unsigned char **nz, int N, size_t n, size_t bs, int K) {
  const size_t nb = (n + bs - 1) / bs;
  double bytes = 0;
  for (int s = 0; s < K; s++) {
    size_t b0, b1;
    coll_chunk(nb, K, s, &b0, &b1);
    double any = 4;
    for (size_t b = b0; b < b1; b++) {
      const size_t lo = b * bs, hi = lo + bs < n ? lo + bs : n;
      int some = 0;
      for (int w = 0; w < N; w++) {
        int z = 0;
        for (size_t i = lo; i < hi; i++) z |= nz[w][i];
        if (z && w != s) bytes += 4.0 + 4.0 * (double)(hi - lo);
        some |= z;
      }
      if (some) any += 4.0 + 4.0 * (double)(hi - lo);
    }
    bytes += 4.0 * (N - 1) + (N - 1) * any; /* N - 1 push headers, N - 1 answers */
  }
  return bytes;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: test_sparse_coll WORKERS ROWS WIDTH TOKENS COLLECTIVE [PATH=VALUE]...\n");
    return 2;
  }
  const int N = atoi(argv[1]);
  const size_t rows = (size_t)atol(argv[2]), width = (size_t)atol(argv[3]), E = rows * width;
  const char *coll = argv[5];
  char dir[] = "/tmp/ccsim-test-sparse-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[256], sets[8][128];
  snprintf(path, sizeof path, "%s/exp.json", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "{\"name\": \"sparse\", \"seed\": 5, \"workers\": 2, \"iterations\": 3,\n"
             " \"model\": {\"elements\": 8}, \"gradients\": {\"source\": \"sparse\", \"zipf\": 1.0},\n"
             " \"compressor\": \"none\", \"output\": {\"dir\": \"%s/out\"}}\n", dir);
  fclose(f);
  snprintf(sets[0], sizeof sets[0], "workers=%d", N);
  snprintf(sets[1], sizeof sets[1], "model.elements=%zu", E);
  snprintf(sets[2], sizeof sets[2], "gradients.row_width=%zu", width);
  snprintf(sets[3], sizeof sets[3], "gradients.tokens=%s", argv[4]);
  snprintf(sets[4], sizeof sets[4], "collective.name=%s", coll);
  char *setv[16] = {sets[0], sets[1], sets[2], sets[3], sets[4]};
  int nsets = 5;
  for (int a = 6; a < argc && nsets < 16; a++) setv[nsets++] = argv[a];
  ccsim_error err = {0};
  experiment *e = experiment_load(path, setv, nsets, &err);
  CHECK(e != NULL, "load: %s", err.msg);
  if (!e) return check_status("test_sparse_coll");
  run_opts o = {.quiet = 1, .keep_aggregate = 1, .private_outputs = 1};
  run_report rep;
  int rc = run_experiment(e, &o, &rep, &err);
  CHECK(rc == 0, "run: %s", err.msg);
  if (rc) return check_status("test_sparse_coll");

  grad_source g;
  grad_source_init(&g, e);
  unsigned char **nz = malloc((size_t)N * sizeof *nz);
  for (int w = 0; w < N; w++) nz[w] = calloc(E + 1, 1);
  double *sum = calloc(E, sizeof *sum), *abssum = calloc(E, sizeof *abssum);
  float *gi = malloc(E * sizeof *gi + 4);
  const int sparcml = !strcmp(e->collective->name, "allreduce/sparcml");
  double want = 0;
  for (uint32_t it = 0; it < (uint32_t)e->iterations; it++) {
    const int last = it + 1 == (uint32_t)e->iterations;
    for (int w = 0; w < N; w++) {
      grad_fill(&g, (uint32_t)w, it, 0, E, gi);
      for (size_t i = 0; i < E; i++) {
        nz[w][i] = gi[i] != 0.0f;
        if (last) sum[i] += gi[i], abssum[i] += fabs(gi[i]);
      }
    }
    want += sparcml ? sparcml_bytes(nz, N, E)
                    : omni_bytes(nz, N, E, (size_t)e->coll_params[0],
                                 e->coll_params[1] > 0 ? (int)e->coll_params[1] : N);
  }

  /* the aggregate: the mean within fp32 rounding, exactly 0 where all are 0 */
  const double u = 0x1p-24;
  size_t bad = 0, zeros = 0, nonzero_rows = 0;
  for (size_t i = 0; i < E; i++) {
    const double mean = sum[i] / N;
    const double bound = ((N - 1) * u * abssum[i] + 2 * u * fabs(sum[i])) / N;
    const double d = fabs((double)rep.aggregate[i] - mean);
    if (abssum[i] == 0) {
      zeros++;
      if (rep.aggregate[i] != 0.0f) bad++;
    } else if (d > bound * (1 + 1e-9)) {
      if (bad < 5) fprintf(stderr, "element %zu: aggregate %.9g, mean %.9g\n", i, rep.aggregate[i], mean);
      bad++;
    }
    if (i % width == 0 && abssum[i] != 0) nonzero_rows++;
  }
  CHECK(bad == 0, "%zu of %zu elements off the mean", bad, E);
  CHECK(zeros > 0 && nonzero_rows > 0, "the test needs zero and non-zero rows (%zu zero elements)", zeros);
  CHECK(rep.worker_spread == 0, "workers' aggregates differ by %g", rep.worker_spread);
  CHECK(fabs(rep.bytes_on_wire - want) < 0.5, "bytes on wire %.0f, counted from the gradients %.0f",
        rep.bytes_on_wire, want);
  const double dense = e->collective->dense_bytes(E, N, e->coll_params) * e->iterations;
  CHECK(N == 1 || rep.bytes_on_wire < dense, "sparse %.0f bytes not below dense %.0f", rep.bytes_on_wire,
        dense);
  fprintf(stderr, "%s N=%d rows=%zu x %zu tokens=%s: %zu of %zu rows non-zero (last iteration), "
                  "%.0f bytes (dense %.0f)\n",
          coll, N, rows, width, argv[4], nonzero_rows, rows, rep.bytes_on_wire, dense);
  for (int w = 0; w < N; w++) free(nz[w]);
  free(nz);
  free(rep.aggregate);
  free(sum), free(abssum), free(gi);
  experiment_free(e);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_status("test_sparse_coll");
}
