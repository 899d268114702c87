/* src/gradients.h — the synthetic gradient source.
 *
 * Element t of worker w's gradient at iteration i is a pure function of
 * (seed, w, i, t), drawn from counter-based random numbers (compressors/rng.h),
 * so any chunk can be generated when a collective needs it, in any order, and
 * a run never has to hold N full gradients in memory.
 *
 * With correlation rho, g_w[t] = scale * (sqrt(rho) z_common[t] + sqrt(1-rho) z_w[t]),
 * where z_common is shared by all workers at that iteration: workers that
 * train one model on different batches see correlated gradients. */
#ifndef CCSIM_GRADIENTS_H
#define CCSIM_GRADIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

typedef struct grad_source {
  enum grad_distribution distribution;
  double scale, correlation;
  uint64_t seed;
} grad_source;

void grad_source_init(grad_source *g, const experiment *e);

/* out[0 .. hi-lo) = elements [lo, hi) of worker w's gradient at iteration it. */
void grad_fill(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo, size_t hi,
               float *out);

/* Coordinate sampling: out[0 .. hi-lo) = the elements at global indices
 * base + floor(j * full / sample) for j in [lo, hi) (evenly spaced over
 * [base, base + full)). */
void grad_fill_sampled(const grad_source *g, uint32_t worker, uint32_t iteration, size_t lo,
                       size_t hi, size_t base, size_t full, size_t sample, float *out);

/* One standard normal variate, element `index` of stream `key` (Marsaglia &
 * Tsang's ziggurat, 128 strips, driven by counter-based bits). */
double grad_normal(uint64_t key, uint64_t index);

#endif
