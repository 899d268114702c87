/* src/input/input.c — files read whole, JSON parsed, values checked (the
 * contract is in input.h). */
#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonmem.h"
#include "suggest.h"
#include "units.h"

/* ---- files ---- */

static const char *kind_of(mode_t m) {
  return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int cfg_open_regular(const char *path, const char *what, size_t *size, ccsim_error *err) {
  /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "cannot open %s: %s", what, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "cannot stat %s: %s", what, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "is %s; expected the %s (a regular file)",
                  kind_of(st.st_mode), what);
    close(fd);
    return -1;
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  if (size) *size = (size_t)st.st_size;
  return fd;
}

int cfg_read_file(const char *path, const char *what, size_t max, char **data, size_t *len,
                  ccsim_error *err) {
  *data = NULL;
  *len = 0;
  size_t size;
  int fd = cfg_open_regular(path, what, &size, err);
  if (fd < 0) return err ? err->code : CCSIM_ERR_INPUT;
  if (size > max) {
    close(fd);
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0,
                         "%zu bytes; the %s may be at most %zu bytes", size, what, max);
  }
  /* Read to the end, not to the size stat gave: a file growing underneath
   * is still capped. */
  size_t cap = size + 1, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) {
    close(fd);
    return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "out of memory reading %zu bytes", size);
  }
  for (;;) {
    if (n == cap) {
      if (cap > max) break;
      size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
      char *grown = realloc(buf, ncap + 1);
      if (!grown) {
        free(buf);
        close(fd);
        return ccsim_fail_at(err, CCSIM_ERR_RUNTIME, path, NULL, 0, 0, "out of memory");
      }
      buf = grown;
      cap = ncap;
    }
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      close(fd);
      return ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "cannot read %s: %s", what, strerror(e));
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  if (n > max) {
    free(buf);
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, path, NULL, 0, 0, "more than %zu bytes; the %s may be at most that",
                         max, what);
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return 0;
}

int cfg_oom(cfg_reader *rd, const char *path) {
  return ccsim_fail_at(rd->err, CCSIM_ERR_RUNTIME, rd->file, path, 0, 0, "out of memory");
}

unsigned long cfg_json_denied(void) { return jsonmem_denied(); }

json_t *cfg_parse_json(const char *file, const char *text, size_t len, size_t flags, ccsim_error *err) {
  /* RFC 8259 8.1: a parser may ignore a UTF-8 byte-order mark (editors on
   * Windows write one); UTF-16 and an empty file are said as what they are */
  const size_t bom = ccsim_json_bom(text, len);
  text += bom, len -= bom;
  if (len >= 2 && (!memcmp(text, "\xFF\xFE", 2) || !memcmp(text, "\xFE\xFF", 2))) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0,
                  "the file is UTF-16 (it starts with a UTF-16 byte-order mark); expected JSON in UTF-8");
    return NULL;
  }
  size_t blank = 0;
  while (blank < len && strchr(" \t\r\n", text[blank]) && text[blank]) blank++;
  if (blank == len) {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "the file is empty%s; expected a JSON object",
                  len ? " (white space only)" : "");
    return NULL;
  }
  json_error_t jerr;
  const unsigned long denied = cfg_json_denied();
  json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &jerr);
  if (root && cfg_json_denied() != denied) { /* parsed, but perhaps with a byte dropped */
    json_decref(root);
    root = NULL;
  }
  if (!root) {
    if (cfg_json_denied() != denied)
      ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "out of memory while reading the JSON");
    else if (jerr.line > 0)
      ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, jerr.line, jerr.column < 0 ? 0 : jerr.column,
                    "malformed JSON: %s", ccsim_json_reason(jerr.text));
    else
      ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "malformed JSON: %s", ccsim_json_reason(jerr.text));
  }
  return root;
}

