/* src/sim/exec_comm.c — comm.h in the data executor: in-memory mailboxes
 * (the k-th send from src to dst matches the k-th receive), marks and
 * work, each call recorded in the current actor's trace (the semaphores
 * and barriers: exec_sync.c).  Messages to a rank sit in its inbox, under
 * the inbox's lock when lanes share the iteration. */
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "comm/comm.h"
#include "sim/exec_internal.h"
#include "lanepool.h"
#include "progress.h"

/* An actor's words grow in the heap up to SIM_TRACE_MAP_BYTES, then as a
 * mapping of their own (mremap: no copy), so that a trace the timing
 * executor takes (engine.h) gives its pages back at once: a freed heap
 * block stays resident, and the trace would be held twice. */
static int words_mapped(size_t cap) { return cap * sizeof(sim_word) >= SIM_TRACE_MAP_BYTES; }

/* Room for `need` words in t: 0, or -1 without memory.  A new array has
 * 256 words: a ring's actor, its equal steps kept as runs (itrace.h),
 * stays within them (its hinted room, 32 KiB, had been 1,024 such arrays
 * touched in a 1024-worker ring).  Past them the room goes at once to
 * t->hint's (its words last iteration, or what the collective says it
 * sends), in one realloc (or map), not one a doubling: a 1024-worker
 * ring's actors had grown theirs from 256 words in six reallocs each,
 * copying each time (the copies' writes were 18% of that run's page
 * faults).  Then it doubles. */
static int trace_grow(sim_actor_trace *t, size_t need) {
  if (need <= t->cap) return 0;
  size_t cap = t->cap;
  if (!cap) {
    cap = 256;
  } else {
    const size_t heap_max = SIM_TRACE_MAP_BYTES / sizeof(sim_word) / 2; /* a hint never maps by itself */
    const size_t h = t->hint + t->hint / 16 + 2;
    while (cap < h && cap < heap_max) cap *= 2;
  }
  while (cap < need) {
    if (cap > SIZE_MAX / 2 / sizeof(sim_word)) return -1;
    cap *= 2;
  }
  const size_t bytes = cap * sizeof(sim_word);
  sim_word *w;
  if (!words_mapped(cap)) {
    w = realloc(t->ops, bytes);
  } else if (!t->ops || !words_mapped(t->cap)) {
    w = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) w = NULL;
    if (w) {
      if (t->n) memcpy(w, t->ops, t->n * sizeof *w);
      free(t->ops);
    }
  } else {
    w = mremap(t->ops, t->cap * sizeof(sim_word), bytes, MREMAP_MAYMOVE);
    if (w == MAP_FAILED) w = NULL;
  }
  if (!w) return -1;
  t->ops = w;
  t->cap = cap;
  return 0;
}

/* t's words so far, equal to its reference's, stored as its own from now
 * on: 0, or -1 without memory (t keeps its reference then). */
static int trace_own(sim_actor_trace *t) {
  if (!t->ref_ops) return 0;
  const size_t n = t->n;
  t->n = 0; /* nothing of its own to keep while it grows */
  if (trace_grow(t, n + 2)) {
    t->n = n;
    return -1;
  }
  if (n) memcpy(t->ops, t->ref_ops, n * sizeof *t->ops);
  t->n = n;
  t->ref_ops = NULL, t->ref_n = 0;
  return 0;
}

void sim_exec_trace_hint(sim_exec *x, size_t i, size_t words) {
  if (!x->tr[i].hint) x->tr[i].hint = words;
}

void sim_exec_trace_ref(sim_exec *x, size_t i, const sim_word *ops, size_t n) {
  x->tr[i].ref_ops = ops, x->tr[i].ref_n = n;
}

int sim_exec_trace_own(sim_exec *x) {
  for (size_t i = 0; i < x->n; i++)
    if (trace_own(&x->tr[i])) return -1;
  return 0;
}

void sim_actor_trace_release(sim_actor_trace *a) {
  if (a->ops && words_mapped(a->cap)) munmap(a->ops, a->cap * sizeof(sim_word));
  else free(a->ops);
  free(a->vals);
  a->ops = NULL, a->n = a->cap = 0;
  a->vals = NULL, a->nv = a->vcap = 0;
}

/* The value word of v: v itself when a whole number below 2^31 (not -0),
 * else its index in t->vals (one of the last two stored, or appended). */
