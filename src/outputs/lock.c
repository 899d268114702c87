/* src/outputs/lock.c — directory locks (lock.h). */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results.h"

int lock_dir(const char *dir, const char *name, const char *what, ccsim_error *err) {
  char *path = results_path(dir, name, err);
  if (!path) return -1;
  const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot use the lock file %s: %s", dir, path,
               fd < 0 ? strerror(errno) : "not a regular file");
    if (fd >= 0) close(fd);
    free(path);
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char pid[32] = "";
    const ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
    pid[n > 0 ? n : 0] = 0;
    pid[strcspn(pid, "\n")] = 0;
    if (e == EWOULDBLOCK)
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: %s is running into this directory (pid %s holds %s)", dir, what,
                 pid[0] ? pid : "?", path);
    else
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot lock %s: %s", dir, path, strerror(e));
    close(fd);
    free(path);
    return -1;
  }
  free(path);
  char pid[32];
  const int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot write the lock file: %s", dir, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}
