/* src/outputs/results.c — result files written the way databases write theirs
 * (SQLite's and git's lockfile idiom): a temporary is created beside the
 * target with O_CREAT|O_EXCL|O_NOFOLLOW (a name that exists, a planted
 * symlink included, is never opened: the next candidate name is tried),
 * written, fsync'd, renamed over the target (rename replaces a symlink at the
 * target, it does not follow it), and the directory is fsync'd so the rename
 * itself survives a crash.  Paths are built on the heap and checked against
 * PATH_MAX: an error, never a silent truncation. */
#include "outputs/results.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonmem.h"

char *results_path(const char *dir, const char *name, ccsim_error *err) {
  const size_t need = strlen(dir) + 1 + strlen(name) + 1;
  if (need > PATH_MAX) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%.200s...: path of %zu bytes, longer than the system's limit of %d",
               dir, need - 1, PATH_MAX - 1);
    return NULL;
  }
  char *p = malloc(need);
  if (!p) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%.200s: out of memory for a path", dir);
    return NULL;
  }
  const size_t d = strlen(dir);
  memcpy(p, dir, d);
  p[d] = '/';
  memcpy(p + d + 1, name, need - d - 1); /* name and its terminator */
  return p;
}

int results_mkdir(const char *dir, ccsim_error *err) {
  const size_t len = strlen(dir);
  if (len == 0) return ccsim_fail(err, CCSIM_ERR_INPUT, "output directory: empty path");
  if (len >= PATH_MAX)
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%.200s...: output directory path of %zu bytes, longer than the system's limit of %d",
                      dir, len, PATH_MAX - 1);
  char *buf = strdup(dir);
  if (!buf) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", dir);
  int rc = 0;
  for (char *p = buf + 1;; p++) {
    const int last = *p == 0;
    if (!last && *p != '/') continue;
    *p = 0;
    struct stat st;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot create output directory %s: %s", dir, buf,
                      strerror(errno));
      break;
    }
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
      rc = ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot create output directory: %s is not a directory", dir,
                      buf);
      break;
    }
    if (last) break;
    *p = '/';
  }
  free(buf);
  return rc;
}

/* Open files: the temporary name of each, so commit can rename it. */
typedef struct pending {
  FILE *f;
  char *tmp;
} pending;
static pending open_files[32];

/* A slot's temporary name, set before the file is created and cleared
 * before the name is freed: the signal handler (results_abandon_all, on
 * the main thread: threadstart.h) unlinks every name it finds, at whatever
 * instruction it interrupts, so the store must not move past the open()
 * or the free() around it. */
static void set_tmp(pending *p, char *tmp) {
  atomic_signal_fence(memory_order_seq_cst);
  p->tmp = tmp;
  atomic_signal_fence(memory_order_seq_cst);
}

/* The slot free again: its file closed (or never opened), its temporary
 * renamed or removed; the name cleared before it is freed. */
static void forget(pending *p) {
  char *tmp = p->tmp;
  p->f = NULL;
  set_tmp(p, NULL);
  free(tmp);
}

/* A candidate suffix: pid, a counter and the clock, so concurrent writers
 * (and a planted file at any one guess) simply move on to the next name. */
static unsigned long long candidate(unsigned attempt) {
  static unsigned long long counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long x = ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_nsec ^
                         (++counter * 0x9E3779B97F4A7C15ull) ^ attempt;
  x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
  return x;
}

FILE *results_open(const char *dir, const char *name, ccsim_error *err) {
  char *path = results_path(dir, name, err);
  if (!path) return NULL;
  free(path);
  size_t slot = 0;
  while (slot < sizeof open_files / sizeof *open_files && (open_files[slot].f || open_files[slot].tmp)) slot++;
  if (slot == sizeof open_files / sizeof *open_files) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: too many result files open at once", dir, name);
    return NULL;
  }
  for (unsigned attempt = 0; attempt < 64; attempt++) {
    char leaf[64];
    snprintf(leaf, sizeof leaf, ".tmp-%016llx", candidate(attempt));
    char *tmp = results_path(dir, leaf, err);
    if (!tmp) return NULL;
    /* named before it exists: a signal from here on removes it */
    set_tmp(&open_files[slot], tmp);
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int e = errno;
      forget(&open_files[slot]);
      if (e == EEXIST) continue; /* taken (or planted): never reuse it */
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: cannot create a temporary file in %s: %s", dir, name, dir,
                 strerror(e));
      return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: cannot write: %s", dir, name, strerror(errno));
      close(fd), unlink(tmp), forget(&open_files[slot]);
      return NULL;
    }
    open_files[slot].f = f;
    return f;
  }
  ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: no free temporary name in %s after 64 tries", dir, name, dir);
  return NULL;
}

