/* compressors/registry.c — the one table of compressors and memories.
 * A compressor is registered by adding its descriptor here; the generic test
 * (tests/test_compressors.c) then covers it. */
#include <string.h>

#include "ccomp/compressor.h"
#include "ccomp/memory.h"

extern const ccomp_type ccomp_none, ccomp_fp16;
/* sparsifiers, sketches, low rank */
extern const ccomp_type ccomp_topk, ccomp_randomk, ccomp_threshold, ccomp_dgc, ccomp_sbc,
    ccomp_stc, ccomp_s2_sketch, ccomp_powersgd;
/* quantizers and sign methods */
extern const ccomp_type ccomp_bf16, ccomp_signsgd, ccomp_ef_signsgd, ccomp_signum, ccomp_onebit,
    ccomp_terngrad, ccomp_qsgd, ccomp_natural, ccomp_global_qsgd, ccomp_marsit, ccomp_sign_ring;

static const ccomp_type *const registry[] = {
    &ccomp_none,
    &ccomp_fp16,
    /* sparsifiers, sketches, low rank */
    &ccomp_topk,
    &ccomp_randomk,
    &ccomp_threshold,
    &ccomp_dgc,
    &ccomp_sbc,
    &ccomp_stc,
    &ccomp_s2_sketch,
    &ccomp_powersgd,
    /* end sparsifiers, sketches, low rank */
    /* quantizers and sign methods */
    &ccomp_bf16,
    &ccomp_signsgd,
    &ccomp_ef_signsgd,
    &ccomp_signum,
    &ccomp_onebit,
    &ccomp_terngrad,
    &ccomp_qsgd,
    &ccomp_natural,
    &ccomp_global_qsgd,
    &ccomp_marsit,
    &ccomp_sign_ring,
    /* end quantizers and sign methods */
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
extern const ccomp_memory_type ccomp_memory_dgc; /* sparsifiers, sketches, low rank */
/* quantizers and sign methods */
extern const ccomp_memory_type ccomp_memory_ef_sign, ccomp_memory_marsit;

static const ccomp_memory_type *const memories[] = {
    &ccomp_memory_residual,
    &ccomp_memory_dgc, /* sparsifiers, sketches, low rank */
    &ccomp_memory_ef_sign, /* quantizers and sign methods */
    &ccomp_memory_marsit,  /* quantizers and sign methods */
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
