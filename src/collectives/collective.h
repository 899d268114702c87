/* src/collectives/collective.h — collectives over comm/comm.h, with real payloads.
 *
 * A collective runs inside one worker's actor (every worker calls it), moves
 * real compressed payloads through memory and their sizes through the
 * communication API (comm/comm.h: the data executor runs it, the timing
 * executor prices what it recorded), and records how far each partial aggregate has
 * drifted from the exact one.  It never includes SimGrid.
 *
 * The exact partial aggregate travels beside each payload as a float64
 * "shadow" that the network is not charged for: it is how hops.csv can give,
 * for every hop, the error against the exact sum over the same workers. */
#ifndef CCSIM_COLLECTIVE_H
#define CCSIM_COLLECTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "ccomp/compressor.h"
#include "ccomp/memory.h"
#include "error.h"

enum coll_requires {
  COLL_NEEDS_SUMMABLE = 1u << 0,  /* combines payloads without decoding */
  COLL_NEEDS_EXACT_SUM = 1u << 1, /* uses coll_ctx.exact_sum */
  /* With a shared output (out_shared), one rank writes it, and no message
   * orders that write before the other workers' ends: a memory that reads
   * the aggregate (CCOMP_MEM_AGGREGATE) gets private outputs instead. */
  COLL_OUT_FROM_ONE = 1u << 2,
  /* Its workers change shared state in an order that depends on how the
   * threads of the data executor went (an exact sum added to in arrival
   * order): the run keeps them on one lane (docs/engine.md). */
  COLL_ONE_LANE = 1u << 3,
};

/* Sums from which a relative L2 error and a cosine follow:
 * err2 = ||y - r||^2, ref2 = ||r||^2, out2 = ||y||^2, dot = <y, r>. */
typedef struct err_acc {
  double err2, ref2, out2, dot;
  double count;     /* how many chunks contributed */
  uint32_t workers; /* how many workers the measured partial aggregates sum */
} err_acc;

void err_acc_add(err_acc *a, const float *y, const double *ref, size_t n, double ref_scale);
/* a += part, field by field (the count too): part is an accumulator that
 * started at zero, so a ends as if err_acc_add had added to it directly. */
void err_acc_merge(err_acc *a, const err_acc *part);
/* ||y - r|| / ||r||; 0 when both are zero, NaN (undefined) when r is zero
 * and y is not. */
double err_acc_rel(const err_acc *a);
/* <y, r> / (||y|| ||r||); NaN (undefined: a zero vector has no
 * direction) when either is zero. */
double err_acc_cos(const err_acc *a);
/* <y, r> / <r, r>: 1 when y is r plus noise uncorrelated with it (and when
 * both are zero); NaN when r is zero and y is not. */
double err_acc_gain(const err_acc *a);

/* Shared by all workers of one iteration.
 *
 * Two references for every partial aggregate:
 *   exact    the float64 sum of the workers' inputs: what an uncompressed
 *            collective would produce (compression + cascading error);
 *   ideal    the float64 sum of each worker's own payload decoded,
 *            decode(encode(p_w)): what the same compressor gives when every
 *            payload is decoded once and summed exactly, as a one-hop
 *            all-gather does.  The error against it is the CASCADING error
 *            alone: what combining or re-encoding hop by hop adds.  Its
 *            "gain" <y, r> / <r, r> is 1 when the combination is unbiased.
 * The ideal is measured for compressors without carried state (an extra
 * encode would disturb the state of the others). */
typedef struct coll_metrics {
  err_acc *hops;    /* [nhops]: hop h (1-based) at index h-1, against exact */
  err_acc *cascade; /* [nhops]: the same payloads against ideal (count 0: not measured) */
  size_t nhops;
  err_acc final;         /* the aggregate applied vs the exact mean */
  err_acc final_cascade; /* vs the ideal mean */
  double bytes;          /* bytes sent by all workers in this iteration */
  /* The exact sums the workers add to while the iteration runs (NULL: one
   * actor's own metrics, added to directly); see coll_metrics_add. */
  struct coll_xmetrics *x;
} coll_metrics;

