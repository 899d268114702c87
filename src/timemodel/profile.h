/* src/timemodel/profile.h — model profiles: what a network's training step costs, per
 * parameter tensor, for the time model.
 *
 * A profile is a JSON file (workloads/models/<name>.json, written by
 * scripts/gen_profiles.py from the real architectures) listing the parameter
 * tensors in FORWARD order, each with its element count and the flops one
 * sample spends on it forward and backward.  Backward runs the list in
 * reverse: a tensor's gradient is ready once the bwd_flops of it and of every
 * tensor after it have been spent.  Flops are per sample: a batch of B costs
 * B times as much.
 *
 * Ownership: profile_load returns a new profile; profile_free accepts NULL.
 * Pointer parameters are borrowed. */
#ifndef CCSIM_PROFILE_H
#define CCSIM_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef struct profile_layer {
  char *name;       /* the parameter tensor, e.g. "layer1.0.conv1.weight" */
  size_t params;    /* elements, > 0 */
  double fwd_flops; /* forward flops of one sample, >= 0 */
  double bwd_flops; /* backward flops of one sample, >= 0 */
} profile_layer;

typedef struct model_profile {
  char *name;             /* e.g. "resnet50" */
  char *source;           /* architecture and citation */
  char *input;            /* what one sample is, e.g. "one 3x224x224 image" */
  profile_layer *layers;  /* nlayers entries, forward order */
  size_t nlayers;
  size_t total_params;    /* = sum of layers[].params (checked on load) */
  double total_fwd_flops; /* = sum of layers[].fwd_flops (checked on load) */
  double total_bwd_flops; /* = sum of layers[].bwd_flops (checked on load) */
} model_profile;

/* Read and check the profile at path.  On bad input returns NULL and sets err
 * (CCSIM_ERR_INPUT) naming the file, the JSON path and what was expected, e.g.
 * "m.json: layers[3].params: expected a positive integer, got -5". */
model_profile *profile_load(const char *path, ccsim_error *err);

void profile_free(model_profile *p);

/* Write "<models_dir>/<name>.json" into buf[len] for a built-in profile name.
 * Fails (CCSIM_ERR_INPUT) when the name is not a plain file name (letters,
 * digits, '-', '_', '.'; not starting with '.') or no such file exists; the
 * message then lists the profiles models_dir holds. */
int profile_path(const char *models_dir, const char *name, char *buf, size_t len,
                 ccsim_error *err);

/* One line per profile in models_dir, by name: tensors, parameters, forward
 * GFLOPs per sample, input; a file that does not load prints its error. */
void profile_list(FILE *out, const char *models_dir);

#endif
