/* src/engine/probe.c — SimGrid's own parse, run where its abort cannot take
 * ccsim down (docs/platform-checks.md).
 *
 * SimGrid 3.32 answers much bad input by aborting the process: an unknown
 * --cfg key or value, a model it lists but cannot use with the platform
 * ("Constant" with links), XML its DTD refuses, a missing route (at the
 * first transfer).  A forked child therefore does what the run will do —
 * start SimGrid with the same flags, load the platform, look up the route
 * between every pair of workers (on large platforms: along a ring and to
 * and from worker 0) as the network model will, and simulate, with one
 * actor, a flop on each worker's host and one message from each worker to
 * its ring neighbour — with
 * its stderr in a pipe.  The parent reports the child's first critical line
 * as bad input, naming what the child was doing (kept in shared memory). */
#include <errno.h>
#include <signal.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <xbt/dynar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "engine/timing_fast.h"

enum { STAGE_LEN = 512 };

static char *stage; /* shared with the parent: what the child is doing */

static void set_stage(const char *fmt, const char *a, const char *b) {
  snprintf(stage, STAGE_LEN, fmt, a, b);
}

static size_t probe_n;   /* workers probed */
static size_t received;  /* ring messages received */

/* The workers whose route from worker i is looked up, into out (room for
 * probe_n when i is 0 or probe_n <= 128, else for 2): every other worker
 * on small platforms; else its ring neighbour and worker 0, and worker 0
 * to all (a partition always separates some worker from worker 0). */
static size_t probe_targets(size_t i, size_t *out) {
  const size_t n = probe_n;
  size_t k = 0;
  if (n <= 128 || i == 0) {
    for (size_t j = 0; j < n; j++)
      if (j != i) out[k++] = j;
    return k;
  }
  out[k++] = (i + 1) % n;
  if (out[0] != 0) out[k++] = 0;
  return k;
}

/* The routes the run may take, from the platform, before any actor starts:
 * a route SimGrid's network model would refuse at the first transfer (no
 * link and no latency: network_cm02.cpp's assertion, in its words) is
 * reported as that transfer would report it.  The "Constant" model never
 * asks for routes.  Exits 4 when out of memory, 3 on a missing route. */
static void probe_routes(const char *const *hosts, size_t n) {
  if (!strcmp(engine_network_model(), "Constant")) return;
  engine_seal_platform(); /* a zone's routes may be completed only then (seal.cpp) */
  size_t *to = malloc((n + 1) * sizeof *to);
  xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
  if (!to || !d) {
    fprintf(stderr, "[probe/RUNTIME] out of memory for %zu workers' routes\n", n);
    _exit(4);
  }
  for (size_t i = 0; i < n; i++) {
    const sg_host_t a = sg_host_by_name(hosts[i]);
    const size_t k = probe_targets(i, to);
    for (size_t t = 0; t < k; t++) {
      const sg_host_t b = sg_host_by_name(hosts[to[t]]);
      xbt_dynar_reset(d);
      sg_host_get_route(a, b, d);
      if (xbt_dynar_is_empty(d) && !(sg_host_get_route_latency(a, b) > 0)) {
        fprintf(stderr,
                "[probe/CRITICAL] You're trying to send data from %s to %s but there is no connecting path between "
                "these two hosts.\n",
                hosts[i], hosts[to[t]]);
        _exit(3);
      }
    }
  }
  xbt_dynar_free(&d);
  free(to);
}

static const char *const *probe_hosts; /* the workers' hosts, probe_n of them */

/* The probe's one actor: for each worker in turn, a flop on its host and
 * one byte from it to its ring neighbour (sg_host_sendto: a transfer
 * between two hosts, no mailbox, no actor there): the CPU and network
 * models at work once on every host and every ring route.  One actor in
 * place of one a worker: 1,024 SimGrid actors (their stacks, guard pages
 * and contexts) had made the probe 100 ms of a 1,024-worker run. */
static void probe_actor(int argc, char **argv) {
  (void)argc, (void)argv;
  const size_t n = probe_n;
  for (size_t i = 0; i < n; i++) {
    const sg_host_t h = sg_host_by_name(probe_hosts[i]);
    sg_exec_t x = sg_actor_exec_init(1);
    sg_exec_set_host(x, h);
    sg_exec_start(x);
    sg_exec_wait(x);
    if (n > 1) {
      sg_host_sendto(h, sg_host_by_name(probe_hosts[(i + 1) % n]), 1);
      received++;
    }
  }
}

