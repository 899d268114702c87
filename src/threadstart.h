/* src/threadstart.h — the threads ccsim starts (the data executor's lanes,
 * the analytical timing's replay) leave SIGINT, SIGTERM and SIGHUP to the
 * main thread: the handler (cli/process.c) then only ever interrupts the
 * main thread, the one that opens, commits and abandons the result files
 * whose temporaries it removes (outputs/results.c), never runs beside it. */
#ifndef CCSIM_THREADSTART_H
#define CCSIM_THREADSTART_H

#include <pthread.h>
#include <signal.h>

/* pthread_create(t, NULL, fn, arg) with those signals blocked in the new
 * thread (it inherits the mask the caller has at the call) */
static inline int thread_start(pthread_t *t, void *(*fn)(void *), void *arg) {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  const int rc = pthread_create(t, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

#endif
