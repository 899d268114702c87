/* src/sim/exec.c — the data executor: actors on coroutines, the lanes
 * (system threads) that run them to the end of an iteration, and the
 * iteration's trace (see exec.h; comm.h's calls are in exec_comm.c). */
#include "sim/exec.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "comm/comm.h"
#include "hostclock.h"
#include "threadstart.h"
#include "sim/exec_internal.h"

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
 * cost memory.  A guard page splits the mapping in two, and
 * vm.max_map_count (65,530 by default) caps the maps of a process: where
 * 2 a stack do not fit (the resource estimate decides, the run says so:
 * sim_exec_guard_pages) a stack has no guard page but a margin: its lowest SOFT_MARGIN
 * bytes are never part of the coroutine's stack, and a pattern at the top
 * of them is checked each time the actor gives its lane back, so an
 * overflow of less than the margin ends the run with a message, not with
 * another actor's stack overwritten.  (A frame that skips the whole margin
 * without writing to its top would go unseen: the collectives' frames are
 * small, their buffers on the heap.)  The mappings, all alike, then merge. */
#define STACK_BYTES (1u << 20)
#define GUARD_BYTES 4096u
#define SOFT_MARGIN (64u << 10)
enum { CANARY_WORDS = 8 };

static uint64_t *canary_of(void *stack) { return (uint64_t *)((char *)stack + SOFT_MARGIN) - CANARY_WORDS; }
static uint64_t canary_word(const uint64_t *w) { return 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)w; }
static void canary_set(void *stack) {
  uint64_t *w = canary_of(stack);
  for (int i = 0; i < CANARY_WORDS; i++) w[i] = canary_word(&w[i]);
}
/* The page holding p made present and writable in one call, before its
 * first write: a new stack's top (coro_make's frame) and, without a guard
 * page, its margin's pattern.  `meson test --benchmark pagetouch` on a
 * 2-core VM: a first write to pages 1 MiB apart took 20-23 us a page, the
 * madvise and then the write 12-14 together; only a stack's top page is
 * ever written, and a 1024-worker run's 2,048 spawns took 42-45 ms instead
 * of 47-52 (six pairs, bench/README.md, nineteenth round).  A kernel before 5.14
 * refuses the advice: the page then faults in at its first write. */
static void prefault(sim_exec *x, void *p) {
#ifdef MADV_POPULATE_WRITE
  if (x->no_populate) return;
  void *page = (void *)((uintptr_t)p & ~(uintptr_t)(GUARD_BYTES - 1));
  if (madvise(page, GUARD_BYTES, MADV_POPULATE_WRITE) != 0 && errno == EINVAL) x->no_populate = 1;
#else
  (void)x, (void)p;
#endif
}

static int canary_intact(void *stack) {
  const uint64_t *w = canary_of(stack);
  uint64_t bad = 0;
  for (int i = 0; i < CANARY_WORDS; i++) bad |= w[i] ^ canary_word(&w[i]);
  return !bad;
}

sim_exec *exec_now;
__thread lane *exec_lane;
__thread int exec_cur = -1;

static void *lane_thread(void *arg);

