/* tests/fuzz/fuzz_experiment.c — experiment_load on a fuzzed experiment
 * file and --set overrides.  The input is the JSON document, then, after a
 * line "--set", one PATH=VALUE per line (corpus files without that line are
 * plain experiment files).  Every outcome must be an experiment or an error
 * with a message; nothing may crash or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  size_t doc = size;
  char *sets[16];
  int nsets = 0;
  char *mark = memmem(text, size, "\n--set\n", 7);
  if (mark) {
    doc = (size_t)(mark - text);
    char *line = mark + 7, *save = NULL;
    for (char *l = strtok_r(line, "\n", &save); l && nsets < 16; l = strtok_r(NULL, "\n", &save))
      sets[nsets++] = l;
  }
  char path[128];
  fuzz_write("experiment.json", text, doc, path, sizeof path);
  ccsim_error err = {0};
  experiment *e = experiment_load(path, sets, nsets, &err);
  if (!e && !err.msg[0]) abort(); /* a refusal always says why */
  experiment_free(e);
  free(text);
  return 0;
}
