/* compressors/ccomp/compressor.h (installed as <ccomp/compressor.h>) — the compressor interface of libccomp.
 *
 * A compressor is a const type descriptor (struct ccomp_type, one per file, at
 * the bottom of that file) plus opaque per-instance state, in the pattern of
 * GSL's gsl_rng_type.  An instance belongs to one worker and one tensor (or
 * bucket); it may keep state across iterations (PowerSGD's warm start, DGC's
 * momentum) when its type says CCOMP_STATEFUL.
 *
 * Wire format: encode() writes real bytes (packed bits, varints, Golomb codes)
 * and returns how many; those are the bytes the network is charged for.
 *
 * Values: decode() yields the SUM of the inputs of the `workers` workers a
 * payload represents (a freshly encoded payload represents 1).  finish()
 * turns the decoded sum over all n workers into the aggregate the optimizer
 * applies (the mean by default; the majority-vote sign for signSGD).
 *
 * Randomness: every random choice is a pure function of the ccomp_call keys
 * and the GLOBAL element index (call->offset + i), through compressors/rng.h,
 * so that encoding a tensor in chunks gives the same bytes as encoding it
 * whole, and a run is reproducible bit for bit.
 *
 * Ownership: ccomp_new returns a new instance, ccomp_free accepts NULL; all
 * pointer parameters are borrowed.  No function here prints or exits: errors
 * are returned as -1 / NULL plus a message in the caller's buffer.
 */
#ifndef CCOMP_COMPRESSOR_H
#define CCOMP_COMPRESSOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCOMP_ERRLEN 256

enum ccomp_flags {
  CCOMP_SUMMABLE = 1u << 0,    /* combine() merges two payloads, same format */
  CCOMP_SHARED_SEED = 1u << 1, /* needs call->shared_key identical on all workers */
  CCOMP_STATEFUL = 1u << 2,    /* instance state carries across iterations */
  CCOMP_FIXED_SIZE = 1u << 3,  /* encode() always writes max_wire_bytes(n) */
  CCOMP_UNBIASED = 1u << 4,    /* E[decode(encode(x))] = x */
  CCOMP_GLOBAL_MAX = 1u << 5,  /* encode needs call->global_max = max over workers of local_stat() */
  CCOMP_LOSSLESS = 1u << 6,    /* decode(encode(x)) == x exactly */
  /* One payload per tensor: a collective that cuts the tensor into chunks
   * encodes the whole tensor once and cuts its payload instead, in units
   * (units / combine_units below); see docs/algorithms.md (S2 Reducer). */
  CCOMP_WHOLE_PAYLOAD = 1u << 7,
};

enum ccomp_param_kind { CCOMP_REAL, CCOMP_INT, CCOMP_BOOL, CCOMP_CHOICE };

/* One tunable parameter.  The experiment loader checks kind and [min, max]
 * before init(); init() checks what depends on other parameters or on the
 * setup (e.g. levels that would overflow for this many workers).
 * CCOMP_CHOICE: a name among a fixed list, written as a string in the
 * experiment; its value here is the index in the list.  The list is the
 * start of `help`, names separated by '|' and ended by ':' ("standard|
 * exponential: ..."), so every table keeps its six fields; def is the
 * default's index, min 0 and max the last index. */
typedef struct ccomp_param {
  const char *name;
  enum ccomp_param_kind kind;
  double def, min, max;
  const char *help;
} ccomp_param;

/* What an instance is created for. */
typedef struct ccomp_setup {
  size_t n;          /* elements of the tensor this instance serves */
  uint32_t workers;  /* workers in the collective */
  uint32_t rank;     /* this worker */
  uint64_t seed;     /* experiment seed */
} ccomp_setup;

/* Per-call context: deterministic randomness and collective-provided values. */
typedef struct ccomp_call {
  uint64_t key;        /* private randomness: differs per worker, iteration, tensor */
  uint64_t shared_key; /* shared randomness: same on all workers for (iteration, tensor) */
  size_t offset;       /* global index of element 0 of this call's chunk */
  uint32_t iteration;
  float global_max;    /* for CCOMP_GLOBAL_MAX types: max over workers of local_stat */
} ccomp_call;

enum ccomp_op { CCOMP_ENCODE, CCOMP_DECODE, CCOMP_COMBINE };

/* What one operation on n elements costs on a device; the time model turns
 * it into seconds (launches x launch overhead + bytes / memory bandwidth +
 * flops / peak flops). */
typedef struct ccomp_cost {
  double launches;
  double bytes_read;
  double bytes_written;
  double flops;
} ccomp_cost;

typedef struct ccomp_type ccomp_type;

struct ccomp_type {
  const char *name;
  const char *summary; /* one line for `ccsim list compressors` */
  unsigned flags;
  const ccomp_param *params;
  size_t nparams;
  size_t state_size;

  /* Set up state (zeroed memory of state_size bytes) from params[nparams]
   * (already range-checked).  Return 0, or -1 with a message in err. */
  int (*init)(void *state, const double *params, const ccomp_setup *setup, char *err, size_t errlen);
  /* Release what init allocated (not the state itself).  May be NULL. */
  void (*clear)(void *state);