sim_exec *sim_exec_new(size_t max_actors, int threads, ccsim_error *err) {
  sim_exec *x = calloc(1, sizeof *x);
  const size_t m = max_actors ? max_actors : 1;
  if (x) {
    x->max = max_actors;
    x->guarded = 1;
    x->threads = threads > 1 ? threads : 1;
    x->actors = calloc(m, sizeof *x->actors);
    x->tr = calloc(m, sizeof *x->tr);
    x->cut = calloc((size_t)x->threads, sizeof *x->cut);
    x->lanes = aligned_alloc(_Alignof(lane), (size_t)x->threads * sizeof *x->lanes);
    if (x->lanes) memset(x->lanes, 0, (size_t)x->threads * sizeof *x->lanes);
    for (int l = 0; x->lanes && l < x->threads; l++)
      if (!(x->lanes[l].ready = calloc(m, sizeof *x->lanes[l].ready))) x->threads = l; /* freed below */
  }
  if (!x || !x->actors || !x->tr || !x->cut || !x->lanes || x->threads < (threads > 1 ? threads : 1)) {
    sim_exec_free(x);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for the data executor's %zu actors", max_actors);
    return NULL;
  }
  pthread_mutex_init(&x->sem_lock, NULL);
  pthread_mutex_init(&x->run_lock, NULL);
  pthread_cond_init(&x->run_cond, NULL);
  pthread_cond_init(&x->done_cond, NULL);
  for (int l = 0; l < x->threads; l++) {
    lane *ln = &x->lanes[l];
    ln->x = x;
    ln->index = l;
    pthread_mutex_init(&ln->lock, NULL);
    pthread_cond_init(&ln->cond, NULL);
  }
  exec_now = x;
  exec_lane = &x->lanes[0];
  for (int l = 1; l < x->threads; l++) {
    if (thread_start(&x->lanes[l].tid, lane_thread, &x->lanes[l])) {
      sim_exec_free(x);
      ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot start thread %d of %d", l + 1, threads);
      return NULL;
    }
    x->started = l;
  }
  return x;
}

void sim_exec_free(sim_exec *x) {
  if (!x) return;
  if (x->started) {
    pthread_mutex_lock(&x->run_lock);
    x->quit = 1;
    pthread_cond_broadcast(&x->run_cond);
    pthread_mutex_unlock(&x->run_lock);
    for (int l = 1; l <= x->started; l++) pthread_join(x->lanes[l].tid, NULL);
  }
  if (x->slab) munmap(x->slab, x->max * (size_t)(GUARD_BYTES + STACK_BYTES));
  for (size_t i = 0; i < x->max && x->actors; i++) {
    if (x->actors[i].stack && !x->slab) munmap(x->actors[i].stack, GUARD_BYTES + STACK_BYTES);
#ifdef CCSIM_TSAN
    if (x->actors[i].ctx.fiber) __tsan_destroy_fiber(x->actors[i].ctx.fiber);
#endif
  }
  for (size_t i = 0; i < x->max && x->tr; i++) sim_actor_trace_release(&x->tr[i]);
  exec_inboxes_free(x);
  for (int l = 0; x->lanes && l < x->threads; l++) free(x->lanes[l].ready);
  free(x->lanes);
  free(x->cut);
  free(x->rank_lane);
  free(x->actors);
  free(x->tr);
  free(x->sems);
  free(x->ubars);
  if (exec_now == x) exec_now = NULL;
  exec_lane = NULL;
  free(x);
}

void sim_exec_reset(sim_exec *x) {
  for (size_t i = 0; i < x->n; i++) {
    if (x->tr[i].n) x->tr[i].hint = x->tr[i].n; /* the room its next array starts with */
    x->tr[i].n = x->tr[i].nv = 0;
    x->tr[i].nmarks = x->tr[i].nsends = x->tr[i].nirecvs = 0;
    x->tr[i].digested = 0;
    x->tr[i].ref_ops = NULL, x->tr[i].ref_n = 0;
    x->tr[i].step0 = x->tr[i].blk0 = x->tr[i].blen = x->tr[i].rep_i = 0;
    x->tr[i].reps = x->tr[i].misses = 0, x->tr[i].repeating = 0;
  }
  x->n = 0;
  x->nubars = 0;
  atomic_store(&x->stopped, 0);
  exec_inboxes_reset(x, 0); /* messages a stopped run left behind */
}

/* Actor trace s's part of sim_trace_hash: its host, its length, its words
 * (under a reference, the reference's) and its values.  The words are a
 * function of the operations (a value the word cannot hold is indexed the
 * same way whenever the same values come in the same order), so two traces
 * hash alike when their operations are the same.  Four independent chains
 * over 32 bytes at a time: the mixes' multiplications overlap instead of
 * waiting on each other (a chain per decoded operation took 4 ns an
 * operation, 3% of a sampled 1024-worker ring). */
