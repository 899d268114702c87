/* tests/test_blas_room.c — training's OpenBLAS under a limit of address
 * space (src/train/blas.c).  A thread that tblas_reserve did not count
 * maps OpenBLAS's work buffer at its first GEMM; where the limit leaves no
 * room for it, the process ends with exit 1 and one line in the form of
 * the run's other failures ("ccsim: FILE: iteration I, worker W: ..."),
 * not a hang in OpenBLAS's retries.  Each case runs in a child that sets
 * the limit before binding the CBLAS (the limit is read at the binding).
 * Skipped (77) where the bound CBLAS is not OpenBLAS (-Dblas=gsl) or under
 * a sanitizer (its shadow memory needs the address space). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitized.h"
#include "train/blas.h"

#define SKIP 77

static int failures;

/* the process's address space now, in bytes (VmSize), or 0 */
static unsigned long long vm_size(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  unsigned long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb * 1024;
}

/* In a child: the limit 64 MiB above what it maps now (less than the
 * 129 MiB buffer), the CBLAS bound under it, the context set, one GEMM.
 * Returns the child's exit status (SKIP: not OpenBLAS) and its stderr in
 * out. */
static int one_gemm(const char *file, long it, long worker, char *out, size_t len) {
  int fd[2];
  if (pipe(fd)) return -1;
  fflush(NULL);
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fd[0]);
    dup2(fd[1], 2);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    const unsigned long long now = vm_size();
    struct rlimit rl = {now + (64ULL << 20), now + (64ULL << 20)};
    if (!now || setrlimit(RLIMIT_AS, &rl)) _exit(3);
    ccsim_error err = {0};
    if (tblas_bind(&err)) _exit(4);
    if (!strstr(tblas_name(), "openblas")) _exit(SKIP);
    tblas_context(file, it, worker);
    float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {0};
    tblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    _exit(0); /* the GEMM ran: the limit left room after all */
  }
  close(fd[1]);
  size_t n = 0;
  ssize_t r;
  while (n + 1 < len && (r = read(fd[0], out + n, len - 1 - n)) > 0) n += (size_t)r;
  out[n] = '\0';
  close(fd[0]);
  int st;
  if (waitpid(pid, &st, 0) != pid) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int check(const char *file, long it, long worker, const char *want) {
  char err[2048];
  const int rc = one_gemm(file, it, worker, err, sizeof err);
  if (rc == SKIP) return SKIP;
  const char *nl = strchr(err, '\n');
  const int one_line = nl && nl[1] == '\0';
  if (rc != 1 || !one_line || strncmp(err, want, strlen(want)) != 0 || !strstr(err, "cannot map its 129 MiB")) {
    fprintf(stderr, "FAIL context (%s, %ld, %ld): exit %d, stderr \"%s\", wanted one line starting \"%s\"\n",
            file ? file : "NULL", it, worker, rc, err, want);
    failures++;
  }
  return rc;
}

int main(void) {
  if (CCSIM_SANITIZED) {
    printf("skipped: under a sanitizer\n");
    return SKIP;
  }
  if (check("exp.json", 3, 5, "ccsim: exp.json: iteration 3, worker 5: training's OpenBLAS") == SKIP) {
    printf("skipped: the bound CBLAS is not OpenBLAS\n");
    return SKIP;
  }
  check("dir/b.json", 7, -1, "ccsim: dir/b.json: iteration 7, the test split's evaluation: training's OpenBLAS");
  check(NULL, -1, 0, "ccsim: training's OpenBLAS");
  if (failures) return 1;
  printf("ok: 3 cases, each one line and exit 1\n");
  return 0;
}
