/* src/progress.c — see progress.h. */
#include "progress.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostclock.h"

static struct {
  int on, tty, iterations, it;
  int timing;                           /* counting the timing executor's replay (its child only) */
  double every;                         /* host seconds between lines inside an iteration */
  uint64_t sent, expected, last_count; /* this iteration; the previous one's count */
  double t_it, t_print;                 /* host seconds: iteration start, last line */
  double t_begin;                       /* host seconds: the run's start (the overall ETA) */
  int settled;                          /* iterations whose timing is known */
  char shm[24];                         /* the shared counts' name ("" none) */
} P;

/* What the run and its replay child both see on a terminal, so that both
 * draw the same overall fraction (a POSIX shared-memory object named in P,
 * opened again by the child from its copy of P): the data units done, the
 * iterations settled, and the replay's position (its iteration plus the
 * fraction of its messages).  Each value has one writer and only grows. */
typedef struct shared_counts {
  volatile double data, replay;
  volatile int settled;
} shared_counts;
static shared_counts local, *S = &local;
static char mapped[24];
static int owner; /* this process created S: it unlinks it */

/* Maps the object named P.shm (creating it when create), else S = &local. */
static void share(int create) {
  if (S != &local && !strcmp(mapped, P.shm)) return;
  if (S != &local) munmap((void *)S, sizeof *S);
  S = &local;
  mapped[0] = 0;
  if (!P.shm[0]) return;
  int fd = shm_open(P.shm, create ? O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC : O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && create) { /* a stale one of a process with this pid */
    shm_unlink(P.shm);
    fd = shm_open(P.shm, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  }
  void *m = fd >= 0 && (!create || ftruncate(fd, sizeof *S) == 0)
                ? mmap(NULL, sizeof *S, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                : MAP_FAILED;
  if (fd >= 0) close(fd);
  if (m == MAP_FAILED) {
    if (create) shm_unlink(P.shm), P.shm[0] = 0;
    return;
  }
  S = m;
  snprintf(mapped, sizeof mapped, "%s", P.shm);
  owner = create;
}

/* Messages counted on this thread and not yet added to P.sent: the data
 * executor sends from several threads, which add to the shared count once
 * per 256; only the thread that began the progress (or the replay) prints,
 * looking at the clock once the count has passed another 4096. */
static __thread uint64_t pending, next_look;
static __thread int printer;

void progress_begin(int iterations, int quiet) {
  P.on = !quiet;
  printer = 1;
  P.tty = isatty(2);
  P.iterations = iterations;
  P.it = 0;
  P.sent = P.expected = P.last_count = 0;
  P.t_it = P.t_print = P.t_begin = host_clock();
  P.settled = 0;
  P.shm[0] = 0;
  if (P.on && P.tty) snprintf(P.shm, sizeof P.shm, "/ccsim-progress-%d", (int)getpid());
  share(1);
  S->data = S->replay = 0;
  S->settled = 0;
  /* CCSIM_PROGRESS_SECONDS: the interval between lines (tests set 0) */
  const char *v = getenv("CCSIM_PROGRESS_SECONDS");
  char *end;
  double x = v && *v ? strtod(v, &end) : -1;
  P.every = v && *v && !*end && x >= 0 ? x : P.tty ? 0.5 : 10.0;
}

_Static_assert(sizeof P <= PROGRESS_STATE_BYTES, "PROGRESS_STATE_BYTES too small");
void progress_state_save(unsigned char buf[PROGRESS_STATE_BYTES]) { memcpy(buf, &P, sizeof P); }
void progress_state_load(const unsigned char buf[PROGRESS_STATE_BYTES]) {
  memcpy(&P, buf, sizeof P);
  share(0);
}

void progress_timing(uint64_t messages) {
  printer = 1;
  pending = next_look = 0;
  P.timing = 1;
  P.sent = 0;
  P.expected = messages;
  P.t_it = host_clock();
}

void progress_expect(int it, uint64_t messages) {
  P.it = it;
  P.timing = 0;
  P.sent = pending = next_look = 0;
  P.expected = messages ? messages : P.last_count;
  P.t_it = host_clock();
}

/* "1.23M" */
static const char *count(uint64_t n, char *buf, size_t len) {
  if (n >= 10000000) snprintf(buf, len, "%.1fM", n / 1e6);
  else if (n >= 10000) snprintf(buf, len, "%.0fk", n / 1e3);
  else snprintf(buf, len, "%llu", (unsigned long long)n);
  return buf;
}

/* The run's overall fraction done.  Each iteration is two equal units of
 * work: its data (the data executor's messages) and its timing (the replay
 * in SimGrid, or a memo hit: done at once).  The data executor has finished
 * the iterations before P.it and a fraction of P.it; the replay (in its
 * child, P.timing) the messages it counted of iteration P.it, whose data is
 * done.  The line therefore only moves forward within one process, and the
 * last iteration settled is 100%. */
static double overall(double frac) {
  if (P.iterations < 1) return 0;
  if (P.timing) {
    if (P.it + frac > S->replay) S->replay = P.it + frac;
  } else if (P.it + frac > S->data) {
    S->data = P.it + frac;
  }
  const int settled = S->settled > P.settled ? S->settled : P.settled;
  double data = S->data > P.it ? S->data : P.it, timing = S->replay > settled ? S->replay : settled;
  if (P.timing && data < P.it + 1) data = P.it + 1; /* a replay's iteration has its data */
  if (settled >= P.iterations) data = timing = P.iterations;
  double f = (data + timing) / (2.0 * P.iterations);
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* The terminal's one line: a bar of the overall fraction, its percentage,
 * what runs now, and the overall time left (from the run's start). */
static void tty_line(double now, double f, const char *what) {
  char eta[48] = "";
  const double el = now - P.t_begin;
  if (f > 0.01 && f < 1) snprintf(eta, sizeof eta, ", about %.0f s left", el * (1 - f) / f);
  const int width = 24, done = (int)(f * width + 1e-9);
  fprintf(stderr, "\r[%.*s%*s] %3.0f%% %s%s\033[K", done, "########################", width - done, "",
          floor(f * 100), what, eta);
}

static void report(double now) {
  char a[32], b[32], eta[48] = "";
  const double el = now - P.t_it;
  double frac = P.expected ? (double)P.sent / (double)P.expected : 0;
  if (frac > 1) frac = 1;
  if (P.expected && P.sent > 0 && frac < 1) {
    /* a replay: its own end (the next iterations may come from the memo) */
    double left = el / frac - el + (P.timing ? 0 : (P.iterations - P.it - 1) * (el / frac));
    snprintf(eta, sizeof eta, ", about %.0f s left%s", left, P.timing ? " in this replay" : "");
  }
  if (P.tty) {
    char what[160];
    snprintf(what, sizeof what, "iteration %d/%d: %s %s%s%s messages", P.it + 1, P.iterations,
             P.timing ? "timing" : "simulating", count(P.sent, a, sizeof a), P.expected ? " of " : "",
             P.expected ? count(P.expected, b, sizeof b) : "");
    tty_line(now, overall(frac), what);
  } else {
    fprintf(stderr, "ccsim: iteration %d/%d: %s%s%s messages %s%s\n", P.it + 1, P.iterations,
            count(P.sent, a, sizeof a), P.expected ? " of " : "",
            P.expected ? count(P.expected, b, sizeof b) : "", P.timing ? "timed in SimGrid" : "simulated", eta);
  }
  P.t_print = now;
}

void progress_tick(void) {
  if (!P.on || (++pending & 255)) return;
  const uint64_t sent = __atomic_add_fetch(&P.sent, pending, __ATOMIC_RELAXED);
  pending = 0;
  if (!printer || sent < next_look) return;
  next_look = sent - sent % 4096 + 4096;
  const double now = host_clock();
  if (now - P.t_print >= P.every) report(now);
}

void progress_iteration_done(int it, double sim_now) {
  P.sent += pending; /* the printing thread's; other threads' last few are not counted */
  pending = 0;
  P.last_count = P.sent;
  P.settled = S->settled = it + 1;
  if (!P.on) return;
  const double now = host_clock();
  if (P.tty) {
    char what[160];
    snprintf(what, sizeof what, "%d/%d iterations, simulated %.6g s", it + 1, P.iterations, sim_now);
    /* the data of the iterations after `it` may be under way (run-ahead) */
    double frac = P.expected ? (double)P.sent / (double)P.expected : 0;
    tty_line(now, overall(it + 1 == P.iterations ? 1 : (P.it > it ? (frac > 1 ? 1 : frac) : 1)), what);
  } else {
    fprintf(stderr, "ccsim: iteration %d/%d done at simulated %.6g s\n", it + 1, P.iterations, sim_now);
  }
  P.t_print = now;
}

void progress_end(void) {
  if (P.on && P.tty) fputc('\n', stderr);
  if (owner && P.shm[0]) shm_unlink(P.shm);
  owner = 0;
}
