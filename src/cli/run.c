/* src/cli/run.c — `ccsim run` (and the parsing `ccsim validate` shares). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "heap.h"
#include "engine/cfg_check.h"
#include "collectives/collective.h"
#include "error.h"
#include "experiment.h"
#include "sim/run.h"
#include "sim/resources.h"
#include "units.h"

enum {
  OPT_CFG = CLI_KEY_CFG, OPT_LOG = CLI_KEY_LOG, OPT_RECORD_TRACE, OPT_FORCE, OPT_NO_MEMO, OPT_THREADS,
  OPT_SKIP_FINISHED, OPT_TIMING
};
_Static_assert((int)OPT_TIMING < (int)CLI_KEY_MAX_MEMORY, "option keys overlap");

static void human_summary(const experiment *e, const run_report *r) {
  printf("ccsim %s: %s\n", CCSIM_VERSION, e->name);
  printf("  setup            %d workers, %s, compressor %s%s%s, %zu elements, %d iterations\n",
         e->workers, e->collective->name, e->compressor->name, e->memory ? " + memory " : "",
         e->memory ? e->memory->name : "", e->model.elements, e->iterations);
  printf("  simulated time   %.6g s in all, %.6g s per iteration\n", r->sim_time_s,
         r->iteration_time_s);
  /* a figure that does not exist is "n/a" (summary.json's "undefined" says why) */
  char ratio[32] = "n/a (nothing was sent)", rel[32] = "n/a (a zero exact mean)", cosine[32] = "n/a (a zero vector)";
  if (isfinite(r->compression_ratio)) snprintf(ratio, sizeof ratio, "%.3gx", r->compression_ratio);
  if (isfinite(r->agg_rel_error)) snprintf(rel, sizeof rel, "%.3g", r->agg_rel_error);
  if (isfinite(r->agg_cosine)) snprintf(cosine, sizeof cosine, "%.9f", r->agg_cosine);
  printf("  on the wire      %.6g MB in all, compression ratio %s\n", r->bytes_on_wire / 1e6, ratio);
  printf("  aggregate error  relative L2 %s, cosine %s (against the exact float64 mean)\n", rel, cosine);
  /* convergence */
  if (r->trained) {
    printf("  trained          test accuracy %.4f, test loss %.4g after %d iterations\n",
           r->final_accuracy, r->final_loss, e->iterations);
    if (r->iterations_to_accuracy > 0)
      printf("  target %.4g      reached after %d iterations, simulated %.6g s\n",
             e->train.target_accuracy, r->iterations_to_accuracy, r->time_to_accuracy_s);
    else
      printf("  target %.4g      not reached\n", e->train.target_accuracy);
  }
  /* end convergence */
  printf("  host             %.3g s, peak memory %.1f MB%s; timing executor %.3g CPU s in %llu replay%s\n",
         r->host_time_s, r->peak_rss_mb, heap_huge() ? " (heap on huge pages)" : "", r->timing_cpu_s,
         r->timing_replays, r->timing_replays == 1 ? "" : "s");
  printf("  results          %s/summary.json, iterations.csv, hops.csv\n", r->out_dir);
}

/* A SimGrid setting the experiment itself holds becomes a --set of that
 * field, so the resolved experiment in summary.json shows what ran:
 * network/model -> platform.network_model, network/crosstraffic ->
 * platform.crosstraffic.  Returns the new assignment (the caller frees it), or
 * NULL when v is for SimGrid alone. */
static char *cfg_as_set(const char *v) {
  static const struct {
    const char *cfg, *path;
    int boolean;
  } map[] = {{"network/model", "platform.network_model", 0},
             {"network/crosstraffic", "platform.crosstraffic", 1}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    size_t l = strlen(map[i].cfg);
    if (strncmp(v, map[i].cfg, l) || v[l] != ':') continue;
    const char *val = v + l + 1;
    if (map[i].boolean) {
      if (!strcmp(val, "1") || !strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "on"))
        val = "true";
      else if (!strcmp(val, "0") || !strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "off"))
        val = "false";
      else
        return NULL; /* SimGrid says what it expects */
    }
    size_t n = strlen(map[i].path) + strlen(val) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s=%s", map[i].path, val);
    return s;
  }
  return NULL;
}

