/* compressors/registry.c — the one table of compressors and memories.
 * A compressor is registered by adding its descriptor here; the generic test
 * (tests/test_compressors.c) then covers it. */
#include <string.h>

#include "compressor.h"
#include "memory.h"

extern const ccomp_type ccomp_none, ccomp_fp16;

static const ccomp_type *const registry[] = {
    &ccomp_none,
    &ccomp_fp16,
};

const ccomp_type *const *ccomp_registry(size_t *count) {
  *count = sizeof registry / sizeof registry[0];
  return registry;
}

const ccomp_type *ccomp_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const char *ccomp_names(void) {
  static char buf[1024];
  if (buf[0]) return buf;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (i) strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
    strncat(buf, registry[i]->name, sizeof buf - strlen(buf) - 1);
  }
  return buf;
}

extern const ccomp_memory_type ccomp_memory_residual;

static const ccomp_memory_type *const memories[] = {
    &ccomp_memory_residual,
};

const ccomp_memory_type *const *ccomp_memory_registry(size_t *count) {
  *count = sizeof memories / sizeof memories[0];
  return memories;
}

const ccomp_memory_type *ccomp_memory_find(const char *name) {
  for (size_t i = 0; i < sizeof memories / sizeof memories[0]; i++)
    if (strcmp(memories[i]->name, name) == 0) return memories[i];
  return NULL;
}

const char *ccomp_memory_names(void) {
  static char buf[512];
  if (buf[0]) return buf;
  strcpy(buf, "none");
  for (size_t i = 0; i < sizeof memories / sizeof memories[0]; i++) {
    strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
    strncat(buf, memories[i]->name, sizeof buf - strlen(buf) - 1);
  }
  return buf;
}
