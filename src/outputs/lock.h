/* src/outputs/lock.h — one writer per output directory, runs and sweeps
 * alike: DIR/.ccsim.lock, held with a POSIX record lock (fcntl F_SETLK) for
 * the life of the writer.  The kernel drops it when the holder dies,
 * however it dies (no stale locks), and a forked child (the timing
 * executor's replays) does not inherit it.  A second writer is refused
 * naming the holder's pid, which the kernel reports (F_GETLK).
 *
 * The file also says which kind of writer owns the directory ("run" or
 * "sweep", after the pid): a sweep never writes into a run's directory nor
 * a run into a sweep's.  A directory of an earlier ccsim counts as a
 * sweep's when it holds sweep.csv or .ccsim-sweep.lock, as a run's when it
 * holds .ccsim-experiment or summary.json. */
#ifndef CCSIM_LOCK_H
#define CCSIM_LOCK_H

#include "error.h"

#define LOCK_FILE ".ccsim.lock"

/* Lock dir (which exists) for a writer of kind "run" or "sweep", refusing a
 * directory of the other kind, and write our pid and kind into the lock
 * file (created if needed, never through a symlink).  Returns the open
 * descriptor (keep it open: closing it unlocks), or -1 with err:
 * CCSIM_ERR_INPUT "DIR: another run is writing into this directory (pid N
 * holds DIR/.ccsim.lock)" when another process holds it, or "DIR: holds a
 * sweep's results ..." when the kinds differ. */
int lock_dir(const char *dir, const char *kind, ccsim_error *err);

/* The kind check of lock_dir alone, without locking (a Slurm array, whose
 * tasks write into the directory at once): 0, or CCSIM_ERR_INPUT with err. */
int lock_check_kind(const char *dir, const char *kind, ccsim_error *err);

#endif