static sim_word value_word(sim_actor_trace *t, double v) {
  /* the last two stored first: they hold no whole number, so a match is
   * v's word either way, found without the conversions' latency (a ring
   * charges the same device seconds at every step) */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  for (size_t i = t->nv; i > 0 && i + 2 > t->nv; i--) {
    uint64_t b;
    memcpy(&b, &t->vals[i - 1], sizeof b);
    if (b == bits) return SIM_VAL_INDEXED | (sim_word)(i - 1);
  }
  if (v >= 0 && v < 2147483648.0 && v == (double)(uint32_t)v && !signbit(v)) return (sim_word)v;
  if (t->nv == t->vcap) {
    t->vcap = t->vcap ? 2 * t->vcap : 16;
    double *vals = t->vcap < SIM_VAL_INDEXED ? realloc(t->vals, t->vcap * sizeof *t->vals) : NULL;
    if (!vals) exec_out_of_memory("the iteration's trace");
    t->vals = vals;
  }
  t->vals[t->nv] = v;
  return SIM_VAL_INDEXED | (sim_word)t->nv++;
}

/* The words of t so far: its own, or under a reference the reference's
 * (equal to what it would have stored, up to t->n). */
static inline const sim_word *words_of(const sim_actor_trace *t) { return t->ref_ops ? t->ref_ops : t->ops; }

/* Word w after t's words.  Under a reference, a word equal to the
 * reference's next is counted, not stored; at the first difference the
 * words so far become the actor's own (trace_own) and it records as
 * without one.  0, or -1 without memory. */
static int emit(sim_actor_trace *t, sim_word w) {
  if (t->ref_ops) {
    /* the reference's next line, for this actor's next steps: its words
     * are read once, a few a step, and by the time the actor comes back
     * (its lane has run all its other actors) the line is cold; a load
     * that missed was 38% of record's samples (1024-worker Marsit ring) */
    __builtin_prefetch(t->ref_ops + t->n + 16);
    if (t->n < t->ref_n && t->ref_ops[t->n] == w) {
      t->n++;
      return 0;
    }
    if (trace_own(t)) return -1;
  }
  if (trace_grow(t, t->n + 1)) return -1;
  t->ops[t->n++] = w;
  return 0;
}

/* The run of steps equal to the block ends: REPEAT(blen) and the count
 * where whole steps equalled it, then the words of the current step that
 * did (rep_i of them), and t records as outside a run, its current step
 * beginning after the count.  0, or -1 without memory. */
static int run_end(sim_actor_trace *t) {
  const size_t matched = t->rep_i;
  t->repeating = 0;
  t->misses = t->reps ? 0 : t->misses + 1;
  if (t->reps && (emit(t, (sim_word)SIM_REPEAT | (sim_word)t->blen << 4) || emit(t, t->reps))) return -1;
  t->step0 = t->n;
  for (size_t j = 0; j < matched; j++) /* words_of again each time: emit may move them */
    if (emit(t, words_of(t)[t->blk0 + j])) return -1;
  return 0;
}

/* Word w of the current step: in a run, matched against the block (and
 * kept only where it departs from it), else emitted.  0, or -1. */
static int feed(sim_actor_trace *t, sim_word w) {
  if (t->repeating) {
    if (t->rep_i < t->blen && words_of(t)[t->blk0 + t->rep_i] == w) {
      t->rep_i++;
      return 0;
    }
    if (run_end(t)) return -1;
  }
  return emit(t, w);
}

/* A step ends (comm_step): one that equalled the block whole counts, and
 * the run goes on; else the step just recorded becomes the block the next
 * is compared with (a step of no words, or of more than a REPEAT can name,
 * starts no run), until RUN_TRIES blocks in a row have found no equal
 * step: an actor whose steps differ (a ring of chunks of irregular lengths,
 * ResNet-50's sampled buckets) then records as without runs for the rest
 * of the iteration (the comparisons had cost 3% of such a run's CPU).  0,
 * or -1 without memory. */
enum { RUN_TRIES = 4 };

/* In a run, the current step counted as one more of the block's: 1 where
 * it equalled the block whole (and the count has room), else 0. */
static int count_step(sim_actor_trace *t) {
  if (t->rep_i != t->blen || t->reps == UINT32_MAX) return 0;
  t->reps++;
  t->rep_i = 0;
  return 1;
}

