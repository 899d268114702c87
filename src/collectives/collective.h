/* src/collectives/collective.h — collectives over the engine, with real payloads.
 *
 * A collective runs inside one worker's actor (every worker calls it), moves
 * real compressed payloads through memory and their sizes through the
 * engine (engine/comm.h), and records how far each partial aggregate has
 * drifted from the exact one.  It never includes SimGrid.
 *
 * The exact partial aggregate travels beside each payload as a float64
 * "shadow" that the network is not charged for: it is how hops.csv can give,
 * for every hop, the error against the exact sum over the same workers. */
#ifndef CCSIM_COLLECTIVE_H
#define CCSIM_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "compressor.h"
#include "memory.h"

enum coll_requires {
  COLL_NEEDS_SUMMABLE = 1u << 0,
};

/* Sums from which a relative L2 error and a cosine follow:
 * err2 = ||y - r||^2, ref2 = ||r||^2, out2 = ||y||^2, dot = <y, r>. */
typedef struct err_acc {
  double err2, ref2, out2, dot;
  double count;     /* how many chunks contributed */
  uint32_t workers; /* how many workers the measured partial aggregates sum */
} err_acc;

void err_acc_add(err_acc *a, const float *y, const double *ref, size_t n, double ref_scale);
double err_acc_rel(const err_acc *a);
double err_acc_cos(const err_acc *a);

/* Shared by all workers of one iteration. */
typedef struct coll_metrics {
  err_acc *hops; /* [nhops]: hop h (1-based) at index h-1 */
  size_t nhops;
  err_acc final; /* the aggregate applied vs the exact mean */
  double bytes;  /* bytes sent by all workers in this iteration */
} coll_metrics;

/* Where a worker's data comes from and goes to. */
typedef struct coll_io {
  void *arg;
  /* p[0 .. hi-lo) = this worker's compressor input on [lo, hi): its gradient
   * after error-feedback compensation. */
  void (*input)(void *arg, size_t lo, size_t hi, float *p);
  /* Told what this worker encoded on [lo, hi) (for error-feedback memories);
   * own = decode(encode(p)).  May be NULL. */
  void (*encoded)(void *arg, size_t lo, size_t hi, const float *p, const float *own);
  int wants_own; /* call encoded() with own computed */
} coll_io;

typedef struct coll_ctx {
  int rank, nworkers;
  uint32_t iteration;
  ccomp *comp; /* this worker's instance */
  size_t n;    /* elements */
  coll_io io;
  float *out;  /* the aggregate applied, [n] */
  int out_shared; /* every worker's out is the same buffer: write only once */
  coll_metrics *metrics;
  uint64_t key;        /* private randomness of this worker and iteration */
  uint64_t shared_key; /* shared by all workers for this iteration */
  float global_max;    /* CCOMP_GLOBAL_MAX compressors: max over workers, once known */
} coll_ctx;

typedef struct collective_type {
  const char *name;
  const char *description;
  unsigned requires;
  /* Hops recorded in hops.csv for n workers (0: none). */
  size_t (*hops)(int nworkers);
  /* Bytes the same collective sends, over all workers, for n fp32 elements
   * uncompressed: the numerator of compression_ratio. */
  double (*dense_bytes)(size_t n, int nworkers);
  /* NULL, or a check that the collective can take nworkers; -1 with err. */
  int (*check)(int nworkers, char *err, size_t errlen);
  void (*run)(coll_ctx *ctx);
} collective_type;

const collective_type *const *collective_registry(size_t *count);
const collective_type *collective_find(const char *name);
const char *collective_names(void);

/* Chunk c of n elements split into k nearly equal parts: [*lo, *hi). */
static inline void coll_chunk(size_t n, int k, int c, size_t *lo, size_t *hi) {
  *lo = (size_t)((unsigned __int128)n * (unsigned)c / (unsigned)k);
  *hi = (size_t)((unsigned __int128)n * (unsigned)(c + 1) / (unsigned)k);
}

/* A payload in flight with its exact shadow. */
typedef struct coll_msg {
  int chunk;
  uint32_t workers; /* how many workers the payload sums */
  size_t n;         /* elements */
  size_t nbytes;
  uint8_t *bytes;
  double *exact; /* [n] exact sum over the same workers; NULL once not needed */
} coll_msg;

void coll_msg_free(coll_msg *m);

/* Start sending msg to rank dst, charged `bytes`, counted in the metrics. */
struct comm_req *coll_isend(coll_ctx *ctx, int dst, void *msg, double bytes);

/* Encode this worker's input on chunk [lo, hi) into a new message carrying
 * its exact shadow; feeds the error-feedback hook. */
coll_msg *coll_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi);

/* The ccomp_call for an operation of this worker on elements from `offset`. */
ccomp_call coll_call(const coll_ctx *ctx, size_t offset, uint64_t salt);

#endif
