/* src/platform.h — platforms generated from an experiment's "generate". */
#ifndef CCSIM_PLATFORM_H
#define CCSIM_PLATFORM_H

#include "error.h"
#include "experiment.h"

/* Write the SimGrid XML of e's generated platform to path. */
int platform_write(const experiment *e, const char *path, ccsim_error *err);

/* End-to-end latency of one hop between two workers of a generated platform
 * under CM02 (what the alpha-beta formulas call alpha). */
double platform_hop_latency(const experiment *e);

#endif
