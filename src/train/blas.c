/* src/train/blas.c — the CBLAS bound at the first training (blas.h). */
#include "train/blas.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#ifndef CCSIM_BLAS_LIB
#define CCSIM_BLAS_LIB "libopenblas.so.0"
#endif

typedef void (*sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int, float,
                         const float *, int, const float *, int, float, float *, int);

static const char *want = CCSIM_BLAS_LIB; /* the library to load */
static sgemm_fn sgemm;
static char why[768]; /* the binding's failure, if it failed */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static rlim_t limit; /* the bound library is OpenBLAS and the process has this limit (limit_of); 0: neither */

/* OpenBLAS before 0.3.30 retries a failed map of its work buffer forever
 * (blas_memory_alloc; OpenBLAS issue #5289, fixed by pull request #5303):
 * under a limit of address space or data (ulimit -v, -d) a training run
 * hung instead of failing.  Each thread that multiplies maps one buffer at
 * its first GEMM, 128 MiB on x86-64 (BUFFER_SIZE, 32 << 22: the map's
 * length seen under gdb with Debian 12's 0.3.21).  So under such a limit
 * tblas_reserve maps that room for each training thread before the run
 * (PROT_READ | PROT_WRITE, MAP_NORESERVE: counted by both limits, nothing
 * committed), or fails naming the limit; a thread unmaps its share just
 * before its first GEMM, under a lock, so that the buffer's map lands in
 * the room it left. */
#define BLAS_ROOM (((size_t)128 << 20) + ((size_t)1 << 20))
static pthread_mutex_t room_lock = PTHREAD_MUTEX_INITIALIZER;
static char *room;        /* the reserved shares, each BLAS_ROOM bytes */
static size_t room_n;     /* shares still reserved */
static size_t room_taken; /* threads that took theirs (or ran their first GEMM) */
static __thread int room_done;
static __thread long ctx_it = -1; /* tblas_context: what this thread computes, for a failure's message */
static __thread long ctx_w;
static __thread const char *ctx_file;

void tblas_context(const char *file, long iteration, long worker) {
  ctx_file = file;
  ctx_it = iteration;
  ctx_w = worker;
}

/* len bytes of address space, reserved, not committed: the room's maps */
static void *room_map(size_t len) {
  return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/* The finite limit of address space or data, in bytes, or 0 when neither is set. */
static rlim_t limit_of(void) {
  struct rlimit as, data;
  rlim_t l = 0;
  if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY) l = as.rlim_cur;
  if (!getrlimit(RLIMIT_DATA, &data) && data.rlim_cur != RLIM_INFINITY && (!l || data.rlim_cur < l))
    l = data.rlim_cur;
  return l;
}

static void bind_once(void) {
  /* RTLD_LOCAL: the models call it through the pointer; nothing else in
   * the process binds to it (SimGrid's own libgslcblas stays its own) */
  void *lib = dlopen(want, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    snprintf(why, sizeof why, "cannot load the CBLAS for training (%s): %s", want, e ? e : "dlopen failed");
    return;
  }
  void *f = dlsym(lib, "cblas_sgemm");
  if (!f) {
    snprintf(why, sizeof why, "cannot load the CBLAS for training: %s has no cblas_sgemm", want);
    return;
  }
  /* OpenBLAS: one thread per GEMM, whatever its initialiser read (a
   * simulated worker's gradient is computed on one thread, several workers
   * already share the cores, and a fixed thread count keeps its sums
   * reproducible) */
  void (*set)(int) = (void (*)(int))dlsym(lib, "openblas_set_num_threads");
  if (set) set(1);
  limit = set ? limit_of() : 0;
  __atomic_store_n(&sgemm, (sgemm_fn)f, __ATOMIC_RELEASE);
}

int tblas_bind(ccsim_error *err) {
  pthread_once(&once, bind_once);
  if (sgemm) return 0;
  return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s", why);
}

int tblas_bind_to(const char *lib, ccsim_error *err) {
  if (__atomic_load_n(&sgemm, __ATOMIC_ACQUIRE) || why[0])
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "tblas_bind_to(%s): the CBLAS is bound already", lib);
  want = lib;
  return tblas_bind(err);
}

int tblas_reserve(int threads, ccsim_error *err) {
  if (tblas_bind(err)) return -1;
  if (!limit || threads < 1) return 0;
  pthread_mutex_lock(&room_lock);
  int rc = 0;
  if (room_taken + room_n < (size_t)threads) {
    const size_t more = (size_t)threads - room_taken - room_n;
    /* the block grown by the shares still wanted (mremap: the old shares
     * are not counted twice against the limit while it moves) */
    const size_t len = (room_n + more) * BLAS_ROOM;
    void *p = room ? mremap(room, room_n * BLAS_ROOM, len, MREMAP_MAYMOVE) : room_map(len);
    if (p == MAP_FAILED) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME,
                      "training's OpenBLAS maps a %zu MiB work buffer in each thread that trains (%d here), and the "
                      "limit of address space or data (ulimit -v, -d: %llu MiB) leaves no room for %zu more: raise "
                      "the limit%s",
                      BLAS_ROOM >> 20, threads, (unsigned long long)(limit >> 20), more,
                      threads > 1 ? " or train on fewer threads (--threads)" : "");
    } else {
      room = p;
      room_n += more;
    }
  }
  pthread_mutex_unlock(&room_lock);
  return rc;
}

void tblas_sgemm(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb, float beta, float *c, int ldc) {
  sgemm_fn g = __atomic_load_n(&sgemm, __ATOMIC_ACQUIRE);
  if (__builtin_expect(!g, 0)) {
    ccsim_error err = {0};
    if (tblas_bind(&err)) { /* only a caller that never bound (a test) gets here */
      fprintf(stderr, "ccsim: %s\n", err.msg);
      exit(1);
    }
    g = sgemm;
  }
  if (__builtin_expect(!room_done, 0)) { /* this thread's first GEMM */
    room_done = 1;
    if (!limit) {
      g(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
    /* under a limit: its share of the room given back, and the GEMM that
     * maps the buffer run before another thread's first can take it */
    pthread_mutex_lock(&room_lock);
    room_taken++;
    if (room_n) {
      room_n--;
      munmap(room + room_n * BLAS_ROOM, BLAS_ROOM);
      if (!room_n) room = NULL;
    } else { /* a thread tblas_reserve did not count: room for it, or a message rather than a hang */
      void *p = room_map(BLAS_ROOM);
      if (p == MAP_FAILED) { /* the run's other failures' form: "FILE: iteration I, worker W: ..." */
        char at[64] = "";
        if (ctx_it >= 0 && ctx_w >= 0) snprintf(at, sizeof at, "iteration %ld, worker %ld: ", ctx_it, ctx_w);
        else if (ctx_it >= 0) snprintf(at, sizeof at, "iteration %ld, the test split's evaluation: ", ctx_it);
        fprintf(stderr,
                "ccsim: %s%s%straining's OpenBLAS cannot map its %zu MiB work buffer in this thread under the limit "
                "of address space or data (ulimit -v, -d: %llu MiB): raise the limit or train on fewer threads "
                "(--threads)\n",
                ctx_file ? ctx_file : "", ctx_file ? ": " : "", at, BLAS_ROOM >> 20,
                (unsigned long long)(limit >> 20));
        exit(1);
      }
      munmap(p, BLAS_ROOM);
    }
    g(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    pthread_mutex_unlock(&room_lock);
    return;
  }
  g(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

const char *tblas_name(void) {
  Dl_info info;
  if (tblas_bind(NULL) || !dladdr((void *)sgemm, &info) || !info.dli_fname) return "?";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}
