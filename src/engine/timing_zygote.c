/* src/engine/timing_zygote.c — the timing executor's processes: the
 * zygote that forks every replay, the requests that hand it an
 * iteration's trace through a memfd and the answers that bring the marks
 * back (engine.h: engine_timing_start, engine_replay_start/finish); the
 * replay itself is timing.c's, in the zygote's child. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "comm/itrace.h"
#include "engine/timing_fast.h"
#include "engine/timing_replay.h"
#include "progress.h"
#include "threadstart.h"

static double cpu_total; /* CPU seconds of every replay so far */
static unsigned long long replays;
/* what each path timed since engine_timing_start: [0] SimGrid, [1] the
 * analytical path */
static unsigned long long path_replays[2], path_msgs[2];
int engine_timing_simgrid;

static double cpu_of(const struct rusage *u) {
  return (double)u->ru_utime.tv_sec + u->ru_utime.tv_usec * 1e-6 + (double)u->ru_stime.tv_sec + u->ru_stime.tv_usec * 1e-6;
}

/* What the child's wait status says. */
static int replay_status(int status, ccsim_error *err) {
  if (WIFSIGNALED(status))
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor died of signal %d", WTERMSIG(status));
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 3)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor ran out of memory");
  if (WEXITSTATUS(status) == 4)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor deadlocked: the trace's actors never all finished");
  if (WEXITSTATUS(status) == 6)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor was given a trace that waits for a message never "
                                              "sent (a bug of ccsim's: please report it with the experiment)");
  if (WEXITSTATUS(status) == 5)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor could not start a replay (fork failed)");
  if (WEXITSTATUS(status) != 0)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor failed (exit %d)", WEXITSTATUS(status));
  return CCSIM_OK;
}

/* The zygote (engine_timing_start): a process forked right after the
 * platform is loaded, before the data executor has allocated anything.
 * Every replay is forked from it, so SimGrid runs on the small, compact
 * heap of that moment instead of a copy of the data executor's (a child
 * forked from a heap fragmented by millions of small allocations ran the
 * same replay 1.6-2x slower: bench/README.md).  The trace travels through a
 * memfd both map; the marks come back in it. */
typedef struct zreq {
  uint64_t bytes;  /* the memfd's used size */
  uint64_t nactors, nsems, nmarks;
  uint64_t marks_off; /* the marks' byte offset in the memfd */
  unsigned char progress[PROGRESS_STATE_BYTES];
  nccl_plan plan; /* engine_comm_plan() of the run */
  int fast;       /* --timing auto */
} zreq;

/* memfd layout: zactor[nactors], then every actor's ops and values, then
 * the marks */
typedef struct zactor {
  uint32_t host, nmarks, nsends, nirecvs;
  uint64_t n, off;   /* off: byte offset of the ops */
  uint64_t nv, voff; /* the values */
} zactor;

static struct {
  pid_t pid;        /* 0: no zygote */
  int req, ans, fd; /* request socket (our end), answer socket (our end), the memfd */
  unsigned char *map;
  size_t cap;
  int busy;                   /* a replay was started and not yet finished */
  uint64_t nmarks, marks_off; /* its marks in the memfd */
  uint64_t nsends;            /* its messages */
  size_t nactors;             /* its actors (engine_replay_words) */
} Z;

static int full_io(int fd, void *buf, size_t n, int writing) {
  unsigned char *p = buf;
  while (n) {
    /* requests go over a socket, sent without SIGPIPE: a zygote that died
     * is an error to report, not a signal that ends the run silently */
    const ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, n -= (size_t)k;
  }
  return 0;
}

