/* tests/fuzz/fuzz_trace.c — the trace reader.  The first byte picks what is
 * fuzzed: even, the rest is index.json (trace_open); odd, the rest is the
 * one .npy file of a valid 1-worker, 1-iteration, 4-element trace
 * (trace_open + trace_check, which parses the header and reads every
 * value).  Every outcome is a reader or an error with a message. */
#include <stdint.h>
#include <stdlib.h>

#include "data/trace.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char index[] =
      "{\"format\": \"ccsim-trace\", \"version\": 1, \"workers\": 1, \"iterations\": 1, "
      "\"layers\": [{\"name\": \"g\", \"shape\": [4], \"count\": 4}], \"elements\": 4, "
      "\"files\": \"w{worker}/it{iteration}.npy\", \"source\": \"fuzz\"}\n";
  char path[160], dir[96];
  ccsim_error err = {0};
  snprintf(dir, sizeof dir, "%s/trace", fuzz_dir());
  mkdir(dir, 0700);
  snprintf(path, sizeof path, "%s/w0", dir);
  mkdir(path, 0700);
  if (data[0] & 1) {
    fuzz_write("trace/index.json", index, sizeof index - 1, path, sizeof path);
    fuzz_write("trace/w0/it0.npy", data + 1, size - 1, path, sizeof path);
  } else {
    fuzz_write("trace/index.json", data + 1, size - 1, path, sizeof path);
  }
  /* every refusal is a located, non-empty message */
  trace_reader *t = trace_open(dir, &err);
  if (!t && (!err.msg[0] || !err.file[0])) abort();
  if (t && (data[0] & 1) && trace_check(t, &err) && (!err.msg[0] || !err.file[0])) abort();
  trace_close(t);
  return 0;
}
