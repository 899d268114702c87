/* src/error.c — filling and rendering a ccsim_error (error.h). */
#include "error.h"

#include <stdio.h>
#include <string.h>

/* snprintf that marks a cut: a message too long for its buffer ends in
 * "..." rather than stopping mid-word unannounced. */
static void put(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *dst, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(dst, len, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= len && len > 4) memcpy(dst + len - 4, "...", 4);
}

/* The message is one line whatever a user wrote: control bytes that came
 * from a file name, a JSON string or a --set value (a newline, an escape
 * sequence) are written as \n, \t, \r or \xNN, in place; a tail that no
 * longer fits is cut with "...". */
void ccsim_one_line(char *s, size_t len) {
  char out[4096];
  size_t o = 0;
  const size_t cap = len < sizeof out ? len : sizeof out;
  int cut = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char esc[5];
    size_t k;
    if (*p >= 0x20 && *p != 0x7f) esc[0] = (char)*p, k = 1;
    else if (*p == '\n') memcpy(esc, "\\n", 2), k = 2;
    else if (*p == '\t') memcpy(esc, "\\t", 2), k = 2;
    else if (*p == '\r') memcpy(esc, "\\r", 2), k = 2;
    else k = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
    if (o + k + 1 > cap) {
      cut = 1;
      break;
    }
    memcpy(out + o, esc, k);
    o += k;
  }
  out[o] = 0;
  if (cut && cap > 4) memcpy(out + (o + 4 > cap ? cap - 4 : o), "...", 4);
  memcpy(s, out, strlen(out) + 1);
}

/* msg from the fields: the one line main prints. */
static void render(ccsim_error *err) {
  if (err->file[0] && err->line > 0)
    put(err->msg, sizeof err->msg, "%s:%d:%d: %s", err->file, err->line, err->column, err->text);
  else if (err->file[0] && err->has_path)
    put(err->msg, sizeof err->msg, "%s: %s: %s", err->file, err->path[0] ? err->path : "(top level)",
             err->text);
  else if (err->file[0])
    put(err->msg, sizeof err->msg, "%s: %s", err->file, err->text);
  else if (err->has_path && err->path[0])
    put(err->msg, sizeof err->msg, "%s: %s", err->path, err->text);
  else
    put(err->msg, sizeof err->msg, "%s", err->text);
  ccsim_one_line(err->msg, sizeof err->msg);
}

int ccsim_vfail_at(ccsim_error *err, int code, const char *file, const char *path, int line,
                   int column, const char *fmt, va_list ap) {
  if (!err) return code;
  char text[sizeof err->text];
  int n = vsnprintf(text, sizeof text, fmt, ap); /* fmt's arguments may point into err */
  if (n >= 0 && (size_t)n >= sizeof text) memcpy(text + sizeof text - 4, "...", 4);
  err->code = code;
  put(err->file, sizeof err->file, "%s", file ? file : "");
  put(err->path, sizeof err->path, "%s", path ? path : "");
  err->has_path = path != NULL;
  err->line = line;
  err->column = column;
  memcpy(err->text, text, sizeof text);
  render(err);
  return code;
}

int ccsim_fail_at(ccsim_error *err, int code, const char *file, const char *path, int line,
                  int column, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ccsim_vfail_at(err, code, file, path, line, column, fmt, ap);
  va_end(ap);
  return code;
}

int ccsim_fail(ccsim_error *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ccsim_vfail_at(err, code, NULL, NULL, 0, 0, fmt, ap);
  va_end(ap);
  return code;
}

int ccsim_error_prefix(ccsim_error *err, const char *fmt, ...) {
  if (!err) return 0;
  char pre[512], text[sizeof err->text];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  put(text, sizeof text, "%s%s", pre, err->text);
  memcpy(err->text, text, sizeof text);
  render(err);
  return err->code;
}

const char *ccsim_json_reason(const char *text) {
  if (strstr(text, "JSON_ALLOW_NUL")) return "a string holds a NUL character (\\u0000), which ccsim does not take";
  return text;
}

size_t ccsim_json_bom(const char *text, size_t len) { return len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0; }
