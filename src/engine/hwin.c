/* src/engine/hwin.c — an actor's handles in flight (hwin.h). */
#include "engine/hwin.h"

#include <stdlib.h>

int hwin_put(hwin *w, uint32_t h, uintptr_t val) {
  if (h - w->lo >= w->cap) {
    uint32_t c = w->cap ? 2 * w->cap : 8;
    while (h - w->lo >= c) c *= 2;
    uintptr_t *v = calloc(c, sizeof *v);
    if (!v) return -1;
    for (uint32_t k = w->lo; k != w->hi; k++) v[k & (c - 1)] = w->v[k & (w->cap - 1)];
    free(w->v);
    w->v = v, w->cap = c;
  }
  w->v[h & (w->cap - 1)] = val;
  if (h - w->lo >= w->hi - w->lo) w->hi = h + 1;
  return 0;
}

uintptr_t hwin_take(hwin *w, uint32_t h) {
  if (h - w->lo >= w->hi - w->lo) return 0;
  const uintptr_t val = w->v[h & (w->cap - 1)];
  w->v[h & (w->cap - 1)] = 0;
  while (w->lo != w->hi && !w->v[w->lo & (w->cap - 1)]) w->lo++;
  return val;
}

void hwin_free(hwin *w) {
  free(w->v);
  *w = (hwin){0};
}
