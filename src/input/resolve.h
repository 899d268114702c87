/* src/input/resolve.h — paths an experiment names: relative to the
 * experiment file, or for data files in the shipped data.  Used by every
 * reader of a section that names a file (the experiment reader in config/,
 * the gradient sources in data/). */
#ifndef CCSIM_INPUT_RESOLVE_H
#define CCSIM_INPUT_RESOLVE_H

#include "experiment.h"
#include "input/input.h"

/* A path relative to the experiment file (absolute paths as they are); a
 * new string, or NULL when out of memory. */
char *exp_resolve(const experiment *e, const char *f);

/* A data file path f at JSON path `path`: relative to the experiment file
 * first, then to ccsim's source tree (where workloads/data lives); *out a
 * new string.  0, or the reader's error (cannot read it, out of memory). */
int exp_resolve_data(cfg_reader *rd, experiment *e, const char *path, const char *f, char **out);

#endif