/* Shared metrics are added to from several threads at once, in an order
 * that depends on how the threads went: so their sums are exact (xsum.h),
 * each thread adding to its own (comm_lane), and they come out the same
 * bits whatever the order or the thread count.  coll_metrics_begin gives m
 * exact sums for the iteration (x from coll_xmetrics_new(at least
 * m->nhops, comm_threads()), zeroed); coll_metrics_settle rounds them into
 * m's doubles and takes them away. */
typedef struct coll_xmetrics coll_xmetrics;
coll_xmetrics *coll_xmetrics_new(size_t nhops, int lanes);
void coll_xmetrics_free(coll_xmetrics *x);
/* The bytes coll_xmetrics_new(nhops, lanes) takes. */
double coll_xmetrics_bytes(size_t nhops, int lanes);
void coll_metrics_begin(coll_metrics *m, coll_xmetrics *x);
void coll_metrics_settle(coll_metrics *m);
/* slot (m's hops[h], cascade[h], final or final_cascade) += part, its
 * count too; slot's workers becomes at least `workers`. */
void coll_metrics_add(coll_metrics *m, err_acc *slot, const err_acc *part, uint32_t workers);
/* m's bytes += bytes. */
void coll_metrics_bytes(coll_metrics *m, double bytes);

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
  /* May be NULL: charge the device for an operation the collective does in
   * flight (a combine at a hop, a decode of a received payload), on n
   * elements; it returns when the device has done it. */
  void (*device)(void *arg, enum ccomp_op op, size_t n);
  /* May be NULL: shown each payload decoded at hop h (1-based) on [lo, lo+n)
   * of this worker's range, so the run can stop on a non-finite one. */
  void (*hop_payload)(void *arg, size_t h, const float *y, size_t lo, size_t n);
  /* May be NULL: an allocation of the collective failed; msg ("iteration
   * IT, worker W: out of memory ...") says which.  It must not return (the
   * run stops with a runtime error); when it is NULL or returns, the process
   * aborts rather than go on with a NULL buffer. */
  void (*out_of_memory)(void *arg, const char *msg);
} coll_io;

typedef struct coll_ctx {
  int rank, nworkers;
  const double *params; /* the collective's parameters, [type->nparams] */
  uint32_t iteration;
  ccomp *comp; /* this worker's instance */
  size_t offset; /* global index of element 0 (a bucket of a larger gradient) */
  size_t n;      /* elements of the data plane */
  size_t n_full; /* elements of the tensor the network carries (n, or more when
                    the data plane runs on a coordinate sample) */
  coll_io io;
  float *out;  /* the aggregate applied, [n] */
  int out_shared; /* every worker's out is the same buffer: write only once */
  coll_metrics *metrics;
  uint64_t key;        /* private randomness of this worker and iteration */
  uint64_t shared_key; /* shared by all workers for this iteration */
  float global_max;    /* CCOMP_GLOBAL_MAX compressors: max over workers, once known */
  int measure_cascade; /* carry and measure the ideal shadow */
  /* COLL_NEEDS_EXACT_SUM collectives: [n] float64, shared by all workers,
   * zero at the start; workers add their inputs, the collective reads the
   * exact sum where it needs it and zeroes it again before returning. */
  double *exact_sum;
  /* Set by coll_run: the compressor's payload is cut into chunks, not the
   * tensor (a CCOMP_WHOLE_PAYLOAD compressor under a summable collective),
   * and `whole` is this call's state of it (whole.c); 0 and NULL else. */
  int whole_mode;
  struct coll_whole *whole;
} coll_ctx;

