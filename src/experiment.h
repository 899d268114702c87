/* src/experiment.h — an experiment file, loaded, checked and resolved.
 *
 * experiment_load reads a JSON file, applies --set overrides, checks every
 * field (unknown keys are errors), fills in defaults, and returns an
 * experiment that the rest of ccsim treats as immutable.  Every error names
 * the file, the JSON path and what was expected.  The resolved JSON (with the
 * defaults written in) is kept for summary.json.  The reader is
 * src/config/experiment.c, one file per section (src/config/sections.h). */
#ifndef CCSIM_EXPERIMENT_H
#define CCSIM_EXPERIMENT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "ccomp/compressor.h"
#include "comm/nccl.h"
#include "error.h"
#include "ccomp/memory.h"
#include "train_spec.h"

struct collective_type;
struct device_spec;
struct model_profile;

enum schedule_kind { SCHED_SINGLE, SCHED_LAYERWISE, SCHED_BUCKETS, SCHED_MERGECOMP, SCHED_FIXED };
/* The most cuts a mergecomp or fixed plan has (groups - 1). */
#define SCHED_MAX_CUTS 63
/* Their names in experiment files and reports, indexed by the enum, NULL-terminated. */
extern const char *const schedule_kind_names[];


enum grad_distribution { GRAD_NORMAL, GRAD_LAPLACE, GRAD_UNIFORM };

enum train_dataset { TRAIN_DIGITS, TRAIN_TEACHER, TRAIN_FASHION, TRAIN_TEXT, TRAIN_CORPUS };

/* The "train" section: what a gradients.source "train" run trains, on what, and how. */
typedef struct train_config {
  enum train_dataset dataset;
  char *data;           /* digits, corpus-text: the resolved path of the data file; fashion: its directory */
  size_t train_samples, test_samples; /* fashion: subsets (0 = all) */
  tteacher_spec teacher; /* teacher: the task (seed = the experiment's) */
  ttext_spec text;       /* zipf-text: the language (seed = the experiment's) */
  tcorpus_spec corpus;   /* corpus-text: vocabulary, context, samples (data: the text file) */
  tmodel_spec model;    /* inputs and classes from the dataset */
  enum tshard_kind shards;
  size_t shards_per_worker; /* noniid only */
  size_t batch;             /* per worker */
  double test_fraction;
  double lr, momentum, weight_decay;
  int eval_every;         /* evaluate after every eval_every-th update (and the last) */
  double target_accuracy; /* for time_to_accuracy_s */
} train_config;

#define EXP_MAX_INPUTS 12

