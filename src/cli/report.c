/* src/cli/report.c — `ccsim report DIR`: one HTML page of a run or a sweep,
 * written by the Python analysis script report.py (analysis/ in the source
 * tree, DATADIR/ccsim/python installed), which this command executes. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "datapath.h"
#include "error.h"

enum { OPT_BASELINE = 'b', OPT_OUT = 'o' };

static int is_file(const char *dir, const char *name) {
  char p[PATH_MAX];
  struct stat st;
  if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, name) >= sizeof p) return 0;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Prints "ccsim report: MESSAGE" (one line, whatever the arguments hold) and
 * returns code. */
static int fail(int code, const char *fmt, const char *a, const char *b) {
  char msg[3 * PATH_MAX];
  snprintf(msg, sizeof msg, fmt, a, b);
  ccsim_one_line(msg, sizeof msg);
  fprintf(stderr, "ccsim report: %s\n", msg);
  return code;
}

/* The Python that runs the script: $CCSIM_PYTHON, else Debian's
 * /usr/bin/python3 (which has python3-matplotlib, -numpy, -pandas), else
 * python3 from PATH. */
static const char *python(int *search_path) {
  const char *py = getenv("CCSIM_PYTHON");
  *search_path = 0;
  if (py && *py) return py;
  if (access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  *search_path = 1;
  return "python3";
}

static int report_main(const cli_command *self, int argc, char **argv) {
  const char *baseline = NULL, *out = NULL, *v;
  int k;
  while ((k = cli_getopt(self, argc, argv, &v)) >= 0) {
    if (k == OPT_BASELINE) baseline = v;
    else if (k == OPT_OUT) out = v;
  }
  if (k != CLI_DONE) return k == CLI_EXIT_OK ? 0 : 2;
  int first = cli_optind();
  if (first >= argc) return cli_bad(self, "missing DIR (a run's or a sweep's output directory)");
  if (argc - first > 1) return cli_bad(self, "one directory at a time (got \"%s\" and \"%s\")", argv[first],
                                       argv[first + 1]);
  const char *dir = argv[first];
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return fail(2, "%s: %s", dir, stat(dir, &st) != 0 ? strerror(errno) : "not a directory");
  int run = is_file(dir, "summary.json"), sweep = is_file(dir, "sweep.csv");
  if (!run && !sweep)
    return fail(2, "%s: neither a run (no summary.json: not a ccsim run directory, or the run did not "
                   "finish) nor a sweep (no sweep.csv)%s", dir, "");
  if (baseline && !sweep)
    return fail(2, "--baseline %s: %s is a run; a baseline names a point of a sweep", baseline, dir);
  char script[PATH_MAX];
  if (datapath_file(DATA_ANALYSIS, "report.py", script, sizeof script))
    return fail(1, "report.py not found (looked in %s); set CCSIM_ANALYSIS to the directory that holds "
                   "it%s", script, "");
  int search;
  const char *py = python(&search);
  /* argv for the script: options first, then "--" so that a DIR starting
   * with '-' stays a directory; no shell sees any of it */
  char *args[10];
  int n = 0;
  args[n++] = (char *)py;
  args[n++] = "-B"; /* no __pycache__ in an installed (read-only) tree */
  args[n++] = script;
  if (baseline) args[n++] = "--baseline", args[n++] = (char *)baseline;
  if (out) args[n++] = "--out", args[n++] = (char *)out;
  args[n++] = "--";
  args[n++] = (char *)dir;
  args[n] = NULL;
  fflush(stdout);
  fflush(stderr);
  signal(SIGPIPE, SIG_DFL); /* ccsim ignores it (process.c); Python gets its default */
  if (search) execvp(py, args);
  else execv(py, args);
  return fail(1, "cannot run %s: %s (set CCSIM_PYTHON to a Python 3 with numpy, pandas and matplotlib)", py,
              strerror(errno));
}

static const cli_option options[] = {
  {"baseline", OPT_BASELINE, "POINT", "sweeps: the speed-up of every point over this one: a point as\n"
                                      "sweep.csv names it (workers=8,method=none), some axes\n"
                                      "(method=none: the point with the same other labels) or a\n"
                                      "label one axis has (none)"},
  {"out", OPT_OUT, "FILE.html", "write the page here (default DIR/report.html)"},
  {0},
};

const cli_command cli_report = {
  .name = "report",
  .synopsis = "DIR [--baseline POINT] [--out FILE.html]",
  .summary = "one self-contained HTML page of a run or a sweep: setup, summary, plots",
  .description =
    "DIR is a run's output directory (summary.json, iterations.csv, hops.csv, timeline.csv)\n"
    "or a sweep's (sweep.csv and its points).  The page holds the setup (the resolved\n"
    "experiment, the version, the inputs), a summary table and plots of the time breakdown,\n"
    "the hop error and, for trained runs, convergence; for a sweep one plot per axis (units\n"
    "such as 10Gbps read as numbers and sorted) and the speed-up over --baseline.  Beside\n"
    "each plot is the data it draws.  It needs no network and no script: open it in any\n"
    "browser.  Written by report.py with Python 3, numpy, pandas and matplotlib\n"
    "($CCSIM_PYTHON, else /usr/bin/python3, else python3); docs/report.md.\n",
  .options = options,
  .example = "ccsim report runs/qs\n"
             "    # runs/qs/report.html\n"
             "ccsim report runs/scaling --baseline platform.bandwidth=10Gbps --out scaling.html\n"
             "    # a sweep, each point against the 10Gbps point with the same workers",
  .main = report_main,
};
