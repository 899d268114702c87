/* src/sim/exec.c — the data executor: actors on coroutines, the scheduler
 * that runs them to the end of an iteration, and the iteration's trace (see
 * exec.h; comm.h's calls are in exec_comm.c, comm_work's threads in
 * exec_pool.c). */
#include "exec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "comm.h"
#include "exec_internal.h"

/* The hand-made switch of coro.h (x86-64, no sanitizer): saves the
 * callee-saved registers on the current stack and swaps stack pointers. */
#if defined(__x86_64__) && !defined(CCSIM_ASAN) && !defined(CCSIM_TSAN)
__asm__(".text\n"
        ".globl ccsim_coro_switch\n"
        ".type ccsim_coro_switch,@function\n"
        "ccsim_coro_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size ccsim_coro_switch, .-ccsim_coro_switch\n");
#endif

/* Stack of one actor: collectives and compressors keep their buffers on
 * the heap; a guard page below turns an overflow into a fault, not a
 * silent overwrite.  Reserved lazily (MAP_NORESERVE): only touched pages
 * cost memory. */
#define STACK_BYTES (1u << 20)
#define GUARD_BYTES 4096u

sim_exec *exec_now;

sim_exec *sim_exec_new(size_t max_actors, int threads, ccsim_error *err) {
  sim_exec *x = calloc(1, sizeof *x);
  if (x) {
    x->max = max_actors;
    x->actors = calloc(max_actors ? max_actors : 1, sizeof *x->actors);
    x->tr = calloc(max_actors ? max_actors : 1, sizeof *x->tr);
    x->ready = calloc(max_actors ? max_actors : 1, sizeof *x->ready);
    x->pcap = 1024;
    x->pairs = calloc(x->pcap, sizeof *x->pairs);
    x->pool.threads = threads > 1 ? threads : 1;
  }
  if (!x || !x->actors || !x->tr || !x->ready || !x->pairs) {
    sim_exec_free(x);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the data executor's %zu actors", max_actors);
    return NULL;
  }
  x->cur = -1;
  exec_now = x;
  if (exec_pool_start(x, max_actors, threads, err)) { /* what started is stopped by the free */
    sim_exec_free(x);
    return NULL;
  }
  return x;
}

void sim_exec_free(sim_exec *x) {
  if (!x) return;
  exec_pool_stop(x);
  for (size_t i = 0; i < x->max && x->actors; i++) {
    if (x->actors[i].stack) munmap(x->actors[i].stack, GUARD_BYTES + STACK_BYTES);
#ifdef CCSIM_TSAN
    if (x->actors[i].ctx.fiber) __tsan_destroy_fiber(x->actors[i].ctx.fiber);
#endif
    free(x->tr[i].ops);
    free(x->tr[i].vals);
  }
  if (x->pairs) exec_free_pairs(x);
  free(x->pairs);
  free(x->actors);
  free(x->tr);
  free(x->ready);
  free(x->sems);
  if (exec_now == x) exec_now = NULL;
  free(x);
}

void sim_exec_reset(sim_exec *x) {
  for (size_t i = 0; i < x->n; i++) {
    x->tr[i].n = x->tr[i].nv = 0;
    x->tr[i].nmarks = x->tr[i].nsends = x->tr[i].nirecvs = 0;
  }
  x->n = 0;
  x->stopped = 0;
  x->oom = NULL;
  exec_free_pairs(x);
  memset(x->pairs, 0, x->pcap * sizeof *x->pairs);
  x->pcount = 0;
  x->rhead = x->rcount = 0;
}

/* Where every actor starts; it never returns (its coroutine is dropped). */
static void entry(void) {
  actor *a = &exec_now->actors[exec_now->cur];
  a->fn(a->arg);
  a->state = DONE;
  coro_swap(&a->ctx, &exec_now->main);
  abort(); /* a finished actor is never resumed */
}

int sim_exec_spawn(sim_exec *x, int host, void (*fn)(void *), void *arg) {
  if (x->n == x->max) abort(); /* a caller's bug: more actors than it asked room for */
  const int i = (int)x->n++;
  actor *a = &x->actors[i];
  if (!a->stack) {
    a->stack = mmap(NULL, GUARD_BYTES + STACK_BYTES, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a->stack == MAP_FAILED) {
      a->stack = NULL;
      x->n--;
      return -1;
    }
    mprotect(a->stack, GUARD_BYTES, PROT_NONE);
  }
  a->fn = fn;
  a->arg = arg;
  a->wait_key = 0;
  a->wait_sem = NULL;
  a->wait_next = -1;
  coro_make(&a->ctx, (char *)a->stack + GUARD_BYTES, STACK_BYTES, entry, &x->main);
  x->tr[i].host = host;
  exec_ready_push(x, i);
  return 0;
}

