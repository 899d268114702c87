/* tests/fuzz/fuzz_platform.c — the platform checker (src/platforms/check.h)
 * on any bytes: 0, or an error with a message; never a crash. */
#include <stdint.h>
#include <stdlib.h>

#include "platforms/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ccsim_error err = {0};
  if (platform_check_buffer((const char *)data, size, "fuzz.xml", &err) && !err.msg[0]) abort();
  return 0;
}