static void actor_digest(sim_actor_trace *s) {
  const sim_word *w = s->ref_ops ? s->ref_ops : s->ops;
  const size_t n = s->n;
  uint64_t h[4] = {0x6a09e667f3bcc908ULL ^ (uint64_t)s->host ^ ((uint64_t)n << 32),
                   0xbb67ae8584caa73bULL + (uint64_t)s->host * 0x9e3779b97f4a7c15ULL + n,
                   0x3c6ef372fe94f82bULL ^ (uint64_t)s->nv, 0xa54ff53a5f1d36f1ULL};
  size_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (int j = 0; j < 4; j++) {
      uint64_t x;
      memcpy(&x, w + k + 2 * j, sizeof x);
      h[j] = exec_mix64(h[j] ^ x) + x;
    }
  for (int j = 0; k < n; k++, j = (j + 1) & 3) h[j] = exec_mix64(h[j] ^ w[k] ^ 0x100000000ULL) + w[k];
  for (size_t i = 0; i < s->nv; i++) {
    uint64_t x;
    memcpy(&x, &s->vals[i], sizeof x);
    h[i & 3] = exec_mix64(h[i & 3] ^ x ^ 0x200000000ULL) + x;
  }
  s->dg[0] = exec_mix64(h[0] ^ exec_mix64(h[1] + 0x632be59bd9b4e019ULL));
  s->dg[1] = exec_mix64(h[2] ^ exec_mix64(h[3] + 0x9e3779b97f4a7c15ULL) ^ s->dg[0]);
  s->digested = 1;
}

/* Where every actor starts; it never returns (its coroutine is dropped). */
static void entry(void) {
  sim_exec *x = exec_now;
  actor *a = &x->actors[exec_cur];
  a->fn(a->arg);
  if (exec_trace_settle(&x->tr[exec_cur])) exec_out_of_memory("the iteration's trace");
  actor_digest(&x->tr[exec_cur]); /* on this lane, while the others run */
  a->state = DONE;
  exec_switch_out(x);
  abort(); /* a finished actor is never resumed */
}

void sim_exec_guard_pages(sim_exec *x, int on) { x->guarded = on; }

int sim_exec_spawn(sim_exec *x, int host, void (*fn)(void *), void *arg) {
  if (x->n == x->max) abort(); /* a caller's bug: more actors than it asked room for */
  const int i = (int)x->n++;
  actor *a = &x->actors[i];
  if (!a->stack) {
    /* every actor's stack in one mapping, made at the first spawn: one
     * munmap at the end instead of one a stack (2,048 of them took 110 ms,
     * under strace, at the end of a 1024-worker run); the guard pages split it as
     * separate mappings were split.  Without room for it, one each. */
    const size_t sz = GUARD_BYTES + STACK_BYTES;
    if (!x->slab && !x->slab_failed) {
      x->slab = x->max <= SIZE_MAX / sz ? mmap(NULL, x->max * sz, PROT_READ | PROT_WRITE,
                                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                                        : MAP_FAILED;
      if (x->slab == MAP_FAILED) x->slab = NULL, x->slab_failed = 1;
    }
    a->stack = x->slab ? (char *)x->slab + (size_t)i * sz
                       : mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a->stack == MAP_FAILED) {
      a->stack = NULL;
      x->n--;
      return -1;
    }
    /* a guard page where the maps allow and mprotect grants it, else the
     * checked margin */
    a->soft = !x->guarded || mprotect(a->stack, GUARD_BYTES, PROT_NONE) != 0;
    if (a->soft) prefault(x, canary_of(a->stack)), canary_set(a->stack);
    prefault(x, (char *)a->stack + GUARD_BYTES + STACK_BYTES - 1);
  }
  a->fn = fn;
  a->arg = arg;
  a->state = READY;
  a->wait_src = -1;
  a->wait_sem = NULL;
  a->wait_barrier = 0;
  a->wait_next = -1;
  a->oom = NULL;
  a->sp = a->rp = NULL;
  const size_t low = a->soft ? SOFT_MARGIN : GUARD_BYTES;
  coro_make(&a->ctx, (char *)a->stack + low, GUARD_BYTES + STACK_BYTES - low, entry, &x->lanes[0].main);
  x->tr[i].host = host;
  return 0;
}

