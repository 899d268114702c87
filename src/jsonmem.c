/* src/jsonmem.c — jansson's allocations, counted (jsonmem.h). */
#include "jsonmem.h"

#include <jansson.h>
#include <stdlib.h>

static unsigned long denied;
static void (*refused)(size_t);

static void *counted_malloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    __atomic_fetch_add(&denied, 1, __ATOMIC_RELAXED);
    void (*fn)(size_t) = __atomic_load_n(&refused, __ATOMIC_ACQUIRE);
    if (fn) fn(n);
  }
  return p;
}

unsigned long jsonmem_denied(void) {
  static int installed;
  if (!__atomic_exchange_n(&installed, 1, __ATOMIC_RELAXED)) json_set_alloc_funcs(counted_malloc, free);
  return __atomic_load_n(&denied, __ATOMIC_RELAXED);
}

void jsonmem_on_refusal(void (*fn)(size_t)) { __atomic_store_n(&refused, fn, __ATOMIC_RELEASE); }