/* In a child of the zygote: the trace from the memfd, replayed. */
static int replay_request(const zreq *q) {
  unsigned char *m = mmap(NULL, q->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, Z.fd, 0);
  if (m == MAP_FAILED) return 3;
  const zactor *za = (const zactor *)m;
  sim_trace t = {.nactors = q->nactors, .nsems = q->nsems};
  t.actors = calloc(q->nactors + 1, sizeof *t.actors);
  if (!t.actors) return 3;
  for (size_t i = 0; i < q->nactors; i++) {
    sim_actor_trace *a = &t.actors[i];
    a->host = (int)za[i].host;
    a->nmarks = za[i].nmarks, a->nsends = za[i].nsends, a->nirecvs = za[i].nirecvs;
    a->n = a->cap = za[i].n;
    a->ops = (sim_word *)(m + za[i].off);
    a->nv = a->vcap = za[i].nv;
    a->vals = (double *)(m + za[i].voff);
  }
  progress_state_load(q->progress);
  return timing_replay_child(&t, (double *)(m + q->marks_off), &q->plan, q->fast);
}

static _Noreturn void zygote_main(int req, int ans) {
  engine_actors_here();
  for (;;) {
    zreq q;
    if (full_io(req, &q, sizeof q, 0)) _exit(0); /* the parent is gone or done */
    struct {
      int status;
      double cpu;
    } ans_ = {5 << 8, 0}; /* "exited 5": no child */
    struct rusage u = {0};
    const pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      prctl(PR_SET_NAME, "ccsim-replay"); /* what ps and top show */
      close(req), close(ans);
      const int rc = replay_request(&q);
      fflush(stderr);
      _exit(rc);
    }
    if (pid > 0) {
      while (wait4(pid, &ans_.status, 0, &u) < 0 && errno == EINTR) {
      }
      ans_.cpu = cpu_of(&u);
    }
    if (full_io(ans, &ans_, sizeof ans_, 1)) _exit(0);
  }
}

int engine_timing_start(ccsim_error *err) {
  engine_timing_stop();
  cpu_total = 0, replays = 0;
  memset(path_replays, 0, sizeof path_replays), memset(path_msgs, 0, sizeof path_msgs);
  int rq[2], an[2];
  const int fd = memfd_create("ccsim-trace", MFD_CLOEXEC);
  if (fd < 0) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot create the timing executor's memfd: %s", strerror(errno));
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, rq)) {
    close(fd);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot create a socket pair: %s", strerror(errno));
  }
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, an)) {
    close(fd), close(rq[0]), close(rq[1]);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot create a socket pair: %s", strerror(errno));
  }
  fflush(NULL);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd), close(rq[0]), close(rq[1]), close(an[0]), close(an[1]);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot fork the timing executor: %s", strerror(errno));
  }
  if (pid == 0 && !engine_zygote_exec) { /* the default: this process's copy, SimGrid set up already */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NAME, "ccsim-zygote");
    if (getppid() != parent) _exit(0);
    close(rq[1]), close(an[0]);
    Z.fd = fd;
    zygote_main(rq[0], an[1]);
  }
  if (pid == 0) {
    /* CCSIM_TIMING_ZYGOTE=exec: a fresh process, not this one's copy, whose
     * SimGrid allocates from a heap nobody cut up before, as a bare S4U
     * program's does (measured as fast as the copy: docs/engine.md) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    close(rq[1]), close(an[0]);
    const int keep[3] = {rq[0], an[1], fd};
    for (int i = 0; i < 3; i++) fcntl(keep[i], F_SETFD, 0); /* across exec */
    const engine_setup *s = engine_current_setup();
    char **av = calloc((size_t)s->ncfg + 12, sizeof *av);
    char nums[5][32];
    if (!av) _exit(3);
    int n = 0;
    av[n++] = "ccsim";
    av[n++] = ENGINE_ZYGOTE_FLAG;
    snprintf(nums[0], sizeof nums[0], "%d", rq[0]);
    snprintf(nums[1], sizeof nums[1], "%d", an[1]);
    snprintf(nums[2], sizeof nums[2], "%d", fd);
    snprintf(nums[3], sizeof nums[3], "%d", (int)parent);
    snprintf(nums[4], sizeof nums[4], "%d",
             engine_unguarded * 8 + engine_latency_free * 4 + s->crosstraffic * 2 + s->quiet);
    for (int i = 0; i < 5; i++) av[n++] = nums[i];
    av[n++] = (char *)s->network_model;
    av[n++] = (char *)s->platform;
    for (int i = 0; i < s->ncfg; i++) av[n++] = s->cfg[i];
    av[n] = NULL;
    execv("/proc/self/exe", av);
    _exit(127); /* reported at the first replay: the zygote died */
  }
  close(rq[0]), close(an[1]);
  Z.pid = pid, Z.req = rq[1], Z.ans = an[0], Z.fd = fd;
  return CCSIM_OK;
}

