/* src/cli/process.c — signals, limits, OpenBLAS's threads, stdout at exit
 * and memory that C++ cannot get (process.h). */
#include "cli/process.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "jsonmem.h"
#include "outputs/results.h"

/* The stderr ccsim was started with, kept on a descriptor of its own
 * (process_install): the run redirects descriptor 2 to a memfd while it
 * calls into SimGrid (engine/contain.c), at every iteration where the
 * analytical timing resolves its routes, and a signal handled on another
 * thread meanwhile wrote its line into that memfd (lost, or cut in two). */
static int err_fd = 2;

/* a then b, one write (async-signal-safe) */
static void say(const char *a, const char *b) {
  char line[256];
  size_t n = 0;
  for (const char *s = a; *s && n < sizeof line; s++) line[n++] = *s;
  for (const char *s = b; *s && n < sizeof line; s++) line[n++] = *s;
  ssize_t unused = write(err_fd, line, n);
  (void)unused;
}

/* The out-of-memory end, "ccsim: out of memory" and what failed. */
static void out_of_memory(const char *what) {
  engine_contained_fatal("out of memory"); /* inside SimGrid's setup: its line */
  results_abandon_all();
  say("ccsim: out of memory", what);
  _exit(1);
}

void process_out_of_memory(void) { out_of_memory(" (an allocation inside SimGrid failed)\n"); }

/* the process that installed the handlers; a process it forked (the platform
 * probe, the replay zygote) inherits them, and is signalled with it when the
 * signal goes to the whole process group (Ctrl-C, timeout(1)): it leaves
 * quietly, so that the one line is the main process's */
static pid_t main_pid;

static void on_signal(int sig) {
  results_abandon_all();
  if (getpid() != main_pid) _exit(128 + sig);
  say("ccsim: interrupted by ", sig == SIGINT ? "SIGINT\n" : sig == SIGTERM ? "SIGTERM\n" : "SIGHUP\n");
  _exit(128 + sig);
}

/* jansson asked for memory that malloc refused (jsonmem.h: it must never
 * see the NULL): the out-of-memory end, before its parser can go on */
static void json_refused(size_t n) {
  (void)n;
  out_of_memory(" (an allocation of the JSON library failed)\n");
}

/* std::set_new_handler(process_out_of_memory): SimGrid's operator new calls
 * it when malloc fails, instead of throwing a std::bad_alloc that nothing
 * catches (abort).  ccsim is C, so the function is looked up by its
 * Itanium C++ ABI name in the C++ runtime SimGrid brought in. */
static void new_handler(void) {
  typedef void (*handler)(void);
  typedef handler (*setter)(handler);
  void *sym = dlsym(RTLD_DEFAULT, "_ZSt15set_new_handlerPFvvE");
  if (sym) ((setter)sym)(process_out_of_memory);
}

void process_install(void) {
  main_pid = getpid();
  /* above the low descriptors, closed across exec (what ccsim runs has its
   * own stderr); none left (ulimit -n): descriptor 2 itself, as before */
  const int fd = fcntl(2, F_DUPFD_CLOEXEC, 10);
  if (fd >= 0) err_fd = fd;
  /* OpenBLAS, loaded only when a run trains (train/blas.h), reads this in
   * its initialiser: no thread pool, in this process or any it starts.
   * Set here, before any thread exists (setenv is not thread-safe). */
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  struct sigaction sa = {.sa_handler = on_signal};
  sigfillset(&sa.sa_mask); /* one handler at a time */
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    /* a signal ignored by whoever started ccsim (nohup) stays ignored */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[i], &sa, NULL);
  }
  signal(SIGXFSZ, SIG_IGN);
  /* stdout or stderr a closed pipe (`ccsim run ... | head -1`): the write
   * fails with EPIPE and ccsim exits 1 saying so, as on /dev/full, instead
   * of dying by SIGPIPE half way through writing its results; the programs
   * it runs (sbatch, Python) get the default back before exec */
  signal(SIGPIPE, SIG_IGN);
  new_handler();
  engine_contain_on = 1; /* SimGrid's setup in this process (engine.h) */
  jsonmem_denied();       /* jansson allocates through the counter from now on */
  jsonmem_on_refusal(json_refused);
}

int process_finish(int rc) {
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (fclose(stdout) != 0 && !bad) bad = 1, e = errno;
  if (!bad) return rc;
  /* an error already said is the one line; else this one */
  if (rc == 0) fprintf(stderr, "ccsim: standard output: cannot write: %s\n", strerror(e ? e : EIO));
  return rc ? rc : 1;
}
