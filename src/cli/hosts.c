/* src/cli/hosts.c — `ccsim hosts`: the hosts workers run on, in order. */
#include <stdio.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "error.h"
#include "platforms/check.h"

static int hosts_main(const cli_command *self, int argc, char **argv) {
  const char *v;
  int k;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {}
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  int first = cli_optind();
  if (first >= argc) return cli_bad(self, "missing PLATFORM.xml");
  if (argc - first > 1) return cli_bad(self, "one platform file at a time");
  ccsim_error err = {0};
  /* platforms: ccsim's check, then SimGrid's own load in a child */
  const engine_probe_args probe = {.file = argv[first], .name = argv[first], .cfg_source = "ccsim hosts",
                                   .network_model = "CM02"};
  int rc = platform_check_file(argv[first], &err);
  if (!rc) rc = engine_probe(&probe, &err);
  if (!rc) rc = engine_init("CM02", 0, NULL, 0, 1, &err);
  if (!rc) rc = engine_load_platform(argv[first], &err);
  if (rc) {
    fprintf(stderr, "ccsim: %s\n", err.msg);
    return rc;
  }
  size_t n;
  const char *const *h = engine_hosts(&n);
  for (size_t i = 0; i < n; i++) puts(h[i]);
  return 0;
}

static const cli_option options[] = {{0}};

const cli_command cli_hosts = {
  .name = "hosts",
  .synopsis = "PLATFORM.xml",
  .summary = "list the hosts workers run on, in order (worker i on line i)",
  .description = "Loads a SimGrid platform file as a run would and prints its hosts in the order\n"
                 "workers are placed on them.\n",
  .options = options,
  .example = "ccsim hosts platforms/dgx1-4x8.xml | head -3\n"
             "    # where workers 0, 1 and 2 run",
  .main = hosts_main,
};
