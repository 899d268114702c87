/* src/config/exp_compressor.c — the "compressor" section: the compressor, its
 * parameters and its error-feedback memory; and the parameter tables every
 * registry entry (compressor, memory, collective) shares. */
#include "config/sections.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccomp/compressor.h"
#include "suggest.h"

static int comp_param_key(const char *key, const void *arg) {
  return ccomp_param_index((const ccomp_type *)arg, key) >= 0;
}

static int mem_param_key(const char *key, const void *arg) {
  const ccomp_memory_type *m = arg;
  for (size_t i = 0; i < m->nparams; i++)
    if (!strcmp(m->params[i].name, key)) return 1;
  return 0;
}

/* The parameters of a compressor, memory or collective: every one present in obj is
 * checked, every missing one gets its default. */
int exp_params(cfg_reader *rd, json_t *obj, const char *path, const char *owner,
                       const ccomp_param *params, size_t nparams, double *out) {
  char b[80], p[256];
  for (size_t i = 0; i < nparams; i++) {
    const ccomp_param *pa = &params[i];
    cfg_join(p, sizeof p, path, pa->name);
    json_t *v = json_object_get(obj, pa->name);
    double x;
    if (!v && pa->kind == CCOMP_CHOICE) {
      x = pa->def;
      char name[64] = "";
      ccomp_param_choice_name(pa, (size_t)x, name, sizeof name);
      json_object_set_new(obj, pa->name, json_string(name));
    } else if (!v) {
      x = pa->def;
      json_object_set_new(obj, pa->name,
                          pa->kind == CCOMP_BOOL ? json_boolean(x != 0)
                          : pa->kind == CCOMP_INT ? json_integer((json_int_t)x)
                                                  : json_real(x));
    } else if (pa->kind == CCOMP_CHOICE) {
      const int k = json_is_string(v) ? ccomp_param_choice_index(pa, json_string_value(v)) : -1;
      if (k < 0) {
        const char *colon = strchr(pa->help, ':');
        return cfg_fail(rd, p, "expected one of %.*s, got %s", (int)(colon - pa->help), pa->help,
                        cfg_show(v, b, sizeof b));
      }
      x = k;
    } else if (pa->kind == CCOMP_BOOL) {
      if (!json_is_boolean(v))
        return cfg_fail(rd, p, "expected true or false, got %s", cfg_show(v, b, sizeof b));
      x = json_is_true(v);
    } else {
      if (!json_is_number(v))
        return cfg_fail(rd, p, "expected a number in [%g, %g], got %s", pa->min, pa->max,
                    cfg_show(v, b, sizeof b));
      x = json_number_value(v);
    }
    char perr[CCOMP_ERRLEN] = "";
    if (ccomp_param_check_in(owner, params, i, x, perr, sizeof perr)) return cfg_fail(rd, p, "%s", perr);
    out[i] = x;
  }
  return 0;
}

int exp_compressor(cfg_reader *rd, experiment *e, json_t *root) {
  int rc = 0;
  json_t *c = cfg_object(rd, root, "", "compressor", &rc);
  if (!c) return rc;
  const char *name;
  if ((rc = cfg_string(rd, c, "compressor", "name", "none", &name))) return rc;
  e->compressor = ccomp_find(name);
  if (!e->compressor) {
    char hint[96];
    return cfg_fail(rd, "compressor.name", "unknown compressor \"%s\" (%sknown: %s)", name,
                    suggest_hint(name, NULL, ccomp_names(), hint, sizeof hint), ccomp_names());
  }
  static const char *const known[] = {"name", "memory", NULL};
  char pnames[512] = "";
  for (size_t i = 0; i < e->compressor->nparams; i++) {
    if (i) strncat(pnames, ", ", sizeof pnames - strlen(pnames) - 1);
    strncat(pnames, e->compressor->params[i].name, sizeof pnames - strlen(pnames) - 1);
  }
  if ((rc = cfg_keys(rd, c, "compressor", known, comp_param_key, e->compressor, pnames))) return rc;
  if ((rc = exp_params(rd, c, "compressor", e->compressor->name, e->compressor->params,
                        e->compressor->nparams, e->comp_params)))
    return rc;

  /* memory: "none", "residual", or {"name": ..., params} */
  json_t *m = cfg_field(c, "memory", json_string("none"));
  json_t *mobj = NULL;
  const char *mname;
  char b[80];
  if (json_is_string(m)) {
    mname = json_string_value(m);
  } else if (json_is_object(m)) {
    mobj = m;
    if ((rc = cfg_string(rd, m, "compressor.memory", "name", NULL, &mname))) return rc;
  } else {
    return cfg_fail(rd, "compressor.memory", "expected a memory name (%s) or an object, got %s",
                ccomp_memory_names(), cfg_show(m, b, sizeof b));
  }
  e->memory = NULL;
  if (strcmp(mname, "none") != 0) {
    e->memory = ccomp_memory_find(mname);
    if (!e->memory) {
      char hint[96];
      return cfg_fail(rd, mobj ? "compressor.memory.name" : "compressor.memory", "unknown memory \"%s\" (%sknown: %s)",
                      mname, suggest_hint(mname, NULL, ccomp_memory_names(), hint, sizeof hint),
                      ccomp_memory_names());
    }
    if (!mobj && e->memory->nparams) { /* write the defaults out */
      json_object_set_new(c, "memory", json_pack("{s:s}", "name", mname));
      mobj = json_object_get(c, "memory");
    }
    if (mobj) {
      static const char *const mknown[] = {"name", NULL};
      char mp[512] = "";
      for (size_t i = 0; i < e->memory->nparams; i++) {
        if (i) strncat(mp, ", ", sizeof mp - strlen(mp) - 1);
        strncat(mp, e->memory->params[i].name, sizeof mp - strlen(mp) - 1);
      }
      if ((rc = cfg_keys(rd, mobj, "compressor.memory", mknown, mem_param_key, e->memory, mp)))
        return rc;
      if ((rc = exp_params(rd, mobj, "compressor.memory", e->memory->name, e->memory->params,
                            e->memory->nparams, e->mem_params)))
        return rc;
    }
  } else if (mobj) {
    return cfg_fail(rd, "compressor.memory", "memory \"none\" takes no parameters; write \"none\"");
  }
  return 0;
}