/* No memory for `what` in an actor: the actor stops and sim_exec_run
 * reports it as the run's error, naming the worker (the one path of a
 * failure inside an actor: record it, then comm_abort).  Only actors call
 * it: what runs outside one (comm_sem_new) returns its failure instead. */
_Noreturn void exec_out_of_memory(const char *what) {
  if (!exec_now || exec_cur < 0) abort(); /* a caller's bug: not inside an actor */
  exec_now->actors[exec_cur].oom = what;
  comm_abort();
}

/* Actor a to lane l's queue, at its back or (front) its front, where it
 * runs next (l's lock held when lanes share). */
static void push(sim_exec *x, lane *l, int a, int front) {
  if (front) {
    l->rhead = (l->rhead + x->max - 1) % x->max;
    l->ready[l->rhead] = a;
    l->rcount++;
  } else {
    l->ready[(l->rhead + l->rcount++) % x->max] = a;
  }
  x->actors[a].state = READY;
}

/* An actor woken by one of its lane (a message handed over, a semaphore
 * released) runs next, before the actors already waiting: what it reads
 * was just written and is still in this core's caches, and a chain of
 * hand-overs (a ring's chunk passed along a block of ranks) reaches the
 * block's end, and the next lane, in as many switches as the block has
 * ranks instead of as many passes over the lane's queue.  Measured
 * (bench/README.md, sixth round): a 256-worker ring of 1M floats 20-28%
 * less wall time, ResNet-50 Marsit at 1024 workers 25-30% less.  One
 * woken from another lane waits its turn at the back.  The order changes
 * no result (exec.h). */
void exec_wake(sim_exec *x, int a) {
  lane *l = &x->lanes[x->actors[a].lane];
  const int front = l == exec_lane;
  if (!x->locking) {
    push(x, l, a, front);
    return;
  }
  pthread_mutex_lock(&l->lock);
  /* the waker's lane counts while it runs, so live never reads 0 here */
  if (l->count++ == 0) atomic_fetch_add(&x->live, 1);
  push(x, l, a, front);
  if (l->idle) pthread_cond_signal(&l->cond);
  pthread_mutex_unlock(&l->lock);
}

/* An actor without a guard page wrote into its stack's margin: memory
 * below its stack is no longer what it was, so nothing of the run can be
 * trusted; a bug of ccsim's (a frame larger than the collectives need), as
 * a fault on a guard page would be. */
static _Noreturn void overflowed(const sim_exec *x, int a) {
  fprintf(stderr,
          "ccsim: internal error: worker %d's actor %d ran past its %u KiB stack (stacks have no guard page "
          "here: vm.max_map_count allows too few memory maps)\n",
          x->tr[a].host, a, (GUARD_BYTES + STACK_BYTES - SOFT_MARGIN) >> 10);
  abort();
}

/* Run actor a until it blocks, ends or stops. */
static void resume(sim_exec *x, lane *l, int a) {
  exec_cur = a;
  l->on_stack = 0; /* an actor that stopped inside its work left it set */
  coro_swap(&l->main, &x->actors[a].ctx);
  exec_cur = -1;
  if (x->actors[a].soft && !canary_intact(x->actors[a].stack)) overflowed(x, a);
}

/* The deal: which lane runs each rank (a rank's actors share one).  The
 * ranks go in rounds of R = L B ranks, B = ranks / (16 L) (at least 1),
 * and lane l takes cut[l] consecutive ranks of every round, the lanes in
 * order: neighbours mostly share a lane (and a worker's two actors their
 * semaphores), and a lane's work hangs on 16 hand-overs from other lanes
 * rather than on one.  Measured at 1024 workers, ResNet-50 Marsit, 2 lanes
 * alone on 2 cores: idle 27% of the time (20-38% in 5 s windows) with one
 * block a lane, 16% (12-19%) with 16 (bench/README.md, fourth sitting).
 * cut starts equal (B each: blocks of B ranks dealt in turn) and then
 * follows the lanes' pace (pace): a lane on a slower core, or one that
 * shares its core, takes fewer ranks.  Which lane runs a rank changes no
 * result (exec.h).  0, or -1 without memory. */