static int step_end(sim_actor_trace *t) {
  if (t->repeating) {
    if (count_step(t)) return 0;
    if (run_end(t)) return -1;
  }
  const size_t len = t->n - t->step0;
  if (len && len <= SIM_ARG_MAX && t->misses < RUN_TRIES) {
    t->repeating = 1;
    t->blk0 = t->step0, t->blen = len;
    t->rep_i = 0, t->reps = 0;
  }
  t->step0 = t->n;
  return 0;
}

int exec_trace_settle(sim_actor_trace *t) {
  if (!t->repeating) return 0;
  count_step(t); /* the last step, where whole */
  return run_end(t);
}

void comm_step(void) {
  if (step_end(&exec_now->tr[exec_cur])) exec_out_of_memory("the iteration's trace");
}

/* Append an operation (itrace.h: its kind, its argument, and v when the
 * kind takes a value) to the current actor's trace, through the run of
 * equal steps and the reference (feed, emit).  The values a word cannot
 * hold, few, are the actor's own either way: a word that indexes them is
 * the same word whatever value it indexes, and the trace is those words
 * with these values. */
static void record(unsigned kind, uint32_t arg, double v) {
  sim_actor_trace *t = &exec_now->tr[exec_cur];
  if (arg > SIM_ARG_MAX) exec_out_of_memory("the iteration's trace (an operand above 2^28 - 1)");
  const sim_word w = (sim_word)kind | (sim_word)arg << 4;
  const int valued = sim_op_has_value(kind);
  if (feed(t, w) || (valued && feed(t, value_word(t, v)))) exec_out_of_memory("the iteration's trace");
}

int exec_inboxes_reset(sim_exec *x, size_t nranks) {
  for (size_t r = 0; r < x->ninbox; r++) { /* messages a stopped run left behind; the pairs stay */
    inbox *b = &x->inbox[r];
    for (uint32_t i = 0; i < b->cap; i++) {
      pair *p = b->pairs[i];
      if (!p) continue;
      for (msg_node *m = p->head, *nx; m; m = nx) {
        nx = m->next;
        lanepool_free(m);
      }
      p->sent = p->posted = 0;
      p->head = p->tail = NULL;
      p->waiter = 0, p->wait_seq = 0;
    }
  }
  if (nranks <= x->ninbox) return 0;
  inbox *nb = realloc(x->inbox, nranks * sizeof *nb);
  if (!nb) return -1;
  for (size_t r = x->ninbox; r < nranks; r++) {
    nb[r] = (inbox){.pairs = NULL};
    atomic_init(&nb[r].lock, 0);
  }
  x->inbox = nb;
  x->ninbox = nranks;
  return 0;
}

void exec_inboxes_free(sim_exec *x) {
  exec_inboxes_reset(x, 0);
  for (size_t r = 0; r < x->ninbox; r++) {
    for (uint32_t i = 0; i < x->inbox[r].cap; i++) free(x->inbox[r].pairs[i]);
    free(x->inbox[r].pairs);
  }
  free(x->inbox);
  x->inbox = NULL;
  x->ninbox = 0;
}

int exec_inboxes_check(sim_exec *x, ccsim_error *err) {
  for (size_t r = 0; r < x->ninbox; r++)
    for (uint32_t i = 0; i < x->inbox[r].cap; i++) {
      const pair *p = x->inbox[r].pairs[i];
      if (p && p->head)
        return ccsim_fail(err, CCSIM_ERR_RUNTIME, "a message from worker %d to worker %zu was never received",
                          (int)p->src1 - 1, r);
    }
  return 0;
}

/* The lane rank r runs on in this run (sim_exec_run deals them so). */
static int lane_of(const sim_exec *x, size_t r) { return x->rank_lane[r]; }

void exec_pairs_share(sim_exec *x) {
  for (size_t r = 0; r < x->ninbox; r++)
    for (uint32_t i = 0; i < x->inbox[r].cap; i++) {
      pair *p = x->inbox[r].pairs[i];
      if (p) p->shared = x->locking && lane_of(x, p->src1 - 1) != lane_of(x, r);
    }
}

/* Spin on a taken lock, reading it (not writing) until it looks free; a
 * holder that lost its core (the lanes share the machine with whatever
 * else runs) gets it back through sched_yield after a while. */
