/* tests/fuzz/fuzz_units.c — the unit parser (src/units.c) on any text: it
 * returns 0 with a finite, non-negative-if-unsigned quantity, or one of
 * its failure codes (units.h), which units_why puts in words. */
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
  int (*const parse[])(const char *, double *) = {units_bandwidth, units_size, units_time};
  for (int k = 0; k < 3; k++) {
    const int rc = parse[k](s, &x);
    if (rc == 0 && !isfinite(x)) abort();
    if (rc != 0 && rc != UNITS_NOT_A_NUMBER && rc != UNITS_RANGE && rc != UNITS_UNKNOWN && rc != UNITS_NO_UNIT)
      abort();
    if (rc != 0 && !*units_why(rc)) abort();
  }
  free(s);
  return 0;
}
