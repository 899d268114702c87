/* src/error.h — errors are a code plus a located message, returned, never
 * printed deep in the code (the pattern of jansson's json_error_t).  Only
 * main() prints: err.msg, one line.
 *
 * A bad input is located as far as it is known: the file, the JSON path
 * inside it ("platform.nics[1].bandwidth"; "" is the top level), the line
 * and column (JSON syntax errors only: jansson keeps no positions for
 * values), and the text saying what was expected.  msg renders them:
 *
 *   FILE:LINE:COL: TEXT        a syntax error
 *   FILE: PATH: TEXT           a value (PATH "(top level)" for the root)
 *   FILE: TEXT                 the file as a whole (cannot open, too big)
 *   TEXT                       no file (a command-line flag, a runtime fault)
 *
 * Fill it with ccsim_fail (no location) or ccsim_fail_at; readers of JSON
 * files use src/config/input.h, which calls ccsim_fail_at.  docs/errors.md
 * describes the type and the exit codes for users. */
#ifndef CCSIM_ERROR_H
#define CCSIM_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum ccsim_status {
  CCSIM_OK = 0,
  CCSIM_ERR_RUNTIME = 1, /* a run failed (I/O, memory, a broken invariant) */
  CCSIM_ERR_INPUT = 2,   /* bad input: the experiment, a file, a flag */
};

typedef struct ccsim_error {
  int code;
  char file[512];  /* the input file, "" when the error is not about one */
  char path[256];  /* the JSON path inside it; valid when has_path */
  int has_path;    /* 1: path names a value ("" = the top level) */
  int line, column; /* 1-based line, column of a syntax error; 0 when unknown */
  char text[1536]; /* what was wrong, what was expected */
  char msg[2048];  /* the rendered one line (see above) */
} ccsim_error;

/* Set err (if not NULL) to an error with no location and return code. */
int ccsim_fail(ccsim_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Set err (if not NULL) to an error located at file (NULL: none), JSON path
 * (NULL: none; "" the top level), line and column (0: unknown), and return
 * code. */
int ccsim_fail_at(ccsim_error *err, int code, const char *file, const char *path, int line,
                  int column, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
int ccsim_vfail_at(ccsim_error *err, int code, const char *file, const char *path, int line,
                   int column, const char *fmt, va_list ap);

/* Rewrite s (a buffer of len bytes) as one printable line: control bytes
 * become \n, \t, \r or \xNN; a tail that no longer fits is cut with
 * "...".  Every rendered msg has been through it; the command line passes
 * its own messages through it too. */
void ccsim_one_line(char *s, size_t len);

/* jansson's reason for a parse error (json_error_t.text) as a user reads it:
 * the one that names jansson's own flag (a NUL in a string) is said in
 * words; any other is returned as it is. */
const char *ccsim_json_reason(const char *text);

/* The bytes of a UTF-8 byte-order mark at the start of text[0 .. len): 3,
 * or 0.  Every JSON reader skips them (RFC 8259 8.1: a parser may ignore
 * one; editors on Windows write one). */
size_t ccsim_json_bom(const char *text, size_t len);

/* Put context in front of err's text, keeping its location ("point X: ...");
 * returns err->code. */
int ccsim_error_prefix(ccsim_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
