/* src/outputs/provenance.c — input digests and what changed (provenance.h). */
#include "outputs/provenance.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs/sha256.h"

/* Digests already taken, by file identity. */
typedef struct known_digest {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
  char hex[65];
} known_digest;
static known_digest *known;
static size_t nknown, capknown;
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const known_digest *k, const struct stat *st) {
  return k->dev == st->st_dev && k->ino == st->st_ino && k->size == st->st_size &&
         k->mtime.tv_sec == st->st_mtim.tv_sec && k->mtime.tv_nsec == st->st_mtim.tv_nsec &&
         k->ctime.tv_sec == st->st_ctim.tv_sec && k->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The digest of st's file if taken before: 1 and hex filled. */
static int recall(const struct stat *st, char hex[65]) {
  int found = 0;
  pthread_mutex_lock(&known_lock);
  for (size_t i = 0; i < nknown && !found; i++)
    if (same_file(&known[i], st)) memcpy(hex, known[i].hex, 65), found = 1;
  pthread_mutex_unlock(&known_lock);
  return found;
}

/* Keep st's digest (silently not, when memory is short: it is a cache). */
static void remember(const struct stat *st, const char hex[65]) {
  pthread_mutex_lock(&known_lock);
  if (nknown == capknown) {
    const size_t cap = capknown ? 2 * capknown : 16;
    known_digest *k = realloc(known, cap * sizeof *k);
    if (k) known = k, capknown = cap;
  }
  if (nknown < capknown) {
    known[nknown] = (known_digest){st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim, ""};
    memcpy(known[nknown++].hex, hex, 65);
  }
  pthread_mutex_unlock(&known_lock);
}

int provenance_file_sha256(const char *path, char hex[65], ccsim_error *err) {
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: expected a regular file (not a FIFO, device or directory)", path);
  }
  if (recall(&st, hex)) return close(fd), 0;
  sha256_ctx c;
  sha256_init(&c);
  static __thread char buf[1 << 16];
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
    if (got > 0) sha256_update(&c, buf, (size_t)got);
  const int e = errno;
  close(fd);
  if (got < 0) return ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot read: %s", path, strerror(e));
  sha256_hex(&c, hex);
  remember(&st, hex);
  return 0;
}

json_t *provenance_new(const experiment *e, ccsim_error *err) {
  json_t *p = json_pack("{s:[],s:O?}", "inputs", "options", e->options);
  if (!p) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
    return NULL;
  }
  if (!e->options) json_object_set_new(p, "options", json_array());
  json_t *in = json_object_get(p, "inputs");
  for (int i = 0; i < e->ninputs; i++) {
    if (json_array_append_new(in, json_pack("{s:s,s:s,s:s}", "role", e->inputs[i].role, "path",
                                            e->inputs[i].path, "sha256", e->inputs[i].sha256))) {
      json_decref(p);
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory", e->file);
      return NULL;
    }
  }
  return p;
}

/* The first path where a and b differ, dotted ("compressor.tau",
 * "platform.nics[1]"), into out; 0 when they are equal. */
static int first_difference(const json_t *a, const json_t *b, const char *at, char *out, size_t len) {
  if (json_equal((json_t *)a, (json_t *)b)) return 0;
  char sub[512];
  if (json_is_object(a) && json_is_object(b)) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) {
      snprintf(sub, sizeof sub, "%s%s%s", at, at[0] ? "." : "", k);
      if (!json_object_get(b, k)) return snprintf(out, len, "%s (removed)", sub), 1;
      if (first_difference(v, json_object_get(b, k), sub, out, len)) return 1;
    }
    json_object_foreach((json_t *)b, k, v)
      if (!json_object_get(a, k)) {
        snprintf(out, len, "%s%s%s (added)", at, at[0] ? "." : "", k);
        return 1;
      }
  }
  if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b))
    for (size_t i = 0; i < json_array_size(a); i++) {
      snprintf(sub, sizeof sub, "%s[%zu]", at, i);
      if (first_difference(json_array_get(a, i), json_array_get(b, i), sub, out, len)) return 1;
    }
  snprintf(out, len, "%s", at[0] ? at : "(top level)");
  return 1;
}

/* The recorded input of the same role and place among its role (the k-th
 * "training data"), or NULL. */
static const json_t *recorded_input(const json_t *inputs, const char *role, int nth) {
  size_t i;
  json_t *v;
  json_array_foreach(inputs, i, v)
    if (!strcmp(json_string_value(json_object_get(v, "role")) ?: "", role) && nth-- == 0) return v;
  return NULL;
}

