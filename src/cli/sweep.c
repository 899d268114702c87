/* src/cli/sweep.c — `ccsim sweep`: a base experiment over a grid of values. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sweep/sweep.h"

enum { OPT_SLURM = 256, OPT_THROTTLE, OPT_CPUS, OPT_MEM, OPT_TIME, OPT_PARTITION, OPT_COLLECT,
       OPT_POINT, OPT_PRINT, OPT_THREADS, OPT_NO_MEMO, OPT_TIMING };

static int sweep_main(const cli_command *self, int argc, char **argv) {
  sweep_opts o = {.jobs = 1, .point = -1, .slurm = {.cpus_per_task = 1}};
  const char *v, *timing = NULL;
  long long n;
  int k, print = 0;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {
    switch (k) {
    case 'j':
      if (cli_int(self, "--jobs", v, 1, 4096, &n)) return 2;
      o.jobs = (int)n;
      break;
    case 'o': o.out = v; break;
    case 'q': o.quiet = 1; break;
    case 'n': o.dry_run = 1; break;
    case OPT_PRINT: print = 1; break;
    case OPT_SLURM: o.slurm_mode = 1; break;
    case OPT_THROTTLE:
      if (cli_int(self, "--throttle", v, 1, 1000000, &n)) return 2;
      o.slurm.throttle = (int)n;
      break;
    case OPT_CPUS:
      if (cli_int(self, "--cpus-per-task", v, 1, 1000000, &n)) return 2;
      o.slurm.cpus_per_task = (int)n;
      break;
    case OPT_MEM: o.slurm.mem = v; break;
    case OPT_TIME: o.slurm.time = v; break;
    case OPT_PARTITION: o.slurm.partition = v; break;
    case OPT_COLLECT: o.collect = v; break;
    case OPT_POINT:
      if (cli_int(self, "--point", v, 0, 1ll << 30, &n)) return 2;
      o.point = (long)n;
      break;
    case OPT_THREADS:
      if (cli_int(self, "--threads", v, 1, 1024, &n)) return 2;
      o.threads = (int)n;
      break;
    case OPT_NO_MEMO: o.no_memo = 1; break;
    case OPT_TIMING: timing = v; break;
    }
  }
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  if (timing && strcmp(timing, "auto") && strcmp(timing, "simgrid"))
    return cli_bad(self, "--timing: expected \"auto\" or \"simgrid\", got \"%s\"", timing);
  o.timing_simgrid = timing && !strcmp(timing, "simgrid");
  int first = cli_optind();
  if (print && !o.slurm_mode) return cli_bad(self, "--print goes with --slurm");
  o.slurm.print_only = o.slurm_mode && (o.dry_run || print);
  o.slurm.threads = o.threads, o.slurm.no_memo = o.no_memo, o.slurm.timing_simgrid = o.timing_simgrid;
  ccsim_error err = {0};
  if (o.slurm_mode && slurm_check(&o.slurm, &err)) return cli_bad(self, "%s", err.msg);
  if ((o.slurm.throttle || o.slurm.mem || o.slurm.time || o.slurm.partition || o.slurm.cpus_per_task != 1) &&
      !o.slurm_mode)
    return cli_bad(self, "--throttle, --cpus-per-task, --mem, --time and --partition go with --slurm");
  if (o.collect) {
    if (first < argc) return cli_bad(self, "--collect DIR takes no sweep file (DIR records it)");
    if (o.slurm_mode || o.point >= 0 || o.out || o.threads || o.no_memo || o.timing_simgrid)
      return cli_bad(self, "--collect goes alone (with --quiet at most)");
    return sweep_run(&o);
  }
  if (o.slurm_mode && o.point >= 0) return cli_bad(self, "--point is for the job's tasks, not with --slurm");
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
  {"dry-run", 'n', NULL, "list every point as done or todo and run nothing; with --slurm,\n"
                         "print the job script instead of submitting it"},
  {"slurm", OPT_SLURM, NULL, "submit the points still to run as a Slurm job array (sbatch),\n"
                             "one point per array task; prints the job id"},
  {"print", OPT_PRINT, NULL, "with --slurm: print the job script, submit nothing"},
  {"throttle", OPT_THROTTLE, "N", "with --slurm: at most N tasks at once (--array=...%N)"},
  {"cpus-per-task", OPT_CPUS, "N", "with --slurm: CPUs per point (default 1)"},
  {"mem", OPT_MEM, "SIZE", "with --slurm: memory per point, as Slurm writes it (e.g. 4G)"},
  {"time", OPT_TIME, "TIME", "with --slurm: time limit per point (e.g. 30, 2:00:00)"},
  {"partition", OPT_PARTITION, "NAME", "with --slurm: the partition"},
  {"collect", OPT_COLLECT, "DIR", "gather a --slurm sweep's results in DIR: sweep.csv lists each\n"
                                  "point as done, failed or pending (exit 1 unless all are done)"},
  {"point", OPT_POINT, "K", "run point K only and record how it ended (what each array task runs)"},
  {"threads", OPT_THREADS, "N", "each point's `ccsim run --threads N` (default: the CPUs this\n"
                                "process may use over --jobs, at least 1; with --slurm, the\n"
                                "task's --cpus-per-task); the results are the same for every N"},
  {"no-memo", OPT_NO_MEMO, NULL, "each point's `ccsim run --no-memo`: every iteration timed in\n"
                                 "SimGrid (the results are the same)"},
  {"timing", OPT_TIMING, "auto|simgrid", "each point's `ccsim run --timing`: \"simgrid\" times every\n"
                                         "message in SimGrid (the results are the same)"},
  {0},
};

const cli_command cli_sweep = {
  .name = "sweep",
  .synopsis = "SWEEP.json [OPTIONS]",
  .summary = "run a base experiment over a grid of values; resumable",
  .description =
    "A sweep file names a base experiment, settings for every point (\"set\") and axes\n"
    "(docs/inputs.md).  Every point is checked before the first one runs; each point\n"
    "runs as its own `ccsim run` into DIR/<axis>=<value>,.../; a point whose summary.json\n"
    "holds the hash of its experiment as it is now is reused, one whose experiment changed\n"
    "is run again, so a killed sweep resumes.  One sweep at a time holds DIR's lock.\n"
    "DIR/sweep.csv lists every point with its status and figures (docs/outputs.md,\n"
    "docs/outputs-and-sweeps.md).\n"
    "\n"
    "On a Slurm cluster: --slurm writes DIR/slurm/sweep.sbatch, one array task per point\n"
    "still to run, and submits it; --collect DIR then writes sweep.csv, with the same\n"
    "resume rule: submitting again runs only the points not done with their current\n"
    "experiment.\n",
  .options = options,
  .example = "ccsim sweep workloads/cascade/sweep.json --jobs 2 --out runs/cascade\n"
             "    # two points at a time; run it again to resume\n"
             "ccsim sweep workloads/cascade/sweep.json --out runs/cascade --slurm --throttle 16 --mem 2G --time 30\n"
             "ccsim sweep --collect runs/cascade\n"
             "    # the same on a Slurm cluster, 16 points at a time; then gather sweep.csv",
  .main = sweep_main,
};
