/* src/platforms/files.c — SimGrid platform files described without loading
 * them (a description, a host count, gpus_per_node), and `ccsim list
 * platforms`: the registered generators with their keys and defaults, then
 * the shipped files. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "platform.h"
#include "platforms/check.h"
#include "platforms/generator.h"

/* Count the radicals of "0-63,70,72-73". */
static long long count_radicals(const char *s, size_t len) {
  long long n = 0;
  char buf[512];
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, s, len);
  buf[len] = 0;
  char *save = NULL;
  for (char *part = strtok_r(buf, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
    char *end;
    long long a = strtoll(part, &end, 10), b = a;
    if (*end == '-') b = strtoll(end + 1, NULL, 10);
    if (b >= a) n += b - a + 1;
  }
  return n;
}

/* The value of attribute attr in the tag starting at tag (up to its '>'). */
static const char *attribute(const char *tag, const char *attr, size_t *len) {
  const char *end = strchr(tag, '>');
  size_t alen = strlen(attr);
  for (const char *p = tag + 1; end && p < end; p++) {
    if ((p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && !strncmp(p, attr, alen) && p[alen] == '=' &&
        (p[alen + 1] == '"' || p[alen + 1] == '\'')) {
      const char q = p[alen + 1], *v = p + alen + 2, *ve = strchr(v, q);
      if (!ve || ve > end) return NULL;
      *len = (size_t)(ve - v);
      return v;
    }
  }
  return NULL;
}

int platform_file_describe(const char *path, char *desc, size_t len, long long *hosts, int *gpus_per_node) {
  size_t n; /* read safely: a FIFO, a device or a huge file is refused */
  char *text;
  if (cfg_read_file(path, "platform file", PLATFORM_CHECK_MAX_BYTES, &text, &n, NULL)) return -1;
  if (desc && len) desc[0] = 0;
  long long count = 0;
  int gpn = 1, first_comment = 1;
  for (char *p = text; (p = strchr(p, '<'));) {
    if (!strncmp(p, "<!--", 4)) {
      char *end = strstr(p + 4, "-->");
      if (first_comment && desc && len) { /* its first line with words */
        first_comment = 0;
        char *s = p + 4;
        while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') s++;
        size_t k = strcspn(s, "\n");
        if (end && s + k > end) k = (size_t)(end - s);
        while (k && (s[k - 1] == ' ' || s[k - 1] == '\r')) k--;
        snprintf(desc, len, "%.*s", (int)k, s);
      }
      if (!end) break;
      p = end + 3;
      continue;
    }
    size_t vlen, ilen;
    const char *v, *id;
    if (!strncmp(p, "<host", 5) && (p[5] == ' ' || p[5] == '\n' || p[5] == '\t')) {
      count++;
    } else if ((!strncmp(p, "<cluster", 8) || !strncmp(p, "<cabinet", 8)) &&
               (p[8] == ' ' || p[8] == '\n' || p[8] == '\t')) {
      if ((v = attribute(p, "radical", &vlen))) count += count_radicals(v, vlen);
    } else if (!strncmp(p, "<prop", 5) && (id = attribute(p, "id", &ilen)) && ilen == 13 &&
               !strncmp(id, "gpus_per_node", 13) && (v = attribute(p, "value", &vlen))) {
      gpn = atoi(v);
    }
    p++;
  }
  free(text);
  if (hosts) *hosts = count;
  if (gpus_per_node) *gpus_per_node = gpn;
  return 0;
}

/* qsort order of file names. */
static int by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Generator g's keys as an experiment takes them: the required ones with
 * their example value, the others with the default the experiment reader
 * fills in (for the example; "up" and "parallel" follow "down"), into
 * out[len].  The defaults come from resolving a one-worker experiment of
 * the example, so this list cannot drift from the reader. */
static void generator_params(const platform_generator *g, char *out, size_t len) {
  out[0] = '\0';
  json_t *req = json_loads(g->example, JSON_REJECT_DUPLICATES, NULL);
  json_t *plat = json_deep_copy(req);
  json_object_set_new(plat, "generate", json_string(g->name));
  json_t *root = json_pack("{s:s, s:i, s:{s:i}, s:o}", "name", "list", "workers", 1, "model", "elements", 1,
                           "platform", plat);
  ccsim_error err = {0};
  experiment *e = root ? experiment_from_json(root, "(list platforms)", &err) : NULL;
  json_t *resolved = e ? json_object_get(e->resolved, "platform") : NULL;
  size_t used = 0;
  for (const pgen_key *k = g->keys; k->name && used < len; k++) {
    json_t *v = json_object_get(req, k->name);
    int required = v != NULL;
    if (!v && resolved) v = json_object_get(resolved, k->name);
    /* a crossbar's hosts default to the worker count */
    char *text = !required && !strcmp(k->name, "hosts") ? strdup("(workers)")
                 : v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    int w = snprintf(out + used, len - used, "%s%s%s%s%s", used ? " " : "", k->name, text ? "=" : "",
                     text ? text : " (optional, no default)", required ? " (required, e.g.)" : "");
    free(text);
    if (w < 0) break;
    used += (size_t)w;
  }
  if (!e) snprintf(out, len, "(defaults unavailable: %.900s)", root ? err.msg : "out of memory");
  experiment_free(e);
  json_decref(req);
}

int platform_list(FILE *out, const char *dir) {
  size_t ng;
  const platform_generator *const *gens = platform_generators(&ng);
  for (size_t i = 0; i < ng; i++) {
    char fields[256] = "";
    for (const pgen_key *k = gens[i]->keys; k->name; k++) {
      if (fields[0]) strncat(fields, " ", sizeof fields - strlen(fields) - 1);
      strncat(fields, k->name, sizeof fields - strlen(fields) - 1);
    }
    fprintf(out, "%-10s generate: %s (%s)\n", gens[i]->name, gens[i]->summary, fields);
    char params[1024];
    generator_params(gens[i], params, sizeof params);
    fprintf(out, "%-10s   %s\n", "", params);
  }
  fprintf(out, "%-10s any SimGrid XML platform: \"platform\": \"path.xml\" (relative to the experiment), or a shipped "
          "one below by its name: \"platform\": \"dgx1-4x8\"\n", "file");
  if (!dir) {
    fprintf(out, "\nshipped platforms: no directory known; set CCSIM_PLATFORMS\n");
    return 0;
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(out, "\nshipped platforms: cannot read %s: %s (set CCSIM_PLATFORMS)\n", dir, strerror(errno));
    return 0;
  }
  char **names = NULL;
  size_t count = 0;
  int oom = 0;
  for (struct dirent *de; !oom && (de = readdir(d));) {
    size_t l = strlen(de->d_name);
    if (l > 4 && !strcmp(de->d_name + l - 4, ".xml")) {
      char **more = realloc(names, (count + 1) * sizeof *names);
      if (more) names = more;
      if (!more || !(names[count] = strdup(de->d_name))) oom = 1;
      else count++;
    }
  }
  closedir(d);
  if (oom) {
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
    return -1;
  }
  if (count) qsort(names, count, sizeof *names, by_name);
  fprintf(out, "\nshipped platforms in %s:\n", dir);
  for (size_t i = 0; i < count; i++) {
    char path[4096], desc[256];
    long long hosts;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (platform_file_describe(path, desc, sizeof desc, &hosts, NULL) == 0)
      fprintf(out, "%-26s %6lld hosts  %s\n", names[i], hosts, desc);
    free(names[i]);
  }
  free(names);
  return 0;
}