/* The text of option o in array a at its place, or of any, 1 if found. */
static int has_option(const json_t *a, const char *o) {
  size_t i;
  json_t *v;
  json_array_foreach(a, i, v)
    if (!strcmp(json_string_value(v) ?: "", o)) return 1;
  return 0;
}

/* The first experiment field where e and the recorded summary differ
 * (output.dir aside) into at[len]: 1 if any. */
static int field_changed(const experiment *e, const json_t *summary, char *at, size_t len) {
  json_t *a = json_deep_copy(json_object_get(summary, "experiment")), *b = json_deep_copy(e->resolved);
  json_t *oa = json_object_get(a, "output"), *ob = json_object_get(b, "output");
  if (json_is_object(oa)) json_object_del(oa, "dir");
  if (json_is_object(ob)) json_object_del(ob, "dir");
  const int d = a && b ? first_difference(b, a, "", at, len) : (snprintf(at, len, "(unreadable)"), 1);
  json_decref(a);
  json_decref(b);
  return d;
}

int provenance_why(const experiment *e, const json_t *prov, const json_t *summary, char *why, size_t len) {
  const char *v = json_string_value(json_object_get(summary, "ccsim_version"));
  char at[600];
  if (v && strcmp(v, CCSIM_VERSION)) {
    if (field_changed(e, summary, at, sizeof at)) return snprintf(why, len, "experiment field %s changed", at), 2;
    snprintf(why, len, "recorded by ccsim %s, this is %s", v, CCSIM_VERSION);
    return 1;
  }
  const json_t *rin = json_object_get(summary, "inputs"), *ropt = json_object_get(summary, "options");
  if (!json_is_array(rin) || !json_is_array(ropt)) {
    if (field_changed(e, summary, at, sizeof at)) return snprintf(why, len, "experiment field %s changed", at), 2;
    snprintf(why, len, "its summary.json records no input digests (an earlier ccsim)");
    return 1;
  }
  /* the inputs, in the order read */
  const json_t *now = json_object_get(prov, "inputs");
  size_t i;
  json_t *in;
  json_array_foreach(now, i, in) {
    const char *role = json_string_value(json_object_get(in, "role"));
    if (!strcmp(role, "experiment file")) continue; /* its fields, below, say more */
    const char *path = json_string_value(json_object_get(in, "path"));
    int nth = 0;
    for (size_t j = 0; j < i; j++)
      nth += !strcmp(json_string_value(json_object_get(json_array_get(now, j), "role")), role);
    const json_t *old = recorded_input(rin, role, nth);
    if (!old) {
      snprintf(why, len, "%s %s is new", role, path);
      return 1;
    }
    const char *opath = json_string_value(json_object_get(old, "path")) ?: "?";
    if (!json_equal(json_object_get(old, "sha256"), json_object_get(in, "sha256"))) {
      if (strcmp(opath, path)) snprintf(why, len, "%s changed (%s, was %s)", role, path, opath);
      else snprintf(why, len, "%s %s changed", role, path);
      return 1;
    }
  }
  json_array_foreach(rin, i, in)
    if (i >= json_array_size(now)) {
      snprintf(why, len, "%s %s is no longer read", json_string_value(json_object_get(in, "role")) ?: "input",
               json_string_value(json_object_get(in, "path")) ?: "?");
      return 1;
    }
  const json_t *opt = json_object_get(prov, "options");
  json_array_foreach(opt, i, in)
    if (!has_option(ropt, json_string_value(in))) {
      snprintf(why, len, "option %s is new", json_string_value(in));
      return 1;
    }
  json_array_foreach(ropt, i, in)
    if (!has_option(opt, json_string_value(in))) {
      snprintf(why, len, "option %s was given then, not now", json_string_value(in) ?: "?");
      return 1;
    }
  if (!json_equal((json_t *)opt, (json_t *)ropt)) {
    snprintf(why, len, "the options are in another order");
    return 1;
  }
  /* the experiment's fields (where it writes aside) */
  if (field_changed(e, summary, at, sizeof at)) return snprintf(why, len, "experiment field %s changed", at), 2;
  if (json_array_size(now) && json_array_size(rin) &&
      !json_equal(json_object_get(json_array_get(now, 0), "sha256"), json_object_get(json_array_get(rin, 0), "sha256")))
    snprintf(why, len, "experiment file %s changed", json_string_value(json_object_get(json_array_get(now, 0), "path")));
  else
    snprintf(why, len, "the experiment hash changed");
  return 1;
}