static pending *find(FILE *f) {
  for (size_t i = 0; i < sizeof open_files / sizeof *open_files; i++)
    if (open_files[i].f == f) return &open_files[i];
  return NULL;
}

void results_abandon(FILE *f) {
  pending *p = f ? find(f) : NULL;
  if (!p) return;
  fclose(f);
  unlink(p->tmp);
  forget(p);
}

void results_abandon_all(void) {
  for (size_t i = 0; i < sizeof open_files / sizeof *open_files; i++) {
    const char *tmp = open_files[i].tmp;
    if (tmp) unlink(tmp); /* not yet created, or renamed: ENOENT */
  }
}

int results_sync_dir(const char *dir, ccsim_error *err) {
  const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL)) {
    const int e = errno;
    if (fd >= 0) close(fd);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot sync the directory: %s", dir, strerror(e));
  }
  close(fd);
  return 0;
}

int results_commit(FILE *f, const char *dir, const char *name, ccsim_error *err) {
  pending *p = find(f);
  if (!p) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: not opened by results_open", dir, name);
  char *path = results_path(dir, name, err);
  if (!path) {
    results_abandon(f);
    return err ? err->code : CCSIM_ERR_RUNTIME;
  }
  int e = 0;
  if (fflush(f) != 0 || ferror(f)) e = errno ? errno : EIO;
  if (!e && fsync(fileno(f)) != 0) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (!e && rename(p->tmp, path) != 0) e = errno;
  if (e) unlink(p->tmp);
  forget(p);
  int rc = e ? ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(e)) : 0;
  /* a rename the directory cannot make durable is a failed write: the file
   * goes, so that a run that fails never leaves a summary.json */
  if (!rc && (rc = results_sync_dir(dir, err))) unlink(path);
  free(path);
  return rc;
}

int results_write_json(const char *dir, const char *name, json_t *doc, ccsim_error *err) {
  if (jsonmem_denied()) /* a document built without all its memory (jsonmem.h) */
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: out of memory while building it", dir, name);
  FILE *f = results_open(dir, name, err);
  if (!f) return err ? err->code : CCSIM_ERR_RUNTIME;
  if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) != 0) {
    results_abandon(f);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: cannot write JSON", dir, name);
  }
  fputc('\n', f);
  return results_commit(f, dir, name, err);
}

/* Bytes kept as they are in a path component; every other byte is %XX. */
static int plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '=' || c == '+' || c == ',' || c == '@';
}

char *results_component(const char *text) {
  const size_t limit = 200; /* well under NAME_MAX (255), room for a suffix */
  size_t n = 0;
  for (const unsigned char *s = (const unsigned char *)text; *s; s++) n += plain(*s) ? 1 : 3;
  char *out = malloc(n + 4 + 24);
  if (!out) return NULL;
  size_t k = 0;
  for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
    /* a leading dot would make "." and ".." (or a hidden file): encode it */
    if (plain(*s) && !(k == 0 && *s == '.')) out[k++] = (char)*s;
    else k += (size_t)sprintf(out + k, "%%%02X", *s);
  }
  out[k] = 0;
  if (k == 0) strcpy(out, "%00"), k = 3;
  if (k > limit) { /* too long: a prefix and the hash of the whole text */
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *s = (const unsigned char *)text; *s; s++) h = (h ^ *s) * 0x100000001b3ull;
    k = limit - 17;
    while (k > 0 && out[k - 1] == '%') k--; /* never split an escape */
    if (k > 1 && out[k - 2] == '%') k -= 2;
    sprintf(out + k, "~%016llx", (unsigned long long)h);
  }
  return out;
}

int results_remove_stale(const char *dir, ccsim_error *err) {
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT ? 0
                           : ccsim_fail(err, CCSIM_ERR_RUNTIME,
                                        "%s: cannot list the output directory (for stale temporary files): %s", dir,
                                        strerror(errno));
  int rc = 0;
  for (struct dirent *de; (de = readdir(d)) && !rc;) {
    if (strncmp(de->d_name, ".tmp-", 5) || strlen(de->d_name) != 21) continue;
    char *path = results_path(dir, de->d_name, err);
    if (!path) rc = err ? err->code : CCSIM_ERR_RUNTIME;
    else if (unlink(path) != 0 && errno != ENOENT)
      rc = ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot remove a stale temporary: %s", path, strerror(errno));
    free(path);
  }
  closedir(d);
  return rc;
}

/* results.h */
int results_present(const char *dir, const char *name) {
  char *path = results_path(dir, name, NULL);
  struct stat st;
  const int yes = path && lstat(path, &st) == 0;
  free(path);
  return yes;
}
