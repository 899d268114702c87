/* src/cli/cli.h — the command line: one table entry per subcommand.
 *
 * Each subcommand (src/cli/<name>.c) describes itself once: its synopsis,
 * its options with their help, and an example.  The same text serves
 * `ccsim NAME --help`, getopt_long's option table, the manual page
 * (`ccsim --man`) and the bash completion, so they cannot disagree. */
#ifndef CCSIM_CLI_H
#define CCSIM_CLI_H

#include <stdio.h>

/* One option.  key: the short letter, or a value >= 256 for long-only
 * options; arg: the argument's name in the help, NULL when it takes none. */
typedef struct cli_option {
  const char *name;
  int key;
  const char *arg;
  const char *help;
} cli_option;

typedef struct cli_command {
  const char *name;
  const char *synopsis;    /* what follows "ccsim NAME" in the usage line(s); '\n' separates forms */
  const char *summary;     /* one line, for `ccsim --help` */
  const char *description; /* a paragraph (lines end with '\n') */
  const cli_option *options; /* ends with {0}; --help is added by cli_getopt */
  const char *example;     /* one or more command lines with a comment each */
  int (*main)(const struct cli_command *self, int argc, char **argv); /* argv[0] is the name */
} cli_command;

/* Values cli_getopt returns besides an option's key. */
enum { CLI_DONE = -1, CLI_EXIT_OK = -2, CLI_EXIT_BAD = -3 };

/* getopt_long over c's options.  Returns the key of the next option (its
 * argument in *arg), CLI_DONE when options end (positional arguments then
 * start at cli_optind()), CLI_EXIT_OK after printing the help for --help, or
 * CLI_EXIT_BAD after printing one line naming the subcommand and the bad
 * option.  Call it with the same argv until it returns a value < 0. */
int cli_getopt(const cli_command *c, int argc, char **argv, const char **arg);

/* The index of the first positional argument after cli_getopt returned CLI_DONE. */
int cli_optind(void);

/* text with each "workloads/..." and "platforms/..." path (at a word's
 * start) pointing into the installation's data directory, when the binary
 * runs from one (datapath.h): the --help examples then name files that
 * exist; from the build directory, text as it is (the manual page). */
void cli_example(const char *text, char *out, size_t n);

/* Prints c's help (usage, description, options, example) to out; the
 * example through cli_example. */
void cli_help(const cli_command *c, FILE *out);

/* Prints "ccsim NAME: MESSAGE" and "try 'ccsim NAME --help'" to stderr;
 * returns 2 (bad input), for `return cli_bad(...)`. */
int cli_bad(const cli_command *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a whole decimal integer in [lo, hi] for option `opt`; on failure
 * prints a cli_bad line and returns -1. */
int cli_int(const cli_command *c, const char *opt, const char *s, long long lo, long long hi,
            long long *out);

/* Long-only option keys shared by run and validate. */
enum { CLI_KEY_CFG = 256, CLI_KEY_LOG = 257, CLI_KEY_MAX_MEMORY = 300 };

/* `ccsim run` and `ccsim validate` (validate != 0): parse, load the
 * experiment, run or check it, print the summary.  Returns the exit status. */
int cli_experiment_main(const cli_command *self, int argc, char **argv, int validate);

/* Every subcommand, in the order `ccsim --help` lists them. */
const cli_command *const *cli_commands(size_t *count);

/* The manual page in troff (man(7)), generated from the command table. */
void cli_man(FILE *out);

extern const cli_command cli_run, cli_validate, cli_sweep, cli_list, cli_bench, cli_hosts, cli_report;

#endif
