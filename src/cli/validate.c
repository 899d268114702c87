/* src/cli/validate.c — `ccsim validate`: check an experiment without running it. */
#include "cli/cli.h"

static int validate_main(const cli_command *self, int argc, char **argv) {
  return cli_experiment_main(self, argc, argv, 1);
}

static const cli_option options[] = {
  {"set", 's', "PATH=VALUE", "override one field of the experiment; repeatable"},
  {"cfg", CLI_KEY_CFG, "KEY:VALUE", "a SimGrid configuration item, e.g. --cfg network/model:LV08"},
  {"log", CLI_KEY_LOG, "SETTING", "a SimGrid logging setting"},
  {"max-memory", CLI_KEY_MAX_MEMORY, "SIZE", "refuse when the memory estimate exceeds SIZE\n"
                                           "(default: the machine's available memory)"},
  {0},
};

const cli_command cli_validate = {
  .name = "validate",
  .synopsis = "EXPERIMENT.json [OPTIONS]",
  .summary = "check an experiment (and load its platform) without running it",
  .description =
    "Reads the experiment, checks every field and loads its platform; prints one line\n"
    "with the resolved setup.  Exit status 2 and one line naming the file, the JSON\n"
    "path and what was expected when something is wrong.\n",
  .options = options,
  .example = "ccsim validate workloads/quickstart.json --set workers=1000\n"
             "    # would the quickstart run at 1000 workers?",
  .main = validate_main,
};
