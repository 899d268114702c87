/* src/experiment.h — an experiment file, loaded, checked and resolved.
 *
 * experiment_load reads a JSON file, applies --set overrides, checks every
 * field (unknown keys are errors), fills in defaults, and returns an
 * experiment that the rest of ccsim treats as immutable.  Every error names
 * the file, the JSON path and what was expected.  The resolved JSON (with the
 * defaults written in) is kept for summary.json. */
#ifndef CCSIM_EXPERIMENT_H
#define CCSIM_EXPERIMENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "compressor.h"
#include "error.h"
#include "memory.h"
#include "train/data.h"
#include "train/model.h"

struct collective_type;

enum grad_distribution { GRAD_NORMAL, GRAD_LAPLACE, GRAD_UNIFORM };

/* Where the workers' gradients come from (gradients.source). */
enum grad_source_kind {
  GRAD_SYNTHETIC, /* generated: gradients.h */
  GRAD_TRACE,     /* replayed from a trace directory: trace.h */
  GRAD_TRAIN,     /* computed live by training a model: trainer.h */
};

enum train_dataset { TRAIN_DIGITS, TRAIN_TEACHER };

/* The "train" section: what a GRAD_TRAIN run trains, on what, and how. */
typedef struct train_config {
  enum train_dataset dataset;
  char *data;           /* digits: the resolved path of the data file */
  tteacher_spec teacher; /* teacher: the task (seed = the experiment's) */
  tmodel_spec model;    /* inputs and classes from the dataset */
  enum tshard_kind shards;
  size_t shards_per_worker; /* noniid only */
  size_t batch;             /* per worker */
  double test_fraction;
  double lr, momentum, weight_decay;
  int eval_every;         /* evaluate after every eval_every-th update (and the last) */
  double target_accuracy; /* for time_to_accuracy_s */
} train_config;

typedef struct experiment {
  char *file; /* as given */
  char *dir;  /* directory of the file: relative paths resolve against it */
  char *name;
  uint64_t seed;
  int workers;
  int iterations;

  struct {
    char *file;     /* SimGrid XML platform (resolved path), or NULL when generated */
    char *generate; /* "crossbar" */
    int hosts;      /* generated: host count */
    double bandwidth; /* bytes/s, per link */
    double latency;   /* s, per link */
    char *network_model;
    int crosstraffic;
  } platform;

  struct {
    size_t elements;
  } model;

  struct {
    enum grad_source_kind source;
    char *trace; /* GRAD_TRACE: the trace directory, resolved */
    enum grad_distribution distribution;
    double scale;       /* standard deviation of the per-element value */
    double correlation; /* share of variance common to all workers, in [0, 1] */
  } gradients;

  train_config train; /* GRAD_TRAIN only */

  const ccomp_type *compressor;
  double comp_params[64];
  const ccomp_memory_type *memory; /* NULL: no error feedback */
  double mem_params[16];

  const struct collective_type *collective;
  double coll_params[16];

  char *out_dir;
  json_t *resolved; /* the experiment as run, defaults filled in */
} experiment;

/* Load and check FILE with overrides sets[nsets] ("PATH=VALUE").  Returns a new
 * experiment or NULL with err set (code CCSIM_ERR_INPUT). */
experiment *experiment_load(const char *file, char *const *sets, int nsets, ccsim_error *err);
void experiment_free(experiment *e);

/* Apply one "a.b.c=VALUE" override to root; VALUE is JSON if it parses as
 * JSON, else a string.  0, or CCSIM_ERR_INPUT with err. */
int experiment_set(json_t *root, const char *file, const char *assignment, ccsim_error *err);

#endif
