/* tests/fault/fault.c — a fault-injection library for ccsim's tests, loaded
 * with LD_PRELOAD (docs/testing.md).  It wraps the allocator (malloc,
 * calloc, realloc, reallocarray, strdup, strndup, posix_memalign,
 * aligned_alloc, memalign) and the calls that put bytes on a disk (write,
 * writev, pwrite, fsync, fdatasync, rename, renameat, fwrite, fputs, fputc,
 * fflush, fclose), counts the calls made while main() runs (static
 * initialisers and exit handlers aside) and makes one of them fail:
 *
 *   CCSIM_FAULT_ALLOC=K     the K-th allocation returns NULL (ENOMEM);
 *   CCSIM_FAULT_ALLOC=K+    the K-th and every later one do;
 *   CCSIM_FAULT_IO=K:ERRNO  the K-th I/O call fails with ERRNO (EIO,
 *                           ENOSPC or EFBIG): nothing is written, fclose
 *                           still closes its stream;
 *   CCSIM_FAULT_PROGRAM=P   the program that counts (its base name; by
 *                           default ccsim): the tools that start it do not;
 *   CCSIM_FAULT_MATCH=S     only a process one of whose arguments contains S
 *                           counts (a sweep's point: its --out directory);
 *                           one that does not passes the variables on to
 *                           the processes it executes;
 *   CCSIM_FAULT_THREAD=other  only calls on the data executor's lanes
 *                           count (threads named ccsim-lane, which the
 *                           lanes set first), from their start routine on
 *                           (not the runtime's own start of a thread:
 *                           ASan's allocates); not main()'s thread, nor
 *                           another that allocates beside the lanes (the
 *                           analytical replay's, ccsim-replay: K would name
 *                           no one call; the run target's faults reach it);
 *   CCSIM_FAULT_REPORT=FILE at exit, "alloc A io I injected J" into FILE:
 *                           the calls counted (so a driver knows how many
 *                           K to try) and how many faults were injected.
 *
 * Writes to stderr are neither counted nor failed (the error message must
 * get out).  Only the process that was started counts: a forked child (the
 * platform probe, the timing executor's replays) sees no fault, and the
 * variables are removed from the environment of the process that counts so
 * that a process it executes (the timing executor's zygote) sees none
 * either.  Counting uses one atomic counter: with several threads
 * allocating, K names a call only for a run on one thread (--threads 1) or
 * on one other thread (CCSIM_FAULT_THREAD=other with --threads 2). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_long n_alloc, n_io, n_injected;
static long alloc_at = -1, io_at = -1;
static int alloc_sticky, io_errno = EIO;
static int armed;          /* main() is running */
static pid_t owner;        /* the process that counts */
static int others_only;    /* CCSIM_FAULT_THREAD=other */
static char report[4096];  /* CCSIM_FAULT_REPORT */

/* The next definitions, found once.  dlsym may itself allocate: those
 * early calls are served from a static arena that free() recognises. */
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static int (*real_fsync)(int), (*real_fdatasync)(int);
static int (*real_rename)(const char *, const char *);
static int (*real_renameat)(int, const char *, int, const char *);
static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static int (*real_fputs)(const char *, FILE *), (*real_fputc)(int, FILE *);
static int (*real_fflush)(FILE *), (*real_fclose)(FILE *);

static _Alignas(16) unsigned char arena[1 << 16];
static size_t arena_used;
static int resolving;

static void *arena_alloc(size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (arena_used + n > sizeof arena) return NULL;
  void *p = arena + arena_used;
  arena_used += n;
  return p;
}
static int in_arena(const void *p) {
  return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof arena;
}

#define FIND(name) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)
static void resolve(void) {
  if (real_malloc || resolving) return;
  resolving = 1;
  FIND(calloc), FIND(realloc), FIND(free), FIND(posix_memalign), FIND(aligned_alloc), FIND(memalign);
  FIND(write), FIND(writev), FIND(pwrite), FIND(fsync), FIND(fdatasync), FIND(rename), FIND(renameat);
  FIND(fwrite), FIND(fputs), FIND(fputc), FIND(fflush), FIND(fclose);
  FIND(malloc); /* last: its presence says all are found */
  resolving = 0;
}

/* Raw output for the report: never counted, never failed. */
static void say(const char *path, const char *text, int append) {
  if (!path[0]) return;
  const int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
  if (fd < 0) return;
  syscall(SYS_write, fd, text, strlen(text));
  syscall(SYS_close, fd);
}

