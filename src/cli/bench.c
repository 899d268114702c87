/* src/cli/bench.c — `ccsim bench`: compressor kernel throughput. */
#include <stdio.h>

#include "cli/bench_core.h"
#include "cli/cli.h"
#include "ccomp/compressor.h"
#include "suggest.h"

enum { OPT_ELEMENTS = 'e', OPT_REPEAT = 'r' };

static int bench_main(const cli_command *self, int argc, char **argv) {
  bench_opts o = {.sizes = {1u << 20, 1u << 24}, .nsizes = 2, .repeat = 5};
  int given = 0, k;
  const char *v;
  long long n;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {
    switch (k) {
    case 'c': o.compressor = v; break;
    case OPT_ELEMENTS:
      if (cli_int(self, "--elements", v, 1, 1ll << 32, &n)) return 2;
      if (given == 8) return cli_bad(self, "--elements: at most 8 sizes");
      o.sizes[given++] = (size_t)n;
      o.nsizes = given;
      break;
    case OPT_REPEAT:
      if (cli_int(self, "--repeat", v, 1, 1000000, &n)) return 2;
      o.repeat = (int)n;
      break;
    case 'J': o.json = 1; break;
    }
  }
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  if (cli_optind() < argc) return cli_bad(self, "unexpected argument \"%s\"", argv[cli_optind()]);
  if (o.compressor && !ccomp_find(o.compressor))
    return cli_bad(self, "unknown compressor \"%s\" (%sknown: %s)", o.compressor,
                   suggest_hint(o.compressor, NULL, ccomp_names(), (char[96]){0}, 96), ccomp_names());
  return bench_run(&o);
}

static const cli_option options[] = {
  {"compressor", 'c', "NAME", "time only this compressor (default: every one; see `ccsim list compressors`)"},
  {"elements", OPT_ELEMENTS, "N", "gradient size in elements; repeatable, up to 8 sizes\n"
                                  "(default 1048576 and 16777216)"},
  {"repeat", OPT_REPEAT, "R", "timed runs per figure, the best is kept (default 5)"},
  {"json", 'J', NULL, "print a JSON array instead of the table"},
  {0},
};

const cli_command cli_bench = {
  .name = "bench",
  .synopsis = "[OPTIONS]",
  .summary = "measure every compressor's encode and decode throughput on this host",
  .description =
    "Times memcpy and each compressor's encode, decode and (summable ones) add on a\n"
    "normal gradient; figures are elements per second, bytes per second and the\n"
    "fraction of memcpy's rate.\n",
  .options = options,
  .example = "ccsim bench --compressor topk --elements 1000000 --repeat 3\n"
             "    # top-k on a million elements, best of three",
  .main = bench_main,
};
