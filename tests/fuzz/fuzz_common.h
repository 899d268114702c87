/* tests/fuzz/fuzz_common.h — what the libFuzzer harnesses share: a private
 * scratch directory, files written into it, and silenced stdout/stderr
 * (the loaders' own messages are not findings; crashes, leaks, hangs and
 * sanitizer reports are). */
#ifndef CCSIM_FUZZ_COMMON_H
#define CCSIM_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The harness's scratch directory, made once per process under $TMPDIR
 * (else /tmp): a campaign points it at a tmpfs, where the files the loaders
 * write and sync cost no disk waits. */
static const char *fuzz_dir(void) {
  static char dir[512];
  if (!dir[0]) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0] || strlen(tmp) > 40) tmp = "/tmp"; /* the harnesses' paths are short buffers */
    snprintf(dir, sizeof dir, "%s/ccsim-fuzz-XXXXXX", tmp);
    if (!mkdtemp(dir)) abort();
    /* stdout quiet (sweep --dry-run lists points); stderr stays for libFuzzer */
    int fd = open("/dev/null", O_WRONLY);
    if (fd >= 0) dup2(fd, 1), close(fd);
  }
  return dir;
}

/* Write data[0 .. n) to dir/name; its path into path[len]. */
static void fuzz_write(const char *name, const void *data, size_t n, char *path, size_t len) {
  snprintf(path, len, "%s/%s", fuzz_dir(), name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(data, 1, n, f) != n) abort();
  fclose(f);
}

#endif