/* The child: never returns. */
static void child(const engine_probe_args *a) {
  ccsim_error err = {0};
  alarm(600); /* a platform SimGrid cannot finish with is refused, not waited for */
  set_stage("starting SimGrid with the network model and --cfg flags%s%s", "", "");
  engine_actors_here();
  if (engine_init(a->network_model, a->crosstraffic, a->cfg, a->ncfg, 1, &err)) {
    fprintf(stderr, "[probe/RUNTIME] %s\n", err.msg);
    _exit(4);
  }
  char path[64];
  const char *file = a->file;
  if (!file) { /* a generated platform, in memory */
    const int fd = memfd_create("platform.xml", 0);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) { /* this process's resources, not the platform */
      fprintf(stderr, "[probe/RUNTIME] cannot hold the generated platform in memory: %s%s\n", strerror(errno),
              errno == EMFILE || errno == ENFILE ? " (raise the limit on open files: ulimit -n)" : "");
      _exit(4);
    }
    a->print(f, a->ctx);
    fflush(f);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    file = path;
  }
  set_stage("loading the platform%s%s", "", "");
  if (engine_load_platform(file, &err)) {
    fprintf(stderr, "[probe/%s] %s\n", err.code == CCSIM_ERR_RUNTIME ? "RUNTIME" : "CRITICAL", err.msg);
    _exit(err.code == CCSIM_ERR_RUNTIME ? 4 : 3);
  }
  size_t n;
  const char *const *hosts = engine_hosts(&n);
  if (n > a->workers) n = a->workers;
  probe_n = n;
  set_stage("looking up the route between each pair of workers (or along a ring and to and from worker 0)%s%s",
            "", "");
  probe_routes(hosts, n);
  probe_hosts = hosts;
  if (n) sg_actor_create("probe", sg_host_by_name(hosts[0]), probe_actor, 0, NULL);
  set_stage("simulating one message from each worker to its ring neighbour%s%s", "", "");
  simgrid_run();
  const size_t expected = n > 1 ? n : 0;
  if (received != expected) {
    fprintf(stderr, "[probe/CRITICAL] %zu of %zu probe messages arrived\n", received, expected);
    _exit(3);
  }
  _exit(0);
}

/* The first line of log SimGrid wrote as critical (or an uncaught
 * exception), without its "[time] file:line: [category/LEVEL] " prefix. */
static void reason(const char *log, char *out, size_t len) {
  out[0] = 0;
  for (const char *line = log; *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) : strlen(line);
    const char *tag = NULL;
    for (const char *t = line; t < line + n; t++)
      if (*t == '/' && (!strncmp(t, "/CRITICAL] ", 11) || !strncmp(t, "/ERROR] ", 8))) {
        tag = strchr(t, ']') + 2;
        break;
      }
    if (!tag && !strncmp(line, "terminate called", 16)) tag = line;
    if (tag && strncmp(tag, "Exiting now", 11)) {
      snprintf(out, len, "%.*s", (int)(n - (size_t)(tag - line)), tag);
      return;
    }
    if (!end) break;
    line = end + 1;
  }
}

int engine_probe(const engine_probe_args *a, ccsim_error *err) {
  char *shared = mmap(NULL, STAGE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int fds[2];
  if (shared == MAP_FAILED) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot map memory for the platform probe");
  if (pipe(fds) != 0) {
    munmap(shared, STAGE_LEN);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot make a pipe for the platform probe: %s", strerror(errno));
  }
  shared[0] = 0;
  fflush(NULL);
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive ccsim */
    engine_contain_on = 0;            /* SimGrid's own lines are the answer */
    stage = shared;
    close(fds[0]);
    dup2(fds[1], 2);
    if (!freopen("/dev/null", "w", stdout)) _exit(3);
    child(a);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    munmap(shared, STAGE_LEN);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot fork the platform probe: %s", strerror(errno));
  }
  /* keep the head of the log: SimGrid's first critical line is near it */
  size_t cap = 1 << 16, len = 0;
  char *log = malloc(cap + 1), sink[4096], none[1];
  if (!log) log = none, cap = 0; /* out of memory: the child's answer without its reason */
  for (;;) {
    const ssize_t got = read(fds[0], len < cap ? log + len : sink, len < cap ? cap - len : sizeof sink);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (len < cap) len += (size_t)got;
  }
  close(fds[0]);
  log[len] = 0;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc = 0;
  const char *runtime = strstr(log, "[probe/RUNTIME] ");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 4 && runtime) { /* not the input's fault */
    const size_t n = strcspn(runtime + 16, "\n");
    rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "the platform probe failed: %.*s", (int)(n < 1024 ? n : 1024),
                    runtime + 16);
  } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    char why[768], how[64];
    reason(log, why, sizeof why);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) snprintf(why, sizeof why, "no answer in 600 s");
    if (WIFSIGNALED(status)) snprintf(how, sizeof how, "%s", strsignal(WTERMSIG(status)));
    else snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    if (!strncmp(shared, "starting", 8))
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: SimGrid refuses the configuration: %s", a->cfg_source,
                      why[0] ? why : how);
    else
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: SimGrid refuses the platform while %s: %s", a->name, shared,
                      why[0] ? why : how);
  }
  if (log != none) free(log);
  munmap(shared, STAGE_LEN);
  return rc;
}
