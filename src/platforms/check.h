/* src/platforms/check.h — a SimGrid platform file checked by ccsim itself,
 * before SimGrid sees it (docs/platform-checks.md).
 *
 * The XML is parsed with expat: it must be well formed, its root must be
 * <platform>, and every number SimGrid would turn into a resource must be
 * one: host and cluster speeds and link bandwidths > 0, latencies >= 0, all
 * finite; and it declares at most PLATFORM_MAX_HOSTS hosts.  What only SimGrid knows (its DTD, routing, models, --cfg) is
 * checked by engine_probe (engine.h), in a child process. */
#ifndef CCSIM_PLATFORM_CHECK_H
#define CCSIM_PLATFORM_CHECK_H

#include <stddef.h>

#include "error.h"

/* The most hosts a platform file may declare (clusters' radicals
 * expanded): the generators' limit too. */
#define PLATFORM_MAX_HOSTS (1u << 20)

/* The largest platform file read (bytes). */
#define PLATFORM_CHECK_MAX_BYTES (256u << 20)

/* Check the platform text buf[len]; file names it in messages.  0, or
 * CCSIM_ERR_INPUT with "FILE:LINE: <element id=...>: what" in err.  Safe on
 * any bytes (the fuzz harness calls it). */
int platform_check_buffer(const char *buf, size_t len, const char *file, ccsim_error *err);

/* Read path whole (cfg_read_file: a FIFO, a device or a directory is refused
 * without blocking, and a file over PLATFORM_CHECK_MAX_BYTES) and check it. */
int platform_check_file(const char *path, ccsim_error *err);

#endif
