/* src/sim/exec.c — the data executor: coroutines, in-memory mailboxes, and
 * the iteration's trace (see exec.h and comm.h). */
#include "exec.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "comm.h"
#include "progress.h"

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
/* A coroutine that starts in fn (which must never return) on stack[size]:
 * six zero registers and fn as the return address, aligned so that fn sees
 * the stack as a called function does. */
static void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  (void)link;
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void **sp = (void **)(top - 8 * sizeof(void *));
  for (int i = 0; i < 6; i++) sp[i] = NULL;
  sp[6] = (void *)fn;
  sp[7] = NULL;
  c->sp = sp;
}
static void coro_swap(coro *from, coro *to) { ccsim_coro_switch(&from->sp, to->sp); }
#elif defined(CCSIM_TSAN)
/* ThreadSanitizer is told of every switch (a fiber per coroutine), so it
 * sees one actor after another on the executor's thread, not one thread's
 * stack changing under it. */
#include <sanitizer/tsan_interface.h>
typedef struct coro {
  ucontext_t uc;
  void *fiber; /* NULL for the executor's own: the thread's fiber */
} coro;
static void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = &link->uc;
  makecontext(&c->uc, fn, 0);
  if (!c->fiber) c->fiber = __tsan_create_fiber(0);
}
static void coro_swap(coro *from, coro *to) {
  if (!from->fiber) from->fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(to->fiber, 0);
  swapcontext(&from->uc, &to->uc);
}
#else
typedef ucontext_t coro;
static void coro_make(coro *c, void *stack, size_t size, void (*fn)(void), coro *link) {
  getcontext(c);
  c->uc_stack.ss_sp = stack;
  c->uc_stack.ss_size = size;
  c->uc_link = link;
  makecontext(c, fn, 0);
}
static void coro_swap(coro *from, coro *to) { swapcontext(from, to); }
#endif

/* Stack of one actor: collectives and compressors keep their buffers on
 * the heap; a guard page below turns an overflow into a fault, not a
 * silent overwrite.  Reserved lazily (MAP_NORESERVE): only touched pages
 * cost memory. */
#define STACK_BYTES (1u << 20)
#define GUARD_BYTES 4096u

enum { READY, BLOCKED, DONE };

typedef struct msg_node {
  uint64_t seq;
  void *payload;
  struct msg_node *next;
} msg_node;

/* Messages from src to dst: the k-th send matches the k-th receive posted. */
typedef struct pair {
  uint64_t key; /* (src << 32 | dst) + 1; 0: empty slot */
  uint64_t sent, posted;
  msg_node *head, *tail; /* sent, not yet received, in seq order */
  int waiter;            /* 1 + the actor blocked on message wait_seq, or 0 */
  uint64_t wait_seq;
} pair;

typedef struct actor {
  coro ctx;
  void *stack; /* mmap'ed: GUARD_BYTES + STACK_BYTES */
  void (*fn)(void *);
  void *arg;
  int state;
  /* what a blocked actor waits for: message wait_seq of pair wait_key, or
   * a semaphore */
  uint64_t wait_key, wait_seq;
  void *got;
  struct comm_sem *wait_sem;
  int wait_next; /* next actor waiting on the same semaphore, -1 */
  /* comm_work: the actor's one piece of work in flight (task_state under
   * the pool's lock) */
  void (*task_fn)(void *, int);
  void *task_arg;
  int task_state;
  int task_pending; /* the executor's own note: work was handed over (no lock) */
} actor;

enum { TASK_NONE, TASK_QUEUED, TASK_RUNNING, TASK_DONE };

/* The work threads of comm_work: threads - 1 of them beside the executor's
 * own; a FIFO of actors whose work is queued (each actor has at most one
 * piece in flight, so max_actors slots suffice). */
typedef struct pool {
  int threads; /* 1: no pool, work runs where it is asked for */
  pthread_t *tid;
  int started;
  pthread_mutex_t lock;
  pthread_cond_t work, done;
  int *q;
  size_t qhead, qcount, outstanding;
  int quit;
} pool;