static void lock(inbox *b) {
  if (!exec_now->locking) return;
  for (unsigned spins = 0; atomic_exchange_explicit(&b->lock, 1, memory_order_acquire);)
    while (atomic_load_explicit(&b->lock, memory_order_relaxed)) {
      if (++spins % 1024 == 0) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
      else __builtin_ia32_pause();
#endif
    }
}
static void unlock(inbox *b) {
  if (exec_now->locking) atomic_store_explicit(&b->lock, 0, memory_order_release);
}

/* Pair p's messages taken for this thread: its inbox's lock when its ranks
 * run on different lanes, else nothing (this lane alone touches it). */
static void pair_lock(pair *p) {
  if (p->shared) lock(&exec_now->inbox[p->dst]);
}
static void pair_unlock(pair *p) {
  if (p->shared) unlock(&exec_now->inbox[p->dst]);
}

/* The table doubles; the pairs stay where they are. */
static void inbox_grow(inbox *b) {
  const uint32_t ocap = b->cap, cap = ocap ? 2 * ocap : 4;
  pair **old = b->pairs, **np = calloc(cap, sizeof *np);
  if (!np) {
    unlock(b);
    exec_out_of_memory("the message table");
  }
  for (uint32_t i = 0; i < ocap; i++) {
    if (!old[i]) continue;
    uint32_t j = (uint32_t)exec_mix64(old[i]->src1) & (cap - 1);
    while (np[j]) j = (j + 1) & (cap - 1);
    np[j] = old[i];
  }
  free(old);
  b->pairs = np;
  b->cap = cap;
}

/* The pair (src, dst), made on first use, found in dst's table under its
 * lock (another lane may be adding a pair to it), refusing a rank no actor
 * runs on. */
static pair *pair_find(int src, int dst) {
  sim_exec *x = exec_now;
  if (dst < 0 || (size_t)dst >= x->ninbox || src < 0) abort(); /* a collective's bug: no such rank in this run */
  inbox *b = &x->inbox[dst];
  lock(b);
  if (2 * (b->count + 1) > b->cap) inbox_grow(b);
  const uint32_t key = (uint32_t)src + 1;
  for (uint32_t i = (uint32_t)exec_mix64(key) & (b->cap - 1);; i = (i + 1) & (b->cap - 1)) {
    pair *p = b->pairs[i];
    if (p && p->src1 == key) {
      unlock(b);
      return p;
    }
    if (!p) {
      p = calloc(1, sizeof *p);
      if (!p) {
        unlock(b);
        exec_out_of_memory("the message table");
      }
      p->src1 = key, p->dst = (uint32_t)dst;
      p->shared = x->locking && lane_of(x, (size_t)src) != lane_of(x, (size_t)dst);
      b->pairs[i] = p;
      b->count++;
      unlock(b);
      return p;
    }
  }
}

/* An actor sends as its own rank and receives what is sent to its own
 * rank: a pair without a lock relies on it (only the lane of its ranks
 * touches it). */
static _Noreturn void not_its_rank(const char *what, int rank) {
  fprintf(stderr, "ccsim: internal error: worker %d's actor %d %s rank %d\n", exec_now->tr[exec_cur].host, exec_cur,
          what, rank);
  abort();
}

/* The pair (src, dst) the current actor uses on its side `mine` (src when
 * it sends, dst when it receives): the one it used last on that side
 * (*last), else found and kept. */
static pair *pair_for(pair **last, int src, int dst, int mine, const char *what) {
  pair *p = *last;
  if (!p || p->dst != (uint32_t)dst || p->src1 != (uint32_t)src + 1) {
    if (mine != exec_now->tr[exec_cur].host) not_its_rank(what, mine);
    *last = p = pair_find(src, dst);
  }
  return p;
}
static pair *send_pair(int src, int dst) { return pair_for(&exec_now->actors[exec_cur].sp, src, dst, src, "sends as"); }
static pair *recv_pair(int src, int dst) {
  return pair_for(&exec_now->actors[exec_cur].rp, src, dst, dst, "receives for");
}

/* Take message seq of pair p (from src) (pair_lock held; released here),
 * waiting for it if it has not been sent yet.  When it carries a hint
 * (comm_isend_ahead), the next three waiting after it are handed to
 * theirs. */
