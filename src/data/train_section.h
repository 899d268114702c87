/* src/data/train_section.h — the "train" section of an experiment, read
 * by the train gradient source (source_train.c) only. */
#ifndef CCSIM_DATA_TRAIN_SECTION_H
#define CCSIM_DATA_TRAIN_SECTION_H

#include <jansson.h>
#include <stddef.h>

#include "experiment.h"
#include "input/input.h"

/* Read the "train" section from the experiment's JSON root into e->train,
 * writing defaults back; *nparams = the model's parameter count (the
 * element count it implies).  0, or CCSIM_ERR_INPUT with rd->err set. */
int exp_train(cfg_reader *rd, experiment *e, json_t *root, size_t *nparams);

#endif
