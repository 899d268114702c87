/* src/collectives/registry.c — the one table users select collectives from
 * (the SMPI pattern); `ccsim list collectives` prints it. */
#include <string.h>

#include "collectives/collective.h"

extern const collective_type coll_allreduce_ring, coll_allreduce_ring_recompress,
    coll_allreduce_tree, coll_allreduce_rhd, coll_allreduce_torus2d, coll_allreduce_hierarchical,
    coll_allgather_ring, coll_allgather_rd, coll_ps, coll_allreduce_sparcml,
    coll_allreduce_omnireduce;

static const collective_type *const registry[] = {
    &coll_allreduce_ring,  &coll_allreduce_ring_recompress, &coll_allreduce_tree,
    &coll_allreduce_rhd,   &coll_allreduce_torus2d,         &coll_allreduce_hierarchical,
    &coll_allgather_ring,  &coll_allgather_rd,              &coll_ps,
    /* sparse baselines (S2 Reducer's study) */
    &coll_allreduce_sparcml, &coll_allreduce_omnireduce,
};

const collective_type *const *collective_registry(size_t *count) {
  *count = sizeof registry / sizeof registry[0];
  return registry;
}

const collective_type *collective_find(const char *name) {
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const char *collective_names(void) {
  static char buf[512];
  if (buf[0]) return buf;
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
    if (i) strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
    strncat(buf, registry[i]->name, sizeof buf - strlen(buf) - 1);
  }
  return buf;
}
