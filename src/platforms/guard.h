/* src/platforms/guard.h — every check a platform passes before the run's
 * SimGrid sees it (docs/platform-checks.md). */
#ifndef CCSIM_PLATFORM_GUARD_H
#define CCSIM_PLATFORM_GUARD_H

#include "error.h"
#include "experiment.h"

/* Check e's platform: a platform file is read and checked by ccsim
 * (platforms/check.h), then SimGrid loads it in a child with the run's
 * model and cfg[ncfg] flags (engine_probe).  path: the file to load (a
 * generated platform already written), or NULL to probe e's generated
 * platform from memory.  0, or CCSIM_ERR_INPUT with one line in err. */
int platform_guard(const experiment *e, char *const *cfg, int ncfg, const char *path, ccsim_error *err);

#endif
