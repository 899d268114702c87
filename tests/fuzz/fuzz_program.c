/* tests/fuzz/fuzz_program.c — the collective-program loader and validator
 * (src/collectives/program.h) on any bytes, as a program file.
 *
 * program_load either refuses with a message or returns a collective; an
 * accepted one is then validated (program_validate: every rank's steps run
 * symbolically) for N = 1 .. 6 with its default parameters, which again
 * either passes or refuses with a message.  Never a crash, a leak, a hang
 * or a refusal without a message.  Each accepted program is unloaded, so
 * the 16 slots of one run never fill. */
#include <stdint.h>
#include <stdlib.h>

#include "collectives/program.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256], err[1024] = "";
  fuzz_write("program.json", data, size, path, sizeof path);
  const collective_type *t = program_load(path, err, sizeof err);
  if (!t) {
    if (!err[0]) abort();
    return 0;
  }
  double params[64] = {0};
  for (size_t i = 0; i < t->nparams && i < 64; i++) params[i] = t->params[i].def;
  for (int N = 1; N <= 6; N++) {
    err[0] = 0;
    if (program_validate(t, N, params, err, sizeof err) && !err[0]) abort();
  }
  program_unload(t);
  return 0;
}
