/* compressors/ccomp/memory.h (installed as <ccomp/memory.h>) — error-feedback memories, composable with compressors.
 *
 * As in GRACE, error feedback is separate from the compressor.  Per worker and
 * tensor, a memory turns the gradient g into the compressor's input p, then
 * learns from what was sent (its own decoded payload) and, for methods such as
 * Marsit's global compensation, from the aggregate the collective produced.
 * All calls take a chunk [offset, offset + n) of the tensor, so collectives
 * may process a tensor in any chunking.
 *
 * Ownership as in compressor.h: _new returns a new instance, _free accepts NULL.
 */
#ifndef CCOMP_MEMORY_H
#define CCOMP_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "ccomp/compressor.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ccomp_memory_flags {
  CCOMP_MEM_OWN_DECODE = 1u << 0, /* encoded() needs decode(encode(p)) of this worker */
  CCOMP_MEM_AGGREGATE = 1u << 1,  /* aggregated() needs the collective's output */
};

typedef struct ccomp_memory_type {
  const char *name;
  const char *summary;
  unsigned flags;
  const ccomp_param *params;
  size_t nparams;
  size_t state_size;
  /* Set up state for a tensor of n elements; 0 or -1 with err.  params[nparams]
   * is never NULL and already checked against params (ccomp_memory_new fills
   * in the defaults and checks kind and range). */
  int (*init)(void *state, const double *params, size_t n, char *err, size_t errlen);
  void (*clear)(void *state);
  /* p[n] = compressor input for the chunk at offset, from gradient g[n].
   * Must NOT change the state: a collective may ask for the same chunk more
   * than once in an iteration (e.g. to compute a global norm first).  State
   * changes belong in encoded() and aggregated(). */
  void (*compensate)(void *state, const float *g, size_t n, size_t offset, float *p);
  /* After encoding p: own[n] = decode(encode(p)) (when CCOMP_MEM_OWN_DECODE). May be NULL. */
  void (*encoded)(void *state, const float *p, const float *own, size_t n, size_t offset);
  /* After the collective: agg[n] = the aggregate applied (when CCOMP_MEM_AGGREGATE). May be NULL. */
  void (*aggregated)(void *state, const float *agg, size_t n, size_t offset);
  /* A hint, no effect on any result: the next compensate() will probably
   * read the chunk at offset (n elements, inside the tensor); start loading
   * the state it reads into the cache.  May be NULL.  Collectives that
   * visit a worker's tensor chunk by chunk (a ring: one chunk per step,
   * with every other worker's step in between) would otherwise wait on
   * main memory at every chunk. */
  void (*prefetch)(const void *state, size_t n, size_t offset);
} ccomp_memory_type;

typedef struct ccomp_memory {
  const ccomp_memory_type *type;
  size_t n;
  void *state;
} ccomp_memory;

const ccomp_memory_type *const *ccomp_memory_registry(size_t *count);
const ccomp_memory_type *ccomp_memory_find(const char *name);
const char *ccomp_memory_names(void);

/* params[t->nparams] may be NULL for the defaults; a value out of its
 * parameter's kind or range is refused with err. */
ccomp_memory *ccomp_memory_new(const ccomp_memory_type *t, const double *params, size_t n,
                               char *err, size_t errlen);
void ccomp_memory_free(ccomp_memory *m);

#ifdef __cplusplus
}
#endif
#endif