static void *take(pair *p, int src, uint64_t seq) {
  msg_node **pp = &p->head;
  while (*pp && (*pp)->seq != seq) pp = &(*pp)->next;
  if (!*pp) {
    sim_exec *x = exec_now;
    actor *a = &x->actors[exec_cur];
    p->waiter = exec_cur + 1;
    p->wait_seq = seq;
    a->wait_src = src;
    a->wait_seq = seq;
    a->state = BLOCKED;
    pair_unlock(p);
    exec_switch_out(x); /* the sender hands the message over in a->got */
    a->wait_src = -1;
    return a->got;
  }
  msg_node *m = *pp;
  *pp = m->next;
  if (p->tail == m) {
    p->tail = NULL;
    for (msg_node *t = p->head; t; t = t->next) p->tail = t;
  }
  /* messages seq + 1 .. seq + 3 where waiting, and their hints */
  const void *next[3] = {NULL, NULL, NULL};
  void (*hint[3])(const void *, int) = {NULL, NULL, NULL};
  if (m->ahead) {
    const msg_node *t = m->next;
    for (int k = 0; k < 3 && t && t->seq == seq + 1 + (uint64_t)k; k++, t = t->next)
      next[k] = t->payload, hint[k] = t->ahead;
  }
  pair_unlock(p);
  void *payload = m->payload;
  lanepool_free(m);
  for (int k = 0; k < 3; k++)
    if (hint[k]) hint[k](next[k], k + 1);
  return payload;
}

static void deliver(int src, int dst, void *msg, void (*ahead)(const void *, int)) {
  msg_node *m = lanepool_alloc(sizeof *m); /* before the lock: most messages wait */
  pair *p = send_pair(src, dst);
  pair_lock(p);
  const uint64_t seq = p->sent++;
  if (p->waiter && p->wait_seq == seq) {
    const int a = p->waiter - 1;
    p->waiter = 0;
    exec_now->actors[a].got = msg;
    pair_unlock(p);
    lanepool_free(m);
    exec_wake(exec_now, a);
    return;
  }
  if (!m) {
    pair_unlock(p);
    exec_out_of_memory("a message");
  }
  *m = (msg_node){.seq = seq, .payload = msg, .ahead = ahead};
  if (p->tail) p->tail->next = m;
  else p->head = m;
  p->tail = m;
  pair_unlock(p);
}

comm_req *comm_isend(int src, int dst, void *msg, double bytes) { return comm_isend_ahead(src, dst, msg, bytes, NULL); }

comm_req *comm_isend_ahead(int src, int dst, void *msg, double bytes, void (*ahead)(const void *payload, int k)) {
  const uint32_t h = exec_now->tr[exec_cur].nsends++;
  record(SIM_SEND, (uint32_t)dst, bytes);
  progress_tick();
  deliver(src, dst, msg, ahead);
  return (comm_req *)(uintptr_t)(h + 1);
}

/* A wait names its send by how many the actor made after it (itrace.h):
 * 0 for its latest, the same word at every step of a ring. */
void comm_wait(comm_req *req) {
  const sim_actor_trace *t = &exec_now->tr[exec_cur];
  record(SIM_WAIT, t->nsends - 1 - (uint32_t)((uintptr_t)req - 1), 0);
}

void comm_exchange_unread(int src, int dst, double bytes, int from) {
  sim_exec *x = exec_now;
  sim_actor_trace *t = &x->tr[exec_cur];
  if (src != t->host) not_its_rank("sends as", src);
  if (dst < 0 || (size_t)dst >= x->ninbox || from < 0 || (size_t)from >= x->ninbox) abort(); /* a collective's bug */
  const uint32_t h = t->nsends++;
  record(SIM_SEND, (uint32_t)dst, bytes);
  progress_tick();
  record(SIM_RECV, (uint32_t)from, 0);
  record(SIM_WAIT, t->nsends - 1 - h, 0);
}

void comm_send(int src, int dst, void *msg, double bytes) { comm_wait(comm_isend(src, dst, msg, bytes)); }

void *comm_recv(int src, int dst) {
  record(SIM_RECV, (uint32_t)src, 0);
  pair *p = recv_pair(src, dst);
  pair_lock(p);
  return take(p, src, p->posted++);
}

comm_rreq *comm_irecv(int src, int dst) {
  comm_rreq *r = malloc(sizeof *r);
  if (!r) exec_out_of_memory("a posted receive");
  r->src = src;
  r->dst = dst;
  pair *p = recv_pair(src, dst);
  pair_lock(p);
  r->seq = p->posted++;
  pair_unlock(p);
  r->handle = exec_now->tr[exec_cur].nirecvs++;
  record(SIM_IRECV, (uint32_t)src, 0); /* its handle: the count before it */
  return r;
}

