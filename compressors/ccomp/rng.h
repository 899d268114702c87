/* compressors/ccomp/rng.h (installed as <ccomp/rng.h>) — counter-based random numbers.
 *
 * Every random number in ccsim is a pure function of a 64-bit key and a
 * 64-bit counter: ccr_u64(key, i) is the i-th output of SplitMix64 started
 * from `key` (Steele, Lea & Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014), which passes BigCrush.  Keys are derived by
 * hashing the things a number depends on (seed, worker, iteration, tensor),
 * so a value can be produced in any order, any chunking, on any worker, and
 * is the same every run.  Distinct keys give streams that overlap only if the
 * keys differ by a multiple of the golden gamma within the counter range, a
 * 2^-64-per-pair event for hashed keys.
 */
#ifndef CCOMP_RNG_H
#define CCOMP_RNG_H

#include <stdint.h>

#define CCR_GAMMA 0x9E3779B97F4A7C15ull

/* SplitMix64's output function: a bijection on 64 bits with full avalanche. */
static inline uint64_t ccr_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A key derived from a parent key and one more coordinate (worker, iteration...). */
static inline uint64_t ccr_key(uint64_t parent, uint64_t coord) {
  return ccr_mix(parent ^ ccr_mix(coord + CCR_GAMMA));
}

/* The ctr-th 64-bit output of the stream `key`. */
static inline uint64_t ccr_u64(uint64_t key, uint64_t ctr) {
  return ccr_mix(key + (ctr + 1) * CCR_GAMMA);
}

/* Uniform in [0, 1) with 53 random bits. */
static inline double ccr_unit(uint64_t key, uint64_t ctr) {
  return (double)(ccr_u64(key, ctr) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, 1) with 24 random bits (exactly representable as float). */
static inline float ccr_unitf(uint64_t key, uint64_t ctr) {
  return (float)(ccr_u64(key, ctr) >> 40) * 0x1.0p-24f;
}

#endif
