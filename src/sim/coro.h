/* src/sim/coro.h — the data executor's coroutines: one per actor, switched
 * by hand on x86-64 and by ucontext elsewhere (internal to src/sim/exec*.c). */
#ifndef CCSIM_CORO_H
#define CCSIM_CORO_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCSIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CCSIM_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CCSIM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define CCSIM_TSAN 1
#endif

/* Switching coroutines.  On x86-64, a switch saves the callee-saved
 * registers on the current stack and swaps stack pointers: a dozen
 * instructions, where glibc's swapcontext also saves the signal mask with
 * a system call (twice per switch, millions of switches per iteration).
 * Elsewhere, and under AddressSanitizer (which follows ucontext switches
 * but not hand-made ones), ucontext. */
#if defined(__x86_64__) && !defined(CCSIM_ASAN) && !defined(CCSIM_TSAN)
typedef struct coro {
  void *sp;
} coro;
void ccsim_coro_switch(void **save_sp, void *load_sp);
/* A coroutine that starts in fn (which must never return) on stack[size]:
 * six zero registers and fn as the return address, aligned so that fn sees
 * the stack as a called function does. */
static inline void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  (void)link;
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void **sp = (void **)(top - 8 * sizeof(void *));
  for (int i = 0; i < 6; i++) sp[i] = NULL;
  sp[6] = (void *)fn;
  sp[7] = NULL;
  c->sp = sp;
}
static inline void coro_swap(coro *from, coro *to) { ccsim_coro_switch(&from->sp, to->sp); }
#elif defined(CCSIM_TSAN)
/* ThreadSanitizer is told of every switch (a fiber per coroutine), so it
 * sees one actor after another on the executor's thread, not one thread's
 * stack changing under it. */
#include <sanitizer/tsan_interface.h>
typedef struct coro {
  ucontext_t uc;
  void *fiber; /* NULL for the executor's own: the thread's fiber */
} coro;
static inline void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = &link->uc;
  makecontext(&c->uc, fn, 0);
  if (!c->fiber) c->fiber = __tsan_create_fiber(0);
}
static inline void coro_swap(coro *from, coro *to) {
  if (!from->fiber) from->fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(to->fiber, 0);
  swapcontext(&from->uc, &to->uc);
}
#else
typedef ucontext_t coro;
static inline void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  getcontext(c);
  c->uc_stack.ss_sp = stack;
  c->uc_stack.ss_size = size;
  c->uc_link = link;
  makecontext(c, fn, 0);
}
static inline void coro_swap(coro *from, coro *to) { swapcontext(from, to); }
#endif

#endif
