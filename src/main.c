/* src/main.c — the ccsim command line.  Only main prints errors and exits:
 * 0 success, 1 a run failed, 2 bad input (DESIGN section 3). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "collectives/collective.h"
#include "engine.h"
#include "error.h"
#include "experiment.h"
#include "platform.h"
#include "run.h"
#include "sweep.h"
#include "device.h"
#include "profile.h"

static const char usage[] =
    "usage: ccsim run EXPERIMENT.json [--out DIR] [--set PATH=VALUE]... [--quiet] [--cfg=K:V]...\n"
    "                 [--record-trace DIR]\n"
    "       ccsim validate EXPERIMENT.json [--set PATH=VALUE]...\n"
    "       ccsim sweep SWEEP.json [--jobs N] [--out DIR] [--quiet] [--dry-run]\n"
    "       ccsim list compressors|memories|collectives|platforms|models|devices\n"
    "       ccsim bench [--compressor NAME] [--elements N]... [--repeat R] [--json]\n"
    "       ccsim hosts PLATFORM.xml   the hosts workers run on, in order (worker i on line i)\n"
    "       ccsim --help | --version\n"
    "\n"
    "  run        simulate the experiment; write summary.json, iterations.csv, hops.csv\n"
    "             and platform.xml (generated platforms) to DIR (default: output.dir)\n"
    "  validate   check the experiment (and load its platform file) without running\n"
    "  sweep      run a base experiment over a grid of values, N at a time; resumable\n"
    "             (points with a summary.json are skipped); DIR/sweep.csv lists them\n"
    "  --set      override one field, e.g. --set workers=64 --set platform.bandwidth=10Gbps\n"
    "             (VALUE is read as JSON when it parses, else as a string)\n"
    "  --cfg=...  passed to SimGrid, e.g. --cfg=network/model:LV08; --log=... likewise\n"
    "  --quiet    no progress on stderr\n"
    "  --record-trace DIR  write every worker's gradient of every iteration (before error\n"
    "             feedback) as a gradient trace in DIR (analysis/TRACES.md); replay it with\n"
    "             \"gradients\": {\"source\": \"trace\", \"trace\": DIR}\n";

static int list(const char *what) {
  size_t count;
  if (strcmp(what, "compressors") == 0) {
    const ccomp_type *const *reg = ccomp_registry(&count);
    for (size_t i = 0; i < count; i++) {
      const ccomp_type *t = reg[i];
      char params[512] = "";
      for (size_t k = 0; k < t->nparams; k++) {
        char one[96];
        snprintf(one, sizeof one, "%s%s=%g", k ? " " : "", t->params[k].name, t->params[k].def);
        strncat(params, one, sizeof params - strlen(params) - 1);
      }
      printf("%-14s %-12s %-40s %s\n", t->name, (t->flags & CCOMP_SUMMABLE) ? "summable" : "-",
             params[0] ? params : "(no parameters)", t->summary);
    }
    return 0;
  }
  if (strcmp(what, "memories") == 0) {
    const ccomp_memory_type *const *reg = ccomp_memory_registry(&count);
    printf("%-14s %s\n", "none", "no error feedback");
    for (size_t i = 0; i < count; i++) printf("%-14s %s\n", reg[i]->name, reg[i]->summary);
    return 0;
  }
  if (strcmp(what, "devices") == 0) {
    device_list(stdout);
    return 0;
  }
  if (strcmp(what, "models") == 0) {
    const char *d = getenv("CCSIM_MODELS");
    profile_list(stdout, d && *d ? d : CCSIM_MODELS_DIR);
    return 0;
  }
  if (strcmp(what, "collectives") == 0) {
    const collective_type *const *reg = collective_registry(&count);
    for (size_t i = 0; i < count; i++)
      printf("%-26s %-18s %s\n", reg[i]->name,
             (reg[i]->requires & COLL_NEEDS_SUMMABLE) ? "needs summable" : "any compressor",
             reg[i]->description);
    return 0;
  }
  /* platforms: the generators, then the shipped files of $CCSIM_PLATFORMS,
   * else of the directory src/meson.build compiles in (CCSIM_PLATFORMS_DIR). */
  if (strcmp(what, "platforms") == 0) {
    const char *dir = getenv("CCSIM_PLATFORMS");
#ifdef CCSIM_PLATFORMS_DIR
    if (!dir || !*dir) dir = CCSIM_PLATFORMS_DIR;
#endif
    platform_list(stdout, dir && *dir ? dir : NULL);
    return 0;
  }
  fprintf(stderr, "ccsim list: unknown list \"%s\" (known: compressors, memories, collectives, platforms, models, devices)\n",
          what);
  return CCSIM_ERR_INPUT;
}

