/* src/sim/memo.c — a small table of iteration timings (see memo.h). */
#include "sim/memo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
  uint64_t h[2];
  size_t nmarks;
  double *marks; /* NULL: empty */
} entry;

struct sim_memo {
  entry *e;
  size_t cap, next; /* next: the slot the next new timing replaces */
};

sim_memo *sim_memo_new(size_t entries) {
  sim_memo *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->cap = entries ? entries : 1;
  m->e = calloc(m->cap, sizeof *m->e);
  if (!m->e) {
    free(m);
    return NULL;
  }
  return m;
}

void sim_memo_free(sim_memo *m) {
  if (!m) return;
  for (size_t i = 0; i < m->cap; i++) free(m->e[i].marks);
  free(m->e);
  free(m);
}

/* A handful of distinct traces per run (one, or one per schedule tried):
 * a linear scan is the fastest lookup there is. */
const double *sim_memo_find(const sim_memo *m, const uint64_t h[2], size_t nmarks) {
  for (size_t i = 0; i < m->cap; i++) {
    const entry *x = &m->e[i];
    if (x->marks && x->h[0] == h[0] && x->h[1] == h[1] && x->nmarks == nmarks) return x->marks;
  }
  return NULL;
}

int sim_memo_put(sim_memo *m, const uint64_t h[2], const double *marks, size_t nmarks, ccsim_error *err) {
  double *copy = nmarks <= SIZE_MAX / sizeof *copy ? malloc((nmarks ? nmarks : 1) * sizeof *copy) : NULL;
  if (!copy) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the memo of a timing (%zu marks)", nmarks);
  memcpy(copy, marks, nmarks * sizeof *copy);
  entry *x = &m->e[m->next];
  free(x->marks);
  *x = (entry){.h = {h[0], h[1]}, .nmarks = nmarks, .marks = copy};
  m->next = (m->next + 1) % m->cap;
  return 0;
}
