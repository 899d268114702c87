/* src/input/resolve.c — paths an experiment names, resolved (resolve.h). */
#include "input/resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datapath.h"

/* A path relative to the experiment file (absolute paths as they are); a
 * new string. */
char *exp_resolve(const experiment *e, const char *f) {
  size_t need = strlen(e->dir) + strlen(f) + 2;
  char *p = malloc(need);
  if (!p) return NULL;
  if (f[0] == '/') snprintf(p, need, "%s", f);
  else snprintf(p, need, "%s/%s", e->dir, f);
  return p;
}

/* A data file: relative to the experiment file first, then, for a path
 * written as in the source tree ("workloads/data/digits.csv.gz"), in the
 * shipped data (datapath.h). */
int exp_resolve_data(cfg_reader *rd, experiment *e, const char *path, const char *f, char **out) {
  if (!(*out = exp_resolve(e, f))) return cfg_oom(rd, path);
  if (access(*out, R_OK) == 0 || f[0] == '/') goto check;
  data_kind kind;
  const char *name;
  if (datapath_classify(f, &kind, &name) == 0) {
    char found[4096];
    if (datapath_file(kind, name, found, sizeof found) == 0) {
      free(*out);
      return (*out = strdup(found)) ? 0 : cfg_oom(rd, path);
    }
    return cfg_fail(rd, path, "cannot read \"%s\" (tried %s, and %s in %s)", f, *out, name, found);
  }
check:
  if (access(*out, R_OK) != 0) {
    if (f[0] == '/') return cfg_fail(rd, path, "cannot read \"%s\": %s", f, strerror(errno));
    return cfg_fail(rd, path, "cannot read \"%s\" (%s: %s)", f, *out, strerror(errno));
  }
  return 0;
}
