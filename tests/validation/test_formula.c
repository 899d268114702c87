/* tests/validation/test_formula.c — the simulated time of an uncompressed ring
 * all-reduce on a generated crossbar matches the alpha-beta formula
 *     T = 2 (N - 1) (alpha + S / (N B))
 * within 1%, for N in {4, 16, 64} and S in {4 KB, 4 MB, 100 MB}, where alpha
 * is the end-to-end latency of one hop under CM02 (the sender's link plus
 * the receiver's: 2 x 5 us) and B = 25 Gbps.  Each case is a real `ccsim run`
 * with real data; the deviation table is printed for the README.
 *
 * usage: test_formula CCSIM EXPERIMENT.json */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static double sim_time(const char *ccsim, const char *exp, int n, const char *size, const char *dir) {
  char cmd[1024], path[512];
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --quiet --out '%s' --set workers=%d --set model.size=%s >/dev/null",
           ccsim, exp, dir, n, size);
  if (system(cmd) != 0) return -1;
  snprintf(path, sizeof path, "%s/summary.json", dir);
  json_error_t jerr;
  json_t *s = json_load_file(path, 0, &jerr);
  if (!s) return -1;
  double t = json_number_value(json_object_get(s, "sim_time_s"));
  json_decref(s);
  return t;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  char dir[] = "/tmp/ccsim-formula-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  static const int ns[] = {4, 16, 64};
  static const struct { const char *text; double bytes; } sizes[] = {
      {"4KB", 4e3}, {"4MB", 4e6}, {"100MB", 100e6}};
  const double B = 25e9 / 8, alpha = 2 * 5e-6;
  printf("| N | S | formula (s) | ccsim (s) | deviation |\n|---|---|---|---|---|\n");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      const int N = ns[i];
      const double S = sizes[j].bytes;
      const double want = 2.0 * (N - 1) * (alpha + S / (N * B));
      const double got = sim_time(argv[1], argv[2], N, sizes[j].text, dir);
      CHECK(got > 0, "N=%d S=%s: run failed", N, sizes[j].text);
      const double dev = got / want - 1;
      printf("| %d | %s | %.6g | %.6g | %+.4f%% |\n", N, sizes[j].text, want, got, 100 * dev);
      CHECK(fabs(dev) < 0.01, "N=%d S=%s: %.6g s vs formula %.6g s (%+.3f%%)", N, sizes[j].text, got,
            want, 100 * dev);
    }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_status("test_formula");
}
