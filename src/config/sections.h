/* src/config/sections.h — the section readers of an experiment file, one
 * file each (exp_*.c), called in order by read_all (experiment.c).  Each
 * reads its section from the experiment's JSON root with the field readers
 * of input.h, writes defaults back into the tree, fills its part of the
 * experiment, and returns 0 or CCSIM_ERR_INPUT with rd->err set.  A new
 * section: a file here, a line below, a call in read_all, and its key in
 * read_all's list of top-level keys. */
#ifndef CCSIM_CONFIG_SECTIONS_H
#define CCSIM_CONFIG_SECTIONS_H

#include "experiment.h"
#include "input/input.h"
#include "input/resolve.h" /* exp_resolve, exp_resolve_data */

int exp_platform(cfg_reader *rd, experiment *e, json_t *root);   /* exp_platform.c */
/* gradients first: a trace or a trained model fixes the element count
 * (*implied, 0 for synthetic; what names its origin for messages) */
int exp_gradients(cfg_reader *rd, experiment *e, json_t *root, size_t *implied, char *what,
                  size_t whatlen);                                  /* exp_gradients.c */
int exp_model(cfg_reader *rd, experiment *e, json_t *root, size_t implied,
              const char *what);                                    /* exp_model.c */
int exp_device(cfg_reader *rd, experiment *e, json_t *root);     /* exp_model.c */
int exp_schedule(cfg_reader *rd, experiment *e, json_t *root);   /* exp_model.c */
int exp_compressor(cfg_reader *rd, experiment *e, json_t *root); /* exp_compressor.c */
int exp_collective(cfg_reader *rd, experiment *e, json_t *root); /* exp_collective.c */
int exp_comm(cfg_reader *rd, experiment *e, json_t *root);       /* exp_comm.c */

/* The parameters of a compressor, memory or collective (owner names it):
 * every one present in obj is checked, every missing one gets its default;
 * out[i] = params[i]'s value.  exp_compressor.c. */
int exp_params(cfg_reader *rd, json_t *obj, const char *path, const char *owner,
               const ccomp_param *params, size_t nparams, double *out);


#endif
