/* src/variates.h — counter-based variates: element `index` of stream `key`
 * is a pure function of (key, index) (compressors/ccomp/rng.h), so any
 * element can be drawn in any order on any thread.  A standard normal (the
 * ziggurat) and a Zipf law (rejection-inversion); the synthetic gradients
 * (data/gradients.c) draw their elements with them, the models (train/)
 * their initial weights and the zipf-text dataset its tokens. */
#ifndef CCSIM_VARIATES_H
#define CCSIM_VARIATES_H

#include <stddef.h>
#include <stdint.h>

#include "ccomp/rng.h"

/* The ziggurat's 128 strips (variates.c), filled once by zig_init (safe
 * from any number of threads at once); zig_ready is 1 once they are.
 * normal_fast needs them filled; grad_normal fills them itself. */
extern uint32_t zig_k[128];
extern double zig_w[128], zig_f[128];
extern int zig_ready;
void zig_init(void);
/* normal_fast's slow path: the base strip's tail, or a wedge test. */
double zig_fix(uint64_t key, uint64_t index, int32_t hz, uint32_t iz);

/* Uniform in the open interval (0, 1), for logarithms. */
static inline double open_unit(uint64_t key, uint64_t ctr) {
  return ((double)(ccr_u64(key, ctr) >> 11) + 0.5) * 0x1.0p-53;
}

static inline uint32_t abs32(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

/* A standard normal variate, element index of stream key, the tables
 * filled (inline: the synthetic gradients' inner loop). */
static inline double normal_fast(uint64_t key, uint64_t index) {
  const int32_t hz = (int32_t)(uint32_t)(ccr_u64(key, index) >> 32);
  const uint32_t iz = (uint32_t)hz & 127;
  if (__builtin_expect(abs32(hz) < zig_k[iz], 1)) return hz * zig_w[iz];
  return zig_fix(key, index, hz, iz);
}

/* One standard normal variate, element `index` of stream `key` (Marsaglia &
 * Tsang's ziggurat, 128 strips, driven by counter-based bits). */
double grad_normal(uint64_t key, uint64_t index);
/* z[0 .. m) = grad_normal(key, t[j]) bit for bit, drawn in blocks (eight
 * counters at a time where the CPU has AVX-512; grad_normal_vectorized()
 * says whether it does, and CCSIM_NO_AVX512 in the environment turns that
 * off).  The synthetic gradients' fills draw their normal variates this way. */
/* The block behind grad_normal_block, for fills that make their own
 * counters: z[0 .. m) = the normals of stream key at counters t[0 .. m)
 * (t NULL: base + j stride, plus cy[j] where cy is not NULL), m <=
 * ZIG_BLOCK; the tables filled. */
#define ZIG_BLOCK 256
void zig_normal_block(uint64_t key, uint64_t base, uint64_t stride, const uint64_t *t, const uint32_t *cy, size_t m,
                      double *z);
void grad_normal_block(uint64_t key, const uint64_t *t, size_t m, double *z);
int grad_normal_vectorized(void);

/* One Zipf variate k in {1..N}, P(k) ~ k^-s (s > 0), by rejection-
 * inversion (Hormann & Derflinger 1996), from stream `key` at counter ctr
 * (uniforms at (ctr << 8) + attempt). */
uint64_t grad_zipf(uint64_t key, uint64_t ctr, uint64_t N, double s);

#endif