static int deal(sim_exec *x, size_t ranks, int L) {
  if (ranks > x->nrank_lane) {
    uint16_t *rl = realloc(x->rank_lane, ranks * sizeof *rl);
    if (!rl) return -1;
    x->rank_lane = rl;
    x->nrank_lane = ranks;
  }
  size_t B = ranks / ((size_t)L * 16);
  if (B == 0) B = 1;
  if (x->round != B * (size_t)L || x->dealt != L) { /* a new shape: equal shares */
    x->round = B * (size_t)L;
    x->dealt = L;
    for (int l = 0; l < x->threads; l++) x->cut[l] = l < L ? (uint32_t)B : 0;
  }
  for (size_t r = 0; r < ranks;) /* the cuts sum to the round (exec_pace_cuts) */
    for (int l = 0; l < L && r < ranks; l++)
      for (uint32_t k = 0; k < x->cut[l] && r < ranks; k++) x->rank_lane[r++] = (uint16_t)l;
  return 0;
}

void exec_pace_cuts(uint32_t *cut, const double *busy, const double *ranks, int L, size_t R) {
  if (L < 2 || L > EXEC_PACE_LANES || R < (size_t)L) return;
  double sum = 0, wsum = 0;
  for (int l = 0; l < L; l++) {
    if (!(busy[l] > 0) || !(ranks[l] > 0)) return; /* nothing to time a lane by */
    sum += ranks[l] / busy[l];
  }
  /* halfway from the cuts to the shares that would have made every lane's
   * busy time the same, at least 1 rank each, scaled back to R */
  double want[EXEC_PACE_LANES];
  for (int l = 0; l < L; l++) {
    want[l] = 0.5 * cut[l] + 0.5 * (double)R * (ranks[l] / busy[l]) / sum;
    if (want[l] < 1) want[l] = 1;
    wsum += want[l];
  }
  size_t given = 0;
  for (int l = 0; l < L; l++) {
    want[l] *= (double)R / wsum;
    cut[l] = want[l] < 1 ? 1 : (uint32_t)want[l];
    given += cut[l];
  }
  while (given > R) { /* the floors of 1 took too much: from the largest */
    int m = 0;
    for (int l = 1; l < L; l++)
      if (cut[l] > cut[m]) m = l;
    cut[m]--, given--;
  }
  while (given < R) { /* the largest remainder first (the lowest lane of equal ones) */
    int m = 0;
    for (int l = 1; l < L; l++)
      if (want[l] - cut[l] > want[m] - cut[m]) m = l;
    cut[m]++, given++;
  }
}

int sim_exec_pace = 1;

/* After a run on L > 1 lanes: each lane's pace, its ranks over the time
 * it was busy (from the start to the end of its loop, less its waits for
 * an actor), and the cuts moved (exec_pace_cuts).  Two lanes on cores of
 * unequal speed (a hybrid CPU's performance and efficiency cores, another
 * program on one, a hypervisor's neighbour on its sibling thread)
 * otherwise split the ranks evenly and the fast one waits for the slow
 * one.  Runs too short to time (under 20 ms) change nothing. */
static void pace(sim_exec *x, size_t ranks, int L) {
  if (!sim_exec_pace || L < 2 || L > EXEC_PACE_LANES) return;
  double busy[EXEC_PACE_LANES], n[EXEC_PACE_LANES], longest = 0;
  for (int l = 0; l < L; l++) {
    const lane *ln = &x->lanes[l];
    const double span = ln->end_s - x->start_s;
    if (span > longest) longest = span;
    busy[l] = span - ln->idle_s;
    n[l] = 0;
  }
  if (longest < 0.020) return;
  for (size_t r = 0; r < ranks; r++) n[x->rank_lane[r]] += 1;
  exec_pace_cuts(x->cut, busy, n, L, x->round);
}

