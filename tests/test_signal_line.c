/* tests/test_signal_line.c — a signal's one line reaches the stderr ccsim
 * started with, even while a call into SimGrid has descriptor 2 redirected
 * to its memfd (src/cli/process.c, src/engine/contain.c).  The run
 * redirects it at every iteration where the analytical timing resolves its
 * routes; a SIGTERM handled then used to write "ccsim: interrupted by "
 * into the memfd, or half of it, and the line was lost (tests/limits.sh
 * caught it one time in about thirty).  Each case forks a child whose
 * stderr is a pipe: it installs the handlers, starts the containment,
 * raises the signal (from the main thread, then from a second one while
 * the main thread is contained), and the parent reads exactly the line and
 * the exit status 128 + the signal. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli/process.h"
#include "engine/engine.h"

static int sig_to_raise;

static void *raiser(void *arg) {
  (void)arg;
  kill(getpid(), sig_to_raise); /* to the process: any thread may take it */
  return NULL;
}

static void child(int sig, int from_thread, int contained) {
  /* the default dispositions first, as `env --default-signal` gives ccsim
   * in tests/limits.sh: a test started in the background of a script, or
   * under nohup, inherits SIGINT or SIGHUP ignored, and process_install
   * keeps an ignored signal ignored (the child then waited for ever) */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  alarm(20); /* a handler that never ends the child: SIGALRM, a failed check, not a hung test */
  process_install();
  if (contained && !engine_contain("testing")) _exit(90); /* no memfd: nothing tested */
  sig_to_raise = sig;
  if (from_thread) {
    pthread_t th;
    if (pthread_create(&th, NULL, raiser, NULL) != 0) _exit(91);
    for (;;) pause();
  }
  raise(sig);
  for (;;) pause();
}

static void one(int sig, const char *name, int from_thread, int contained) {
  int p[2];
  CHECK(pipe(p) == 0, "pipe");
  fflush(NULL);
  const pid_t pid = fork();
  CHECK(pid >= 0, "fork");
  if (pid == 0) {
    close(p[0]);
    dup2(p[1], 2);
    close(p[1]);
    child(sig, from_thread, contained);
  }
  close(p[1]);
  char got[512];
  size_t n = 0;
  ssize_t k;
  while (n < sizeof got - 1 && (k = read(p[0], got + n, sizeof got - 1 - n)) > 0) n += (size_t)k;
  got[n] = 0;
  close(p[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
  char want[64];
  snprintf(want, sizeof want, "ccsim: interrupted by %s\n", name);
  const char *how = contained ? "contained" : "not contained";
  const char *where = from_thread ? "another thread" : "the main thread";
  CHECK(!WIFEXITED(status) || WEXITSTATUS(status) != 90, "%s, %s, %s: engine_contain did not redirect stderr", name,
        how, where);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 128 + sig, "%s, %s, %s: status %#x, wanted exit %d", name, how,
        where, status, 128 + sig);
  CHECK(strcmp(got, want) == 0, "%s, %s, %s: stderr \"%s\", wanted \"%s\"", name, how, where, got, want);
}

int main(void) {
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  const char *names[] = {"SIGINT", "SIGTERM", "SIGHUP"};
  for (int i = 0; i < 3; i++)
    for (int contained = 0; contained < 2; contained++)
      for (int th = 0; th < 2; th++) one(sigs[i], names[i], th, contained);
  return check_status("signal_line");
}
