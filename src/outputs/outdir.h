/* src/outputs/outdir.h — who owns an output directory.
 *
 * A run claims its directory before writing anything: it refuses (exit 2) a
 * directory that holds another experiment's results unless forced, and a
 * result file that is one of its own inputs; then it removes the results of
 * an earlier run (summary.json first, so a killed run never leaves a
 * directory that looks finished) and writes the marker .ccsim-experiment.
 * summary.json is written last and carries the experiment's hash: a
 * directory is finished exactly when its summary.json holds the hash of the
 * experiment wanted (docs/outputs-and-sweeps.md). */
#ifndef CCSIM_OUTDIR_H
#define CCSIM_OUTDIR_H

#include <jansson.h>

#include "error.h"
#include "experiment.h"

#define OUTDIR_MARKER ".ccsim-experiment"

/* The hash of e as run, 16 hex digits into out[17]: the resolved experiment
 * (output.dir aside: it says where, not what), ccsim's version, the content
 * of every file it reads (by role and SHA-256: e->inputs) and the options
 * that change results (e->options).  0, or an error (out of memory). */
int outdir_hash(const experiment *e, char out[17], ccsim_error *err);

/* 0 when dir/summary.json holds e's finished results or none; else 1 (an
 * input, an option or ccsim's version changed: e's results, stale) or 2
 * (another experiment: its fields differ), with why[len] saying what
 * differs (provenance_why). */
int outdir_why_changed(const char *dir, const experiment *e, char *why, size_t len);

/* Claim dir for e (see above); force replaces another experiment's results. */
int outdir_claim(const char *dir, const experiment *e, int force, ccsim_error *err);

/* The experiment_hash recorded in dir/summary.json, into out[17]: 1 when the
 * file exists and holds one, 0 when it holds none (a partial run, or no run). */
int outdir_finished_hash(const char *dir, char out[17]);

/* dir/name parsed as JSON when it is a regular file (not a link, FIFO or
 * device) of at most 64 MiB; else NULL.  A new reference. */
json_t *outdir_read_json(const char *dir, const char *name);

#endif
