/* src/cli/main.c — the ccsim command line: finds the subcommand and hands it
 * its arguments.  Only main and the subcommands print errors and exit:
 * 0 success, 1 a run failed, 2 bad input. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/process.h"
#include "engine/engine.h"
#include "error.h"
#include "heap.h"
#include "sim/exec.h"
#include "sim/run_state.h"
#include "suggest.h"

static const cli_command *const commands[] = {
  &cli_run, &cli_validate, &cli_sweep, &cli_list, &cli_bench, &cli_hosts, &cli_report,
};

const cli_command *const *cli_commands(size_t *count) {
  *count = sizeof commands / sizeof commands[0];
  return commands;
}

static void top_help(FILE *out) {
  fprintf(out, "usage: ccsim COMMAND [OPTIONS] [ARGS]\n"
               "       ccsim --help | --version | --man\n\n"
               "Simulates compressed collectives in distributed deep-learning training: every\n"
               "simulated worker runs the real compression code on real gradient data.\n\n"
               "commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
  char example[4096];
  cli_example("  ccsim run workloads/quickstart.json --out runs/qs\n"
              "    # the quickstart experiment; results in runs/qs (docs/outputs.md)\n",
              example, sizeof example);
  fprintf(out, "\n  --help     this help; `ccsim COMMAND --help` for a command's options\n"
               "  --version  the version\n"
               "  --man      the manual page (troff) on stdout\n\n"
               "example:\n%s", example);
}

/* The environment variable `name` into *value (NULL when unset): 0, or,
 * when it is set to neither a nor b, -1 after one line on stderr naming it
 * (its value made printable: a newline in it stays on the line). */
static int env_choice(const char *name, const char *a, const char *b, const char **value) {
  const char *v = *value = getenv(name);
  if (!v || !strcmp(v, a) || !strcmp(v, b)) return 0;
  char shown[512];
  snprintf(shown, sizeof shown, "%s", v);
  ccsim_one_line(shown, sizeof shown);
  fprintf(stderr, "ccsim: environment: %s is \"%s\", expected \"%s\" or \"%s\"\n", name, shown, a, b);
  return -1;
}

int main(int argc, char **argv) {
  /* the timing executor's zygote when CCSIM_TIMING_ZYGOTE=exec: ccsim
   * executed again by a run (timing_zygote.c), with malloc's defaults (SimGrid's
   * replays, not the data plane) */
  if (argc > 1 && !strcmp(argv[1], ENGINE_ZYGOTE_FLAG)) return engine_zygote_main(argc, argv);
  process_install(); /* signals, limits, out of memory in C++ (process.h) */
  /* Payloads and their shadows are allocated and freed at every hop; keep
   * the freed blocks for reuse instead of returning them to the kernel
   * (mmap'd blocks above 128 KB would be faulted in again each time). */
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (argc < 2) { /* bad input: one line, as every other */
    fprintf(stderr, "ccsim: missing COMMAND (run, validate, sweep, list, bench, hosts, report; try 'ccsim --help')\n");
    return 2;
  }
  const char *cmd = argv[1];
  /* the timing executor's zygote is a fork of this process, taken right
   * after the platform is loaded, unless CCSIM_TIMING_ZYGOTE=exec asks for
   * this binary executed afresh (docs/engine.md, "The zygote") */
  const char *zy, *ra, *hp, *pc;
  if (env_choice("CCSIM_TIMING_ZYGOTE", "exec", "fork", &zy)) return 2;
  engine_zygote_exec = zy && !strcmp(zy, "exec");
  /* CCSIM_RUN_AHEAD=0 settles every iteration before the next one's data
   * (tests compare it with the default, running ahead of the replays) */
  if (env_choice("CCSIM_RUN_AHEAD", "0", "1", &ra)) return 2;
  run_ahead = !(ra && !strcmp(ra, "0"));
  /* one arena, its heap on huge pages where allowed, unless
   * CCSIM_HUGEPAGES=0 (heap.h) */
  if (env_choice("CCSIM_HUGEPAGES", "0", "1", &hp)) return 2;
  heap_setup(!(hp && !strcmp(hp, "0")));
  /* CCSIM_PACE=0 deals the ranks to the lanes evenly at every iteration,
   * not by the pace the lanes showed (sim/exec.h) */
  if (env_choice("CCSIM_PACE", "0", "1", &pc)) return 2;
  sim_exec_pace = !(pc && !strcmp(pc, "0"));
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    if (argc > 2 && strcmp(cmd, "help") == 0)
      for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[2], commands[i]->name)) {
          cli_help(commands[i], stdout);
          return process_finish(0);
        }
    top_help(stdout);
    return process_finish(0);
  }
  if (!strcmp(cmd, "--version")) {
    printf("ccsim %s\n", CCSIM_VERSION);
    return process_finish(0);
  }
  if (!strcmp(cmd, "--man")) {
    cli_man(stdout);
    return process_finish(0);
  }
  /* the names of the commands, for the bash completion */
  if (!strcmp(cmd, "--commands")) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) puts(commands[i]->name);
    return process_finish(0);
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i]->name))
      return process_finish(commands[i]->main(commands[i], argc - 1, argv + 1));
  char shown[512];
  snprintf(shown, sizeof shown, "%s", cmd);
  ccsim_one_line(shown, sizeof shown);
  if (cmd[0] == '-')
    fprintf(stderr, "ccsim: unknown option %s (try 'ccsim --help')\n", shown);
  else {
    const char *names[sizeof commands / sizeof commands[0] + 1];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) names[i] = commands[i]->name;
    names[sizeof commands / sizeof commands[0]] = NULL;
    const char *near = suggest_closest(cmd, names);
    if (near) fprintf(stderr, "ccsim: unknown command \"%s\" (did you mean \"%s\"?)\n", shown, near);
    else fprintf(stderr, "ccsim: unknown command \"%s\" (try 'ccsim --help')\n", shown);
  }
  return 2;
}