struct comm_sem {
  uint32_t id;
  int value;
  int head, tail; /* waiting actors, -1 when none */
};

struct comm_rreq {
  int src, dst;
  uint64_t seq;
  uint32_t handle;
};

struct sim_exec {
  actor *actors;
  sim_actor_trace *tr;
  size_t max, n;
  int cur;
  int *ready; /* ring of actor indices, capacity max */
  size_t rhead, rcount;
  pair *pairs;
  size_t pcap, pcount;
  comm_sem **sems;
  size_t nsems, semcap;
  int stopped; /* comm_abort was called */
  const char *oom;  /* what found no memory (the iteration stops) */
  int oom_worker;
  sim_trace trace;
  coro main;
  pool pool;
};

static sim_exec *X; /* the executor the comm.h calls act on */

/* A work thread: runs queued work until the executor goes away.  Each
 * piece touches only what its actor owns (comm.h), so the order in which
 * threads take them changes nothing. */
static void *pool_main(void *arg);

typedef struct pool_arg {
  sim_exec *x;
  int index;
} pool_arg;

static pool_arg *pool_args;

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
  X = x;
  pool *p = &x->pool;
  if (p->threads > 1) {
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->q = calloc(max_actors ? max_actors : 1, sizeof *p->q);
    p->tid = calloc((size_t)p->threads, sizeof *p->tid);
    pool_args = calloc((size_t)p->threads, sizeof *pool_args);
    if (!p->q || !p->tid || !pool_args) {
      sim_exec_free(x);
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %d threads", threads);
      return NULL;
    }
    for (int i = 1; i < p->threads; i++) {
      pool_args[i] = (pool_arg){x, i};
      if (pthread_create(&p->tid[i], NULL, pool_main, &pool_args[i])) {
        sim_exec_free(x);
        ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot start thread %d of %d", i + 1, threads);
        return NULL;
      }
      p->started = i;
    }
  }
  return x;
}

static void free_pairs(sim_exec *x) {
  for (size_t i = 0; i < x->pcap; i++)
    for (msg_node *m = x->pairs[i].head, *nx; m; m = nx) {
      nx = m->next;
      free(m);
    }
}

void sim_exec_free(sim_exec *x) {
  if (!x) return;
  pool *p = &x->pool;
  if (p->threads > 1) {
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 1; i <= p->started; i++) pthread_join(p->tid[i], NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->q);
    free(p->tid);
    free(pool_args);
    pool_args = NULL;
  }
  for (size_t i = 0; i < x->max && x->actors; i++) {
    if (x->actors[i].stack) munmap(x->actors[i].stack, GUARD_BYTES + STACK_BYTES);
#ifdef CCSIM_TSAN
    if (x->actors[i].ctx.fiber) __tsan_destroy_fiber(x->actors[i].ctx.fiber);
#endif
    free(x->tr[i].ops);
    free(x->tr[i].vals);
  }
  if (x->pairs) free_pairs(x);
  free(x->pairs);
  free(x->actors);
  free(x->tr);
  free(x->ready);
  free(x->sems);
  if (X == x) X = NULL;
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
  free_pairs(x);
  memset(x->pairs, 0, x->pcap * sizeof *x->pairs);
  x->pcount = 0;
  x->rhead = x->rcount = 0;
}

static _Noreturn void out_of_memory(const char *what);

static void ready_push(sim_exec *x, int a) {
  x->ready[(x->rhead + x->rcount++) % x->max] = a;
  x->actors[a].state = READY;
}

/* Where every actor starts; it never returns (its coroutine is dropped). */
static void entry(void) {
  actor *a = &X->actors[X->cur];
  a->fn(a->arg);
  a->state = DONE;
  coro_swap(&a->ctx, &X->main);
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
  ready_push(x, i);
  return 0;
}

/* No memory for `what`: inside an actor the iteration stops (sim_exec_run
 * reports it, with the worker); outside one, nothing can go on. */
