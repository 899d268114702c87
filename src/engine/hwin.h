/* src/engine/hwin.h — an actor's message handles in flight, for both
 * replays (timing.c's SimGrid comms and semaphores, timing_fast.c's
 * messages).
 *
 * A trace numbers an actor's send handles (and its receive handles) in the
 * order they are made, and waits for each once, so a window [lo, hi) that
 * slides as the oldest are waited for holds every one in flight: slot
 * v[h & (cap - 1)], 0 once waited for.  Memory follows what is in flight,
 * not the actor's whole trace: at N = 16,384 a ring's actor makes 32,766
 * handles, and arrays as long as the traces were 8.6 GB. */
#ifndef CCSIM_HWIN_H
#define CCSIM_HWIN_H

#include <stdint.h>

typedef struct hwin {
  uintptr_t *v;
  uint32_t cap, lo, hi;
} hwin;

/* Handle h (the newest: h >= every handle put before) holds val (!= 0).
 * 0, or -1 without memory. */
int hwin_put(hwin *w, uint32_t h, uintptr_t val);
/* What handle h holds, now waited for (its slot emptied); 0 when h is not
 * in flight (never made, or already waited for). */
uintptr_t hwin_take(hwin *w, uint32_t h);
/* The window's memory; w is empty again. */
void hwin_free(hwin *w);

#endif
