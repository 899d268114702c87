/* src/outputs/provenance.h — what a run's results depend on beyond the
 * experiment's fields: the content of every file it reads (experiment.h's
 * inputs) and the options that change results.  Their SHA-256 digests go
 * into the experiment's hash (outdir.h) and, with the paths and options,
 * into summary.json's "inputs" and "options"; a resumed sweep or
 * --skip-finished compares them with what a directory recorded and says
 * which one changed (docs/outputs.md). */
#ifndef CCSIM_PROVENANCE_H
#define CCSIM_PROVENANCE_H

#include <jansson.h>

#include "error.h"
#include "experiment.h"

/* The SHA-256 of the regular file path as 64 hex digits into hex[65]; a
 * FIFO, a device or a directory is refused (CCSIM_ERR_INPUT).  Digests are
 * kept per process by the file's identity (device, inode, size, change
 * time), so a sweep of many points reads a shared input once. */
int provenance_file_sha256(const char *path, char hex[65], ccsim_error *err);

/* summary.json's record of e: {"inputs": [{"role", "path", "sha256"}, ...],
 * "options": [...]}.  The digests are those taken as each file was read
 * (experiment.h).  A new reference, or NULL with err (out of memory). */
json_t *provenance_new(const experiment *e, ccsim_error *err);

/* Why the results recorded in summary (a summary.json read back) are not
 * those of e: one phrase into why[len] ("device file devices/d.json
 * changed", "option --cfg=network/TCP-gamma:1000 added", "experiment field
 * workers changed", ...).  prov is provenance_new(e).  Returns 2 when
 * the experiment's fields differ (another experiment), 1 when only what it
 * reads or how it is run differs (an input's content, an option, ccsim's
 * version: the same experiment, to run again). */
int provenance_why(const experiment *e, const json_t *prov, const json_t *summary, char *why, size_t len);

#endif