  /* Upper bound of encode()'s output for a chunk of n elements. */
  size_t (*max_wire_bytes)(const void *state, size_t n);
  /* Encode x[n] into out (>= max_wire_bytes(n) bytes); return bytes written. */
  size_t (*encode)(void *state, const float *x, size_t n, const ccomp_call *call, uint8_t *out);
  /* y[n] = the sum that payload in[nbytes] represents over `workers` workers. */
  void (*decode)(const void *state, const uint8_t *in, size_t nbytes, size_t n, uint32_t workers,
                 const ccomp_call *call, float *y);
  /* Summable types only: out = combination of a (representing ka workers) and
   * b (kb workers), representing ka + kb; return bytes written. */
  size_t (*combine)(const void *state, const uint8_t *a, size_t na, uint32_t ka, const uint8_t *b,
                    size_t nb, uint32_t kb, size_t n, const ccomp_call *call, uint8_t *out);
  /* Turn the decoded sum over `workers` workers into the aggregate applied by
   * the optimizer.  NULL means divide by workers (the mean). */
  void (*finish)(const void *state, float *y, size_t n, uint32_t workers);
  /* CCOMP_GLOBAL_MAX types: the local statistic whose max over workers the
   * collective computes (e.g. max |x_i|) before encode. */
  float (*local_stat)(const void *state, const float *x, size_t n);
  /* Device cost of one operation on n elements (combine: of one pair): a
   * function of the parameters and n alone (ccsim reuses a price for the
   * same n). */
  void (*cost)(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c);
  /* The stated round-trip bound: the largest ||decode(encode(x)) - x||_2 this
   * compressor promises for input x[n] on a fresh instance (0 if lossless).
   * Randomized compressors state a bound that holds with overwhelming
   * probability (say which in the file).  The generic test enforces it. */
  double (*roundtrip_bound)(const void *state, const float *x, size_t n);

  /* Optional, multi-phase compressors (PowerSGD); 0 / NULL in all others.
   * A type with phases >= 2 aggregates in `phases` rounds per iteration.  In
   * round p each worker writes phase_bytes(n, p) bytes of little-endian fp32
   * (the 'none' wire format) from its input x[n] and the state earlier rounds
   * left (phase_encode); the collective SUMS these payloads over all workers
   * exactly as it sums an uncompressed tensor (a plain all-reduce: any
   * chunking at 4-byte boundaries, fp32 adds); every worker then hands the
   * sum, with the same x, to phase_decode, which updates the state and, in
   * the last round, writes y[n] = the decoded sum over the `workers` workers
   * (finish() applies as usual).  Each round is encoded and decoded once per
   * worker, rounds in order; n is the whole tensor (phases do not chunk).
   * The single-shot encode/decode above stays a real compressor for
   * collectives that do not drive phases (all-gather, parameter server): it
   * runs every round locally, as one worker.  phase_cost: one worker's
   * phase_encode (op CCOMP_ENCODE) or phase_decode (CCOMP_DECODE) of round p. */
  unsigned phases;
  size_t (*phase_bytes)(const void *state, size_t n, unsigned phase);
  void (*phase_encode)(void *state, const float *x, size_t n, unsigned phase,
                       const ccomp_call *call, uint8_t *out);
  void (*phase_decode)(void *state, const float *x, const uint8_t *sum, size_t n, unsigned phase,
                       uint32_t workers, const ccomp_call *call, float *y);
  void (*phase_cost)(const void *state, size_t n, unsigned phase, enum ccomp_op op, ccomp_cost *c);

  /* CCOMP_WHOLE_PAYLOAD types (summable); NULL in all others.  The payload
   * of a whole tensor of n elements (max_wire_bytes(n) bytes, a fixed size)
   * is cut by a collective into units of 4 bytes (the last one shorter when
   * the size is not a multiple of 4): units(n) of them, of which the first
   * *summed are fp32 values that combine by addition (the rest combine
   * another way, e.g. a bitmap's OR).  combine_units writes out = the
   * combination of units [u0, u0 + m) of two payloads of n elements, given
   * as those slices (a, b, out: the slice's bytes each). */
  size_t (*units)(const void *state, size_t n, size_t *summed);
  void (*combine_units)(const void *state, size_t n, size_t u0, size_t m, const uint8_t *a,
                        const uint8_t *b, uint8_t *out);
  /* y[0 .. hi - lo) = elements [lo, hi) of decode(in) for the whole payload
   * in of a tensor of n elements (call->offset: the tensor's element 0), so
   * a worker decodes only the ranges it needs. */
  void (*decode_range)(const void *state, const uint8_t *in, size_t n, size_t lo, size_t hi,
                       uint32_t workers, const ccomp_call *call, float *y);
};

/* An instance: its type, its setup, and its state. */
typedef struct ccomp {
  const ccomp_type *type;
  ccomp_setup setup;
  void *state;
} ccomp;

