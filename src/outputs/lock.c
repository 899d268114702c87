/* src/outputs/lock.c — directory locks (lock.h). */
#include "outputs/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs/results.h"


/* The kind recorded in the lock file's text ("PID KIND\n"), into kind[16]; "" if none. */
static void recorded_kind(const char *text, char kind[16]) {
  kind[0] = 0;
  const char *sp = strchr(text, ' ');
  if (sp) snprintf(kind, 16, "%.*s", (int)strcspn(sp + 1, " \n"), sp + 1);
}

/* Which kind owns dir: its lock file's word (text, may be NULL), else the
 * files an earlier ccsim left; "" when none does. */
static const char *owner(const char *dir, const char *text, char kind[16]) {
  recorded_kind(text ? text : "", kind);
  if (!strcmp(kind, "run") || !strcmp(kind, "sweep")) return kind;
  if (results_present(dir, "sweep.csv") || results_present(dir, ".ccsim-sweep.lock")) return "sweep";
  if (results_present(dir, ".ccsim-experiment") || results_present(dir, "summary.json")) return "run";
  return "";
}

/* Refuse dir when the kind that owns it is not ours. */
static int check_kind(const char *dir, const char *text, const char *kind, ccsim_error *err) {
  char k[16];
  const char *own = owner(dir, text, k);
  if (!own[0] || !strcmp(own, kind)) return 0;
  /* the evidence named: the file a user would look for first */
  if (!strcmp(own, "sweep"))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: holds a sweep (%s): give each run its own output directory", dir,
                      results_present(dir, "sweep.csv") ? "sweep.csv" : LOCK_FILE " names one");
  return ccsim_fail(err, CCSIM_ERR_INPUT,
                    "%s: holds the results of a run (%s): give the sweep its own output directory", dir,
                    results_present(dir, "summary.json") ? "summary.json" : LOCK_FILE " names one");
}

int lock_check_kind(const char *dir, const char *kind, ccsim_error *err) {
  char text[64] = "";
  char *path = results_path(dir, LOCK_FILE, err);
  if (!path) return CCSIM_ERR_INPUT;
  const int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  free(path);
  if (fd >= 0) {
    const ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    close(fd);
  }
  return check_kind(dir, text, kind, err);
}

int lock_dir(const char *dir, const char *kind, ccsim_error *err) {
  char *path = results_path(dir, LOCK_FILE, err);
  if (!path) return -1;
  const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    /* what is planted there (a link, a directory, a device) is the
     * directory's fault (exit 2); a descriptor or a permission refused is
     * this process's (exit 1) */
    const int e = errno, planted = fd >= 0 || e == ELOOP || e == EISDIR || e == ENXIO;
    ccsim_fail(err, planted ? CCSIM_ERR_INPUT : CCSIM_ERR_RUNTIME, "%s: cannot use the lock file %s: %s", dir, path,
               fd >= 0 ? "not a regular file" : e == ELOOP ? "it is a symbolic link, which ccsim does not follow"
                                                           : strerror(e));
    if (fd >= 0) close(fd);
    free(path);
    return -1;
  }
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  char text[64];
  if (fcntl(fd, F_SETLK, &fl) != 0) {
    const int e = errno;
    if (e == EACCES || e == EAGAIN) {
      /* the holder's pid from the kernel; its kind from the file (written
       * right after it locked: wait a moment for it) */
      struct flock who = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
      const long pid = fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK ? (long)who.l_pid : 0;
      char k[16] = "";
      for (int tries = 0; tries < 50; tries++) {
        const ssize_t n = pread(fd, text, sizeof text - 1, 0);
        text[n > 0 ? n : 0] = 0;
        recorded_kind(text, k);
        if (k[0]) break;
        usleep(2000);
      }
      const char *hk = k[0] ? k : "writer";
      char pids[24] = "?";
      if (pid > 0) snprintf(pids, sizeof pids, "%ld", pid);
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: %s %s is writing into this directory (pid %s holds %s)", dir,
                 !strcmp(hk, kind) ? "another" : "a", hk, pids, path);
    } else {
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot lock %s: %s", dir, path, strerror(e));
    }
    close(fd);
    free(path);
    return -1;
  }
  free(path);
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = 0;
  if (check_kind(dir, text, kind, err)) {
    close(fd);
    return -1;
  }
  char line[64];
  const int len = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), kind);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot write the lock file: %s", dir, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}