typedef struct collective_type {
  const char *name;
  const char *description;
  unsigned requires;
  /* Tunable parameters ("collective": {"name": ..., PARAM: value}), checked
   * for kind and range by the loader like a compressor's. */
  const ccomp_param *params;
  size_t nparams;
  /* Hops recorded in hops.csv for n workers (0: none). */
  size_t (*hops)(int nworkers, const double *params);
  /* Bytes the same collective sends, over all workers, for n fp32 elements
   * uncompressed: the numerator of compression_ratio. */
  double (*dense_bytes)(size_t n, int nworkers, const double *params);
  /* Payload elements alive at once, over all workers, at most, for n
   * elements of the data plane: each is held with its wire bytes and its
   * float64 shadows.  The memory estimate's term for payloads in flight
   * (sim/resources.c): a ring's chunks of n / N, a tree's or a recursive
   * halving's whole tensors. */
  double (*footprint)(size_t n, int nworkers, const double *params);
  /* Messages one call sends over all workers, the global max's aside
   * (coll_global_max: N (N - 1) more for CCOMP_GLOBAL_MAX compressors):
   * what the progress line expects and the trace's size in the estimate. */
  double (*messages)(int nworkers, const double *params);
  /* NULL, or a check that the collective can take nworkers with these
   * parameters: 0, or CCSIM_ERR_INPUT with err's text naming what to
   * change (no file, no path: the experiment reader adds them). */
  int (*check)(int nworkers, const double *params, ccsim_error *err);
  void (*run)(coll_ctx *ctx);
} collective_type;

const collective_type *const *collective_registry(size_t *count);
const collective_type *collective_find(const char *name);
const char *collective_names(void);

/* Chunk c of n elements split into k nearly equal parts: [*lo, *hi).
 * The same integers in 64 bits where n (c + 1) fits (always, below 2^32
 * elements): a 128-bit division is a library call (__udivti3), and a ring
 * cuts its chunks at every step (0.9% of a 1024-worker Marsit run). */
static inline void coll_chunk(size_t n, int k, int c, size_t *lo, size_t *hi) {
  if (n <= UINT64_MAX / ((uint64_t)(unsigned)c + 1)) {
    *lo = (size_t)((uint64_t)n * (unsigned)c / (unsigned)k);
    *hi = (size_t)((uint64_t)n * (unsigned)(c + 1) / (unsigned)k);
    return;
  }
  *lo = (size_t)((unsigned __int128)n * (unsigned)c / (unsigned)k);
  *hi = (size_t)((unsigned __int128)n * (unsigned)(c + 1) / (unsigned)k);
}

/* A payload in flight with its exact shadow.  Payloads are immutable once
 * made; a payload held in two places (recursive doubling, a parameter server
 * answering every worker) counts its references, atomically: the workers
 * holding it may run on different threads of the data executor. */
typedef struct coll_msg {
  int refs;
  int chunk;
  uint32_t workers;     /* how many workers the payload sums */
  uint32_t enc_workers; /* the count decode() is told: `workers` for combined
                           payloads, 1 for one encoded from a float sum */
  size_t n;         /* elements */
  size_t nbytes;
  uint8_t *bytes; /* the wire bytes: `inl` as made; another buffer once
                     coll_msg_set_bytes replaced them */
  double *exact;  /* [n] exact sum over the same workers; NULL once not needed */
  double *ideal;  /* [n] sum of the same workers' own decoded payloads, or NULL */
  double *uexact; /* whole mode: the exact sum of the summed units the slice holds, or NULL */
  _Alignas(16) uint8_t inl[]; /* the wire bytes made with the payload: one allocation */
} coll_msg;

/* count x size bytes (zeroed when zero; count 0 counts as 1) for the
 * collective running in ctx, never NULL: a failure (or a product that
 * overflows) goes to coll_out_of_memory.  Call it on the actor, not inside
 * comm_work. */
void *coll_alloc(const coll_ctx *ctx, size_t count, size_t size, int zero, const char *what);
/* coll_alloc from the calling lane's pool (lanepool.h), for the
 * data plane's short-lived blocks: a payload's shadows (exact, ideal,
 * uexact, which coll_msg_free gives back with coll_pool_free), compressor
 * inputs.  Free with coll_pool_free, never free(). */
void *coll_pool_alloc(const coll_ctx *ctx, size_t count, size_t size, int zero, const char *what);
void coll_pool_free(void *p);
/* Report that `bytes` for `what` could not be allocated, naming ctx's
 * iteration and worker, through ctx->io.out_of_memory; does not return. */
