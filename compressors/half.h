/* compressors/half.h — IEEE-754 binary16 conversions, round to nearest even.
 *
 * Branch-light bit manipulation after F. Giesen's float_to_half_fast3_rtne /
 * half_to_float (public domain, 2016).  Correct for every input: normals,
 * subnormals, overflow to infinity, NaN kept NaN (tested against the
 * compiler's _Float16 over random and exhaustive inputs). */
#ifndef CCOMP_HALF_H
#define CCOMP_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t ccomp_f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float ccomp_u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline uint16_t ccomp_f32_to_f16(float x) {
  const uint32_t f32infty = 255u << 23;
  const uint32_t f16max = (127u + 16u) << 23;
  const uint32_t denorm_magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  uint32_t f = ccomp_f2u(x);
  const uint32_t sign = f & 0x80000000u;
  uint16_t o;
  f ^= sign;
  if (f >= f16max) {
    o = (f > f32infty) ? 0x7e00 : 0x7c00; /* NaN stays NaN, overflow is Inf */
  } else if (f < (113u << 23)) {
    /* Result is subnormal or zero: let the FPU round by adding a magic number. */
    float v = ccomp_u2f(f) + ccomp_u2f(denorm_magic);
    o = (uint16_t)(ccomp_f2u(v) - denorm_magic);
  } else {
    const uint32_t mant_odd = (f >> 13) & 1;
    f += (uint32_t)(15 - 127) * (1u << 23) + 0xfffu; /* rebias exponent, round half */
    f += mant_odd;                                   /* ... to even */
    o = (uint16_t)(f >> 13);
  }
  return (uint16_t)(o | (sign >> 16));
}

static inline float ccomp_f16_to_f32(uint16_t h) {
  const uint32_t shifted_exp = 0x7c00u << 13;
  uint32_t o = ((uint32_t)h & 0x7fffu) << 13;
  const uint32_t exp = shifted_exp & o;
  o += (127u - 15u) << 23;
  if (exp == shifted_exp) {
    o += (128u - 16u) << 23; /* Inf or NaN */
  } else if (exp == 0) {
    o += 1u << 23; /* zero or subnormal: renormalize */
    o = ccomp_f2u(ccomp_u2f(o) - ccomp_u2f(113u << 23));
  }
  o |= ((uint32_t)h & 0x8000u) << 16;
  return ccomp_u2f(o);
}

#endif