typedef struct experiment {
  char *file; /* as given */
  char *dir;  /* directory of the file: relative paths resolve against it */
  char *name;
  uint64_t seed;
  int workers;
  int iterations;

  /* Where the workers run: a SimGrid XML file, or one of the generators of
   * src/platforms/ (platforms/README.md documents each and its fields). */
  struct {
    char *file;     /* SimGrid XML platform (resolved path), or NULL when generated */
    char *generate; /* "crossbar", "fat-tree", "torus", "dragonfly", "cloud", "multigpu", "pcie-server" */
    int hosts;      /* generated: host count (crossbar: given; others: from the topology) */
    int gpus_per_node; /* workers per node that share a fast intra-node fabric: multigpu's
                        * gpus_per_node, or what a platform file says; 1 elsewhere */
    double bandwidth; /* bytes/s, per link (cloud: every NIC, or the first of nics; multigpu: each NIC) */
    double latency;   /* s, per link */
    char *network_model;
    int crosstraffic;
    /* The generator's own parameters: the struct its file defines
     * (src/platforms/NAME.c, platform_generator.params_size), filled from
     * its keys; NULL for a platform file. */
    void *params;
  } platform;

  /* "comm" (docs/comm-model.md): how messages are priced.  model COMM_IDEAL
   * (the default) leaves every timing as it was; the fields that follow
   * from the platform (nodes, bandwidths) are filled once it is loaded
   * (engine_comm_resolve). */
  nccl_plan comm;
  char *comm_links; /* the link-calibration file read (comm.links), or NULL */

  struct {
    size_t elements;
    size_t sample; /* coordinate sampling: data-plane elements, 0 = all */
    /* The layers (parameter tensors, forward order) with per-sample forward
     * and backward flops: from a profile, inline, or one layer of `elements`
     * with no flops. */
    struct model_profile *layers;
    double batch; /* samples per worker per iteration (compute time) */
  } model;

  /* The device every worker runs on (NULL: compute and compression take no
   * simulated time), and the fraction of its peak dense kernels reach. */
  const struct device_spec *device;
  double efficiency;
  /* A measured device (device.name names a file in devices/ or a path):
   * its tables time what they cover, `device` (its roofline) the rest.
   * measured_model / measured_comp: the tables this experiment uses (NULL:
   * the roofline; time_note says why).  NULL measured: a built-in device. */
  struct measured_device *measured;
  const struct measured_model *measured_model;
  const struct measured_compressor *measured_comp;
  int timing;          /* enum measured_timing: which compression figure */
  char precision[8];   /* fp32, tf32 or bf16: which model table */
  char time_note[512]; /* what the roofline times instead, and why ("" if nothing) */

  struct {
    enum schedule_kind kind;
    double bucket_bytes; /* buckets: DDP's bucket cap */
    int groups;          /* mergecomp: Y, the most groups searched (y = 1 .. Y) */
    int probes;          /* mergecomp: the most probe iterations the search takes */
    int ncuts;           /* fixed: the plan's cuts (backward layer indices, ascending) */
    int cuts[SCHED_MAX_CUTS];
  } schedule;

  struct {
    /* where the workers' gradients come from: a descriptor of the registry
     * (src/data/source.h); the fields below are its sources' keys */
    const struct grad_source_type *source;
    char *trace; /* "trace": the trace directory, resolved */
    enum grad_distribution distribution;
    double scale;       /* standard deviation of the per-element value */
    double correlation; /* share of variance common to all workers, in [0, 1] */
    size_t row_width, tokens; /* "sparse": elements per row, rows drawn per worker and step (0: not sparse) */
    double zipf;              /* "sparse": the exponent s of the row frequencies */
  } gradients;

  train_config train; /* gradients.source "train" only */

  const ccomp_type *compressor;
  double comp_params[64];
  const ccomp_memory_type *memory; /* NULL: no error feedback */
  double mem_params[16];

  const struct collective_type *collective;
  double coll_params[16];

  char *out_dir;
  int timeline; /* output.timeline: write timeline.csv */
  json_t *resolved; /* the experiment as run, defaults filled in */

  /* Provenance: every file the run reads, in the order read (the experiment
   * file first), as opened, with the SHA-256 of its content taken as it
   * was read; part of the experiment's hash (outputs/provenance.h). */
  struct exp_input {
    const char *role; /* "experiment file", "platform file", "device file", ... (static) */
    char *path;
    char sha256[65];
  } inputs[EXP_MAX_INPUTS];
  int ninputs;
  /* The command-line options that change results and are not fields of the
   * experiment (SimGrid's --cfg items), as "--cfg=KEY:VALUE" strings in
   * the order given: an array, or NULL for none (experiment_set_options). */
  json_t *options;
} experiment;

/* Load and check FILE with overrides sets[nsets] ("PATH=VALUE").  Returns a new
 * experiment or NULL with err set (code CCSIM_ERR_INPUT). */
experiment *experiment_load(const char *file, char *const *sets, int nsets, ccsim_error *err);

/* The experiment of root, an object already read (it is stolen: kept as the
 * resolved experiment, or freed on failure), with relative paths resolving
 * against file's directory.  Returns a new experiment or NULL with err set. */
experiment *experiment_from_json(json_t *root, const char *file, ccsim_error *err);
void experiment_free(experiment *e);

/* Record that the run reads the file path in the given role (a static
 * string), named by the field json_path (NULL: the experiment file
 * itself), with the digest of its content now; 0, or an error at json_path
 * when e holds EXP_MAX_INPUTS already, the file is unreadable or memory
 * runs out. */
int experiment_add_input(experiment *e, const char *role, const char *path, const char *json_path,
                         ccsim_error *err);
/* The same with the digest given (sha256: 64 hex digits), for an input of
 * many files (a trace's data) digested by its reader. */
int experiment_add_input_digest(experiment *e, const char *role, const char *path, const char *sha256,
                                const char *json_path, ccsim_error *err);

/* Record the options (strings, borrowed; copied) that change the results
 * without being fields of the experiment: part of its hash and summary. */
int experiment_set_options(experiment *e, char *const *opts, int n, ccsim_error *err);


#endif