json_t *cfg_load_json(const char *path, const char *what, size_t max, ccsim_error *err) {
  char *text;
  size_t len;
  if (cfg_read_file(path, what, max, &text, &len, err)) return NULL;
  json_t *root = cfg_parse_json(path, text, len, 0, err);
  free(text);
  return root;
}

/* ---- messages ---- */

int cfg_fail(cfg_reader *rd, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ccsim_vfail_at(rd->err, CCSIM_ERR_INPUT, rd->file, path ? path : "", 0, 0, fmt, ap);
  va_end(ap);
  return CCSIM_ERR_INPUT;
}

void cfg_join(char *out, size_t len, const char *path, const char *key) {
  snprintf(out, len, "%s%s%s", path, *path ? "." : "", key);
}

const char *cfg_show(const json_t *v, char *buf, size_t len) {
  if (json_is_real(v)) { /* the shortest digits that read back as the same number: 1e-30, not 1.0000000000000001e-30 */
    const double x = json_real_value(v);
    char t[40];
    for (int prec = 1; prec <= 17; prec++) {
      snprintf(t, sizeof t, "%.*g", prec, x);
      if (strtod(t, NULL) == x) break;
    }
    if (!strpbrk(t, ".eEni")) strcat(t, ".0"); /* still reads as a real, as jansson writes it */
    snprintf(buf, len, "%s", t);
    return buf;
  }
  char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  if (!s) return v ? "?" : "nothing";
  if (strlen(s) > 60) strcpy(s + 57, "...");
  snprintf(buf, len, "%s", s);
  free(s);
  return buf;
}

const char *cfg_type_name(const json_t *v) {
  switch (json_typeof(v)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a number";
  case JSON_TRUE:
  case JSON_FALSE: return "a boolean";
  case JSON_NULL: return "null";
  }
  return "a value";
}

/* ---- objects ---- */

static void append(char *list, size_t len, const char *s) {
  if (list[0]) strncat(list, ", ", len - strlen(list) - 1);
  strncat(list, s, len - strlen(list) - 1);
}

int cfg_keys(cfg_reader *rd, json_t *obj, const char *path, const char *const *known,
             int (*extra)(const char *key, const void *arg), const void *arg, const char *extra_names) {
  const char *key;
  json_t *v;
  json_object_foreach(obj, key, v) {
    int ok = cfg_in_list(known, key);
    if (!ok && extra) ok = extra(key, arg);
    if (!ok) {
      char list[1024] = "", p[512], hint[96];
      for (const char *const *k = known; *k; k++) append(list, sizeof list, *k);
      if (extra_names && *extra_names) append(list, sizeof list, extra_names);
      cfg_join(p, sizeof p, path, key);
      return cfg_fail(rd, p, "unknown key \"%s\" (%sknown here: %s)", key,
                      suggest_hint(key, known, extra_names, hint, sizeof hint), list);
    }
  }
  return 0;
}

int cfg_require(cfg_reader *rd, json_t *obj, const char *path, const char *const *known) {
  for (const char *const *k = known; *k; k++)
    if (!json_object_get(obj, *k)) {
      char list[1024] = "", p[512];
      for (const char *const *r = known; *r; r++) append(list, sizeof list, *r);
      cfg_join(p, sizeof p, path, *k);
      return cfg_fail(rd, p, "missing (required here: %s)", list);
    }
  return 0;
}

json_t *cfg_field(json_t *obj, const char *key, json_t *def) {
  json_t *v = json_object_get(obj, key);
  if (!v && def) {
    json_object_set_new(obj, key, def);
    v = json_object_get(obj, key);
  } else if (def) {
    json_decref(def);
  }
  return v;
}

json_t *cfg_object(cfg_reader *rd, json_t *parent, const char *path, const char *key, int *rc) {
  char p[512], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = json_object_get(parent, key);
  if (!v) {
    json_object_set_new(parent, key, json_object());
    return json_object_get(parent, key);
  }
  if (!json_is_object(v)) {
    *rc = cfg_fail(rd, p, "expected an object, got %s", cfg_show(v, b, sizeof b));
    return NULL;
  }
  return v;
}

