/* src/config/exp_gradients.c — the "gradients" section: which gradient
 * source (src/data/source.h) and its keys.  Which keys and sections belong
 * to which source comes from the registry; the source reads its own. */
#include "config/sections.h"

#include <stdio.h>
#include <string.h>

#include "data/source.h"

enum { MAX_KEYS = 64, MAX_SOURCES = 32 };

/* "source" and every source's keys, each once, in registry order. */
static void all_keys(const char **out) {
  size_t n = 0;
  out[n++] = "source";
  out[n] = NULL;
  for (const grad_source_type *const *t = grad_sources; *t; t++)
    for (const char *const *k = (*t)->keys; *k; k++)
      if (!cfg_in_list(out, *k) && n < MAX_KEYS) out[n++] = *k, out[n] = NULL;
}

/* key of the "gradients" object, present but not one of source t's: the
 * path and the sources that take it, for the message. */
static int foreign_key(cfg_reader *rd, const grad_source_type *t, const char *key) {
  const char *take[MAX_SOURCES];
  size_t count = 0;
  for (const grad_source_type *const *o = grad_sources; *o && count < MAX_SOURCES; o++)
    if (cfg_in_list((*o)->keys, key)) take[count++] = (*o)->name;
  char p[64], names[256] = "";
  size_t len = 0;
  for (size_t i = 0; i < count; i++) {
    const char *sep = i == 0 ? "" : i + 1 == count ? " and " : ", ";
    int w = snprintf(names + len, sizeof names - len, "%s\"%s\"", sep, take[i]);
    if (w > 0 && (size_t)w < sizeof names - len) len += (size_t)w;
  }
  cfg_join(p, sizeof p, "gradients", key);
  return cfg_fail(rd, p, "only for source%s %s (the source is \"%s\")", count > 1 ? "s" : "", names,
                  t->name);
}

/* "gradients": {"source": NAME, ...}.  *implied = the element count the
 * source fixes (0: any), described in what. */
int exp_gradients(cfg_reader *rd, experiment *e, json_t *root, size_t *implied, char *what,
                  size_t whatlen) {
  int rc = 0;
  *implied = 0;
  json_t *g = cfg_object(rd, root, "", "gradients", &rc);
  if (!g) return rc;
  const char *known[MAX_KEYS + 1];
  all_keys(known);
  if ((rc = cfg_keys(rd, g, "gradients", known, NULL, NULL, NULL))) return rc;
  const char *names[MAX_SOURCES + 1];
  size_t ns = 0;
  for (const grad_source_type *const *t = grad_sources; *t && ns < MAX_SOURCES; t++) names[ns++] = (*t)->name;
  names[ns] = NULL;
  const char *s;
  int i;
  if ((rc = cfg_string(rd, g, "gradients", "source", "synthetic", &s))) return rc;
  if ((rc = cfg_one_of(rd, "gradients.source", s, names, &i))) return rc;
  const grad_source_type *t = grad_sources[i];
  e->gradients.source = t;
  for (const grad_source_type *const *o = grad_sources; *o; o++)
    if (*o != t && (*o)->section && json_object_get(root, (*o)->section))
      return cfg_fail(rd, (*o)->section, "only with gradients.source \"%s\" (the source is \"%s\")",
                      (*o)->name, t->name);
  for (const char *const *k = known + 1; *k; k++)
    if (json_object_get(g, *k) && !cfg_in_list(t->keys, *k)) return foreign_key(rd, t, *k);
  return t->read(rd, e, root, g, implied, what, whatlen);
}