static void human_summary(const experiment *e, const run_report *r) {
  printf("ccsim %s: %s\n", CCSIM_VERSION, e->name);
  printf("  setup            %d workers, %s, compressor %s%s%s, %zu elements, %d iterations\n",
         e->workers, e->collective->name, e->compressor->name, e->memory ? " + memory " : "",
         e->memory ? e->memory->name : "", e->model.elements, e->iterations);
  printf("  simulated time   %.6g s in all, %.6g s per iteration\n", r->sim_time_s,
         r->iteration_time_s);
  printf("  on the wire      %.6g MB in all, compression ratio %.3gx\n", r->bytes_on_wire / 1e6,
         r->compression_ratio);
  printf("  aggregate error  relative L2 %.3g, cosine %.9f (against the exact float64 mean)\n",
         r->agg_rel_error, r->agg_cosine);
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
  printf("  host             %.3g s, peak memory %.1f MB\n", r->host_time_s, r->peak_rss_mb);
  printf("  results          %s/summary.json, iterations.csv, hops.csv\n", r->out_dir);
}

int main(int argc, char **argv) {
  /* Payloads and their shadows are allocated and freed at every hop; keep
   * the freed blocks for reuse instead of returning them to the kernel
   * (mmap'd blocks above 128 KB would be faulted in again each time). */
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? CCSIM_ERR_INPUT : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("ccsim %s\n", CCSIM_VERSION);
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "list")) {
    if (argc != 3) {
      fputs(usage, stderr);
      return CCSIM_ERR_INPUT;
    }
    return list(argv[2]);
  }
  if (!strcmp(cmd, "bench")) return bench_main(argc - 2, argv + 2);
  if (!strcmp(cmd, "sweep")) return sweep_main(argc - 2, argv + 2);
  if (!strcmp(cmd, "hosts")) {
    if (argc != 3) {
      fputs(usage, stderr);
      return CCSIM_ERR_INPUT;
    }
    ccsim_error err = {0};
    int rc = engine_init("CM02", 0, NULL, 0, 1, &err);
    if (!rc) rc = engine_load_platform(argv[2], &err);
    if (rc) {
      fprintf(stderr, "ccsim: %s\n", err.msg);
      return rc;
    }
    size_t n;
    const char *const *h = engine_hosts(&n);
    for (size_t i = 0; i < n; i++) puts(h[i]);
    return 0;
  }
  if (strcmp(cmd, "run") && strcmp(cmd, "validate")) {
    fprintf(stderr, "ccsim: unknown command \"%s\"\n%s", cmd, usage);
    return CCSIM_ERR_INPUT;
  }
  const char *file = NULL;
  char **sets = calloc((size_t)argc, sizeof *sets), **cfg = calloc((size_t)argc, sizeof *cfg);
  int nsets = 0, ncfg = 0, rc = CCSIM_ERR_INPUT;
  experiment *e = NULL;
  run_opts o = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--set") && i + 1 < argc) sets[nsets++] = argv[++i];
    else if (!strncmp(a, "--set=", 6)) sets[nsets++] = argv[i] + 6;
    else if (!strcmp(a, "--out") && i + 1 < argc) o.out_dir = argv[++i];
    else if (!strncmp(a, "--out=", 6)) o.out_dir = argv[i] + 6;
    else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) o.quiet = 1;
    /* convergence */
    else if (!strcmp(a, "--record-trace") && i + 1 < argc && !strcmp(cmd, "run")) o.record_trace = argv[++i];
    else if (!strncmp(a, "--record-trace=", 15) && !strcmp(cmd, "run")) o.record_trace = argv[i] + 15;
    /* end convergence */
    else if (!strncmp(a, "--cfg=", 6) || !strncmp(a, "--log=", 6)) cfg[ncfg++] = argv[i];
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "ccsim %s: unknown or incomplete option \"%s\"\n%s", cmd, a, usage);
      goto done;
    } else if (!file) file = a;
    else {
      fprintf(stderr, "ccsim %s: one experiment file at a time (got \"%s\" and \"%s\")\n", cmd, file, a);
      goto done;
    }
  }
  if (!file) {
    fprintf(stderr, "ccsim %s: missing EXPERIMENT.json\n%s", cmd, usage);
    goto done;
  }
  ccsim_error err = {0};
  e = experiment_load(file, sets, nsets, &err);
  if (!e) {
    fprintf(stderr, "ccsim: %s\n", err.msg);
    rc = err.code ? err.code : CCSIM_ERR_INPUT;
    goto done;
  }
  o.cfg = cfg;
  o.ncfg = ncfg;
  o.validate_only = !strcmp(cmd, "validate");
  run_report rep;
  rc = run_experiment(e, &o, &rep, &err);
  if (rc) {
    fprintf(stderr, "ccsim: %s\n", err.msg);
  } else if (o.validate_only) {
    printf("%s: ok (%d workers on %zu hosts, %s, compressor %s, %zu elements, %d iterations)\n",
           file, e->workers, rep.hosts, e->collective->name, e->compressor->name,
           e->model.elements, e->iterations);
  } else {
    human_summary(e, &rep);
  }
done:
  experiment_free(e);
  free(sets);
  free(cfg);
  return rc;
}