static _Noreturn void out_of_memory(const char *what) {
  if (X && X->cur >= 0) {
    X->oom = what;
    X->oom_worker = X->tr[X->cur].host;
    comm_abort();
  }
  fprintf(stderr, "ccsim: out of memory for %s\n", what);
  exit(1);
}

/* Append an operation to the current actor's trace. */
static void record(unsigned kind, int peer, uint32_t aux, double v) {
  sim_actor_trace *t = &X->tr[X->cur];
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    sim_op *ops = realloc(t->ops, t->cap * sizeof *t->ops);
    if (!ops) out_of_memory("the iteration's trace");
    t->ops = ops;
  }
  t->ops[t->n++] = (sim_op){.kind = kind, .peer = (uint32_t)peer, .aux = aux};
  if (!sim_op_has_value(kind)) return;
  if (t->nv == t->vcap) {
    t->vcap = t->vcap ? 2 * t->vcap : 128;
    double *vals = realloc(t->vals, t->vcap * sizeof *t->vals);
    if (!vals) out_of_memory("the iteration's trace");
    t->vals = vals;
  }
  t->vals[t->nv++] = v;
}

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void pairs_grow(sim_exec *x);

/* The mailbox of (src, dst), made on first use. */
static pair *pair_of(int src, int dst) {
  sim_exec *x = X;
  if (2 * (x->pcount + 1) > x->pcap) pairs_grow(x);
  const uint64_t key = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) + 1;
  for (size_t i = mix64(key) & (x->pcap - 1);; i = (i + 1) & (x->pcap - 1)) {
    pair *p = &x->pairs[i];
    if (p->key == key) return p;
    if (!p->key) {
      p->key = key;
      x->pcount++;
      return p;
    }
  }
}

/* Pairs move when the table grows: nobody keeps a pointer to one across a
 * call that can grow it (blocked actors and posted receives keep keys). */
static void pairs_grow(sim_exec *x) {
  pair *old = x->pairs;
  const size_t ocap = x->pcap;
  x->pcap *= 2;
  x->pairs = calloc(x->pcap, sizeof *x->pairs);
  if (!x->pairs) out_of_memory("the message table");
  for (size_t i = 0; i < ocap; i++) {
    if (!old[i].key) continue;
    size_t j = mix64(old[i].key) & (x->pcap - 1);
    while (x->pairs[j].key) j = (j + 1) & (x->pcap - 1);
    x->pairs[j] = old[i];
  }
  free(old);
}

/* Block the current actor until the scheduler resumes it. */
static void block(void) {
  actor *a = &X->actors[X->cur];
  a->state = BLOCKED;
  coro_swap(&a->ctx, &X->main);
}

/* Take message seq of p, waiting for it if it has not been sent yet. */
static void *take(pair *p, uint64_t seq) {
  msg_node **pp = &p->head;
  while (*pp && (*pp)->seq != seq) pp = &(*pp)->next;
  if (!*pp) {
    actor *a = &X->actors[X->cur];
    p->waiter = X->cur + 1;
    p->wait_seq = seq;
    a->wait_key = p->key;
    a->wait_seq = seq;
    block(); /* p may have moved meanwhile: not used again */
    a->wait_key = 0;
    return a->got;
  }
  msg_node *m = *pp;
  *pp = m->next;
  if (p->tail == m) {
    p->tail = NULL;
    for (msg_node *t = p->head; t; t = t->next) p->tail = t;
  }
  void *payload = m->payload;
  free(m);
  return payload;
}

static void deliver(int src, int dst, void *msg) {
  pair *p = pair_of(src, dst);
  const uint64_t seq = p->sent++;
  if (p->waiter && p->wait_seq == seq) {
    const int a = p->waiter - 1;
    p->waiter = 0;
    X->actors[a].got = msg;
    ready_push(X, a);
    return;
  }
  msg_node *m = malloc(sizeof *m);
  if (!m) out_of_memory("a message");
  *m = (msg_node){.seq = seq, .payload = msg};
  if (p->tail) p->tail->next = m;
  else p->head = m;
  p->tail = m;
}

