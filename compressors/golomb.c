/* compressors/golomb.c — Golomb-Rice position coding (see golomb.h). */
#include "golomb.h"

#include <math.h>

unsigned ccg_rice_param(size_t k, size_t n) {
  const double phi = (sqrt(5.0) + 1.0) / 2.0;
  double q = ((double)k + 1.0) / ((double)n + 1.0);
  if (!(q < 1.0)) return 0;
  double ratio = log(phi - 1.0) / log1p(-q);
  if (!(ratio >= 0.5)) return 0; /* b* = 1 + floor(log2(ratio)) <= 0 */
  double b = 1.0 + floor(log2(ratio));
  return b > 30.0 ? 30u : (unsigned)b;
}

double ccg_expected_bits(double q, unsigned b) {
  return (double)b + 1.0 / (1.0 - pow(1.0 - q, ldexp(1.0, (int)b)));
}

size_t ccg_max_bits(size_t k, size_t n, unsigned b) {
  size_t spare = n > k ? n - k : 0;
  return (spare >> b) + k * (size_t)(1 + b);
}

void ccg_encode(ccb_writer *w, const uint32_t *pos, size_t k, unsigned b) {
  uint64_t prev = ccg_START; /* p_{-1} = -1: the first gap is p_0 + 1 */
  for (size_t i = 0; i < k; i++) ccg_put(w, b, &prev, pos[i]);
}

int ccg_decode(ccb_reader *r, uint32_t *pos, size_t k, unsigned b, size_t n) {
  uint64_t prev = ccg_START;
  for (size_t i = 0; i < k; i++)
    if (ccg_next(r, b, n, &prev, &pos[i])) return -1;
  return 0;
}
