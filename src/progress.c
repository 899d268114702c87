/* src/progress.c — see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
  int on, tty, iterations, it;
  int timing;                           /* counting the timing executor's replay (its child only) */
  double every;                         /* host seconds between lines inside an iteration */
  uint64_t sent, expected, last_count; /* this iteration; the previous one's count */
  double t_it, t_print;                 /* host seconds: iteration start, last line */
} P;

/* Messages counted on this thread and not yet added to P.sent: the data
 * executor sends from several threads, which add to the shared count once
 * per 256; only the thread that began the progress (or the replay) prints,
 * looking at the clock once the count has passed another 4096. */
static __thread uint64_t pending, next_look;
static __thread int printer;

static double host_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_begin(int iterations, int quiet) {
  P.on = !quiet;
  printer = 1;
  P.tty = isatty(2);
  P.iterations = iterations;
  P.it = 0;
  P.sent = P.expected = P.last_count = 0;
  P.t_it = P.t_print = host_now();
  /* CCSIM_PROGRESS_SECONDS: the interval between lines (tests set 0) */
  const char *v = getenv("CCSIM_PROGRESS_SECONDS");
  char *end;
  double x = v && *v ? strtod(v, &end) : -1;
  P.every = v && *v && !*end && x >= 0 ? x : P.tty ? 0.5 : 10.0;
}

_Static_assert(sizeof P <= PROGRESS_STATE_BYTES, "PROGRESS_STATE_BYTES too small");
void progress_state_save(unsigned char buf[PROGRESS_STATE_BYTES]) { memcpy(buf, &P, sizeof P); }
void progress_state_load(const unsigned char buf[PROGRESS_STATE_BYTES]) { memcpy(&P, buf, sizeof P); }

void progress_timing(uint64_t messages) {
  printer = 1;
  pending = next_look = 0;
  P.timing = 1;
  P.sent = 0;
  P.expected = messages;
  P.t_it = host_now();
}

void progress_expect(int it, uint64_t messages) {
  P.it = it;
  P.timing = 0;
  P.sent = pending = next_look = 0;
  P.expected = messages ? messages : P.last_count;
  P.t_it = host_now();
}

/* "1.23M" */
static const char *count(uint64_t n, char *buf, size_t len) {
  if (n >= 10000000) snprintf(buf, len, "%.1fM", n / 1e6);
  else if (n >= 10000) snprintf(buf, len, "%.0fk", n / 1e3);
  else snprintf(buf, len, "%llu", (unsigned long long)n);
  return buf;
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
    int width = 24, done = (int)(frac * width);
    fprintf(stderr, "\r[%.*s%*s] iteration %d/%d: %s%s%s%s messages%s   ", done,
            "########################", width - done, "", P.it + 1, P.iterations, P.timing ? "timing " : "",
            count(P.sent, a, sizeof a), P.expected ? " of " : "", P.expected ? count(P.expected, b, sizeof b) : "",
            eta);
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
  const double now = host_now();
  if (now - P.t_print >= P.every) report(now);
}

void progress_iteration_done(int it, double sim_now) {
  P.sent += pending; /* the printing thread's; other threads' last few are not counted */
  pending = 0;
  P.last_count = P.sent;
  if (!P.on) return;
  const double now = host_now();
  if (P.tty) {
    int width = 24, done = (it + 1) * width / P.iterations;
    fprintf(stderr, "\r[%.*s%*s] %d/%d iterations, simulated %.6g s%24s", done,
            "########################", width - done, "", it + 1, P.iterations, sim_now, "");
  } else {
    fprintf(stderr, "ccsim: iteration %d/%d done at simulated %.6g s\n", it + 1, P.iterations, sim_now);
  }
  P.t_print = now;
}

void progress_end(void) {
  if (P.on && P.tty) fputc('\n', stderr);
}