/* Registry: every compressor, in a fixed order. */
const ccomp_type *const *ccomp_registry(size_t *count);
const ccomp_type *ccomp_find(const char *name);
/* "a, b, c": the registered names, for error messages (static buffer). */
const char *ccomp_names(void);

/* Index of parameter `name` in t->params, or -1. */
int ccomp_param_index(const ccomp_type *t, const char *name);
/* out[t->nparams] = the defaults. */
void ccomp_param_defaults(const ccomp_type *t, double *out);
/* CCOMP_CHOICE parameters: how many names p's list has; the index of `name`
 * in it, or -1; the name at index k copied into out[len] (0, or -1 if k is
 * out of range). */
size_t ccomp_param_nchoices(const ccomp_param *p);
int ccomp_param_choice_index(const ccomp_param *p, const char *name);
int ccomp_param_choice_name(const ccomp_param *p, size_t k, char *out, size_t len);

/* 0 if v is acceptable for parameter i (kind and range), else -1 with err. */
int ccomp_param_check(const ccomp_type *t, size_t i, double v, char *err, size_t errlen);
/* The same for parameter i of any table (a memory's, a collective's); the
 * message names owner. */
int ccomp_param_check_in(const char *owner, const ccomp_param *params, size_t i, double v,
                         char *err, size_t errlen);

/* count x size zero bytes (count 0: one element), NULL without memory or
 * on overflow; for state a compressor or memory reads before it writes
 * (error feedback, momentum).  Written, not calloc'd: calloc leaves fresh
 * pages untouched, a first read maps the shared zero page, and the first
 * write then copies it and flushes the other threads' TLBs (a 1024-worker
 * ResNet-50 Marsit run on two threads: 215,000 shootdowns, 2.6 s of system
 * time). */
void *ccomp_zeroed(size_t count, size_t size);

/* New instance; params may be NULL for the defaults.  NULL on error, with err. */
ccomp *ccomp_new(const ccomp_type *t, const double *params, const ccomp_setup *setup, char *err,
                 size_t errlen);
void ccomp_free(ccomp *c);

static inline size_t ccomp_max_wire_bytes(const ccomp *c, size_t n) {
  return c->type->max_wire_bytes(c->state, n);
}
static inline size_t ccomp_encode(ccomp *c, const float *x, size_t n, const ccomp_call *call,
                                  uint8_t *out) {
  return c->type->encode(c->state, x, n, call, out);
}
static inline void ccomp_decode(const ccomp *c, const uint8_t *in, size_t nbytes, size_t n,
                                uint32_t workers, const ccomp_call *call, float *y) {
  c->type->decode(c->state, in, nbytes, n, workers, call, y);
}
size_t ccomp_combine(const ccomp *c, const uint8_t *a, size_t na, uint32_t ka, const uint8_t *b,
                     size_t nb, uint32_t kb, size_t n, const ccomp_call *call, uint8_t *out);
void ccomp_finish(const ccomp *c, float *y, size_t n, uint32_t workers);
void ccomp_cost_of(const ccomp *c, size_t n, enum ccomp_op op, ccomp_cost *cost);

/* The round-trip bound of round-to-nearest into a narrower float format:
 * sqrt(sum_i max(rel |x_i|, floor)^2), with rel half the unit in the last
 * place for normal values and floor half the subnormal spacing. */
double ccomp_rounding_bound(const float *x, size_t n, double rel, double floor);

/* Multi-phase types (see struct ccomp_type): rounds per iteration, 1 for the others. */
static inline unsigned ccomp_phases(const ccomp *c) {
  return c->type->phases > 1 ? c->type->phases : 1;
}
static inline size_t ccomp_phase_bytes(const ccomp *c, size_t n, unsigned phase) {
  return c->type->phase_bytes(c->state, n, phase);
}
static inline void ccomp_phase_encode(ccomp *c, const float *x, size_t n, unsigned phase,
                                      const ccomp_call *call, uint8_t *out) {
  c->type->phase_encode(c->state, x, n, phase, call, out);
}
static inline void ccomp_phase_decode(ccomp *c, const float *x, const uint8_t *sum, size_t n,
                                      unsigned phase, uint32_t workers, const ccomp_call *call,
                                      float *y) {
  c->type->phase_decode(c->state, x, sum, n, phase, workers, call, y);
}
static inline void ccomp_phase_cost_of(const ccomp *c, size_t n, unsigned phase,
                                       enum ccomp_op op, ccomp_cost *cost) {
  *cost = (ccomp_cost){0, 0, 0, 0};
  if (c->type->phase_cost) c->type->phase_cost(c->state, n, phase, op, cost);
}

/* Bring the bytes [p, p + bytes) towards the cache (a hint: no effect on
 * any value), one request per 64-byte line, for a write soon after. */
static inline void ccomp_prefetch(const void *p, size_t bytes) {
  const char *c = (const char *)p;
  for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(c + i, 1, 3);
  if (bytes) __builtin_prefetch(c + bytes - 1, 1, 3); /* the last line, when p is not aligned */
}

#ifdef __cplusplus
}
#endif
#endif
