/* src/cli/cli.c — option parsing, help and the manual page from the
 * subcommands' own descriptions (cli.h). */
#include "cli/cli.h"

#include "datapath.h"
#include "error.h"
#include "suggest.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CLI_MAX_OPTIONS 48
enum { KEY_HELP = 'h' };

static int parsing; /* inside a cli_getopt loop: getopt's state is live */

static const cli_option help_option = {"help", KEY_HELP, NULL, "print this help and exit"};

/* Appends c's options and --help to lo/shorts (sized for CLI_MAX_OPTIONS). */
static void build(const cli_command *c, struct option *lo, char *shorts) {
  size_t n = 0, s = 0;
  /* ':' first: a missing argument returns ':' so it can be named.  GNU
   * permutation stays on: options may follow the file. */
  shorts[s++] = ':';
  for (const cli_option *o = c->options; o && o->name && n < CLI_MAX_OPTIONS - 2; o++) {
    lo[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
    if (o->key > 0 && o->key < 128) {
      shorts[s++] = (char)o->key;
      if (o->arg) shorts[s++] = ':';
    }
  }
  lo[n++] = (struct option){"help", no_argument, NULL, KEY_HELP};
  shorts[s++] = 'h';
  lo[n] = (struct option){0};
  shorts[s] = 0;
}

int cli_bad(const cli_command *c, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ccsim_one_line(msg, sizeof msg); /* an argument may hold a newline */
  fprintf(stderr, "ccsim %s: %s (try 'ccsim %s --help')\n", c->name, msg, c->name);
  return 2;
}

/* The option's spelling as the user typed it, without "=value". */
static void spelled(const char *a, char *out, size_t n) {
  snprintf(out, n, "%s", a);
  char *eq = strchr(out, '=');
  if (eq && out[0] == '-' && out[1] == '-') *eq = 0;
}

/* 1 when name is one of c's long option names or "help". */
static int exact_name(const cli_command *c, const char *name) {
  for (const cli_option *o = c->options; o && o->name; o++)
    if (!strcmp(name, o->name)) return 1;
  return !strcmp(name, "help");
}

/* "unknown option --NAME (did you mean --CLOSEST?)": the closest of c's
 * long names and --help, or "try 'ccsim C --help'" when none is close. */
static void unknown_option(const cli_command *c, char *name) {
  const char *names[CLI_MAX_OPTIONS + 1];
  size_t n = 0;
  for (const cli_option *o = c->options; o && o->name && n < CLI_MAX_OPTIONS - 1; o++) names[n++] = o->name;
  names[n++] = "help";
  names[n] = NULL;
  const char *near = name[0] == '-' && name[1] == '-' ? suggest_closest(name + 2, names) : NULL;
  ccsim_one_line(name, 128);
  if (near)
    fprintf(stderr, "ccsim %s: unknown option %s (did you mean --%s?)\n", c->name, name, near);
  else
    fprintf(stderr, "ccsim %s: unknown option %s (try 'ccsim %s --help')\n", c->name, name, c->name);
}

int cli_getopt(const cli_command *c, int argc, char **argv, const char **arg) {
  static struct option lo[CLI_MAX_OPTIONS];
  static char shorts[2 * CLI_MAX_OPTIONS + 4];
  if (!parsing) {
    build(c, lo, shorts);
    optind = 0; /* GNU getopt: reinitialise (argv differs between calls) */
    opterr = 0;
    parsing = 1;
  }
  int prev = optind ? optind : 1;
  int k = getopt_long(argc, argv, shorts, lo, NULL);
  *arg = optarg;
  if (k == -1) {
    parsing = 0;
    return CLI_DONE;
  }
  char name[128];
  /* getopt_long takes an unambiguous prefix ("--thread" for "--threads"):
   * only the exact long name is accepted */
  if (k != '?' && k != ':' && optind > prev) {
    const char *a = argv[optind - 1];
    if (optarg && a == optarg && optind - 2 >= prev) a = argv[optind - 2]; /* "--opt VALUE" */
    if (a[0] == '-' && a[1] == '-') {
      spelled(a, name, sizeof name);
      if (!exact_name(c, name + 2)) {
        parsing = 0;
        unknown_option(c, name);
        return CLI_EXIT_BAD;
      }
    }
  }
  if (k == '?' || k == ':') {
    parsing = 0;
    if (optopt && optopt < 128 && (optind <= prev || argv[optind - 1][1] != '-'))
      snprintf(name, sizeof name, "-%c", optopt);
    else
      spelled(argv[optind - 1], name, sizeof name);
    if (k == ':' && name[0] == '-' && name[1] == '-' && !exact_name(c, name + 2)) {
      unknown_option(c, name);
    } else if (k == ':') {
      const char *what = "an argument";
      for (const cli_option *o = c->options; o && o->name; o++)
        if ((optopt && o->key == optopt) || !strcmp(name + 2, o->name)) what = o->arg;
      cli_bad(c, "option %s needs %s", name, what);
    } else {
      unknown_option(c, name);
    }
    return CLI_EXIT_BAD;
  }
  if (k == KEY_HELP) {
    parsing = 0;
    cli_help(c, stdout);
    return CLI_EXIT_OK;
  }
  return k;
}

int cli_optind(void) { return optind; }

int cli_int(const cli_command *c, const char *opt, const char *s, long long lo, long long hi,
            long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) {
    cli_bad(c, "%s: expected an integer in [%lld, %lld], got \"%s\"", opt, lo, hi, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* Prints text with every line after a newline indented by `indent`. */
static void indented(FILE *out, const char *text, int indent) {
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n' && p[1]) fprintf(out, "%*s", indent, "");
  }
}

static void usage_lines(const cli_command *c, FILE *out) {
  const char *lead = "usage: ";
  const char *p = c->synopsis;
  do {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(out, "%sccsim %s%s%.*s\n", lead, c->name, len ? " " : "", len, p);
    lead = "       ";
    p = nl ? nl + 1 : NULL;
  } while (p && *p);
}

static void option_line(const cli_option *o, FILE *out) {
  char left[96];
  if (o->key > 0 && o->key < 128)
    snprintf(left, sizeof left, "-%c, --%s%s%s", o->key, o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
  else
    snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
  if (strlen(left) > 24) fprintf(out, "  %s\n%28s", left, "");
  else fprintf(out, "  %-26s", left);
  indented(out, o->help, 28);
  fputc('\n', out);
}

void cli_example(const char *text, char *out, size_t n) {
  static const struct { const char *prefix; data_kind kind; } shipped[] = {
    {"workloads/", DATA_WORKLOADS}, {"platforms/", DATA_PLATFORMS}};
  char dir[2][4096];
  int have[2];
  for (int k = 0; k < 2; k++) have[k] = datapath_installed_dir(shipped[k].kind, dir[k], sizeof dir[k]) == 0;
  size_t used = 0;
  out[0] = 0;
  for (const char *p = text; *p && used + 1 < n;) {
    int k = -1;
    if (p == text || p[-1] == ' ' || p[-1] == '\n')
      for (int j = 0; j < 2; j++)
        if (have[j] && !strncmp(p, shipped[j].prefix, strlen(shipped[j].prefix))) k = j;
    if (k >= 0) {
      int w = snprintf(out + used, n - used, "%s/", dir[k]);
      if (w < 0 || (size_t)w >= n - used) break;
      used += (size_t)w;
      p += strlen(shipped[k].prefix);
    } else {
      out[used++] = *p++;
      out[used] = 0;
    }
  }
}

void cli_help(const cli_command *c, FILE *out) {
  usage_lines(c, out);
  fprintf(out, "\n%s\n", c->summary);
  if (c->description) fprintf(out, "\n%s", c->description);
  fprintf(out, "\noptions:\n");
  for (const cli_option *o = c->options; o && o->name; o++) option_line(o, out);
  option_line(&help_option, out);
  fprintf(out, "\nexample:\n  ");
  char example[8192];
  cli_example(c->example, example, sizeof example);
  indented(out, example, 2);
  fputc('\n', out);
}

/* troff: escape backslashes and '-', and protect lines starting with '.' or '\''. */
static void roff(FILE *out, const char *s) {
  int bol = 1;
  for (const char *p = s; *p; p++) {
    if (bol && (*p == '.' || *p == '\'')) fputs("\\&", out);
    if (*p == '\\') fputs("\\e", out);
    else if (*p == '-') fputs("\\-", out);
    else fputc(*p, out);
    bol = *p == '\n';
  }
}

void cli_man(FILE *out) {
  size_t n;
  const cli_command *const *cmds = cli_commands(&n);
  fprintf(out, ".TH CCSIM 1 \"\" \"ccsim %s\" \"User Commands\"\n", CCSIM_VERSION);
  fprintf(out, ".SH NAME\nccsim \\- simulate compressed collectives in distributed deep-learning training\n");
  fprintf(out, ".SH SYNOPSIS\n");
  for (size_t i = 0; i < n; i++) {
    fprintf(out, ".B ccsim %s\n", cmds[i]->name);
    roff(out, cmds[i]->synopsis);
    fprintf(out, "\n.br\n");
  }
  fprintf(out, ".SH DESCRIPTION\n");
  roff(out, "ccsim runs every simulated worker's real compression code on real gradient data\n"
            "inside a SimGrid simulation of the network, and writes what it measured\n"
            "(summary.json, iterations.csv, hops.csv, timeline.csv) to an output directory.\n"
            "Exit status: 0 success, 1 a run failed, 2 bad input.\n");
  fprintf(out, ".SH COMMANDS\n");
  for (size_t i = 0; i < n; i++) {
    const cli_command *c = cmds[i];
    fprintf(out, ".SS \"ccsim %s\"\n", c->name);
    roff(out, c->summary);
    fprintf(out, "\n.PP\n");
    if (c->description) {
      fprintf(out, ".nf\n");
      roff(out, c->description);
      fprintf(out, ".fi\n");
    }
    for (const cli_option *o = c->options; o && o->name; o++) {
      fprintf(out, ".TP\n");
      if (o->key > 0 && o->key < 128) fprintf(out, "\\fB\\-%c\\fR, ", o->key);
      fprintf(out, "\\fB\\-\\-");
      roff(out, o->name);
      fprintf(out, "\\fR");
      if (o->arg) {
        fprintf(out, " \\fI");
        roff(out, o->arg);
        fprintf(out, "\\fR");
      }
      fprintf(out, "\n.nf\n");
      roff(out, o->help);
      fprintf(out, "\n.fi\n");
    }
    fprintf(out, ".PP\nExample:\n.PP\n.nf\n.RS\n");
    roff(out, c->example);
    fprintf(out, "\n.RE\n.fi\n");
  }
  fprintf(out, ".SH ENVIRONMENT\n.TP\n.B CCSIM_DATA\n");
  roff(out, "where model profiles, platforms, devices and datasets are looked up when they are\n"
            "not found under the installation's data directory.\n");
  fprintf(out, ".TP\n.B CCSIM_PYTHON\n");
  roff(out, "the Python 3 (with numpy, pandas, matplotlib) that `ccsim report` runs; default\n"
            "/usr/bin/python3, else python3 from PATH.\n");
  fprintf(out, ".TP\n.B CCSIM_ANALYSIS\n");
  roff(out, "the directory holding report.py, the script `ccsim report` runs.\n");
  fprintf(out, "\n.SH SEE ALSO\n");
  roff(out, "The documentation in docs/ of the source tree (installed under share/doc/ccsim).\n");
}