static void inproc_stop(void);

void engine_timing_stop(void) {
  inproc_stop();
  if (!Z.pid) return;
  close(Z.req), close(Z.ans);
  while (waitpid(Z.pid, NULL, 0) < 0 && errno == EINTR) {
  }
  if (Z.map) munmap(Z.map, Z.cap);
  close(Z.fd);
  memset(&Z, 0, sizeof Z);
}

/* All of iov[0 .. n) written at off (a write may stop short: a signal, or
 * Linux's 2 GiB a call); iov is consumed.  0, or -1 with errno (0: a write
 * that wrote nothing). */
static int pwritev_all(int fd, struct iovec *iov, int n, uint64_t off) {
  while (n) {
    const ssize_t k = pwritev(fd, iov, n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = 0;
      return -1;
    }
    off += (uint64_t)k;
    for (size_t left = (size_t)k; left;) { /* past what was written */
      const size_t c = left < iov->iov_len ? left : iov->iov_len;
      iov->iov_base = (char *)iov->iov_base + c, iov->iov_len -= c, left -= c;
      if (!iov->iov_len) iov++, n--;
    }
  }
  return 0;
}

static int replay_start(sim_trace *t, int fast, ccsim_error *err) {
  zreq q = {.nactors = t->nactors, .nsems = t->nsems, .plan = *engine_comm_plan(), .fast = fast};
  uint64_t nsends = 0;
  uint64_t off = t->nactors * sizeof(zactor);
  for (size_t i = 0; i < t->nactors; i++) {
    off += t->actors[i].nv * sizeof(double) + t->actors[i].n * sizeof(sim_word);
    off = (off + 7) & ~(uint64_t)7; /* the next actor's values stay aligned */
    q.nmarks += t->actors[i].nmarks;
    nsends += t->actors[i].nsends;
  }
  const uint64_t marks_off = off;
  q.marks_off = marks_off;
  q.bytes = off + (q.nmarks + 1) * sizeof(double); /* the last slot: which path timed it */
  if (q.bytes > Z.cap) {
    if (Z.map) munmap(Z.map, Z.cap);
    Z.map = NULL;
    const size_t cap = q.bytes + q.bytes / 4;
    if (ftruncate(Z.fd, (off_t)cap))
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot size the timing executor's trace (%zu bytes): %s", cap,
                        strerror(errno));
    void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, Z.fd, 0);
    if (m == MAP_FAILED)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot map the timing executor's trace (%zu bytes): %s", cap,
                        strerror(errno));
    Z.map = m, Z.cap = cap;
  }
  zactor *za = (zactor *)Z.map;
  off = t->nactors * sizeof(zactor);
  /* the words written, not copied through the mapping: a write fills the
   * memfd's pages without a fault for each (42 MB of a sampled 1024-worker
   * ring: 31 ms through the mapping) */
  enum { NIOV = 1024 };
  struct iovec iov[NIOV];
  static const char zeros[8];
  int niov = 0;
  size_t first = 0;             /* the batch's first actor */
  uint64_t wat = off, wlen = 0; /* where the batch starts, its bytes */
  for (size_t i = 0; i <= t->nactors; i++) {
    if (i == t->nactors || niov + 3 > NIOV) { /* the batch out */
      if (pwritev_all(Z.fd, iov, niov, wat))
        return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot write the timing executor's trace: %s",
                          errno ? strerror(errno) : "no progress");
      for (; first < i; first++) { /* moved: one copy of the trace at a time, its pages given back */
        sim_actor_trace *a = &t->actors[first];
        const size_t n = a->n, nv = a->nv;
        sim_actor_trace_release(a);
        a->n = n, a->nv = nv;
      }
      wat += wlen, wlen = 0, niov = 0;
      if (i == t->nactors) break;
    }
    sim_actor_trace *a = &t->actors[i];
    const uint64_t voff = off, ooff = off + a->nv * sizeof(double);
    za[i] = (zactor){(uint32_t)a->host, a->nmarks, a->nsends, a->nirecvs, a->n, ooff, a->nv, voff};
    const uint64_t end = ooff + a->n * sizeof(sim_word), next = (end + 7) & ~(uint64_t)7;
    if (a->nv) iov[niov++] = (struct iovec){a->vals, a->nv * sizeof(double)};
    if (a->n) iov[niov++] = (struct iovec){a->ops, a->n * sizeof(sim_word)};
    if (next > end) iov[niov++] = (struct iovec){(void *)zeros, next - end};
    wlen += next - off;
    off = next;
  }
  /* the written pages mapped here too, as they were when copied through
   * the mapping: the run's peak memory counts the trace the timing
   * executor holds (a write leaves them in the memfd, outside this
   * process's resident set); best effort, before Linux 5.14 it is not */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
  (void)madvise(Z.map, q.bytes, MADV_POPULATE_READ);
  progress_state_save(q.progress);
  fflush(NULL);
  Z.busy = 1, Z.nmarks = q.nmarks, Z.marks_off = marks_off, Z.nsends = nsends, Z.nactors = t->nactors;
  if (full_io(Z.req, &q, sizeof q, 1)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor's zygote died");
  return CCSIM_OK;
}

