/* src/platforms/generator.h — what a platform generator is: one descriptor
 * per topology, in its own file (src/platforms/NAME.c), listed once in
 * src/platforms/registry.c.  The descriptor says everything the rest of
 * ccsim needs: the generator's "platform" keys with their types, defaults
 * and bounds (src/config/exp_platform.c reads and checks them through it,
 * `ccsim list platforms` shows them), its checks across keys, its host
 * count, and the SimGrid XML it writes.  docs/extending.md walks through
 * adding one. */
#ifndef CCSIM_PLATFORMS_GENERATOR_H
#define CCSIM_PLATFORMS_GENERATOR_H

#include <stddef.h>
#include <stdio.h>

#include "experiment.h"
#include "input/input.h"

/* How the experiment reader reads a key (config/input.h's readers). */
/* The largest host count a generated platform may have, and parallel links. */
enum { MAX_HOSTS = 1 << 20, MAX_PARALLEL = 1024 };

enum pgen_type {
  PGEN_INT,       /* an integer in [min, max] (cfg_int) into an int */
  PGEN_INTS,      /* 1..maxlen integers in [min, max] (cfg_int_array) into an int[] and a count */
  PGEN_REAL,      /* a number in [min, max] (cfg_real) into a double */
  PGEN_BANDWIDTH, /* "25Gbps", bytes/s (cfg_unit) into a double */
  PGEN_TIME,      /* "5us", seconds (cfg_unit) into a double */
  PGEN_CHOICE,    /* one of choices (cfg_string, cfg_one_of) into an int, its index */
  PGEN_CUSTOM,    /* read by the generator's read_key (defaults that follow other keys, objects) */
};

/* One key of a generator's "platform" object.  Its value goes into the
 * generator's own parameters, e->platform.params, at byte offset `off`
 * (offsetof(NAME_params, field)); a `common` key's into the experiment
 * (offsetof(experiment, platform.field)). */
typedef struct pgen_key {
  const char *name;
  enum pgen_type type;
  size_t off;   /* into the generator's params struct, or with `common` into the experiment */
  int common;   /* the value is one of the experiment's platform fields (bandwidth, latency,
                   gpus_per_node), which the rest of ccsim reads */
  /* the default written into the resolved experiment when the key is
   * missing: a number for PGEN_INT and PGEN_REAL ("8", "1"), a JSON array
   * for PGEN_INTS ("[1, 1]"), the text itself for units and choices
   * ("25Gbps", "none"); NULL: the key is required.  Unused for PGEN_CUSTOM. */
  const char *def;
  double min, max;            /* PGEN_INT, PGEN_INTS (each element), PGEN_REAL */
  size_t len_off;             /* PGEN_INTS: offset of the element count (an int) */
  int maxlen;                 /* PGEN_INTS */
  const char *example;        /* PGEN_INTS: a good value, shown in messages */
  const char *const *choices; /* PGEN_CHOICE: NULL-terminated */
} pgen_key;

/* A key that the generator's read_key reads. */
#define PGEN_CUSTOM_KEY(n) {.name = n, .type = PGEN_CUSTOM}
/* The end of a generator's keys. */
#define PGEN_END {.name = NULL}

/* A generator's last keys, most of them share: every link's bandwidth and
 * latency, with these defaults. */
#define PGEN_LINK_KEYS(bw, lat)                                                                          \
  {.name = "bandwidth", .type = PGEN_BANDWIDTH, .off = offsetof(experiment, platform.bandwidth), .common = 1, \
   .def = bw},                                                                                           \
  {.name = "latency", .type = PGEN_TIME, .off = offsetof(experiment, platform.latency), .common = 1, .def = lat}

typedef struct platform_generator {
  const char *name;    /* "generate": NAME */
  const char *summary; /* one line for `ccsim list platforms` */
  const char *example; /* its required keys with example values, a JSON object ("{}": none) */
  size_t params_size;  /* sizeof its own parameters' struct (e->platform.params), 0: none */
  const pgen_key *keys; /* read in this order (the order the defaults appear in the resolved
                           experiment); ended by {NULL} */
  /* Read key k (a PGEN_CUSTOM one) of the "platform" object p; 0, or
   * cfg_fail's code.  NULL when the generator has no custom key. */
  int (*read_key)(cfg_reader *rd, experiment *e, json_t *p, const pgen_key *k);
  /* After every key is read: checks across keys, and fields that follow
   * from them; 0, or cfg_fail's code.  May be NULL. */
  int (*finish)(cfg_reader *rd, experiment *e, json_t *p);
  /* Host count of e's platform, or -1 once it would exceed max. */
  long long (*hosts)(const experiment *e, long long max);
  /* How the host count follows from the keys, for messages:
   * "racks x hosts_per_rack = 4 x 16". */
  void (*formula)(const experiment *e, char *out, size_t len);
  /* Write e's platform as SimGrid XML to f, opening with an XML comment that
   * explains it; name is the experiment's, fit for a comment
   * (pgen_comment_safe). Host names sort in topology order: worker r runs on
   * the r-th host. */
  void (*write)(FILE *f, const experiment *e, const char *name);
  /* End-to-end latency of the route between hosts 0 and 1 under CM02 (what
   * the alpha-beta formulas call alpha). */
  double (*hop_latency)(const experiment *e);
} platform_generator;

/* The registered generators, in the order `ccsim list platforms` shows
 * them (registry.c). */
const platform_generator *const *platform_generators(size_t *count);
/* The generator called name, or NULL. */
const platform_generator *platform_generator_find(const char *name);

/* ---- helpers the generators share (common.c) ---- */

/* The first lines of every generated file. */
extern const char pgen_xml_head[];
/* The experiment's name, fit for an XML comment (no "--" inside one). */
void pgen_comment_safe(char *out, size_t len, const char *name);
/* "a,b,c" from n integers, with sep between them. */
void pgen_join_ints(char *out, size_t len, const int *v, int n, const char *sep);
/* a * b, or -1 once past max (a, b >= 0, a <= max). */
long long pgen_mul_capped(long long a, long long b, long long max);
/* A <cluster> of SimGrid's own topologies (FAT_TREE, TORUS, DRAGONFLY) with
 * hosts h0..h{hosts-1}, every link at e's bandwidth and latency. */
void pgen_cluster_tag(FILE *f, const char *id, long long hosts, const experiment *e, const char *topology,
                      const char *params);

#endif
