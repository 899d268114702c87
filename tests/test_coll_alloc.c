/* tests/test_coll_alloc.c — an allocation of a collective that fails stops
 * the run with one line naming the iteration and the worker (coll_alloc,
 * coll_msg_new: src/collectives/collective.h), never a NULL dereference.
 *
 * The failures are real: a count x size that overflows size_t, and a
 * payload whose wire bytes (2^63) no allocator can give (under ASan the test
 * runs with allocator_may_return_null=1, tests/meson.build).  The
 * out_of_memory hook stands in for the run's (which stops the simulation):
 * it records the message and jumps back here. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "collectives/collective.h"
#include "ccomp/compressor.h"

static jmp_buf back;
static char got[512];
static int calls;

static void hook(void *arg, const char *msg) {
  (void)arg;
  snprintf(got, sizeof got, "%s", msg);
  calls++;
  longjmp(back, 1);
}

int main(void) {
  char err[CCOMP_ERRLEN];
  ccomp_setup su = {.n = 1024, .workers = 8, .rank = 3, .seed = 1};
  ccomp *c = ccomp_new(ccomp_find("fp16"), NULL, &su, err, sizeof err);
  CHECK(c != NULL, "ccomp_new: %s", err);
  if (!c) return check_status("coll-alloc");
  coll_ctx ctx = {.rank = 3, .nworkers = 8, .iteration = 7, .comp = c, .n = 1024,
                  .io = {.out_of_memory = hook}};

  /* what can be allocated is */
  coll_msg *m = coll_msg_new(&ctx, 0, 1, 1024, 1);
  CHECK(m && m->bytes && m->exact && m->exact[1023] == 0.0, "a small payload");
  coll_msg_free(m);
  float *f = coll_alloc(&ctx, 0, sizeof *f, 1, "nothing");
  CHECK(f != NULL && calls == 0, "a count of 0 is one element");
  free(f);

  /* a product that overflows size_t */
  volatile int reached = 0;
  if (!setjmp(back)) {
    coll_alloc(&ctx, SIZE_MAX / 2, 8, 0, "a test buffer");
    reached = 1;
  }
  CHECK(!reached && calls == 1, "an overflowing count x size returned");
  CHECK(!strcmp(got, "iteration 7, worker 3: out of memory: a test buffer needs more than "
                     "18446744073709551615 bytes"),
        "%s", got);

  /* wire bytes no allocator gives: fp16 of 2^62 elements is 2^63 bytes */
  reached = 0;
  if (!setjmp(back)) {
    coll_msg_new(&ctx, 0, 1, (size_t)1 << 62, 0);
    reached = 1;
  }
  CHECK(!reached && calls == 2, "an impossible payload returned");
  {
    /* one allocation: the payload's header, then its 2^63 + 1 wire bytes */
    char want[160];
    snprintf(want, sizeof want, "iteration 7, worker 3: out of memory allocating %zu bytes for a payload and its wire bytes",
             sizeof(coll_msg) + ((size_t)1 << 63) + 1);
    CHECK(!strcmp(got, want), "%s", got);
  }

  /* without a hook (or when it returns) the process aborts rather than go on */
  pid_t pid = fork();
  if (pid == 0) {
    coll_ctx bare = ctx;
    bare.io.out_of_memory = NULL;
    coll_alloc(&bare, SIZE_MAX / 2, 8, 0, "a test buffer");
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "no hook: status %d", status);
  ccomp_free(c);
  return check_status("coll-alloc");
}