static int replay_finish(double *marks, ccsim_error *err) {
  Z.busy = 0;
  struct {
    int status;
    double cpu;
  } a;
  if (full_io(Z.ans, &a, sizeof a, 0)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor's zygote died");
  cpu_total += a.cpu, replays++;
  const int rc = replay_status(a.status, err);
  if (rc == CCSIM_OK) {
    memcpy(marks, Z.map + Z.marks_off, Z.nmarks * sizeof *marks);
    uint64_t path;
    memcpy(&path, Z.map + Z.marks_off + Z.nmarks * sizeof *marks, sizeof path);
    path_replays[path == 1]++, path_msgs[path == 1] += Z.nsends;
  }
  /* give the pages back until the next replay */
  munmap(Z.map, Z.cap);
  Z.map = NULL, Z.cap = 0;
  if (ftruncate(Z.fd, 0) && rc == CCSIM_OK)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot empty the timing executor's trace: %s", strerror(errno));
  return rc;
}

/* ---- The analytical path in this process ---------------------------------
 * Where the analytical path covers the setup (timing_fast.c), it needs no
 * SimGrid run, only the platform's routes and the network model's options,
 * which this process's SimGrid holds too.  So the replay runs here, on a
 * thread of its own, on the trace as the data executor recorded it: the
 * trace's arrays move to it (no copy), where the zygote's child needed them
 * written into the memfd and read back through faults of its own (one
 * iteration of a 1024-worker sampled ring: 42 MB written in 75 ms, then a
 * child started and its pages mapped).  While it runs, the next iteration
 * compares its words with these arrays (engine_replay_words), as it did
 * with the memfd's.  The same code on the same trace and routes: the same
 * marks, bit for bit.  Where it gives up (two flows on one link), the trace
 * goes to the zygote, SimGrid times it, and the run's later replays go
 * there as they did before (its child tries the analytical path first):
 * contention is mostly the platform's and the collective's, so the run's
 * own thread would likely give up again, and then serially, where the
 * zygote's replay runs beside the next iteration's data. */
static struct {
  int eligible;      /* -1 not yet known, 0 no, 1 the setup is the analytical path's */
  int gave_up;       /* a replay of this run found two flows on one link */
  int busy;          /* a replay runs on the thread */
  int threaded;      /* ... on a thread (0: it ran in engine_replay_start) */
  pthread_t th;
  sim_trace t;       /* the trace, moved here */
  size_t *mark0;     /* [nactors + 1] */
  double *marks;     /* [marks] */
  uint64_t nsends;
  int rc;            /* engine_fast_replay's: 0 timed, 1 gave up, -1 out of memory */
  double cpu;        /* the replay's CPU seconds */
} IP = {.eligible = -1};

static int inproc_eligible(void) {
  if (IP.eligible < 0) IP.eligible = timing_fast_covers(engine_comm_plan());
  return IP.eligible;
}

static double thread_cpu(void) {
  struct timespec c;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
  return (double)c.tv_sec + c.tv_nsec * 1e-9;
}

/* The replay proper, without SimGrid (engine_fast_play): on the thread. */
static void *inproc_main(void *on_thread) {
  /* what ps and top show, and how the fault-injection library tells it
   * from the data executor's lanes (tests/fault/fault.c) */
  if (on_thread) prctl(PR_SET_NAME, "ccsim-replay");
  const double c0 = thread_cpu();
  IP.rc = engine_fast_play(&IP.t, IP.marks, IP.mark0);
  IP.cpu += thread_cpu() - c0;
  return NULL;
}

/* The moved trace's arrays and the replay's buffers, freed. */
static void inproc_free(void) {
  for (size_t i = 0; IP.t.actors && i < IP.t.nactors; i++) sim_actor_trace_release(&IP.t.actors[i]);
  free(IP.t.actors), free(IP.mark0), free(IP.marks);
  IP.t.actors = NULL, IP.mark0 = NULL, IP.marks = NULL;
  IP.busy = 0;
}

/* A replay in flight abandoned (the run ended), and what the run learned
 * forgotten. */
static void inproc_stop(void) {
  if (IP.busy) {
    if (IP.threaded) pthread_join(IP.th, NULL);
    IP.threaded = 0;
    inproc_free();
  }
  IP.eligible = -1;
  IP.gave_up = 0;
}

static int inproc_start(sim_trace *t, ccsim_error *err) {
  const size_t n = t->nactors;
  IP.t = (sim_trace){.actors = calloc(n + 1, sizeof *IP.t.actors), .nactors = n, .nsems = t->nsems};
  IP.mark0 = calloc(n + 1, sizeof *IP.mark0);
  IP.nsends = 0;
  IP.marks = NULL;
  if (IP.t.actors && IP.mark0) {
    for (size_t i = 0; i < n; i++) {
      IP.mark0[i + 1] = IP.mark0[i] + t->actors[i].nmarks;
      IP.nsends += t->actors[i].nsends;
    }
    IP.marks = calloc(IP.mark0[n] + 1, sizeof *IP.marks);
  }
  if (!IP.marks) {
    free(IP.t.actors), free(IP.mark0);
    IP.t.actors = NULL, IP.mark0 = NULL;
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the timing executor's replay");
  }
  /* the arrays move: the data executor records the next iteration into
   * new ones, as after the memfd took them (counts kept, as there) */
  for (size_t i = 0; i < n; i++) {
    sim_actor_trace *a = &t->actors[i];
    IP.t.actors[i] = *a;
    IP.t.actors[i].ref_ops = NULL, IP.t.actors[i].ref_n = 0;
    a->ops = NULL, a->cap = 0, a->vals = NULL, a->vcap = 0;
  }
  /* what the replay asks of SimGrid, asked here (nothing else runs now),
   * with SimGrid's failures contained as its setup's are (engine.h): a
   * SimGrid that aborts for want of memory ends the run with a message */
  const double c0 = thread_cpu();
  size_t nhosts;
  const char *const *hosts = engine_hosts(&nhosts);
  const int contained = engine_contain("resolving the routes of the analytical timing");
  IP.rc = engine_fast_prepare(&IP.t, hosts, nhosts);
  engine_release(contained);
  IP.cpu = thread_cpu() - c0;
  IP.busy = 1;
  IP.threaded = 0;
  if (IP.rc == 0) {
    IP.threaded = thread_start(&IP.th, inproc_main, &IP) == 0;
    if (!IP.threaded) inproc_main(NULL); /* no thread: here and now */
  }
  return CCSIM_OK;
}

static int inproc_finish(double *marks, ccsim_error *err) {
  if (IP.threaded) pthread_join(IP.th, NULL);
  IP.threaded = 0;
  cpu_total += IP.cpu;
  if (IP.rc < 0) {
    inproc_free();
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor ran out of memory");
  }
  if (IP.rc == 0) {
    memcpy(marks, IP.marks, IP.mark0[IP.t.nactors] * sizeof *marks);
    replays++, path_replays[1]++, path_msgs[1] += IP.nsends;
    inproc_free();
    return CCSIM_OK;
  }
  /* gave up: SimGrid times it, in the zygote's child (the trace written
   * there releases the arrays as it goes; the child does not try the
   * analytical path again: the same code on the same trace gives up); the
   * run's later replays go to the zygote */
  IP.gave_up = 1;
  IP.busy = 0;
  int rc = replay_start(&IP.t, 0, err);
  if (!rc) rc = replay_finish(marks, err);
  inproc_free();
  return rc;
}

int engine_replay_start(sim_trace *t, ccsim_error *err) {
  /* a caller's bugs, not the user's: say so rather than time nothing */
  if (!Z.pid) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "the timing executor was not started (engine_timing_start)");
  if (Z.busy || IP.busy) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "a replay was started before the last one finished");
  if (!engine_timing_simgrid && !IP.gave_up && inproc_eligible()) return inproc_start(t, err);
  return replay_start(t, !engine_timing_simgrid, err);
}