/* No actor is ready or running any more: every lane's loop ends. */
static void finish(sim_exec *x) {
  atomic_store(&x->finished, 1);
  for (int i = 0; i < x->nlanes; i++) {
    pthread_mutex_lock(&x->lanes[i].lock);
    pthread_cond_signal(&x->lanes[i].cond);
    pthread_mutex_unlock(&x->lanes[i].lock);
  }
}

/* A lane's actors, until no actor of any lane is ready or running.  An
 * actor that stops (comm_abort) leaves the others going: every actor runs
 * until it ends, stops or waits for what never comes, so which actors stop
 * does not depend on how the lanes went (exec.h). */
static void lane_loop(sim_exec *x, lane *l) {
  exec_lane = l;
  if (!x->locking) { /* one lane: nobody else pushes */
    while (l->rcount) {
      const int a = l->ready[l->rhead];
      l->rhead = (l->rhead + 1) % x->max;
      l->rcount--;
      resume(x, l, a);
    }
    return;
  }
  int ran = 0; /* an actor of this lane has just run: it leaves the count */
  for (;;) {
    pthread_mutex_lock(&l->lock);
    if (ran && --l->count == 0) { /* nothing ready or running here: the lane leaves live */
      ran = 0;
      pthread_mutex_unlock(&l->lock);
      if (atomic_fetch_sub(&x->live, 1) == 1) finish(x);
      continue;
    }
    ran = 0;
    if (!l->rcount && !atomic_load(&x->finished)) {
      const double t0 = host_clock();
      while (!l->rcount && !atomic_load(&x->finished)) {
        l->idle = 1;
        pthread_cond_wait(&l->cond, &l->lock);
      }
      l->idle_s += host_clock() - t0;
    }
    l->idle = 0;
    if (!l->rcount) {
      pthread_mutex_unlock(&l->lock);
      l->end_s = host_clock();
      return;
    }
    const int a = l->ready[l->rhead];
    l->rhead = (l->rhead + 1) % x->max;
    l->rcount--;
    pthread_mutex_unlock(&l->lock);
    resume(x, l, a);
    ran = 1;
  }
}

/* Lanes 1 .. threads-1: each run of sim_exec_run that needs it, its loop. */
static void *lane_thread(void *arg) {
  /* first, before it allocates: what ps and top show, and how the
   * fault-injection library tells the lanes from other threads
   * (tests/fault/fault.c) */
  prctl(PR_SET_NAME, "ccsim-lane");
  lane *l = arg;
  sim_exec *x = l->x;
  uint64_t seen = 0;
  pthread_mutex_lock(&x->run_lock);
  for (;;) {
    while (x->generation == seen && !x->quit) pthread_cond_wait(&x->run_cond, &x->run_lock);
    if (x->quit) break;
    seen = x->generation;
    const int mine = l->index < x->nlanes;
    pthread_mutex_unlock(&x->run_lock);
    if (mine) lane_loop(x, l);
    pthread_mutex_lock(&x->run_lock);
    if (mine && ++x->lanes_done == x->nlanes - 1) pthread_cond_signal(&x->done_cond);
  }
  pthread_mutex_unlock(&x->run_lock);
  return NULL;
}

