/* tests/fuzz/fuzz_units.c — the unit parser (src/units.c) on any text: it
 * returns 0 with a finite quantity, or -1. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) return 0;
  memcpy(s, data, size);
  s[size] = 0;
  double x;
  if (units_bandwidth(s, &x) == 0 && !isfinite(x)) abort();
  if (units_size(s, &x) == 0 && !isfinite(x)) abort();
  if (units_time(s, &x) == 0 && !isfinite(x)) abort();
  free(s);
  return 0;
}
