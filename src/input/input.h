/* src/input/input.h — the one input layer: every JSON file ccsim reads
 * (experiments, --set values, sweep files, model profiles, trace indexes,
 * device files) is read, parsed and checked through these functions, and
 * every error they report is a ccsim_error located at the file, the JSON
 * path, and (for syntax errors) the line and column (error.h).
 *
 * Files.  cfg_read_file reads a file whole: it must be a regular file (a
 * directory, FIFO or device is refused without blocking: opened with
 * O_NONBLOCK, checked with fstat) and at most `max` bytes.  cfg_load_json
 * adds parsing: duplicate keys are refused, syntax errors carry line and
 * column, nesting is bounded by jansson (2048 levels).
 *
 * Values.  A reader is a cfg_reader {file, err}; the cfg_* field readers
 * take the object, the JSON path of that object ("" for the top level,
 * "platform", "platform.nics[2]") and the key, check the value, and on
 * failure fill err with "FILE: PATH.KEY: expected ..., got VALUE".  Optional
 * fields write their default into the object when missing, so after
 * reading, the tree is the resolved input (the experiment's summary.json
 * copies it).  Integers: a JSON integer, or a real with an integral value
 * (32.0, 1e3: JSON writers such as Python's json.dumps of a float emit
 * them), range-checked as a real BEFORE any conversion, so 1e300 is
 * "expected an integer in [1, 1048576], got 1e+300", never a wrapped value.
 * Non-finite numbers cannot occur (jansson refuses NaN and Infinity, and
 * reals that overflow to inf: "real number overflow").
 *
 * Writing a section reader (say "widget" in an experiment):
 *
 *   static int read_widget(cfg_reader *rd, experiment *e, json_t *root) {
 *     int rc = 0;
 *     json_t *w = cfg_object(rd, root, "", "widget", &rc);  // {} written when missing
 *     if (!w) return rc;
 *     static const char *const known[] = {"size", "speed", NULL};
 *     if ((rc = cfg_keys(rd, w, "widget", known, NULL, NULL, NULL))) return rc;
 *     long long n;
 *     if ((rc = cfg_int(rd, w, "widget", "size", 0, 8, 1, 1 << 20, &n))) return rc;
 *     e->widget.size = (int)n;
 *     return cfg_unit(rd, w, "widget", "speed", "1Gbps", CFG_BANDWIDTH, &e->widget.speed);
 *   }
 *
 * and one line in read_all (src/config/experiment.c) plus the key in its
 * top-level `known` list.  A reader of a whole file (like a device file):
 * cfg_load_json(path, "device file", CFG_MAX_JSON, &err), then the same
 * field readers with cfg_reader rd = {path, &err}, then json_decref.
 *
 * Return values: 0, or the ccsim_status code also stored in err->code
 * (CCSIM_ERR_INPUT for bad input, CCSIM_ERR_RUNTIME for out of memory and
 * I/O failures).  Strings returned through `const char **` are borrowed
 * from the JSON tree. */
#ifndef CCSIM_CONFIG_INPUT_H
#define CCSIM_CONFIG_INPUT_H

#include <jansson.h>
#include <math.h>
#include <stddef.h>

#include "error.h"

/* The size cap of a JSON file read whole (experiments are a few KB, the
 * largest shipped profile 20 KB, a trace index of a 1000-layer model
 * ~100 KB). */
#define CFG_MAX_JSON ((size_t)16 << 20)

typedef struct cfg_reader {
  const char *file; /* named in every message */
  ccsim_error *err;
} cfg_reader;

/* ---- files ---- */

/* Open path for reading, refusing anything but a regular file (no blocking
 * on a FIFO or device); what names the file's role in messages ("experiment
 * file").  A descriptor (O_CLOEXEC, blocking mode restored) or -1 with err
 * set; *size receives the file's size when size is not NULL. */
int cfg_open_regular(const char *path, const char *what, size_t *size, ccsim_error *err);

/* Read path whole into a new NUL-terminated buffer (*data, *len without the
 * NUL): a regular file of at most max bytes.  0 or a code with err set. */
int cfg_read_file(const char *path, const char *what, size_t max, char **data, size_t *len,
                  ccsim_error *err);

/* Read and parse a JSON file (cfg_read_file, then cfg_parse_json). */
json_t *cfg_load_json(const char *path, const char *what, size_t max, ccsim_error *err);

/* How many allocations jansson was refused so far (the first call makes
 * jansson allocate through a counter): a failure to parse or build JSON
 * while it grew is out of memory (exit 1), not bad input. */
unsigned long cfg_json_denied(void);

/* Parse text[0 .. len) as one JSON document from file (for messages),
 * refusing duplicate keys; flags are added to JSON_REJECT_DUPLICATES (e.g.
 * JSON_DECODE_ANY).  A syntax error is "FILE:LINE:COL: malformed JSON: ...";
 * a parse that jansson's memory stopped is out of memory (exit 1). */
