/* src/engine/contain.c — SimGrid's setup in ccsim's own process, contained
 * (engine.h: engine_contain).
 *
 * The platform probe (probe.c) has already started SimGrid on the same
 * flags and platform in a child and found them good, so when SimGrid fails
 * in this process it is this process's fault (memory, most likely), not
 * the input's.  SimGrid does not say so in a way ccsim can catch: a failed
 * allocation in its C parts ends in xbt_die() and abort(), in its XML lexer
 * in exit(2) with flex's message, elsewhere in a NULL dereference or an
 * assertion.  While contained, SimGrid's stderr goes to a memfd, and
 * abort, a segmentation fault, a bus error or an exit end the run with one
 * line, "ccsim: SimGrid failed while ...: <its first critical line>", exit
 * status 1, the result temporaries removed; on success the captured log is
 * copied to stderr. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/engine.h"
#include "outputs/results.h"

int engine_contain_on;

static volatile sig_atomic_t active;
static int log_fd = -1, real_stderr = -1;
static const char *doing;
static struct sigaction saved[3];
static const int fatal_signals[3] = {SIGABRT, SIGSEGV, SIGBUS};

static void put(int fd, const char *s, size_t n) {
  while (n) {
    const ssize_t k = write(fd, s, n);
    if (k <= 0) return;
    s += k, n -= (size_t)k;
  }
}

/* The end: the first line of the log that says what went wrong (SimGrid's
 * CRITICAL line, flex's message), one line on the real stderr, exit 1.
 * Async-signal-safe. */
static void die(const char *how) {
  active = 0;
  results_abandon_all();
  char log[2048], line[600];
  ssize_t n = log_fd >= 0 ? pread(log_fd, log, sizeof log - 1, 0) : -1;
  if (n < 0) n = 0;
  log[n] = 0;
  size_t len = 0;
  const char *crit = strstr(log, "CRITICAL] "), *pick = crit ? crit + 10 : log;
  while (pick[len] && pick[len] != '\n' && len < sizeof line - 1) len++;
  memcpy(line, pick, len);
  line[len] = 0;
  const int fd = real_stderr >= 0 ? real_stderr : 2;
  put(fd, "ccsim: SimGrid failed while ", 28);
  put(fd, doing, strlen(doing));
  /* no descriptor left is the likelier cause than memory when none can be
   * opened now (SimGrid reports it as a file it cannot open) */
  const int probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int no_fd = probe < 0 && (errno == EMFILE || errno == ENFILE);
  if (probe >= 0) close(probe);
  if (no_fd) put(fd, " (Too many open files: the limit of ulimit -n): ", 48);
  else put(fd, " (out of memory?): ", 19);
  put(fd, len ? line : how, len ? len : strlen(how));
  put(fd, "\n", 1);
  _exit(1);
}

static void on_fatal(int sig) { die(sig == SIGABRT ? "aborted" : sig == SIGSEGV ? "segmentation fault" : "bus error"); }

static void on_exit_contained(void) {
  if (active) die("exited");
}

void engine_contained_fatal(const char *what) {
  if (active) die(what);
}

int engine_contain(const char *what) {
  static int registered;
  if (!engine_contain_on || active) return 0;
  if (!registered && atexit(on_exit_contained) == 0) registered = 1;
  fflush(stderr);
  log_fd = memfd_create("simgrid-log", MFD_CLOEXEC);
  real_stderr = log_fd >= 0 ? fcntl(2, F_DUPFD_CLOEXEC, 3) : -1;
  if (log_fd < 0 || real_stderr < 0 || dup2(log_fd, 2) < 0) { /* uncontained, as before */
    if (log_fd >= 0) close(log_fd);
    if (real_stderr >= 0) close(real_stderr);
    log_fd = real_stderr = -1;
    return 0;
  }
  doing = what;
  struct sigaction sa = {.sa_handler = on_fatal};
  sigfillset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) sigaction(fatal_signals[i], &sa, &saved[i]);
  active = 1;
  return 1;
}

void engine_release(int contained) {
  if (!contained) return;
  active = 0;
  fflush(stderr);
  for (int i = 0; i < 3; i++) sigaction(fatal_signals[i], &saved[i], NULL);
  dup2(real_stderr, 2);
  close(real_stderr);
  char buf[4096];
  ssize_t n;
  for (off_t at = 0; (n = pread(log_fd, buf, sizeof buf, at)) > 0; at += n) put(2, buf, (size_t)n);
  close(log_fd);
  log_fd = real_stderr = -1;
}
