/* tests/validation/test_formula.c — the simulated time of an uncompressed
 * collective on a generated crossbar matches its alpha-beta formula, for
 * N in {4, 8, 16, 64} and a non-power of two (12), at several sizes.  alpha
 * is the end-to-end latency of one hop under CM02 (the sender's link plus
 * the receiver's: 2 x 5 us) and B = 25 Gbps; S is the tensor in bytes.
 *
 *   allreduce/ring, ring-recompress   2 (N-1)(alpha + S/(N B))
 *   allreduce/tree (binomial)         2 ceil(log2 N)(alpha + S/B)
 *   allreduce/rhd                     2 log2(P) alpha + 2 (P-1)/P S/B
 *                                     [+ 2 (alpha + S/B) when N != P]
 *                                     (P: largest power of two <= N)
 *   allreduce/torus2d (R x C)         2 (C-1)(alpha + S/(C B)) + 2 (R-1)(alpha + S/(N B))
 *   allreduce/hierarchical (G/node)   2 ceil(log2 G)(alpha + S/B) + 2 (M-1)(alpha + S/(M B))
 *   allgather/ring                    (N-1)(alpha + S/B)
 *   allgather/rd                      log2(N) alpha + (N-1) S/B
 *   ps (K servers)                    2 (alpha + (N-1) S/(K B))
 *
 * Each case is a real `ccsim run` with real data; the deviation table is
 * printed for the README.  Tolerance: 2% (the chunks of uneven size are the
 * only departure from the formulas at these sizes).
 *
 * usage: test_formula CCSIM EXPERIMENT.json COLLECTIVE [SIZES] */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static double sim_time(const char *ccsim, const char *exp, const char *coll, int n, const char *size,
                       const char *dir) {
  char cmd[1024], path[512];
  snprintf(cmd, sizeof cmd,
           "'%s' run '%s' --quiet --force --out '%s' --set workers=%d --set model.size=%s "
           "--set 'collective=\"%s\"' %s >/dev/null",
           ccsim, exp, dir, n, size, coll,
           !strcmp(coll, "allreduce/hierarchical") ? "--set collective.node_size=4" : "");
  if (system(cmd) != 0) return -1;
  snprintf(path, sizeof path, "%s/summary.json", dir);
  json_error_t jerr;
  json_t *s = json_load_file(path, 0, &jerr);
  if (!s) return -1;
  double t = json_number_value(json_object_get(s, "sim_time_s"));
  json_decref(s);
  return t;
}

static int ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) l++;
  return l;
}

static int most_square_rows(int n) {
  int R = 1;
  for (int d = 1; d * d <= n; d++)
    if (n % d == 0) R = d;
  return R;
}

static double formula(const char *c, int N, double S, double a, double B) {
  if (!strcmp(c, "allreduce/ring") || !strcmp(c, "allreduce/ring-recompress"))
    return 2.0 * (N - 1) * (a + S / (N * B));
  if (!strcmp(c, "allreduce/tree")) return 2.0 * ceil_log2(N) * (a + S / B);
  if (!strcmp(c, "allreduce/rhd")) {
    int P = 1;
    while (P * 2 <= N) P *= 2;
    return 2.0 * ceil_log2(P) * a + 2.0 * (P - 1) / P * S / B + (N != P ? 2 * (a + S / B) : 0);
  }
  if (!strcmp(c, "allreduce/torus2d")) {
    const int R = most_square_rows(N), C = N / R;
    return 2.0 * (C - 1) * (a + S / (C * B)) + 2.0 * (R - 1) * (a + S / (N * B));
  }
  if (!strcmp(c, "allreduce/hierarchical")) {
    const int G = 4, M = N / G;
    return 2.0 * ceil_log2(G) * (a + S / B) + 2.0 * (M - 1) * (a + S / (M * B));
  }
  if (!strcmp(c, "allgather/ring")) return (N - 1) * (a + S / B);
  if (!strcmp(c, "allgather/rd")) return ceil_log2(N) * a + (N - 1) * S / B;
  if (!strcmp(c, "ps")) return 2.0 * (a + (N - 1) * S / (N * B));
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  const char *coll = argv[3];
  char dir[] = "/tmp/ccsim-formula-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  static const int ns[] = {4, 8, 12, 16, 64};
  static const struct { const char *text; double bytes; } sizes[] = {
      {"4KB", 4e3}, {"4MB", 4e6}, {"100MB", 100e6}};
  /* 100 MB only where the data plane holds one tensor per worker */
  const int nsizes = !strcmp(coll, "allreduce/ring") ? 3 : 2;
  const double B = 25e9 / 8, alpha = 2 * 5e-6;
  printf("%s\n| N | S | formula (s) | ccsim (s) | deviation |\n|---|---|---|---|---|\n", coll);
  double worst = 0;
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
    for (int j = 0; j < nsizes; j++) {
      const int N = ns[i];
      if (!strcmp(coll, "allgather/rd") && (N & (N - 1))) continue; /* refused: tested elsewhere */
      const double S = sizes[j].bytes;
      const double want = formula(coll, N, S, alpha, B);
      CHECK(want > 0, "no formula for %s", coll);
      const double got = sim_time(argv[1], argv[2], coll, N, sizes[j].text, dir);
      CHECK(got > 0, "%s N=%d S=%s: run failed", coll, N, sizes[j].text);
      const double dev = got / want - 1;
      if (fabs(dev) > fabs(worst)) worst = dev;
      printf("| %d | %s | %.6g | %.6g | %+.4f%% |\n", N, sizes[j].text, want, got, 100 * dev);
      CHECK(fabs(dev) < 0.02, "%s N=%d S=%s: %.6g s vs formula %.6g s (%+.3f%%)", coll, N,
            sizes[j].text, got, want, 100 * dev);
    }
  printf("%s: worst deviation %+.4f%%\n", coll, 100 * worst);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_status("test_formula");
}