json_t *cfg_parse_json(const char *file, const char *text, size_t len, size_t flags,
                       ccsim_error *err);

/* ---- messages ---- */

/* Fail at path inside rd's file with CCSIM_ERR_INPUT. */
/* Out of memory while reading path: a runtime error (exit 1), returned. */
int cfg_oom(cfg_reader *rd, const char *path);

int cfg_fail(cfg_reader *rd, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* out = path "." key (or key alone at the top level). */
void cfg_join(char *out, size_t len, const char *path, const char *key);

/* A short rendering of a JSON value for messages ("nothing" for NULL). */
const char *cfg_show(const json_t *v, char *buf, size_t len);

/* "an object", "an integer", ... */
const char *cfg_type_name(const json_t *v);

/* ---- objects ---- */

/* Every key of obj must be in known[] (NULL-terminated) or, when extra is
 * given, accepted by extra(key, arg); extra_names lists those for messages. */
int cfg_keys(cfg_reader *rd, json_t *obj, const char *path, const char *const *known,
             int (*extra)(const char *key, const void *arg), const void *arg, const char *extra_names);

/* Every key of known[] must be present in obj; a missing one is
 * "PATH.KEY: missing (required here: LIST)". */
int cfg_require(cfg_reader *rd, json_t *obj, const char *path, const char *const *known);

/* obj[key]; when missing and def is not NULL, def is written in (def is
 * stolen either way). */
json_t *cfg_field(json_t *obj, const char *key, json_t *def);

/* parent[key] as an object; {} is written in when missing.  NULL with *rc
 * set when it is not an object. */
json_t *cfg_object(cfg_reader *rd, json_t *parent, const char *path, const char *key, int *rc);

/* 1 if key is in list (NULL-terminated). */
int cfg_in_list(const char *const *list, const char *key);

/* ---- values ---- */

/* A value that must be an integer in [min, max] (see the header comment for
 * integral reals); path names it in messages. */
int cfg_int_value(cfg_reader *rd, const json_t *v, const char *path, long long min, long long max,
                  long long *out);

/* obj[key] as an integer in [min, max]; def written in when missing, unless
 * required. */
int cfg_int(cfg_reader *rd, json_t *obj, const char *path, const char *key, int required,
            long long def, long long min, long long max, long long *out);

/* obj[key] as an array of 1..maxlen integers in [min, max] (elements named
 * KEY[i]); def (a JSON array, stolen) written in when missing, NULL makes
 * the field required; example shows a good value in messages. */
int cfg_int_array(cfg_reader *rd, json_t *obj, const char *path, const char *key, json_t *def,
                  long long min, long long max, int maxlen, const char *example, int *out, int *len);

/* obj[key] as a number in [min, max]; def written in when missing, or
 * CFG_REQUIRED. */
#define CFG_REQUIRED NAN
int cfg_real(cfg_reader *rd, json_t *obj, const char *path, const char *key, double def, double min,
             double max, double *out);

/* obj[key] as true or false; def written in when missing. */
int cfg_bool(cfg_reader *rd, json_t *obj, const char *path, const char *key, int def, int *out);

/* obj[key] as a string; def (NULL: required) written in when missing.
 * *out is borrowed from the tree. */
int cfg_string(cfg_reader *rd, json_t *obj, const char *path, const char *key, const char *def,
               const char **out);

enum cfg_unit_kind { CFG_BANDWIDTH, CFG_SIZE, CFG_TIME };

/* obj[key] as a quantity with a unit ("25Gbps", "4MB", "5us"; a bare number
 * is bytes/s, bytes, seconds) in the range SimGrid simulates faithfully:
 * a bandwidth from 1 bit/s to 1e18 bytes/s, a size from 1 byte to 1e18, a
 * time 0 or from 1 ns to 1e6 s; def (NULL: required) written in when
 * missing. */
int cfg_unit(cfg_reader *rd, json_t *obj, const char *path, const char *key, const char *def,
             enum cfg_unit_kind kind, double *out);

/* value must be one of allowed[] (NULL-terminated); *index = its position. */
int cfg_one_of(cfg_reader *rd, const char *path, const char *value, const char *const *allowed, int *index);

/* ---- overrides ---- */

/* Apply one "a.b.c=VALUE" override to root, for the input file `file`;
 * VALUE is JSON when it parses as JSON (duplicate keys refused), else a
 * string.  0, or CCSIM_ERR_INPUT with err. */
int cfg_set(json_t *root, const char *file, const char *assignment, ccsim_error *err);

/* Apply sets[0 .. n) in order; after each, after(root) runs when not NULL
 * (shorthand expansion).  A PATH given again replaces the earlier value, as
 * on any command line (scripts append overrides); a duplicate key INSIDE
 * one VALUE is refused. */
int cfg_set_all(json_t *root, const char *file, char *const *sets, int n, void (*after)(json_t *root),
                ccsim_error *err);

#endif