int cfg_in_list(const char *const *list, const char *key) {
  for (; *list; list++)
    if (!strcmp(*list, key)) return 1;
  return 0;
}

/* ---- values ---- */

/* v as an integer in [min, max]: 0 and *out; -1 not an integer (or a real
 * with a fraction); 1 below min; 2 above max.  Reals are compared as reals
 * before any conversion. */
static int integral(const json_t *v, long long min, long long max, long long *out) {
  if (json_is_integer(v)) {
    long long x = json_integer_value(v);
    if (x < min) return 1;
    if (x > max) return 2;
    *out = x;
    return 0;
  }
  if (!json_is_real(v)) return -1;
  double r = json_real_value(v);
  if (r != floor(r)) return -1;
  if (r < (double)min) return 1;
  if (r > (double)max || r >= 9.2e18) return 2;
  *out = (long long)r;
  return *out < min ? 1 : *out > max ? 2 : 0;
}

/* A number for messages: reals as %.15g (1e+300, not jansson's
 * 1.0000000000000001e300), anything else as cfg_show. */
static const char *show_num(const json_t *v, char *buf, size_t len) {
  if (!json_is_real(v)) return cfg_show(v, buf, len);
  snprintf(buf, len, "%.15g", json_real_value(v));
  return buf;
}

int cfg_int_value(cfg_reader *rd, const json_t *v, const char *path, long long min, long long max,
                  long long *out) {
  char b[80];
  int r = integral(v, min, max, out);
  if (r < 0) return cfg_fail(rd, path, "expected an integer >= %lld, got %s", min, show_num(v, b, sizeof b));
  if (r) return cfg_fail(rd, path, "expected an integer in [%lld, %lld], got %s", min, max, show_num(v, b, sizeof b));
  return 0;
}

int cfg_int(cfg_reader *rd, json_t *obj, const char *path, const char *key, int required,
            long long def, long long min, long long max, long long *out) {
  char p[512];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, required ? NULL : json_integer(def));
  if (!v) return cfg_fail(rd, p, "missing; expected an integer >= %lld", min);
  int rc = cfg_int_value(rd, v, p, min, max, out);
  /* the resolved input says 32, not 32.0, however it was written */
  if (!rc && json_is_real(v)) json_object_set_new(obj, key, json_integer(*out));
  return rc;
}

int cfg_int_array(cfg_reader *rd, json_t *obj, const char *path, const char *key, json_t *def,
                  long long min, long long max, int maxlen, const char *example, int *out, int *len) {
  char p[512], pi[540], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, def);
  if (!v) return cfg_fail(rd, p, "missing; expected an array of integers >= %lld, e.g. %s", min, example);
  if (!json_is_array(v))
    return cfg_fail(rd, p, "expected an array of integers >= %lld such as %s, got %s", min, example,
                    cfg_show(v, b, sizeof b));
  size_t n = json_array_size(v);
  if (n < 1 || n > (size_t)maxlen) return cfg_fail(rd, p, "expected 1 to %d integers, got %zu", maxlen, n);
  for (size_t i = 0; i < n; i++) {
    json_t *x = json_array_get(v, i);
    snprintf(pi, sizeof pi, "%s[%zu]", p, i);
    long long y;
    int r = integral(x, min, max, &y);
    if (r < 0 || r == 1)
      return cfg_fail(rd, pi, "expected an integer >= %lld, got %s", min, show_num(x, b, sizeof b));
    if (r == 2) return cfg_fail(rd, pi, "expected an integer <= %lld, got %s", max, show_num(x, b, sizeof b));
    out[i] = (int)y;
  }
  *len = (int)n;
  return 0;
}

