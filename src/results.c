/* src/results.c — atomic result files. */
#include "results.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int results_mkdir(const char *dir, ccsim_error *err) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0777) && errno != EEXIST) break;
    *p = '/';
  }
  if (mkdir(buf, 0777) && errno != EEXIST)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot create output directory: %s", dir,
                      strerror(errno));
  return 0;
}

FILE *results_open(const char *dir, const char *name, ccsim_error *err) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s.tmp", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

int results_commit(FILE *f, const char *dir, const char *name, ccsim_error *err) {
  char tmp[1200], path[1200];
  snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (fclose(f) != 0 || rename(tmp, path) != 0)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: cannot write: %s", path, strerror(errno));
  return 0;
}

int results_write_json(const char *dir, const char *name, json_t *doc, ccsim_error *err) {
  FILE *f = results_open(dir, name, err);
  if (!f) return CCSIM_ERR_RUNTIME;
  if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)) != 0) {
    fclose(f);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s/%s: cannot write JSON", dir, name);
  }
  fputc('\n', f);
  return results_commit(f, dir, name, err);
}
