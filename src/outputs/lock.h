/* src/outputs/lock.h — one process per directory: a lock file held with
 * flock(2) for the life of the process, the holder's pid inside, so a second
 * sweep into the same directory is refused naming the first.  The kernel
 * drops the lock when the holder dies, however it dies: no stale locks. */
#ifndef CCSIM_LOCK_H
#define CCSIM_LOCK_H

#include "error.h"

/* Lock dir/name (created if needed, never through a symlink) and write our
 * pid into it.  Returns the open descriptor (keep it open: closing it
 * unlocks), or -1 with err: CCSIM_ERR_INPUT "DIR: ... held by pid N" when
 * another process holds it. */
int lock_dir(const char *dir, const char *name, const char *what, ccsim_error *err);

#endif
