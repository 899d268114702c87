/* src/outputs/results.h — the result files of a run (docs/design.md), written by
 * the atomic idiom: a temporary created exclusively (never through a
 * symlink) in the same directory, written, fsync'd, renamed, and the
 * directory fsync'd; a killed run never leaves a truncated result behind and
 * a planted link never redirects a write.  docs/outputs-and-sweeps.md. */
#ifndef CCSIM_RESULTS_H
#define CCSIM_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "error.h"

/* Open a fresh temporary in DIR for the file DIR/NAME; NULL and err set
 * when it cannot be made (or the path would pass PATH_MAX). */
FILE *results_open(const char *dir, const char *name, ccsim_error *err);
/* Flush, fsync and close f (from results_open), rename it to DIR/NAME and
 * fsync DIR.  On failure the temporary is removed, and DIR/NAME too when
 * only the fsync of DIR failed. */
int results_commit(FILE *f, const char *dir, const char *name, ccsim_error *err);
/* Close f (from results_open) and remove its temporary; NULL is ignored. */
void results_abandon(FILE *f);
/* Remove the temporary of every file still open for writing, without
 * closing anything: for a signal handler or a fatal error just before
 * _exit.  Async-signal-safe (unlink only). */
void results_abandon_all(void);
/* Write a JSON document (indented, key order kept) as DIR/NAME. */
int results_write_json(const char *dir, const char *name, json_t *doc, ccsim_error *err);
/* mkdir -p; every component must end up a directory. */
int results_mkdir(const char *dir, ccsim_error *err);
/* fsync a directory, so renames in it are durable. */
int results_sync_dir(const char *dir, ccsim_error *err);
/* Remove the temporaries (.tmp-<16 hex>) a killed writer left in dir: the
 * caller owns dir (a run's claim, a sweep's lock), so none is in use. */
int results_remove_stale(const char *dir, ccsim_error *err);
/* "DIR/NAME" on the heap (the caller frees it); NULL and err set when it
 * would pass PATH_MAX: paths are checked, never truncated. */
char *results_path(const char *dir, const char *name, ccsim_error *err);
/* 1 if dir/name exists (as anything, a dangling symlink included); 0 when
 * it does not, or its path cannot be made. */
int results_present(const char *dir, const char *name);
/* text made one safe path component (a new string, NULL without memory):
 * bytes other than [A-Za-z0-9-_.=+,@] and a leading '.' become %XX, so "..",
 * "/" and "a/b" vs "a-b" stay distinct and inside the parent; past 200 bytes
 * a prefix and a hash of the whole text ("~" 16 hex digits). */
char *results_component(const char *text);

#endif
