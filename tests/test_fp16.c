/* tests/test_fp16.c — the binary16 conversion is exact against the compiler's
 * _Float16 (IEEE round to nearest even) over every half value and over 2^24
 * float bit patterns, including subnormals, overflow and NaN. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "half.h"
#include "ccomp/rng.h"

int main(void) {
  /* every half -> float -> half is the identity (NaN payloads aside) */
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float f = ccomp_f16_to_f32((uint16_t)h);
    _Float16 ref;
    uint16_t hb = (uint16_t)h;
    memcpy(&ref, &hb, 2);
    if (f != f) { /* NaN */
      bad += ((float)ref == (float)ref);
      continue;
    }
    bad += (f != (float)ref) || ccomp_f32_to_f16(f) != h;
  }
  CHECK(bad == 0, "%d halves do not round-trip", bad);
  /* random float bit patterns, and values near the subnormal/overflow edges */
  bad = 0;
  for (uint64_t i = 0; i < (1u << 24); i++) {
    uint32_t u = (uint32_t)ccr_u64(99, i);
    if (i & 1) u = (u & 0x8fffffffu) | 0x30000000u; /* bias exponents to half's range */
    float f;
    memcpy(&f, &u, 4);
    _Float16 ref = (_Float16)f;
    uint16_t rb;
    memcpy(&rb, &ref, 2);
    uint16_t got = ccomp_f32_to_f16(f);
    if (f != f) bad += ((got & 0x7c00) != 0x7c00 || (got & 0x3ff) == 0);
    else bad += (got != rb);
  }
  CHECK(bad == 0, "%d floats convert differently from _Float16", bad);
  return check_status("test_fp16");
}
