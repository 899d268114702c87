/* src/platform.h — platforms generated from an experiment's "generate", and
 * what `ccsim list platforms` shows of them and of the shipped files. */
#ifndef CCSIM_PLATFORM_H
#define CCSIM_PLATFORM_H

#include <stdio.h>

#include "error.h"
#include "experiment.h"

/* One generator: its "generate" name, the JSON fields it reads besides the
 * common ones (file, generate, network_model, crosstraffic), and a line. */
typedef struct platform_kind {
  const char *name;
  const char *const *fields; /* NULL-terminated */
  const char *summary;
  const char *required; /* the fields it needs, with example values: a JSON object */
} platform_kind;

/* The generators, in the order `ccsim list platforms` shows them. */
const platform_kind *platform_kinds(size_t *count);

/* The generator called name, or NULL. */
const platform_kind *platform_kind_find(const char *name);

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

/* Describe a SimGrid XML file without loading it: the first line of its
 * first comment (desc, "" if none), its host count (<host> elements plus the
 * radicals of <cluster> and <cabinet>) and the value of its property
 * gpus_per_node (<prop id="gpus_per_node" value="8"/>, 1 if absent).  Any
 * output may be NULL.  0, or -1 if the file cannot be read. */
int platform_file_describe(const char *path, char *desc, size_t len, long long *hosts, int *gpus_per_node);

/* Print the generators, then the *.xml files of dir (sorted), to out. */
void platform_list(FILE *out, const char *dir);

#endif