static __thread int in_start_routine; /* this thread runs its start routine */
static __thread int lane_thread = -1; /* named ccsim-lane (-1: not asked yet) */
static int is_lane_thread(void) {
  if (lane_thread < 0) { /* asked in its start routine, which names it first */
    char name[17] = {0};
    lane_thread = syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0) == 0 && !strcmp(name, "ccsim-lane");
  }
  return lane_thread;
}
static __thread int main_thread = -1; /* the process's first thread (-1: not asked yet) */
/* A thread that is not the first and has not entered its start routine is
 * the runtime's own start of it (ASan's calls pthread_getattr_np, which
 * allocates, and fails with an internal CHECK when that allocation does):
 * not ccsim's calls, so not counted. */
static int in_runtime_start(void) {
  if (main_thread < 0) main_thread = syscall(SYS_gettid) == getpid();
  return !main_thread && !in_start_routine;
}
static int counting(void) {
  return armed && getpid() == owner && !in_runtime_start() &&
         !(others_only && !(in_start_routine && is_lane_thread()));
}

/* 1 when this allocation is to fail. */
static int alloc_fails(void) {
  if (!counting()) return 0;
  const long k = atomic_fetch_add(&n_alloc, 1) + 1;
  if (alloc_at < 0 || (alloc_sticky ? k < alloc_at : k != alloc_at)) return 0;
  atomic_fetch_add(&n_injected, 1);
  errno = ENOMEM;
  return 1;
}

/* 1 when this I/O call (on fd; -1 for a path) is to fail, errno set. */
static int io_fails(int fd) {
  if (!counting() || fd == 2) return 0;
  const long k = atomic_fetch_add(&n_io, 1) + 1;
  if (k != io_at) return 0;
  atomic_fetch_add(&n_injected, 1);
  errno = io_errno;
  return 1;
}

static void write_report(void) {
  char line[160];
  snprintf(line, sizeof line, "alloc %ld io %ld injected %ld\n", atomic_load(&n_alloc), atomic_load(&n_io),
           atomic_load(&n_injected));
  say(report, line, 0);
}

/* main() wrapped, so counting starts after every static initialiser and
 * stops when main returns (exit handlers are not counted). */
static int (*real_main)(int, char **, char **);
static int counted_main(int argc, char **argv, char **envp) {
  armed = 1;
  const int rc = real_main(argc, argv, envp);
  armed = 0;
  write_report();
  return rc;
}

static long parse_k(const char *s, int *sticky) {
  char *end;
  const long k = strtol(s, &end, 10);
  *sticky = *end == '+';
  return k > 0 ? k : -1;
}

/* 1 when one of argv[0..argc) contains s. */
static int argv_has(int argc, char **argv, const char *s) {
  for (int i = 0; i < argc; i++)
    if (argv[i] && strstr(argv[i], s)) return 1;
  return 0;
}

static void setup(int argc, char **argv) {
  /* only the program named (by default ccsim): not env, timeout or a shell
   * that starts it; with CCSIM_FAULT_MATCH, only the process whose
   * arguments name it: the others leave the variables to their children */
  const char *prog = getenv("CCSIM_FAULT_PROGRAM"), *match = getenv("CCSIM_FAULT_MATCH");
  if (strcmp(program_invocation_short_name, prog ? prog : "ccsim")) return;
  if (match && !argv_has(argc, argv, match)) return;
  owner = getpid();
  const char *th = getenv("CCSIM_FAULT_THREAD");
  others_only = th && !strcmp(th, "other");
  const char *a = getenv("CCSIM_FAULT_ALLOC"), *io = getenv("CCSIM_FAULT_IO"), *r = getenv("CCSIM_FAULT_REPORT");
  if (a) alloc_at = parse_k(a, &alloc_sticky);
  if (io) {
    int unused;
    io_at = parse_k(io, &unused);
    const char *e = strchr(io, ':');
    if (e && !strcmp(e + 1, "ENOSPC")) io_errno = ENOSPC;
    else if (e && !strcmp(e + 1, "EFBIG")) io_errno = EFBIG;
    else io_errno = EIO;
  }
  if (r) snprintf(report, sizeof report, "%s", r);
  /* a process this one executes sees no fault (and writes no report) */
  unsetenv("CCSIM_FAULT_ALLOC"), unsetenv("CCSIM_FAULT_IO"), unsetenv("CCSIM_FAULT_REPORT");
  unsetenv("CCSIM_FAULT_MATCH"), unsetenv("CCSIM_FAULT_THREAD");
}

