/* src/datapath.c — the lookup order of datapath.h. */
#include "datapath.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per kind: its variable, its directory under the installation's data
 * directory, and its directory in the source tree. */
static const struct {
  const char *env, *installed, *source;
} kinds[] = {
  [DATA_MODELS] = {"CCSIM_MODELS", "models", "workloads/models"},
  [DATA_PLATFORMS] = {"CCSIM_PLATFORMS", "platforms", "platforms"},
  [DATA_DEVICES] = {"CCSIM_DEVICES", "devices", "devices"},
  [DATA_DATASETS] = {"CCSIM_DATASETS", "data", "workloads/data"},
  [DATA_LINKS] = {"CCSIM_LINKS", "links", "links"},
};

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory of the running binary, into out[n]; 0 or -1. */
static int exe_dir(char *out, size_t n) {
  char buf[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len <= 0) return -1;
  buf[len] = 0;
  char *slash = strrchr(buf, '/');
  if (!slash) return -1;
  *slash = 0;
  if ((size_t)snprintf(out, n, "%s", buf) >= n) return -1;
  return 0;
}

/* The candidate roots in order, each with whether it is laid out as the
 * installation (1) or as a source tree (0).  Returns how many. */
static int roots(char r[3][PATH_MAX], int installed[3]) {
  int k = 0;
  char dir[PATH_MAX];
  /* a candidate whose path does not fit is skipped, never truncated */
#ifdef CCSIM_DATADIR_FROM_BINDIR
  if (CCSIM_DATADIR_FROM_BINDIR[0] == '/') {
    if (snprintf(r[k], PATH_MAX, "%s", CCSIM_DATADIR_FROM_BINDIR) < PATH_MAX) installed[k++] = 1;
  } else if (exe_dir(dir, sizeof dir) == 0) {
    if (snprintf(r[k], PATH_MAX, "%s/%s", dir, CCSIM_DATADIR_FROM_BINDIR) < PATH_MAX) installed[k++] = 1;
  }
#endif
  const char *env = getenv("CCSIM_DATA");
  if (env && *env && snprintf(r[k], PATH_MAX, "%s", env) < PATH_MAX) installed[k++] = -1; /* either layout */
#if defined(CCSIM_SOURCE_ROOT) && defined(CCSIM_BUILD_ROOT)
  /* the source tree, for a binary inside the build directory */
  size_t bl = strlen(CCSIM_BUILD_ROOT);
  if (exe_dir(dir, sizeof dir) == 0 && strncmp(dir, CCSIM_BUILD_ROOT, bl) == 0 &&
      (dir[bl] == '/' || dir[bl] == 0)) {
    snprintf(r[k], PATH_MAX, "%s", CCSIM_SOURCE_ROOT);
    installed[k++] = 0;
  }
#endif
  return k;
}

/* Calls visit(dir) for each candidate directory of kind, in order, until it
 * returns nonzero; `tried` collects them for a message.  Returns 0 when one
 * was accepted. */
static int each_dir(data_kind kind, int (*visit)(const char *dir, void *arg), void *arg,
                    char *tried, size_t n) {
  const char *one = getenv(kinds[kind].env);
  tried[0] = 0;
  if (one && *one) {
    snprintf(tried, n, "%s (from %s)", one, kinds[kind].env);
    return visit(one, arg) ? 0 : -1;
  }
  char r[3][PATH_MAX];
  int inst[3];
  int nr = roots(r, inst);
  for (int i = 0; i < nr; i++)
    for (int layout = 1; layout >= 0; layout--) {
      if (inst[i] >= 0 && inst[i] != layout) continue;
      char d[PATH_MAX + 64];
      if ((size_t)snprintf(d, sizeof d, "%s/%s", r[i], layout ? kinds[kind].installed : kinds[kind].source) >=
          sizeof d)
        continue;
      if (is_dir(d) && visit(d, arg)) return 0;
      size_t used = strlen(tried);
      snprintf(tried + used, n - used, "%s%s", used ? ", " : "", d);
    }
  if (!tried[0]) snprintf(tried, n, "no data directory (set CCSIM_DATA)");
  return -1;
}

struct found {
  const char *name;
  char *out;
  size_t n;
};

static int accept_dir(const char *dir, void *arg) {
  struct found *f = arg;
  if (!is_dir(dir)) return 0;
  return (size_t)snprintf(f->out, f->n, "%s", dir) < f->n;
}

static int accept_file(const char *dir, void *arg) {
  struct found *f = arg;
  char p[PATH_MAX + 256];
  if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, f->name) >= sizeof p) return 0;
  if (access(p, R_OK) != 0) return 0;
  return (size_t)snprintf(f->out, f->n, "%s", p) < f->n;
}

int datapath_dir(data_kind kind, char *out, size_t n) {
  char tried[4 * PATH_MAX];
  struct found f = {NULL, out, n};
  if (each_dir(kind, accept_dir, &f, tried, sizeof tried) == 0) return 0;
  snprintf(out, n, "%s", tried);
  return -1;
}

int datapath_file(data_kind kind, const char *name, char *out, size_t n) {
  char tried[4 * PATH_MAX];
  struct found f = {name, out, n};
  if (each_dir(kind, accept_file, &f, tried, sizeof tried) == 0) return 0;
  snprintf(out, n, "%s", tried);
  return -1;
}

int datapath_classify(const char *rel, data_kind *kind, const char **name) {
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    size_t l = strlen(kinds[k].source);
    if (strncmp(rel, kinds[k].source, l) == 0 && rel[l] == '/' && rel[l + 1]) {
      *kind = (data_kind)k;
      *name = rel + l + 1;
      return 0;
    }
  }
  return -1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

char **datapath_json_names(const char *dir, size_t *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len <= 5 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    if (*n == cap) {
      char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
      if (!grown) break;
      names = grown;
    }
    if (!(names[*n] = strndup(e->d_name, len - 5))) break;
    (*n)++;
  }
  closedir(d);
  if (*n) qsort(names, *n, sizeof *names, by_name);
  return names;
}

void datapath_names_free(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}
