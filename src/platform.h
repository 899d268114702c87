/* src/platform.h — platforms generated from an experiment's "generate", and
 * what `ccsim list platforms` shows of them and of the shipped files.  Each
 * generator is one file under src/platforms/ with its descriptor
 * (platforms/generator.h), listed in src/platforms/registry.c; the calls
 * below pass through the descriptor of e->platform.generate. */
#ifndef CCSIM_PLATFORM_H
#define CCSIM_PLATFORM_H

#include <stdio.h>

#include "error.h"
#include "experiment.h"

/* Host count of e's generated platform, from its topology parameters (the
 * crossbar's is platform.hosts).  Returns -1 when it would exceed max. */
long long platform_host_count(const experiment *e, long long max);

/* How the host count follows from the parameters, for messages:
 * "racks x hosts_per_rack = 4 x 16". */
void platform_host_formula(const experiment *e, char *out, size_t len);

/* Print the SimGrid XML of e's generated platform to f. */
void platform_print(FILE *f, const experiment *e);
/* Write it as DIR/NAME, atomically (results.h). */
int platform_write(const experiment *e, const char *dir, const char *name, ccsim_error *err);

/* End-to-end latency of one hop between hosts 0 and 1 of a generated
 * platform under CM02 (what the alpha-beta formulas call alpha). */
double platform_hop_latency(const experiment *e);

/* Describe a SimGrid XML file without loading it (src/platforms/files.c):
 * the first line of its first comment (desc, "" if none), its host count
 * (<host> elements plus the radicals of <cluster> and <cabinet>) and the
 * value of its property
 * gpus_per_node (<prop id="gpus_per_node" value="8"/>, 1 if absent).  Any
 * output may be NULL.  0, or -1 if the file cannot be read. */
int platform_file_describe(const char *path, char *desc, size_t len, long long *hosts, int *gpus_per_node);

/* Print the generators, then the *.xml files of dir (sorted), to out; -1
 * when the list of files finds no memory, else 0. */
int platform_list(FILE *out, const char *dir);

#endif
