/* tests/test_stacks.c — the data executor's actor stacks (src/sim/exec.c):
 * 1 MiB with a guard page below (sim_exec_guard_pages on, the default), or,
 * where vm.max_map_count has no room for one each (off: which runs, is
 * tests/resources.sh's), none but a margin whose top is checked each time
 * an actor gives its lane back, so that an actor running into the margin
 * ends the process with a message naming its worker.
 *
 * Each case runs in a child process: an actor recurses until DEPTH bytes
 * below its first frame (1,000,000: past the 987,136 usable bytes of a
 * stack with a margin, within the 1 MiB of a guarded one) and returns.
 *
 * An actor's comm_work runs on its lane's own stack (src/sim/exec_comm.c,
 * x86-64 without sanitizers): every actor's work has its frames at the same
 * addresses, away from the actors' stacks, and an actor that would wait
 * inside its work stops the process with an internal error. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "comm/comm.h"
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

/* comm_work on the lane's stack: each actor records where its own frame
 * and its work's frame are. */
static char *actor_at[ACTORS], *work_at[ACTORS];
static int who;
static void where(void *arg, int thread) {
  char here;
  (void)thread;
  work_at[*(int *)arg] = &here;
  __asm__ volatile("" ::"r"(&here) : "memory");
}
static void worker(void *arg) {
  char here;
  int i = who++;
  actor_at[i] = &here;
  comm_work(where, &i, 1);
  (void)arg;
}
/* a work that waits for a message: refused */
static void wait_in_work(void *arg, int thread) {
  (void)arg, (void)thread;
  comm_recv(1, 0);
}
static void waiter(void *arg) {
  (void)arg;
  comm_work(wait_in_work, NULL, 1);
}
static void idle(void *arg) { (void)arg; }

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
  /* comm_work: the same frame address for every actor's work, far from
   * the actor's own frame (stacks are 1 MiB apart; the lane's is another
   * mapping) */
  {
    ccsim_error err = {0};
    sim_exec *x = sim_exec_new(ACTORS, 1, &err);
    CHECK(x != NULL, "sim_exec_new: %s", err.msg);
    if (x) {
      sim_exec_reset(x);
      for (int i = 0; i < ACTORS; i++) CHECK(sim_exec_spawn(x, i, worker, NULL) == 0, "spawn %d", i);
      CHECK(sim_exec_run(x, &err) == 0, "run: %s", err.msg);
      sim_exec_free(x);
      for (int i = 1; i < ACTORS; i++) {
        CHECK(work_at[i] == work_at[0], "actor %d's work at %p, actor 0's at %p", i, (void *)work_at[i],
              (void *)work_at[0]);
        const long d = (long)(actor_at[i] - work_at[i]);
        CHECK(d > (2L << 20) || d < -(2L << 20), "actor %d's work %ld bytes from its own frame", i, d);
      }
    }
  }
  /* an actor waiting inside its work stops the process, saying why */
  {
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(p[1], 2);
      close(p[0]);
      ccsim_error err = {0};
      sim_exec *x = sim_exec_new(2, 1, &err);
      if (!x) _exit(3);
      sim_exec_reset(x);
      if (sim_exec_spawn(x, 0, waiter, NULL) || sim_exec_spawn(x, 1, idle, NULL)) _exit(3);
      sim_exec_run(x, &err);
      _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    for (ssize_t got; n + 1 < sizeof msg && (got = read(p[0], msg + n, sizeof msg - 1 - n)) > 0;) n += (size_t)got;
    msg[n] = 0;
    close(p[0]);
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "waiting in work: status %#x, %s", st, msg);
    CHECK(strstr(msg, "internal error: an actor waited inside comm_work's work") != NULL, "message: %s", msg);
  }
#endif
  return check_status("stacks");
}