void coll_out_of_memory(const coll_ctx *ctx, size_t bytes, const char *what) __attribute__((noreturn));

/* A new payload of n elements with room for ccomp_max_wire_bytes(n) bytes
 * and, when `exact`, a zeroed shadow (both from the lane's pool; its
 * shadows, set by anyone, must come from coll_pool_alloc too).  refs = 1.  An allocation failure
 * stops the run (coll_out_of_memory). */
coll_msg *coll_msg_new(const coll_ctx *ctx, int chunk, uint32_t workers, size_t n, int exact);
/* The same with room for `wire` bytes (a payload whose size is not
 * max_wire_bytes(n): a slice of a whole payload). */
coll_msg *coll_msg_new_wire(const coll_ctx *ctx, int chunk, uint32_t workers, size_t n, size_t wire, int exact);
/* m's wire bytes replaced by a buffer of count x size bytes (contents
 * undefined; coll_alloc's failures), for a format whose size coll_msg_new
 * could not know. */
void coll_msg_set_bytes(const coll_ctx *ctx, coll_msg *m, size_t count, size_t size, const char *what);
/* Free m's shadows once it is final and only forwarded. */
void coll_drop_shadows(coll_msg *m);
/* Drop one reference; the last one frees. */
void coll_msg_free(coll_msg *m);
static inline coll_msg *coll_msg_ref(coll_msg *m) {
  __atomic_fetch_add(&m->refs, 1, __ATOMIC_RELAXED);
  return m;
}
/* Whether m is held in this one place only. */
static inline int coll_msg_alone(const coll_msg *m) { return __atomic_load_n(&m->refs, __ATOMIC_ACQUIRE) == 1; }

/* Payloads sent together as one network message (their bytes add up). */
typedef struct coll_bundle {
  int chunk; /* which chunk of the collective's own chunking */
  size_t count;
  coll_msg **m;      /* = slot: the list is allocated with the bundle */
  coll_msg *slot[];
} coll_bundle;

/* A bundle of count empty slots (allocation failures stop the run: coll_alloc). */
coll_bundle *coll_bundle_new(const coll_ctx *ctx, int chunk, size_t count);
/* Frees the bundle and drops one reference to each payload. */
void coll_bundle_free(coll_bundle *b);
/* Bytes the network is charged for m: its bytes, or, under coordinate
 * sampling, what the full-size payload would have: max_wire_bytes of the
 * full chunk for fixed-size formats, the bytes scaled by n_full / n else; in
 * whole mode, its share of the full tensor's whole payload. */
double coll_msg_charge(const coll_ctx *ctx, const coll_msg *m);
double coll_bundle_charge(const coll_ctx *ctx, const coll_bundle *b);

/* out = a + b for summable payloads of the same elements (offset lo), with
 * the shadows added; consumes a and b.  salt keeps the randomness of every
 * combine distinct (Marsit draws a fresh mask per combine). */
coll_msg *coll_combine(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo, uint64_t salt);

/* coll_combine, then coll_measure of the sum as hop h (0-based) with
 * scratch y (h >= nhops: coll_combine alone, y unused), the same figures
 * bit for bit: the sum decoded once, its shadows made, measured and checked
 * in one pass over blocks that stay in cache. */
coll_msg *coll_combine_measure(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo, uint64_t salt, size_t h,
                               float *y);

/* Decode m (elements from lo) into scratch y and add its error against its
 * shadows to hop h's figures (h 0-based; nothing when h >= nhops). */
void coll_measure(coll_ctx *ctx, size_t h, const coll_msg *m, size_t lo, uint64_t salt, float *y);

/* The aggregate: decode m (a sum over all workers) into ctx->out + lo and
 * finish it; with `final`, add the error against the exact mean to the
 * iteration's final figures. */
void coll_deliver(coll_ctx *ctx, const coll_msg *m, size_t lo, int final);

