/* src/data/source.h — gradient sources: where the workers' gradients come
 * from (an experiment's "gradients": {"source": NAME, ...}).
 *
 * A source is a const descriptor (the pattern of compressors and platform
 * generators): its name, its keys in the "gradients" object, a reader for
 * them, and the calls a run makes (open, fill, close; the optional hooks
 * around each worker and iteration).  The registry (source_registry.c)
 * lists them in the order `ccsim list sources` prints; the experiment
 * reader (config/exp_gradients.c) and the run's feed (feed.c) know sources
 * only through it.  A new source is one file ending with its descriptor,
 * one line in the registry and one in src/meson.build (docs/extending.md).
 *
 * Threads: fill (and begin) run on the data executor's lanes, several
 * workers at once, unless the source sets GSRC_SERIAL; everything else runs
 * on the run's own thread. */
#ifndef CCSIM_SOURCE_H
#define CCSIM_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "data/trace.h"
#include "error.h"
#include "experiment.h"
#include "input/input.h"

enum {
  /* Generated from counters: any coordinate on demand, so coordinate
   * sampling (model.sample) works, through gradients.h. */
  GSRC_GENERATED = 1,
  /* fill must not run for two workers at once (one reader, say). */
  GSRC_SERIAL = 2,
  /* Trains a model: each worker's aggregate goes to its own buffer (the
   * trainer reads it as soon as the worker is done), and model.batch
   * follows the training batch (train.batch). */
  GSRC_TRAINS = 4,
};

typedef struct grad_source_type {
  const char *name;    /* what gradients.source selects */
  const char *summary; /* one line for `ccsim list sources` */
  /* Its keys of the "gradients" object besides "source", NULL-terminated;
   * a key of another source is refused naming the sources that take it. */
  const char *const *keys;
  /* A top-level section of the experiment that only this source reads
   * ("train"), or NULL. */
  const char *section;
  unsigned flags; /* GSRC_* */
  /* Reads its keys of g (the "gradients" object; root the experiment) into
   * e, writing defaults back.  *implied: the element count the source fixes
   * (0: any), described in what for messages.  0 or CCSIM_ERR_INPUT via
   * cfg_fail. */
  int (*read)(cfg_reader *rd, experiment *e, json_t *root, json_t *g, size_t *implied, char *what,
              size_t whatlen);

  /* A run's instance, checked before anything runs; NULL with err set. */
  void *(*open)(const experiment *e, ccsim_error *err);
  void (*close)(void *s); /* accepts NULL */
  /* out[0 .. hi-lo) = elements [lo, hi) of worker w's gradient at
   * iteration it.  A failure (files changed underneath) returns -1 with
   * err set: the iteration finishes on zeros, and the run stops at the
   * next (feed.h). */
  int (*fill)(void *s, uint32_t w, uint32_t it, size_t lo, size_t hi, float *out, ccsim_error *err);

  /* Optional (NULL: nothing to do).  begin: worker w starts iteration it;
   * returns the simulated seconds its gradient took (0 without a device
   * model).  end: w received the aggregate agg.  iteration_begin and
   * iteration_end bracket an iteration's workers; iteration_begin returns
   * 0, or an error code with err set when the instance has failed (now or
   * in an earlier iteration: its first failure), which stops the run at
   * iteration it, before any of its workers start.  finish: after the last
   * iteration, 0 or an error code with err.  layers: the tensors a recorded
   * trace names (a malloc'd array whose names the instance keeps; NULL:
   * one layer "gradient"). */
  double (*begin)(void *s, uint32_t w, uint32_t it);
  void (*end)(void *s, uint32_t w, uint32_t it, const float *agg);
  int (*iteration_begin)(void *s, uint32_t it, int threads, ccsim_error *err);
  void (*iteration_end)(void *s, uint32_t it);
  int (*finish)(void *s, ccsim_error *err);
  trace_layer *(*layers)(void *s, size_t *count);
} grad_source_type;

/* Every registered source, NULL-terminated, in listing order. */
extern const grad_source_type *const grad_sources[];
/* The source called name, or NULL. */
const grad_source_type *grad_source_find(const char *name);

#endif
