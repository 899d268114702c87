/* src/collectives/phases.c — the rounds of a multi-phase compressor's
 * state (phases.h). */
#include "collectives/phases.h"

#include <stdlib.h>

/* fp32 payloads summed, not averaged. */
static void identity_finish(const void *state, float *y, size_t n, uint32_t workers) {
  (void)state, (void)y, (void)n, (void)workers;
}

coll_phases *coll_phases_new(size_t n) {
  coll_phases *ph = calloc(1, sizeof *ph);
  const ccomp_type *none = ccomp_find("none");
  if (!ph || !none) return free(ph), NULL;
  ph->sum_type = *none;
  ph->sum_type.name = "sum";
  ph->sum_type.finish = identity_finish;
  ph->n = n;
  ph->exact[0] = calloc(n ? n : 1, sizeof(double));
  ph->exact[1] = calloc(n ? n : 1, sizeof(double));
  ph->y = calloc(n ? n : 1, sizeof(float));
  if (!ph->exact[0] || !ph->exact[1] || !ph->y) {
    coll_phases_free(ph);
    return NULL;
  }
  return ph;
}

void coll_phases_free(coll_phases *ph) {
  if (!ph) return;
  free(ph->exact[0]);
  free(ph->exact[1]);
  free(ph->y);
  free(ph);
}