/* Run collective t in ctx: t->run, with whole mode (below) set up first
 * and its state freed after.  The simulator runs every collective through
 * it. */
void coll_run(const collective_type *t, coll_ctx *ctx);

/* Whole mode (whole.c; compressor.h, CCOMP_WHOLE_PAYLOAD): the worker's
 * input of the whole range [0, n) is encoded once, into U units; a payload
 * of the element range [lo, hi) carries the units [U lo / n, U hi / n) of
 * it (so the chunks of any partition of the elements partition the units),
 * with the elements' exact and ideal shadows for the final figures.  A
 * combine combines the units; a hop is measured on the summed units
 * against their exact sum (a part of a table cannot be decoded: what a hop
 * adds is the fp32 rounding of the sums); delivered slices are assembled
 * and, once all units are in, each range delivered is decoded from the
 * whole (decode_range) into ctx->out and measured.  A whole-range payload
 * is decoded as in the ordinary mode.  coll_encode_own, coll_combine, coll_measure and
 * coll_deliver call these in whole mode. */
coll_msg *coll_whole_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi);
coll_msg *coll_whole_combine(coll_ctx *ctx, coll_msg *a, coll_msg *b, size_t lo);
/* 1 when it measured m (a part of the units), 0 when m is whole (decode it). */
int coll_whole_measure(coll_ctx *ctx, size_t h, const coll_msg *m, size_t lo);
/* 1 when it took m, 0 when m is a whole payload to decode as usual. */
int coll_whole_deliver(coll_ctx *ctx, const coll_msg *m, size_t lo, int final);
/* Whether a rank must be delivered every chunk, not only its final one:
 * with private outputs, and in whole mode (a chunk is decoded from all). */
static inline int coll_deliver_all(const coll_ctx *ctx) { return !ctx->out_shared || ctx->whole_mode; }

/* allreduce/ring-recompress's hop (ring_recompress.c): decode `in`, add
 * this worker's input on [lo, hi) in fp32 and encode the sum afresh (its
 * error goes to the error-feedback memory); consumes in.  salt keeps each
 * hop's randomness distinct; y and p are scratch of hi - lo floats. */
coll_msg *coll_recompress(coll_ctx *ctx, coll_msg *in, size_t lo, size_t hi, uint64_t salt, float *y, float *p);

/* Sets ctx->global_max: for CCOMP_GLOBAL_MAX compressors, the max of the
 * local statistic over all workers by a ring max-reduction of one float per
 * worker (N - 1 steps of 4 bytes, charged on the network); 0 for the
 * others, which need nothing.  Every collective calls it first. */
void coll_global_max(coll_ctx *ctx);

/* A ring over `size` of the workers: ranks[0 .. size-1] in ring order; this
 * worker is ranks[pos]. */
typedef struct coll_ring {
  const int *ranks;
  int size, pos;
} coll_ring;

/* All workers in rank order; ranks[nworkers] is the caller's storage. */
coll_ring coll_all(const coll_ctx *ctx, int *ranks);

/* Reduce-scatter along the ring.  The data is cut into `size` chunks;
 * own(arg, c) gives this worker's contribution to chunk c as a bundle (a new
 * one, whose payloads it hands over).  At step s = 0 .. size-2 the worker
 * sends the partial aggregate of chunk (pos - s) mod size to the next and
 * combines the one it receives, part by part, with its own; the combined
 * payloads are measured as hop hop0 + s + 1 (metrics->hops[hop0 + s]).
 * lo_of(arg, chunk, part) gives the element offset of a part.  Returns the
 * bundle of chunk (pos + 1) mod size summed over the ring. */
coll_bundle *coll_ring_reduce_scatter(coll_ctx *ctx, const coll_ring *ring,
                                      coll_bundle *(*own)(void *arg, int chunk),
                                      size_t (*lo_of)(void *arg, int chunk, size_t part), void *arg,
                                      size_t hop0);

/* All-gather along the ring: every worker starts with one bundle (`mine`)
 * and forwards what it receives unchanged, size - 1 steps; got(arg, b) sees
 * every bundle received (not `mine`) before it is forwarded.  Consumes mine
 * and everything received. */
