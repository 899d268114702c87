/* tests/fuzz/fuzz_sweep.c — the sweep loader on a fuzzed sweep file, as
 * `ccsim sweep FILE --dry-run` runs it (load, check every point, list):
 * the base experiment beside it is a small valid one. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "sweep/sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char base[] = "{\"workers\": 2, \"model\": {\"elements\": 16}}\n";
  char path[128], out[160];
  fuzz_write("base.json", base, sizeof base - 1, path, sizeof path);
  fuzz_write("sweep.json", data, size, path, sizeof path);
  snprintf(out, sizeof out, "%s/out", fuzz_dir());
  sweep_opts o = {.file = path, .out = out, .jobs = 1, .quiet = 1, .dry_run = 1, .point = -1};
  sweep_run(&o); /* its one-line errors on stderr are expected */
  return 0;
}