/* 1 when cfg_as_set(v) makes an assignment (so NULL from it is out of memory). */
static int cfg_is_set(const char *v) {
  if (!strncmp(v, "network/model:", 14)) return 1;
  if (strncmp(v, "network/crosstraffic:", 21)) return 0;
  static const char *const words[] = {"1", "yes", "true", "on", "0", "no", "false", "off"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (!strcmp(v + 21, words[i])) return 1;
  return 0;
}

/* "--cfg=" / "--log=" followed by v, as SimGrid reads it; the caller frees it. */
static char *simgrid_flag(const char *flag, const char *v) {
  size_t n = strlen(flag) + strlen(v) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", flag, v);
  return s;
}

int cli_experiment_main(const cli_command *self, int argc, char **argv, int validate) {
  char **sets = calloc((size_t)argc + 1, sizeof *sets), **cfg = calloc((size_t)argc + 1, sizeof *cfg);
  char **owned = calloc((size_t)argc + 1, sizeof *owned); /* sets made from --cfg */
  int nsets = 0, ncfg = 0, nowned = 0, rc = CCSIM_ERR_INPUT, k;
  experiment *e = NULL;
  run_opts o = {0};
  const char *v, *max_memory = NULL, *threads = NULL, *timing = NULL;
  if (!sets || !cfg || !owned) {
    fprintf(stderr, "ccsim %s: out of memory for the command line\n", self->name);
    rc = CCSIM_ERR_RUNTIME;
    goto done;
  }
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {
    switch (k) {
    case 's': sets[nsets++] = (char *)v; break;
    case 'o': o.out_dir = v; break;
    case 'q': o.quiet = 1; break;
    case OPT_RECORD_TRACE: o.record_trace = v; break;
    case OPT_FORCE: o.force = 1; break;
    case OPT_SKIP_FINISHED: o.skip_finished = 1; break;
    case CLI_KEY_MAX_MEMORY: max_memory = v; break;
    case OPT_NO_MEMO: o.no_memo = 1; break;
    case OPT_THREADS: threads = v; break;
    case OPT_TIMING: timing = v; break;
    case OPT_CFG:
      if ((owned[nowned] = cfg_as_set(v))) sets[nsets++] = owned[nowned++];
      else if (cfg_is_set(v)) k = CLI_EXIT_BAD - 1; /* out of memory */
      else cfg[ncfg++] = simgrid_flag("--cfg=", v);
      break;
    case OPT_LOG: cfg[ncfg++] = simgrid_flag("--log=", v); break;
    }
    if (k == CLI_EXIT_BAD - 1 || (ncfg && !cfg[ncfg - 1])) {
      fprintf(stderr, "ccsim %s: out of memory for the command line\n", self->name);
      rc = CCSIM_ERR_RUNTIME;
      ncfg -= ncfg && !cfg[ncfg - 1];
      goto done;
    }
  }
  if (k == CLI_EXIT_OK) rc = 0;
  if (k != CLI_DONE) goto done;
  /* resources: "8GiB", "512MB", or bytes */
  char *end;
  /* bytes as a plain decimal, or a size with its unit; "inf", "1e400" and
   * "0x10" are not sizes */
  if (max_memory) {
    const size_t digits = strspn(max_memory, "0123456789");
    if (digits && !max_memory[digits]) o.max_memory = strtod(max_memory, &end);
    else if (units_size(max_memory, &o.max_memory)) o.max_memory = -1;
  }
  if (max_memory && !(o.max_memory > 0 && isfinite(o.max_memory))) {
    rc = cli_bad(self, "--max-memory: expected a size such as \"8GiB\" or \"512MB\", got \"%s\"", max_memory);
    goto done;
  }
  if (threads) { /* a count from 1 to 1024 */
    long t = strtol(threads, &end, 10);
    if (*end || end == threads || t < 1 || t > 1024) {
      rc = cli_bad(self, "--threads: expected a thread count from 1 to 1024, got \"%s\"", threads);
      goto done;
    }
    o.threads = (int)t;
  }
  if (timing && strcmp(timing, "auto") && strcmp(timing, "simgrid")) {
    rc = cli_bad(self, "--timing: expected \"auto\" or \"simgrid\", got \"%s\"", timing);
    goto done;
  }
  o.timing_simgrid = timing && !strcmp(timing, "simgrid");
  if (o.skip_finished && o.record_trace) {
    rc = cli_bad(self, "--skip-finished and --record-trace: a skipped run would record no trace");
    goto done;
  }
  int first = cli_optind();
  if (first >= argc) {
    rc = cli_bad(self, "missing EXPERIMENT.json");
    goto done;
  }
  if (argc - first > 1) {
    rc = cli_bad(self, "one experiment file at a time (got \"%s\" and \"%s\")", argv[first],
                 argv[first + 1]);
    goto done;
  }
  const char *file = argv[first];
  ccsim_error err = {0};
  if (engine_cfg_check(cfg, ncfg, &err)) { /* SimGrid's refusal, as one ccsim line naming the option */
    fprintf(stderr, "ccsim %s: %s\n", self->name, err.msg);
    rc = err.code;
    goto done;
  }
  e = experiment_load(file, sets, nsets, &err);
  if (!e) {
    fprintf(stderr, "ccsim: %s\n", err.msg);
    rc = err.code ? err.code : CCSIM_ERR_INPUT;
    goto done;
  }
  /* the --cfg items SimGrid reads change results: part of the experiment's
   * hash and summary (--log ones change only what is logged) */
  {
    char **opts = calloc((size_t)ncfg + 1, sizeof *opts);
    int nopts = 0;
    for (int i = 0; opts && i < ncfg; i++)
      if (!strncmp(cfg[i], "--cfg=", 6)) opts[nopts++] = cfg[i];
    rc = opts ? experiment_set_options(e, opts, nopts, &err) : ccsim_fail(&err, CCSIM_ERR_RUNTIME, "out of memory");
    free(opts);
    if (rc) {
      fprintf(stderr, "ccsim: %s\n", err.msg);
      goto done;
    }
  }
  o.cfg = cfg;
  o.ncfg = ncfg;
  o.validate_only = validate;
  run_report rep;
  rc = run_experiment(e, &o, &rep, &err);
  if (rc) {
    fprintf(stderr, "ccsim: %s\n", err.msg);
  } else if (o.validate_only) {
    char mem[32];
    resources_format(rep.memory_estimate, mem, sizeof mem);
    printf("%s: ok (%d workers on %zu hosts, %s, compressor %s, %zu elements, %d iterations; "
           "needs about %s of memory%s)\n",
           file, e->workers, rep.hosts, e->collective->name, e->compressor->name, e->model.elements, e->iterations,
           mem, rep.unguarded ? "; actor stacks without guard pages: vm.max_map_count has no room for them" : "");
  } else if (rep.skipped) {
    printf("%s: already holds the finished results of this experiment; not rerun\n", rep.out_dir);
  } else {
    human_summary(e, &rep);
  }
done:
  experiment_free(e);
  for (int i = 0; i < ncfg; i++) free(cfg[i]);
  for (int i = 0; i < nowned; i++) free(owned[i]);
  free(owned);
  free(sets);
  free(cfg);
  return rc;
}

static int run_main(const cli_command *self, int argc, char **argv) {
  return cli_experiment_main(self, argc, argv, 0);
}

static const cli_option options[] = {
  {"out", 'o', "DIR", "write the results to DIR (default: the experiment's output.dir)"},
  {"set", 's', "PATH=VALUE", "override one field of the experiment; repeatable, e.g.\n"
                             "--set workers=64 --set platform.bandwidth=10Gbps\n"
                             "(VALUE is read as JSON when it parses, else as a string)"},
  {"quiet", 'q', NULL, "no progress on stderr (otherwise: messages simulated of those\n"
                       "expected and an ETA, inside each iteration, then those timed\n"
                       "in SimGrid's replay of it)"},
  {"cfg", OPT_CFG, "KEY:VALUE", "a SimGrid configuration item, e.g. --cfg network/model:LV08;\n"
                                "repeatable; network/model and network/crosstraffic set\n"
                                "platform.network_model and platform.crosstraffic"},
  {"log", OPT_LOG, "SETTING", "a SimGrid logging setting, e.g. --log root.thres:warning"},
  {"no-memo", OPT_NO_MEMO, NULL, "time every iteration in SimGrid, even one that sends the same\n"
                                "messages as an earlier one (the results are the same; docs/engine.md)"},
  {"timing", OPT_TIMING, "auto|simgrid", "how iterations are timed: \"auto\" (default) times one\n"
                                         "analytically when it provably equals SimGrid (no two flows\n"
                                         "on a link), else in SimGrid;\n"
                                         "\"simgrid\": always in SimGrid (docs/engine.md)"},
  {"threads", OPT_THREADS, "N", "threads the data executor runs the workers on (default: the\n"
                               "CPUs this process may use, as taskset or Slurm set them; one\n"
                               "for traces, PowerSGD and a few collectives); the results are\n"
                               "the same for every N (docs/engine.md)"},
  {"record-trace", OPT_RECORD_TRACE, "DIR",
   "write every worker's gradient of every iteration (before error\n"
   "feedback) as a gradient trace in DIR; replay it with\n"
   "\"gradients\": {\"source\": \"trace\", \"trace\": DIR}"},
  {"max-memory", CLI_KEY_MAX_MEMORY, "SIZE", "refuse the run when its memory estimate exceeds SIZE\n"
                                           "(default: the machine's available memory)"},
  {"force", OPT_FORCE, NULL, "run into a directory that holds another experiment's results\n"
                             "(they are removed first; docs/outputs-and-sweeps.md)"},
  {"skip-finished", OPT_SKIP_FINISHED, NULL,
   "do nothing when the output directory already holds this experiment's\n"
   "finished results (summary.json with the same experiment hash);\n"
   "otherwise the directory is claimed as without it"},
  {0},
};

const cli_command cli_run = {
  .name = "run",
  .synopsis = "EXPERIMENT.json [OPTIONS]",
  .summary = "simulate one experiment and write its results",
  .description =
    "Reads the experiment (docs/inputs.md), simulates it and writes summary.json,\n"
    "iterations.csv, hops.csv, timeline.csv and, for generated platforms, platform.xml\n"
    "to the output directory (docs/outputs.md).  Prints a human summary on stdout.\n",
  .options = options,
  .example = "ccsim run workloads/quickstart.json --out runs/qs --set workers=16\n"
             "    # the quickstart at 16 workers, results in runs/qs",
  .main = run_main,
};
