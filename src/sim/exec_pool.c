/* src/sim/exec_pool.c — comm_work's threads: actors hand their arithmetic
 * (gradients, encode, combine, decode) to a pool, and the scheduler runs
 * other actors meanwhile (see comm.h for the contract that keeps results
 * independent of the thread count). */
#include <pthread.h>
#include <stdlib.h>

#include "comm.h"
#include "exec_internal.h"

/* A work thread: runs queued work until the executor goes away.  Each
 * piece touches only what its actor owns (comm.h), so the order in which
 * threads take them changes nothing. */
static void *pool_main(void *arg);

typedef struct pool_arg {
  sim_exec *x;
  int index;
} pool_arg;

static pool_arg *pool_args;

int exec_pool_start(sim_exec *x, size_t max_actors, int threads, ccsim_error *err) {
  pool *p = &x->pool;
  if (p->threads > 1) {
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->q = calloc(max_actors ? max_actors : 1, sizeof *p->q);
    p->tid = calloc((size_t)p->threads, sizeof *p->tid);
    pool_args = calloc((size_t)p->threads, sizeof *pool_args);
    if (!p->q || !p->tid || !pool_args) {
      return ccsim_fail(err, CCSIM_ERR_RUNTIME, "out of memory for %d threads", threads);
    }
    for (int i = 1; i < p->threads; i++) {
      pool_args[i] = (pool_arg){x, i};
      if (pthread_create(&p->tid[i], NULL, pool_main, &pool_args[i])) {
        return ccsim_fail(err, CCSIM_ERR_RUNTIME, "cannot start thread %d of %d", i + 1, threads);
      }
      p->started = i;
    }
  }
  return 0;
}

void exec_pool_stop(sim_exec *x) {
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
void exec_pool_wait(sim_exec *x, int a) {
  pool *p = &x->pool;
  pthread_mutex_lock(&p->lock);
  while (a >= 0 ? x->actors[a].task_state != TASK_DONE : p->outstanding > 0) {
    if (p->qcount) pool_run(x, pool_pop(x), 0);
    else pthread_cond_wait(&p->done, &p->lock);
  }
  if (a >= 0) x->actors[a].task_state = TASK_NONE;
  pthread_mutex_unlock(&p->lock);
}

int comm_threads(void) { return exec_now ? exec_now->pool.threads : 1; }

void comm_work(void (*fn)(void *arg, int thread), void *arg, size_t elements) {
  sim_exec *x = exec_now;
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
  exec_ready_push(x, me);
  coro_swap(&a->ctx, &x->main);
}

