/* src/cli/sweep.c — `ccsim sweep`: a base experiment over a grid of values. */
#include <stdlib.h>

#include "cli.h"
#include "sweep.h"

static int sweep_main(const cli_command *self, int argc, char **argv) {
  sweep_opts o = {.jobs = 1};
  const char *v;
  long long n;
  int k;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {
    switch (k) {
    case 'j':
      if (cli_int(self, "--jobs", v, 1, 4096, &n)) return 2;
      o.jobs = (int)n;
      break;
    case 'o': o.out = v; break;
    case 'q': o.quiet = 1; break;
    case 'n': o.dry_run = 1; break;
    }
  }
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  int first = cli_optind();
  if (first >= argc) return cli_bad(self, "missing SWEEP.json");
  if (argc - first > 1)
    return cli_bad(self, "one sweep file at a time (got \"%s\" and \"%s\")", argv[first],
                   argv[first + 1]);
  o.file = argv[first];
  return sweep_run(&o);
}

static const cli_option options[] = {
  {"jobs", 'j', "N", "run N points at a time (default 1)"},
  {"out", 'o', "DIR", "write the points and sweep.csv under DIR (default: the sweep's output.dir)"},
  {"quiet", 'q', NULL, "no progress on stderr"},
  {"dry-run", 'n', NULL, "list every point as done or todo and run nothing"},
  {0},
};

const cli_command cli_sweep = {
  .name = "sweep",
  .synopsis = "SWEEP.json [OPTIONS]",
  .summary = "run a base experiment over a grid of values; resumable",
  .description =
    "A sweep file names a base experiment, settings for every point (\"set\") and axes\n"
    "(docs/inputs.md).  Every point is checked before the first one runs; each point\n"
    "runs as its own `ccsim run` into DIR/<axis>=<value>,.../ and a point whose\n"
    "summary.json exists is skipped, so a killed sweep resumes.  DIR/sweep.csv lists\n"
    "every point with its figures (docs/outputs.md).\n",
  .options = options,
  .example = "ccsim sweep workloads/cascade/sweep.json --jobs 2 --out runs/cascade\n"
             "    # two points at a time; run it again to resume",
  .main = sweep_main,
};