int sim_exec_run(sim_exec *x, ccsim_error *err) {
  exec_now = x;
  size_t ranks = 0;
  for (size_t a = 0; a < x->n; a++)
    if ((size_t)x->tr[a].host + 1 > ranks) ranks = (size_t)x->tr[a].host + 1;
  if (exec_inboxes_reset(x, ranks)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu ranks' messages", ranks);
  const int L = ranks < (size_t)x->threads ? (int)(ranks ? ranks : 1) : x->threads;
  x->nlanes = L;
  x->locking = L > 1;
  for (int l = 0; l < L; l++)
    x->lanes[l].rhead = x->lanes[l].rcount = x->lanes[l].count = 0, x->lanes[l].idle = 0, x->lanes[l].idle_s = 0;
  if (deal(x, ranks, L)) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %zu ranks' lanes", ranks);
  exec_pairs_share(x); /* which pairs cross lanes now */
  for (size_t a = 0; a < x->n; a++) {
    x->actors[a].lane = x->rank_lane[x->tr[a].host];
    push(x, &x->lanes[x->actors[a].lane], (int)a, 0);
  }
  long busy = 0;
  for (int l = 0; l < L; l++) busy += (x->lanes[l].count = x->lanes[l].rcount) > 0;
  atomic_store(&x->live, busy);
  atomic_store(&x->finished, x->n == 0);
  x->start_s = host_clock();
  if (L > 1) {
    pthread_mutex_lock(&x->run_lock);
    x->lanes_done = 0;
    x->generation++;
    pthread_cond_broadcast(&x->run_cond);
    pthread_mutex_unlock(&x->run_lock);
  }
  lane_loop(x, &x->lanes[0]);
  if (L > 1) {
    pthread_mutex_lock(&x->run_lock);
    while (x->lanes_done < L - 1) pthread_cond_wait(&x->done_cond, &x->run_lock);
    pthread_mutex_unlock(&x->run_lock);
  }
  exec_lane = &x->lanes[0];
  if (atomic_load(&x->stopped)) {
    int oom = -1; /* the lowest worker that found no memory: the same whatever the lanes */
    for (size_t a = 0; a < x->n; a++)
      if (x->actors[a].state == STOPPED && x->actors[a].oom && (oom < 0 || x->tr[a].host < x->tr[oom].host))
        oom = (int)a;
    if (oom >= 0)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "worker %d: out of memory for %s", x->tr[oom].host, x->actors[oom].oom);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "an actor stopped the iteration");
  }
  for (size_t a = 0; a < x->n; a++) {
    const actor *w = &x->actors[a];
    if (w->state == DONE) continue;
    if (w->wait_src >= 0)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME,
                        "deadlock: actor %zu (worker %d) waits for message %llu from worker %d, never sent",
                        a, x->tr[a].host, (unsigned long long)w->wait_seq, w->wait_src);
    if (w->wait_barrier)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "deadlock: actor %zu (worker %d) waits at a barrier others never reach",
                        a, x->tr[a].host);
    return ccsim_fail(err, CCSIM_ERR_RUNTIME, "deadlock: actor %zu (worker %d) waits on a semaphore never released",
                      a, x->tr[a].host);
  }
  if (exec_inboxes_check(x, err)) return err->code;
  for (size_t i = 0; i < x->nsems; i++)
    if (x->sems[i] && x->sems[i]->value)
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "semaphore %zu ends the iteration at %d, not 0", i,
                        x->sems[i]->value);
  x->trace = (sim_trace){.actors = x->tr, .nactors = x->n, .nsems = x->nsems};
  pace(x, ranks, L);
  return CCSIM_OK;
}

sim_trace *sim_exec_trace(sim_exec *x) { return &x->trace; }

void sim_trace_hash(const sim_trace *t, uint64_t h[2]) {
  uint64_t a = 0x6a09e667f3bcc908ULL ^ t->nactors, b = 0xbb67ae8584caa73bULL ^ t->nsems;
  for (size_t i = 0; i < t->nactors; i++) {
    sim_actor_trace *s = &t->actors[i];
    if (!s->digested) actor_digest(s); /* an actor that never ended */
    a = exec_mix64(a ^ s->dg[0]) + s->dg[1];
    b = (b ^ exec_mix64(s->dg[1] + 0x632be59bd9b4e019ULL)) * 0x9e3779b97f4a7c15ULL + s->dg[0];
  }
  h[0] = exec_mix64(a);
  h[1] = exec_mix64(b ^ a);
}