int cfg_real(cfg_reader *rd, json_t *obj, const char *path, const char *key, double def, double min,
             double max, double *out) {
  char p[512], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, isnan(def) ? NULL : json_real(def));
  if (!v) return cfg_fail(rd, p, "missing; expected a number in [%g, %g]", min, max);
  if (!json_is_number(v))
    return cfg_fail(rd, p, "expected a number in [%g, %g], got %s", min, max, cfg_show(v, b, sizeof b));
  double x = json_number_value(v);
  if (!(x >= min && x <= max)) return cfg_fail(rd, p, "expected a number in [%g, %g], got %g", min, max, x);
  *out = x;
  return 0;
}

int cfg_bool(cfg_reader *rd, json_t *obj, const char *path, const char *key, int def, int *out) {
  char p[512], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, json_boolean(def));
  if (!json_is_boolean(v)) return cfg_fail(rd, p, "expected true or false, got %s", cfg_show(v, b, sizeof b));
  *out = json_is_true(v);
  return 0;
}

int cfg_string(cfg_reader *rd, json_t *obj, const char *path, const char *key, const char *def,
               const char **out) {
  char p[512], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, def ? json_string(def) : NULL);
  if (!v) return cfg_fail(rd, p, "missing; expected a string");
  if (!json_is_string(v)) return cfg_fail(rd, p, "expected a string, got %s", cfg_show(v, b, sizeof b));
  *out = json_string_value(v);
  return 0;
}

int cfg_unit(cfg_reader *rd, json_t *obj, const char *path, const char *key, const char *def,
             enum cfg_unit_kind kind, double *out) {
  static const char *const what[] = {"a bandwidth such as \"25Gbps\" or \"10GBps\"",
                                     "a size such as \"4MB\" or \"512KiB\"",
                                     "a time such as \"5us\" or \"1.5ms\""};
  char p[512], b[80];
  cfg_join(p, sizeof p, path, key);
  json_t *v = cfg_field(obj, key, def ? json_string(def) : NULL);
  if (!v) return cfg_fail(rd, p, "missing; expected %s", what[kind]);
  double x;
  if (json_is_number(v)) {
    x = json_number_value(v);
  } else if (json_is_string(v)) {
    int bad = kind == CFG_BANDWIDTH ? units_bandwidth(json_string_value(v), &x)
              : kind == CFG_SIZE    ? units_size(json_string_value(v), &x)
                                    : units_time(json_string_value(v), &x);
    if (bad) return cfg_fail(rd, p, "expected %s, got %s (%s)", what[kind], cfg_show(v, b, sizeof b), units_why(bad));
  } else {
    return cfg_fail(rd, p, "expected %s, got %s", what[kind], cfg_type_name(v));
  }
  if (!isfinite(x) || x < 0 || (x == 0 && kind != CFG_TIME))
    return cfg_fail(rd, p, "expected %s %s 0, got %s", what[kind], kind == CFG_TIME ? ">=" : ">",
                    cfg_show(v, b, sizeof b));
  /* Ranges SimGrid can simulate: it refuses a bandwidth below ~1e-308 B/s
   * (naming only its memfd), warns on stderr about a latency under its 1 ns
   * precision and then rounds it, and a time past 1e6 s leaves no double
   * precision for the microseconds of the messages beside it. */
  static const double lo[] = {0.125, 1, 1e-9}, hi[] = {1e18, 1e18, 1e6};
  static const char *const range[] = {"from 1bps to 8000Pbps (1e18 bytes/s)", "from 1B to 1e18B",
                                      "of 0 or from 1ns to 1e6s"};
  if (x < lo[kind] && !(kind == CFG_TIME && x == 0)) x = -1;
  if (!(x >= 0 && x <= hi[kind]))
    return cfg_fail(rd, p, "expected %s %s, got %s", what[kind], range[kind], cfg_show(v, b, sizeof b));
  *out = x;
  return 0;
}