void coll_ring_allgather(coll_ctx *ctx, const coll_ring *ring, coll_bundle *mine,
                         void (*got)(void *arg, const coll_bundle *b), void *arg);

/* The same all-gather's traffic where nothing reads what it moves: no
 * got() to call (the output is shared and was written by each chunk's
 * owner) and payloads of a fixed size (CCOMP_FIXED_SIZE), so every
 * message's bytes follow from its chunk's n_of(arg, chunk) elements.  Each
 * step records what coll_ring_allgather's would (comm_exchange_unread):
 * the same messages, bytes, metrics and timing, without moving a payload
 * or waiting for one (a ring of N workers had switched actors N - 1 times
 * each to forward bundles nobody opened).  Every rank of the ring must
 * take this path (coll_ring_allgather_unread_ok says when it may: the
 * same answer on all).  Single-payload bundles; consumes mine, checking
 * first that its charge is the one the rule gives.  Its closing barrier is
 * keyed by the ring's members, so rings of one collective (a torus's rows
 * and columns) never share one. */
int coll_ring_allgather_unread_ok(const coll_ctx *ctx, const coll_ring *ring);
void coll_ring_allgather_unread(coll_ctx *ctx, const coll_ring *ring, coll_bundle *mine,
                                size_t (*n_of)(void *arg, int chunk), void *arg);

/* Binomial tree of `size` workers ranks[0 .. size-1] rooted at ranks[0]
 * (MPICH's): reduce() combines every subtree's bundle into the root, one
 * level per step (hop hop0 + level + 1), and returns the sum at the root
 * (NULL elsewhere); bcast() sends the root's bundle down the same tree and
 * returns it on every worker (the caller frees it). */
coll_bundle *coll_tree_reduce(coll_ctx *ctx, const coll_ring *group, coll_bundle *mine,
                              size_t (*lo_of)(void *arg, int chunk, size_t part), void *arg,
                              size_t hop0);
coll_bundle *coll_tree_bcast(coll_ctx *ctx, const coll_ring *group, coll_bundle *b);
static inline int coll_ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) l++;
  return l;
}

/* Start sending msg to rank dst, charged `bytes`, counted in the metrics. */
struct comm_req *coll_isend(coll_ctx *ctx, int dst, void *msg, double bytes);

/* Waits for every non-NULL send of reqs[0..n) and frees the array (NULL:
 * nothing); the sends' payloads then belong to their receivers. */
void coll_wait_sends(struct comm_req **reqs, int n);

/* Encode this worker's input on chunk [lo, hi) into a new message carrying
 * its exact shadow; feeds the error-feedback hook. */
coll_msg *coll_encode_own(coll_ctx *ctx, int chunk, size_t lo, size_t hi);

/* For collectives with their own wire format (the sparse ones): y[0 .. n) =
 * decode(encode(p)) of this worker's input p, which the compressor decides
 * (the error-feedback hook sees it as for any collective); p is added to
 * ctx->exact_sum (COLL_NEEDS_EXACT_SUM). */
void coll_own_dense(coll_ctx *ctx, float *y);

/* Bytes charged for a payload of nbytes made from the data plane's n
 * elements: scaled by n_full / n under coordinate sampling. */
double coll_scale_charge(const coll_ctx *ctx, size_t nbytes);

/* The ccomp_call for an operation of this worker on elements from `offset`. */
ccomp_call coll_call(const coll_ctx *ctx, size_t offset, uint64_t salt);

/* A call that re-encodes a sum x[0 .. n) under a global max (Global-QSGD)
 * is given at least the sum's own max |x|: a decoded partial sum may sit a
 * rounding step above the bound its encoder was given, and adding this
 * worker's input may carry it past that bound.  The payload carries its
 * max, so its receiver decodes it whatever it is.  Where the sum is within
 * the bound the call is unchanged. */
void coll_cover(const coll_ctx *ctx, ccomp_call *call, const float *x, size_t n);

#endif
