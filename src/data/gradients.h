/* src/data/gradients.h — the synthetic gradient source.
 *
 * Element t of worker w's gradient at iteration i is a pure function of
 * (seed, w, i, t), drawn from counter-based random numbers (compressors/ccomp/rng.h),
 * so any chunk can be generated when a collective needs it, in any order, and
 * a run never has to hold N full gradients in memory.
 *
 * With correlation rho, g_w[t] = scale * (sqrt(rho) z_common[t] + sqrt(1-rho) z_w[t]),
 * where z_common is shared by all workers at that iteration: workers that
 * train one model on different batches see correlated gradients.
 *
 * The sparse source (gradients.source "sparse") models an embedding table's
 * gradient: the n elements are rows of row_width (the last row may be
 * short), R = ceil(n / row_width) rows.  At iteration i worker w draws
 * `tokens` row indices k - 1, k from a Zipf law on {1..R}, P(k) ~ k^-s
 * (row 0 the most frequent, as in a vocabulary sorted by frequency),
 * by rejection-inversion (Hormann & Derflinger, "Rejection-inversion to
 * generate variates from monotone discrete distributions", ACM TOMACS 6(3),
 * 1996), draw j from counter-based stream (seed, "sprs", i, w) at (j,
 * attempt).  A row drawn c >= 1 times holds c per-token gradients:
 * element t = scale sqrt(c) z_w[t] (z_w as above; the sum of c independent
 * N(0, scale^2) vectors has that law); every other row is exactly 0.  So at
 * most `tokens` rows of each worker's gradient are non-zero, and frequent
 * rows are shared across workers. */
#ifndef CCSIM_GRADIENTS_H
#define CCSIM_GRADIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"
#include "variates.h" /* grad_normal, grad_zipf */

#define GRAD_SPARSE_MAX_TOKENS (1 << 16)

typedef struct grad_source {
  enum grad_distribution distribution;
  double scale, correlation;
  uint64_t seed;
  int sparse;            /* the sparse source: */
  size_t width, tokens;  /* row_width, draws per worker and iteration */
  size_t rows;           /* R (0 until the element count is known) */
  double zipf;           /* s */
} grad_source;

void grad_source_init(grad_source *g, const experiment *e);

/* The sparse source's rows drawn by worker w at iteration it: rows[0..*nu)
 * ascending and distinct, counts[] how often each was drawn (both of
 * capacity g->tokens).  For tests and for the fill functions. */
void grad_sparse_rows(const grad_source *g, uint32_t worker, uint32_t iteration, uint32_t *rows,
                      uint32_t *counts, size_t *nu);

/* out[0 .. hi-lo) = elements [lo, hi) of worker w's gradient at iteration it. */
void grad_fill(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo, size_t hi,
               float *out);

/* Coordinate sampling: out[0 .. hi-lo) = the elements at global indices
 * base + floor(j * full / sample) for j in [lo, hi) (evenly spaced over
 * [base, base + full)).  carry: NULL, or the layer's carries
 * (grad_sample_carries of the same full and sample), which make the
 * indices without stepping from one to the next: the same indices. */
void grad_fill_sampled(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                       size_t hi, size_t base, size_t full, size_t sample, const uint32_t *carry, float *out);

/* carry[j] = floor(j (full mod sample) / sample) for j in [0, sample): the
 * part of coordinate j's index base + j floor(full / sample) + carry[j]
 * that does not grow evenly.  The same for every worker and iteration, so
 * a run makes it once per layer (4 bytes a data-plane element).  -1 (and
 * nothing written) where sample is 0 or does not fit 32 bits. */
int grad_sample_carries(size_t full, size_t sample, uint32_t *carry);

/* Correlated gradients (correlation > 0, not sparse) share a part that
 * every worker draws alike: scale sqrt(rho) z_common[t].  A run can draw
 * it once per iteration instead of once per worker.  grad_has_shared: g
 * has such a part.  grad_shared_sampled: out[0 .. hi-lo) = that part of
 * the coordinates grad_fill_sampled would fill (full == sample: elements
 * lo .. hi, as grad_fill).  grad_fill_sampled_shared: what
 * grad_fill_sampled writes, bit for bit, with the shared part of the same
 * coordinates given in shared[0 .. hi-lo). */
int grad_has_shared(const grad_source *g);
/* Whether a run of e draws such a shared part once per iteration (its
 * gradients are synthetic and g has one): the run holds it, 8 bytes per
 * data-plane element, and the memory estimate counts it. */
int grad_experiment_shares(const experiment *e);
void grad_shared_sampled(const grad_source *g, uint32_t iteration, size_t lo, size_t hi, size_t base,
                         size_t full, size_t sample, const uint32_t *carry, double *out);
void grad_fill_sampled_shared(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                              size_t hi, size_t base, size_t full, size_t sample, const uint32_t *carry,
                              const double *shared, float *out);

/* grad_normal and grad_zipf, the variates these gradients are drawn from: variates.h */

#endif