int cfg_one_of(cfg_reader *rd, const char *path, const char *value, const char *const *allowed, int *index) {
  char list[512] = "";
  for (int i = 0; allowed[i]; i++) {
    if (strcmp(value, allowed[i]) == 0) {
      *index = i;
      return 0;
    }
    append(list, sizeof list, allowed[i]);
  }
  char hint[96];
  return cfg_fail(rd, path, "unknown value \"%s\" (%sknown: %s)", value,
                  suggest_hint(value, allowed, NULL, hint, sizeof hint), list);
}

/* ---- overrides ---- */

/* The JSON value of an override's text: JSON when it is JSON, else the text
 * as a string.  Text that starts like an object, array or string but does
 * not parse (say a duplicate key) is an error, not a string. */
static json_t *set_value(const char *file, const char *assignment, const char *text, ccsim_error *err) {
  json_error_t jerr;
  const unsigned long denied = cfg_json_denied();
  json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
  if (v && cfg_json_denied() == denied) return v;
  json_decref(v);
  if (cfg_json_denied() != denied) {
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "--set %s: out of memory", assignment);
    return NULL;
  }
  const char *t = text;
  while (*t == ' ' || *t == '\t' || *t == '\n') t++;
  if (*t == '{' || *t == '[' || *t == '"') {
    ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "--set %s: the value is not valid JSON: %s (column %d)",
                  assignment, jerr.text, jerr.column);
    return NULL;
  }
  v = json_string(text);
  if (!v && cfg_json_denied() != denied)
    ccsim_fail_at(err, CCSIM_ERR_RUNTIME, file, NULL, 0, 0, "--set %s: out of memory", assignment);
  else if (!v) ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "--set %s: the value is not valid UTF-8", assignment);
  return v;
}

int cfg_set(json_t *root, const char *file, const char *assignment, ccsim_error *err) {
  cfg_reader rd = {file, err};
  const char *eq = strchr(assignment, '=');
  if (!eq || eq == assignment)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "--set %s: expected PATH=VALUE, e.g. workers=16",
                         assignment);
  char path[256];
  size_t plen = (size_t)(eq - assignment);
  if (plen >= sizeof path)
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "--set: path of %zu characters (at most %zu)",
                         plen, sizeof path - 1);
  memcpy(path, assignment, plen);
  path[plen] = 0;
  if (path[0] == '.' || path[plen - 1] == '.' || strstr(path, ".."))
    return ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0,
                         "--set %s: PATH has an empty part; expected names joined by '.', e.g. platform.bandwidth",
                         assignment);
  json_t *value = set_value(file, assignment, eq + 1, err);
  if (!value) return err->code; /* bad JSON, or out of memory */
  json_t *obj = root;
  char walked[256] = "";
  char *save = NULL, *part = strtok_r(path, ".", &save);
  while (part) {
    char *nextpart = strtok_r(NULL, ".", &save);
    if (!nextpart) {
      json_object_set_new(obj, part, value);
      return 0;
    }
    json_t *child = json_object_get(obj, part);
    char w[256];
    cfg_join(w, sizeof w, walked, part);
    snprintf(walked, sizeof walked, "%s", w);
    if (!child) {
      json_object_set_new(obj, part, json_object());
      child = json_object_get(obj, part);
    } else if (!json_is_object(child)) {
      json_decref(value);
      return cfg_fail(&rd, walked, "--set %s: cannot set inside %s", assignment, cfg_type_name(child));
    }
    obj = child;
    part = nextpart;
  }
  json_decref(value);
  return ccsim_fail_at(err, CCSIM_ERR_INPUT, file, NULL, 0, 0, "--set %s: empty path", assignment);
}

int cfg_set_all(json_t *root, const char *file, char *const *sets, int n, void (*after)(json_t *root),
                ccsim_error *err) {
  for (int i = 0; i < n; i++) {
    int rc = cfg_set(root, file, sets[i], err);
    if (rc) return rc;
    if (after) after(root);
  }
  return 0;
}
