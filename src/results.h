/* src/results.h — the result files of a run (docs/design.md).
 * Each file is written to a temporary name, then renamed, so a killed run
 * never leaves a truncated result behind. */
#ifndef CCSIM_RESULTS_H
#define CCSIM_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"

/* Open DIR/NAME.tmp for writing. */
FILE *results_open(const char *dir, const char *name, ccsim_error *err);
/* Close it and rename it to DIR/NAME. */
int results_commit(FILE *f, const char *dir, const char *name, ccsim_error *err);
/* Write a JSON document (indented, key order kept) as DIR/NAME. */
int results_write_json(const char *dir, const char *name, json_t *doc, ccsim_error *err);
/* mkdir -p. */
int results_mkdir(const char *dir, ccsim_error *err);

#endif