void *comm_wait_recv(comm_rreq *r) {
  record(SIM_WAITRECV, exec_now->tr[exec_cur].nirecvs - 1 - r->handle, 0);
  const int src = r->src, dst = r->dst;
  const uint64_t seq = r->seq;
  free(r);
  pair *p = recv_pair(src, dst);
  pair_lock(p);
  return take(p, src, seq);
}

void comm_sleep(double d) { record(SIM_SLEEP, 0, d); }

void comm_protocol(unsigned code) { record(SIM_PROTO, code, 0); }

void comm_execute(double d) {
  if (d > 0) record(SIM_EXEC, 0, d);
}

void comm_abort(void) {
  sim_exec *x = exec_now;
  atomic_store(&x->stopped, 1);
  x->actors[exec_cur].state = STOPPED;
  exec_switch_out(x);
  abort(); /* a stopped actor is never resumed */
}

uint32_t comm_mark(void) {
  const uint32_t m = exec_now->tr[exec_cur].nmarks++;
  record(SIM_MARK, m, 0);
  return m;
}

int comm_threads(void) { return exec_now ? exec_now->threads : 1; }

int comm_lane(void) { return exec_lane ? exec_lane->index : 0; }

/* An actor's work on its lane's own stack.  Each actor has a stack of its
 * own (exec.c), and at 1024 workers a lane cycles through thousands of
 * them: the work's frames (a block of normal draws keeps 5 KiB of tables
 * there, the compressors and the error measurement more) were written on
 * a stack whose lines had left the caches since the actor's last step, and
 * in a run's first iteration on pages never touched (a page fault each).
 * While an actor runs, its lane's loop is suspended in the coroutine
 * switch, and everything below the stack pointer it saved (lane.main) is
 * free: the work runs there, on the same few hot lines for every actor of
 * the lane.  ccsim_call_on(fn, arg, thread, top) calls fn(arg, thread)
 * with the stack pointer at top (16-byte aligned), then restores it; its
 * frame pointer chain and unwind information lead back to the actor's
 * stack.  The work must not switch actors (comm.h: it records nothing and
 * does not block); an actor that stops inside it is never resumed, and
 * resume() clears the flag.  Elsewhere, and under the sanitizers (which
 * follow stacks), the work runs where it is called. */
#if defined(__x86_64__) && !defined(CCSIM_ASAN) && !defined(CCSIM_TSAN)
#define CALL_ON_LANE 1
void ccsim_call_on(void (*fn)(void *, int), void *arg, int thread, void *top);
__asm__(".text\n"
        ".globl ccsim_call_on\n"
        ".type ccsim_call_on,@function\n"
        "ccsim_call_on:\n"
        "  .cfi_startproc\n"
        "  pushq %rbp\n"
        "  .cfi_def_cfa_offset 16\n"
        "  .cfi_offset %rbp, -16\n"
        "  movq %rsp, %rbp\n"
        "  .cfi_def_cfa_register %rbp\n"
        "  movq %rcx, %rsp\n"
        "  movq %rdi, %rax\n"
        "  movq %rsi, %rdi\n"
        "  movl %edx, %esi\n"
        "  callq *%rax\n"
        "  movq %rbp, %rsp\n"
        "  popq %rbp\n"
        "  .cfi_def_cfa %rsp, 8\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size ccsim_call_on, .-ccsim_call_on\n");
#endif

void comm_work(void (*fn)(void *arg, int thread), void *arg, size_t elements) {
  (void)elements;
#ifdef CALL_ON_LANE
  lane *l = exec_lane;
  if (l && exec_cur >= 0 && !l->on_stack) {
    /* below the lane's saved stack pointer, past a margin */
    void *top = (void *)(((uintptr_t)l->main.sp - 256) & ~(uintptr_t)63);
    l->on_stack = 1;
    ccsim_call_on(fn, arg, l->index, top);
    l->on_stack = 0;
    return;
  }
#endif
  fn(arg, comm_lane());
}

/* The recorder, for the semaphores and barriers of exec_sync.c. */
void exec_record(unsigned kind, uint32_t arg, double v) { record(kind, arg, v); }