comm_req *comm_isend(int src, int dst, void *msg, double bytes) {
  const uint32_t h = X->tr[X->cur].nsends++;
  record(SIM_SEND, dst, h, bytes);
  progress_tick();
  deliver(src, dst, msg);
  return (comm_req *)(uintptr_t)(h + 1);
}

void comm_wait(comm_req *req) { record(SIM_WAIT, 0, (uint32_t)((uintptr_t)req - 1), 0); }

void comm_send(int src, int dst, void *msg, double bytes) { comm_wait(comm_isend(src, dst, msg, bytes)); }

void *comm_recv(int src, int dst) {
  record(SIM_RECV, src, 0, 0);
  pair *p = pair_of(src, dst);
  return take(p, p->posted++);
}

comm_rreq *comm_irecv(int src, int dst) {
  comm_rreq *r = malloc(sizeof *r);
  if (!r) out_of_memory("a posted receive");
  r->src = src;
  r->dst = dst;
  r->seq = pair_of(src, dst)->posted++;
  r->handle = X->tr[X->cur].nirecvs++;
  record(SIM_IRECV, src, r->handle, 0);
  return r;
}

void *comm_wait_recv(comm_rreq *r) {
  record(SIM_WAITRECV, 0, r->handle, 0);
  /* by key: the table may have grown since the receive was posted */
  pair *p = pair_of(r->src, r->dst);
  const uint64_t seq = r->seq;
  free(r);
  return take(p, seq);
}

void comm_sleep(double d) { record(SIM_SLEEP, 0, 0, d); }

void comm_execute(double d) {
  if (d > 0) record(SIM_EXEC, 0, 0, d);
}

void comm_abort(void) {
  X->stopped = 1;
  block();
  abort(); /* a stopped executor never resumes its actors */
}

uint32_t comm_mark(void) {
  const uint32_t m = X->tr[X->cur].nmarks++;
  record(SIM_MARK, 0, m, 0);
  return m;
}

comm_sem *comm_sem_new(void) {
  comm_sem *s = calloc(1, sizeof *s);
  if (!s) out_of_memory("a semaphore");
  if (X->nsems == X->semcap) {
    X->semcap = X->semcap ? 2 * X->semcap : 64;
    comm_sem **sems = realloc(X->sems, X->semcap * sizeof *X->sems);
    if (!sems) out_of_memory("the semaphores");
    X->sems = sems;
  }
  s->id = (uint32_t)X->nsems;
  X->sems[X->nsems++] = s;
  s->head = s->tail = -1;
  return s;
}

void comm_sem_acquire(comm_sem *s) {
  record(SIM_ACQUIRE, 0, s->id, 0);
  if (s->value > 0) {
    s->value--;
    return;
  }
  actor *a = &X->actors[X->cur];
  a->wait_sem = s;
  a->wait_next = -1;
  if (s->tail >= 0) X->actors[s->tail].wait_next = X->cur;
  else s->head = X->cur;
  s->tail = X->cur;
  block(); /* the releaser handed its unit straight to us */
  a->wait_sem = NULL;
}

void comm_sem_release(comm_sem *s) {
  record(SIM_RELEASE, 0, s->id, 0);
  if (s->head < 0) {
    s->value++;
    return;
  }
  const int a = s->head;
  s->head = X->actors[a].wait_next;
  if (s->head < 0) s->tail = -1;
  ready_push(X, a);
}

void comm_sem_free(comm_sem *s) {
  if (!s) return;
  if (X && s->id < X->nsems && X->sems[s->id] == s) X->sems[s->id] = NULL;
  free(s);
}

/* The oldest queued piece of work's actor (the pool's lock held). */
static int pool_pop(sim_exec *x) {
  pool *p = &x->pool;
  const int a = p->q[p->qhead];
  p->qhead = (p->qhead + 1) % x->max;
  p->qcount--;
  return a;
}

