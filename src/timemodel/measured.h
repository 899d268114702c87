/* src/timemodel/measured.h — measured devices: what a real device took for a
 * model's training iteration and for each compression operation, read from a
 * device file (devices/<name>.json, written by scripts/measure_device.py; the
 * format is docs/devices.md).
 *
 * A measured device names a built-in device as its roofline: whatever the
 * tables do not cover (a model or precision not measured, a compressor not
 * measured or measured with other parameters) is timed by that roofline.
 *
 * Ownership: measured_load returns a new device; measured_free accepts NULL.
 * Everything the device points to belongs to it.  Pointer parameters are
 * borrowed. */
#ifndef CCSIM_MEASURED_H
#define CCSIM_MEASURED_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "ccomp/compressor.h"
#include "error.h"
#include "timemodel/device.h"

struct model_profile;

/* How a compression operation was timed (the two figures the file keeps). */
enum measured_timing {
  MEASURED_ISOLATED,     /* one call between two synchronizes: what a bucket hook pays */
  MEASURED_BACK_TO_BACK, /* calls queued back to back, per call: throughput */
};

/* Seconds of one operation at each measured size (sizes strictly increasing). */
typedef struct measured_curve {
  size_t npoints;
  double *sizes;   /* elements */
  double *seconds; /* [npoints] */
} measured_curve;

typedef struct measured_compressor {
  char *name;                /* a ccsim compressor */
  const ccomp_type *type;
  size_t nparams;            /* the ccsim parameters the implementation follows */
  char **param_names;
  double *param_values;
  int has[3];                /* per enum ccomp_op: measured */
  measured_curve op[3][2];   /* [enum ccomp_op][enum measured_timing] */
} measured_compressor;

/* An iteration's forward and backward seconds at one measured batch. */
typedef struct measured_batch {
  double batch, forward_s, backward_s;
} measured_batch;

typedef struct measured_model {
  char *model;      /* a model profile's name */
  char *precision;  /* fp32, tf32 or bf16 */
  double batch;     /* samples per iteration of the reference measurement (the ready times) */
  double forward_s, backward_s;
  size_t nbatches;  /* every measured batch, the reference among them, increasing */
  measured_batch *batches;
  size_t ntensors;  /* forward order, as the profile */
  char **names;
  double *ready_s;  /* seconds from the start of backward to each gradient */
} measured_model;

typedef struct measured_device {
  char *name, *summary, *file, *measured_on;
  const device_spec *roofline;
  double launch_isolated_s, launch_back_to_back_s;
  size_t nmodels;
  measured_model *models;
  size_t ncompressors;
  measured_compressor *compressors;
} measured_device;

/* Read and check the device file at path.  Bad input: NULL with err
 * (CCSIM_ERR_INPUT) naming the file, the JSON path and what was expected. */
measured_device *measured_load(const char *path, ccsim_error *err);
void measured_free(measured_device *d);

/* Where shipped device files live (datapath.h: $CCSIM_DEVICES, the
 * installation, $CCSIM_DATA, the source tree). */
const char *measured_devices_dir(void);

/* "<dir>/<name>.json" into buf[len] if that file exists; else CCSIM_ERR_INPUT
 * with a message listing the devices dir holds. */
int measured_path(const char *dir, const char *name, char *buf, size_t len, ccsim_error *err);

/* The table of model at precision, or NULL. */
const measured_model *measured_find_model(const measured_device *d, const char *model,
                                          const char *precision);

/* The table of compressor name, or NULL. */
const measured_compressor *measured_find_compressor(const measured_device *d, const char *name);

/* 0 when the table of mm times profile p: the same tensors in the same
 * order; else CCSIM_ERR_INPUT naming the device file and the first difference. */
int measured_check_model(const measured_device *d, const measured_model *mm,
                         const struct model_profile *p, ccsim_error *err);

/* Compute seconds of one iteration at `batch` from the table mm: *forward,
 * and bwd[j] for the j-th tensor in BACKWARD order (j = 0: the last tensor of
 * the profile) = how much later than the one before its gradient is ready
 * (0 when it is ready no later), the rest of backward charged to the last
 * one, so that the bwd[] add up to backward_s.  The totals at `batch` come
 * from measured_totals; the per-tensor shape from the reference batch, every
 * bwd[j] scaled by the same factor. */
void measured_compute(const measured_model *mm, double batch, double *forward, double *bwd);

/* Forward and backward seconds of one iteration at batch: the measured
 * figures at a measured batch; between two, linear in batch; outside them,
 * the line through the nearest measured batch whose intercept (time at batch
 * 0) is that of the nearest segment, clamped to [0, the nearest figure] — a
 * launch-bound device's time barely moves with batch, a compute-bound one's
 * grows in proportion; one measured batch: in proportion.  rule[len] gets
 * which of these applied, for summary.json. */
void measured_totals(const measured_model *mm, double batch, double *forward, double *backward, char *rule,
                     size_t len);

/* 0 when the experiment's parameters params[] equal the table's for every
 * parameter the table names; else CCSIM_ERR_INPUT with err's text saying
 * which differs (the caller decides what a mismatch means: the experiment
 * reader falls back to the roofline and notes why). */
int measured_params_check(const measured_compressor *mc, const double *params, ccsim_error *err);

/* Seconds of one operation on n elements from curve c: interpolated linearly
 * in log n between measured sizes; below the smallest size, the smallest's
 * time (the fixed cost); above the largest, proportional to n from the largest. */
double measured_curve_seconds(const measured_curve *c, double n);

/* What summary.json says of a run on measured device d: the file, the
 * roofline, the precision, where compute and compression times came from
 * (the tables mm / mc, NULL: the roofline), the measured batch and the
 * factor compute was scaled by to reach `batch`, which compression figure,
 * and note (what the roofline times instead, or ""). */
json_t *measured_report(const measured_device *d, const measured_model *mm, const measured_compressor *mc,
                        const char *precision, int timing, double batch, const char *note);

/* One line per device file in dir: name, roofline, what is measured. */
void measured_list(FILE *out, const char *dir);

#endif
