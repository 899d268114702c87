/* src/hostclock.h — seconds on the host's monotonic clock: what ccsim
 * itself takes (a run's host time, the lanes' pace, progress, benchmarks),
 * never simulated time. */
#ifndef CCSIM_HOSTCLOCK_H
#define CCSIM_HOSTCLOCK_H

#include <time.h>

static inline double host_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