int __libc_start_main(int (*main)(int, char **, char **), int argc, char **argv, void (*init)(void),
                      void (*fini)(void), void (*rtld_fini)(void), void *stack_end) {
  int (*next)(int (*)(int, char **, char **), int, char **, void (*)(void), void (*)(void), void (*)(void),
              void *) = (__typeof__(next))dlsym(RTLD_NEXT, "__libc_start_main");
  setup(argc, argv);
  real_main = main;
  return next(counted_main, argc, argv, init, fini, rtld_fini, stack_end);
}

/* threads: the start routine runs behind a trampoline that marks it */
struct start {
  void *(*fn)(void *);
  void *arg;
};
static void *trampoline(void *p) {
  const struct start st = *(struct start *)p;
  real_free(p);
  in_start_routine = 1;
  return st.fn(st.arg);
}
int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  static int (*next)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
  if (!next) next = (__typeof__(next))dlsym(RTLD_NEXT, "pthread_create");
  resolve();
  struct start *st = real_malloc(sizeof *st); /* neither counted nor failed */
  if (!st) return EAGAIN;
  st->fn = fn, st->arg = arg;
  const int rc = next(t, attr, trampoline, st);
  if (rc) real_free(st);
  return rc;
}

/* allocation */
void *malloc(size_t n) {
  resolve();
  if (!real_malloc) return arena_alloc(n);
  return alloc_fails() ? NULL : real_malloc(n);
}
void *calloc(size_t m, size_t n) {
  resolve();
  if (!real_calloc) return arena_alloc(m * n); /* the arena is zero */
  return alloc_fails() ? NULL : real_calloc(m, n);
}
void *realloc(void *p, size_t n) {
  resolve();
  if (in_arena(p)) { /* never happens in practice: move it out */
    void *q = malloc(n);
    if (q) memcpy(q, p, n);
    return q;
  }
  return alloc_fails() ? NULL : real_realloc(p, n);
}
void *reallocarray(void *p, size_t m, size_t n) {
  if (n && m > (size_t)-1 / n) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(p, m * n);
}
void free(void *p) {
  resolve();
  if (!p || in_arena(p)) return;
  real_free(p);
}
char *strdup(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}
char *strndup(const char *s, size_t max) {
  const size_t n = strnlen(s, max);
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}
int posix_memalign(void **out, size_t align, size_t n) {
  resolve();
  return alloc_fails() ? ENOMEM : real_posix_memalign(out, align, n);
}
void *aligned_alloc(size_t align, size_t n) {
  resolve();
  return alloc_fails() ? NULL : real_aligned_alloc(align, n);
}
void *memalign(size_t align, size_t n) {
  resolve();
  return alloc_fails() ? NULL : real_memalign(align, n);
}

/* I/O */
ssize_t write(int fd, const void *b, size_t n) {
  resolve();
  return io_fails(fd) ? -1 : real_write(fd, b, n);
}
ssize_t writev(int fd, const struct iovec *v, int n) {
  resolve();
  return io_fails(fd) ? -1 : real_writev(fd, v, n);
}
ssize_t pwrite(int fd, const void *b, size_t n, off_t at) {
  resolve();
  return io_fails(fd) ? -1 : real_pwrite(fd, b, n, at);
}
int fsync(int fd) {
  resolve();
  return io_fails(fd) ? -1 : real_fsync(fd);
}
int fdatasync(int fd) {
  resolve();
  return io_fails(fd) ? -1 : real_fdatasync(fd);
}
int rename(const char *a, const char *b) {
  resolve();
  return io_fails(-1) ? -1 : real_rename(a, b);
}
int renameat(int da, const char *a, int db, const char *b) {
  resolve();
  return io_fails(-1) ? -1 : real_renameat(da, a, db, b);
}
/* stdio: a failed call sets the stream's error flag, as a failed write would */
static int stream_fails(FILE *f) {
  if (!f || f == stderr || !io_fails(fileno(f))) return 0;
  f->_flags |= 0x20; /* glibc's _IO_ERR_SEEN: ferror(f) is now true */
  return 1;
}
size_t fwrite(const void *b, size_t size, size_t n, FILE *f) {
  resolve();
  return stream_fails(f) ? 0 : real_fwrite(b, size, n, f);
}
int fputs(const char *s, FILE *f) {
  resolve();
  return stream_fails(f) ? EOF : real_fputs(s, f);
}
int fputc(int c, FILE *f) {
  resolve();
  return stream_fails(f) ? EOF : real_fputc(c, f);
}
int fflush(FILE *f) {
  resolve();
  return f && stream_fails(f) ? EOF : real_fflush(f);
}
int fclose(FILE *f) {
  resolve();
  if (stream_fails(f)) {
    const int e = errno;
    real_fclose(f); /* the stream is gone either way, as fclose's contract says */
    errno = e;
    return EOF;
  }
  return real_fclose(f);
}