/* No memory for `what`: inside an actor the iteration stops (sim_exec_run
 * reports it, with the worker); outside one, nothing can go on. */
_Noreturn void exec_out_of_memory(const char *what) {
  if (exec_now && exec_now->cur >= 0) {
    exec_now->oom = what;
    exec_now->oom_worker = exec_now->tr[exec_now->cur].host;
    comm_abort();
  }
  fprintf(stderr, "ccsim: out of memory for %s\n", what);
  exit(1);
}

int sim_exec_run(sim_exec *x, ccsim_error *err) {
  exec_now = x;
  while (x->rcount && !x->stopped) {
    const int a = x->ready[x->rhead];
    x->rhead = (x->rhead + 1) % x->max;
    x->rcount--;
    if (x->actors[a].task_pending) { /* its comm_work: done before it goes on */
      exec_pool_wait(x, a);
      x->actors[a].task_pending = 0;
    }
    x->cur = a;
    coro_swap(&x->main, &x->actors[a].ctx);
    x->cur = -1;
  }
  if (x->pool.threads > 1) { /* a stopped run may leave work in flight */
    exec_pool_wait(x, -1);
    for (size_t a = 0; a < x->n; a++) x->actors[a].task_pending = 0, x->actors[a].task_state = TASK_NONE;
  }
  if (x->stopped && x->oom)
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "worker %d: out of memory for %s", x->oom_worker, x->oom);
  if (x->stopped) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "an actor stopped the iteration");
  for (size_t a = 0; a < x->n; a++) {
    const actor *w = &x->actors[a];
    if (w->state == DONE) continue;
    if (w->wait_key)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                        "deadlock: actor %zu (worker %d) waits for message %llu from worker %d, never sent",
                        a, x->tr[a].host, (unsigned long long)w->wait_seq, (int)((w->wait_key - 1) >> 32));
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "deadlock: actor %zu (worker %d) waits on a semaphore never released",
                      a, x->tr[a].host);
  }
  for (size_t i = 0; i < x->pcap; i++)
    if (x->pairs[i].head)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "a message from worker %d to worker %d was never received",
                        (int)((x->pairs[i].key - 1) >> 32), (int)(uint32_t)(x->pairs[i].key - 1));
  for (size_t i = 0; i < x->nsems; i++)
    if (x->sems[i] && x->sems[i]->value)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "semaphore %zu ends the iteration at %d, not 0", i,
                        x->sems[i]->value);
  x->trace = (sim_trace){.actors = x->tr, .nactors = x->n, .nsems = x->nsems};
  return CCSIM_OK;
}

sim_trace *sim_exec_trace(sim_exec *x) { return &x->trace; }

void sim_trace_hash(const sim_trace *t, uint64_t h[2]) {
  uint64_t a = 0x6a09e667f3bcc908ULL ^ t->nactors, b = 0xbb67ae8584caa73bULL ^ t->nsems;
  for (size_t i = 0; i < t->nactors; i++) {
    const sim_actor_trace *s = &t->actors[i];
    a = exec_mix64(a ^ (uint64_t)s->host ^ ((uint64_t)s->n << 32));
    b = exec_mix64(b + (uint64_t)s->host * 0x9e3779b97f4a7c15ULL + s->n);
    for (size_t k = 0, j = 0; k < s->n; k++) {
      uint64_t w[2] = {0, 0};
      memcpy(&w[0], &s->ops[k], sizeof w[0]);
      if (sim_op_has_value(s->ops[k].kind)) memcpy(&w[1], &s->vals[j++], sizeof w[1]);
      a = exec_mix64(a ^ w[0]) + w[1];
      b = (b ^ exec_mix64(w[1] + 0x632be59bd9b4e019ULL)) * 0x9e3779b97f4a7c15ULL + w[0];
    }
  }
  h[0] = exec_mix64(a);
  h[1] = exec_mix64(b ^ a);
}