int engine_replay_finish(double *marks, ccsim_error *err) {
  if (IP.busy) return inproc_finish(marks, err);
  if (!Z.busy) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "no replay to finish (engine_replay_start)");
  return replay_finish(marks, err);
}

int engine_replay_words(size_t i, const sim_word **ops, size_t *n) {
  if (IP.busy) {
    if (i >= IP.t.nactors) return 0;
    *ops = IP.t.actors[i].ops, *n = IP.t.actors[i].n;
    return 1;
  }
  if (!Z.busy || !Z.map || i >= Z.nactors) return 0;
  const zactor *za = (const zactor *)Z.map + i;
  *ops = (const sim_word *)(Z.map + za->off), *n = za->n;
  return 1;
}

int engine_replay(sim_trace *t, double *marks, ccsim_error *err) {
  const int rc = engine_replay_start(t, err);
  return rc ? rc : engine_replay_finish(marks, err);
}

double engine_timing_cpu(unsigned long long *count) {
  if (count) *count = replays;
  return cpu_total;
}

void engine_timing_paths(unsigned long long replays_[2], unsigned long long msgs[2]) {
  for (int i = 0; i < 2; i++) replays_[i] = path_replays[i], msgs[i] = path_msgs[i];
}

int engine_zygote_exec;

int engine_zygote_main(int argc, char **argv) {
  /* ccsim FLAG REQ ANS MEMFD PARENT UNGUARDED*8+LATFREE*4+CROSS*2+QUIET MODEL PLATFORM CFG... */
  if (argc < 9) _exit(2);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, "ccsim-zygote");
  const int req = atoi(argv[2]), ans = atoi(argv[3]), fd = atoi(argv[4]);
  if (getppid() != (pid_t)atoi(argv[5])) _exit(0); /* the run is already gone */
  const int flags = atoi(argv[6]);
  engine_latency_free = flags >> 2 & 1;
  engine_unguarded = flags >> 3 & 1;
  for (int i = 0; i < 3; i++) fcntl(i == 0 ? req : i == 1 ? ans : fd, F_SETFD, FD_CLOEXEC);
  ccsim_error err = {0};
  if (engine_init(argv[7], flags >> 1 & 1, argv + 9, argc - 9, flags & 1, &err) ||
      engine_load_platform(argv[8], &err)) {
    fprintf(stderr, "ccsim: the timing executor cannot start: %s\n", err.msg);
    _exit(1);
  }
  Z.fd = fd;
  zygote_main(req, ans);
}