/* Run actor a's work on thread `index`; the pool's lock is held on entry
 * and on return, not while the work runs. */
static void pool_run(sim_exec *x, int a, int index) {
  actor *w = &x->actors[a];
  w->task_state = TASK_RUNNING;
  pthread_mutex_unlock(&x->pool.lock);
  w->task_fn(w->task_arg, index);
  pthread_mutex_lock(&x->pool.lock);
  w->task_state = TASK_DONE;
  x->pool.outstanding--;
  pthread_cond_broadcast(&x->pool.done);
}

static void *pool_main(void *arg) {
  const pool_arg *pa = arg;
  sim_exec *x = pa->x;
  pool *p = &x->pool;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->qcount && !p->quit) pthread_cond_wait(&p->work, &p->lock);
    if (p->quit) break;
    pool_run(x, pool_pop(x), pa->index);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

/* Wait until actor a's work is done (a < 0: all work), running queued
 * work on this thread meanwhile rather than idling. */
static void pool_wait(sim_exec *x, int a) {
  pool *p = &x->pool;
  pthread_mutex_lock(&p->lock);
  while (a >= 0 ? x->actors[a].task_state != TASK_DONE : p->outstanding > 0) {
    if (p->qcount) pool_run(x, pool_pop(x), 0);
    else pthread_cond_wait(&p->done, &p->lock);
  }
  if (a >= 0) x->actors[a].task_state = TASK_NONE;
  pthread_mutex_unlock(&p->lock);
}

int comm_threads(void) { return X ? X->pool.threads : 1; }

void comm_work(void (*fn)(void *arg, int thread), void *arg, size_t elements) {
  sim_exec *x = X;
  if (elements < COMM_WORK_MIN) { /* not worth a switch: here, now */
    fn(arg, 0);
    return;
  }
  const int me = x->cur;
  actor *a = &x->actors[me];
  pool *p = &x->pool;
  if (p->threads > 1) {
    pthread_mutex_lock(&p->lock);
    a->task_fn = fn;
    a->task_arg = arg;
    a->task_state = TASK_QUEUED;
    a->task_pending = 1;
    p->q[(p->qhead + p->qcount++) % x->max] = me;
    p->outstanding++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->lock);
  } else {
    fn(arg, 0); /* one thread: the same switch below, so the same order of steps */
  }
  /* back of the ready queue, as if it had blocked and been woken at once:
   * the sequence of steps does not depend on the thread count */
  ready_push(x, me);
  coro_swap(&a->ctx, &x->main);
}

int sim_exec_run(sim_exec *x, ccsim_error *err) {
  X = x;
  while (x->rcount && !x->stopped) {
    const int a = x->ready[x->rhead];
    x->rhead = (x->rhead + 1) % x->max;
    x->rcount--;
    if (x->actors[a].task_pending) { /* its comm_work: done before it goes on */
      pool_wait(x, a);
      x->actors[a].task_pending = 0;
    }
    x->cur = a;
    coro_swap(&x->main, &x->actors[a].ctx);
    x->cur = -1;
  }
  if (x->pool.threads > 1) { /* a stopped run may leave work in flight */
    pool_wait(x, -1);
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
    a = mix64(a ^ (uint64_t)s->host ^ ((uint64_t)s->n << 32));
    b = mix64(b + (uint64_t)s->host * 0x9e3779b97f4a7c15ULL + s->n);
    for (size_t k = 0, j = 0; k < s->n; k++) {
      uint64_t w[2] = {0, 0};
      memcpy(&w[0], &s->ops[k], sizeof w[0]);
      if (sim_op_has_value(s->ops[k].kind)) memcpy(&w[1], &s->vals[j++], sizeof w[1]);
      a = mix64(a ^ w[0]) + w[1];
      b = (b ^ mix64(w[1] + 0x632be59bd9b4e019ULL)) * 0x9e3779b97f4a7c15ULL + w[0];
    }
  }
  h[0] = mix64(a);
  h[1] = mix64(b ^ a);
}
