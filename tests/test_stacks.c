/* tests/test_stacks.c — the data executor's actor stacks (src/sim/exec.c):
 * 1 MiB with a guard page below (sim_exec_guard_pages on, the default), or,
 * where vm.max_map_count has no room for one each (off: which runs, is
 * tests/resources.sh's), none but a margin whose top is checked each time
 * an actor gives its lane back, so that an actor running into the margin
 * ends the process with a message naming its worker.
 *
 * Each case runs in a child process: an actor recurses until DEPTH bytes
 * below its first frame (1,000,000: past the 987,136 usable bytes of a
 * stack with a margin, within the 1 MiB of a guarded one) and returns. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sim/coro.h"
#include "sim/exec.h"

enum { DEPTH = 1000000, ACTORS = 6 };

static char *top;

/* One 4 KiB frame a call, every byte of it written. */
static __attribute__((noinline)) int dig(int d) {
  volatile char buf[4000];
  memset((char *)buf, d & 0xff, sizeof buf);
  if (top - (char *)buf < DEPTH) return dig(d + 1) + buf[d % 4000];
  return buf[0];
}

static volatile int dug;
static void deep(void *arg) {
  char first;
  top = &first;
  dug += dig(0) >= -128;
  (void)arg;
}
static void shallow(void *arg) {
  (void)arg;
  dug += 1;
}

/* In a child: ACTORS actors (actor 3 is `deep` when asked), on 1 lane;
 * exit 0 when they ran, 1 when sim_exec_run failed. */
static _Noreturn void child(int guarded, int with_deep) {
  ccsim_error err = {0};
  sim_exec *x = sim_exec_new(ACTORS, 1, &err);
  if (!x) _exit(3);
  if (!guarded) sim_exec_guard_pages(x, 0);
  sim_exec_reset(x);
  for (int i = 0; i < ACTORS; i++)
    if (sim_exec_spawn(x, i / 2, with_deep && i == 3 ? deep : shallow, NULL)) _exit(3);
  const int rc = sim_exec_run(x, &err);
  sim_exec_free(x);
  _exit(rc ? 1 : dug == ACTORS ? 0 : 4);
}

/* Run child(guarded, with_deep); its wait status, its stderr in msg. */
static int run(int guarded, int with_deep, char *msg, size_t len) {
  int p[2];
  if (pipe(p)) return -1;
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 2);
    close(p[0]);
    child(guarded, with_deep);
  }
  close(p[1]);
  size_t n = 0;
  for (ssize_t got; n + 1 < len && (got = read(p[0], msg + n, len - 1 - n)) > 0;) n += (size_t)got;
  msg[n] = 0;
  close(p[0]);
  int st = -1;
  waitpid(pid, &st, 0);
  return st;
}

int main(void) {
  char msg[4096];
  /* guard pages: plain actors run */
  int st = run(1, 0, msg, sizeof msg);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "guarded, shallow: status %#x, %s", st, msg);
  /* the margin: they run the same */
  st = run(0, 0, msg, sizeof msg);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "margin, shallow: status %#x, %s", st, msg);
#if !defined(CCSIM_ASAN) && !defined(CCSIM_TSAN)
  /* (the sanitizers' frames and their own view of the stacks differ) */
  /* a guarded stack has its whole MiB: 1,000,000 bytes deep is fine */
  st = run(1, 1, msg, sizeof msg);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "guarded, 1e6 bytes deep: status %#x, %s", st, msg);
  /* one with a margin has 987,136 bytes: the pattern is found broken when
   * the actor ends, and the process stops naming worker 1's actor 3 */
  st = run(0, 1, msg, sizeof msg);
  CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "margin, 1e6 bytes deep: status %#x", st);
  CHECK(strstr(msg, "internal error: worker 1's actor 3 ran past its 964 KiB stack") != NULL, "message: %s", msg);
  CHECK(strstr(msg, "vm.max_map_count") != NULL, "message: %s", msg);
#endif
  return check_status("stacks");
}
