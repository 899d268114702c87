/* src/train/shard.c — seeded permutations, the train/test split, sharding
 * across workers and mini-batch sampling.
 *
 * All of it rests on tperm, a keyed bijection of [0, n) that is evaluated
 * one element at a time, so a worker's batch at iteration t is computed
 * directly from (seed, worker, t) without replaying earlier iterations and
 * without storing a permutation per worker and epoch. */
#include <stdlib.h>
#include <string.h>

#include "train/data.h"
#include "ccomp/rng.h"

#define TAG_SPLIT 0x73706c74ull  /* "splt" */
#define TAG_IID 0x696964ull      /* "iid" */
#define TAG_LABEL 0x6c61626cull  /* "labl" */
#define TAG_SHARD 0x73686172ull  /* "shar" */
#define TAG_BATCH 0x62617463ull  /* "batc" */
#define TAG_TAKE 0x74616b65ull   /* "take" */
#define FEISTEL_ROUNDS 6

void tperm_init(tperm *p, size_t n, uint64_t key) {
  unsigned bits = 0;
  while (bits < 64 && ((uint64_t)1 << bits) < (uint64_t)n) bits++;
  p->n = n;
  p->half_bits = (bits + 1) / 2;
  for (int r = 0; r < FEISTEL_ROUNDS; r++) p->round_key[r] = ccr_key(key, (uint64_t)r);
}

/* One pass of the Feistel network: a bijection of [0, 4^half_bits). */
static uint64_t feistel(const tperm *p, uint64_t x) {
  const unsigned h = p->half_bits;
  const uint64_t mask = h ? (~(uint64_t)0 >> (64 - h)) : 0;
  uint64_t l = (x >> h) & mask, r = x & mask;
  for (int i = 0; i < FEISTEL_ROUNDS; i++) {
    const uint64_t t = l ^ (ccr_u64(p->round_key[i], r) & mask);
    l = r;
    r = t;
  }
  return (l << h) | r;
}

size_t tperm_at(const tperm *p, size_t i) {
  /* Cycle walking: i < n lies on a cycle of the network's permutation, and
   * the first value < n after i on that cycle is i's image, a bijection. */
  uint64_t x = i;
  do x = feistel(p, x);
  while (x >= (uint64_t)p->n);
  return (size_t)x;
}

int tdata_split(const tdataset *d, double test_fraction, uint64_t seed, tdataset **train,
                tdataset **test, ccsim_error *err) {
  *train = *test = NULL;
  if (!(test_fraction >= 0.0 && test_fraction < 1.0))
    return ccsim_fail(err, CCSIM_ERR_INPUT, "split: test fraction %g is not in [0, 1)",
                      test_fraction);
  const size_t n = d->n, ntest = (size_t)((double)n * test_fraction + 0.5);
  if (ntest == 0 || ntest >= n)
    return ccsim_fail(err, CCSIM_ERR_INPUT,
                      "split: %zu samples with test fraction %g leave an empty part", n,
                      test_fraction);
  size_t *idx = malloc(n * sizeof *idx);
  if (!idx) return ccsim_fail(err, CCSIM_ERR_RUNTIME, "split: out of memory");
  tperm p;
  tperm_init(&p, n, ccr_key(seed, TAG_SPLIT));
  size_t a = 0, b = ntest; /* test rows fill idx[0..ntest), train rows the rest */
  for (size_t i = 0; i < n; i++) {
    if (tperm_at(&p, i) < ntest)
      idx[a++] = i;
    else
      idx[b++] = i;
  }
  *test = tdata_subset(d, idx, ntest, err);
  *train = *test ? tdata_subset(d, idx + ntest, n - ntest, err) : NULL;
  free(idx);
  if (!*train) {
    tdata_free(*test);
    *test = NULL;
    return err ? err->code : CCSIM_ERR_RUNTIME;
  }
  return CCSIM_OK;
}

void tshards_free(tshards *s) {
  if (!s) return;
  free(s->offset);
  free(s->index);
  free(s);
}

/* Label-sorted order for the non-IID partition: by label, then by a seeded
 * random rank, so rows of one label are in random order. */
typedef struct { int label; size_t rank, row; } sort_key;

static int cmp_key(const void *pa, const void *pb) {
  const sort_key *a = pa, *b = pb;
  if (a->label != b->label) return a->label < b->label ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* owner[i] = the worker row i goes to.  Returns 0, or -1 when out of memory. */
static int noniid_owners(const tdataset *d, uint32_t workers, size_t per_worker, uint64_t seed,
                         uint32_t *owner) {
  const size_t n = d->n, nshards = (size_t)workers * per_worker;
  sort_key *keys = malloc(n * sizeof *keys);
  if (!keys) return -1;
  tperm p;
  tperm_init(&p, n, ccr_key(seed, TAG_LABEL));
  for (size_t i = 0; i < n; i++) keys[i] = (sort_key){d->y[i], tperm_at(&p, i), i};
  qsort(keys, n, sizeof *keys, cmp_key);
  tperm ps;
  tperm_init(&ps, nshards, ccr_key(seed, TAG_SHARD));
  for (size_t j = 0; j < nshards; j++) {
    /* Shard j = sorted positions [j n / S, (j+1) n / S), computed without overflow. */
    const size_t lo = j * (n / nshards) + j * (n % nshards) / nshards;
    const size_t hi = (j + 1) * (n / nshards) + (j + 1) * (n % nshards) / nshards;
    const uint32_t w = (uint32_t)(tperm_at(&ps, j) / per_worker);
    for (size_t k = lo; k < hi; k++) owner[keys[k].row] = w;
  }
  free(keys);
  return 0;
}

tshards *tshards_new(const tdataset *d, uint32_t workers, enum tshard_kind kind,
                     size_t shards_per_worker, uint64_t seed, ccsim_error *err) {
  const size_t n = d->n;
  if (workers < 1) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "shards: need at least one worker");
    return NULL;
  }
  if (kind != TSHARD_IID && kind != TSHARD_NONIID) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "shards: unknown kind %d", (int)kind);
    return NULL;
  }
  if (kind == TSHARD_NONIID &&
      (shards_per_worker < 1 || shards_per_worker > n / workers)) {
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "shards: non-iid needs 1 <= shards per worker <= samples / workers "
               "(got %zu shards per worker, %zu samples, %u workers)",
               shards_per_worker, n, workers);
    return NULL;
  }
  if (n < workers) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "shards: %zu samples cannot give each of %u workers one",
               n, workers);
    return NULL;
  }
  tshards *s = calloc(1, sizeof *s);
  uint32_t *owner = malloc(n * sizeof *owner);
  if (s) {
    s->workers = workers;
    s->offset = calloc((size_t)workers + 1, sizeof *s->offset);
    s->index = malloc(n * sizeof *s->index);
  }
  if (!s || !owner || !s->offset || !s->index) goto oom;
  if (kind == TSHARD_IID) {
    tperm p;
    tperm_init(&p, n, ccr_key(seed, TAG_IID));
    for (size_t i = 0; i < n; i++) owner[i] = (uint32_t)(tperm_at(&p, i) % workers);
  } else if (noniid_owners(d, workers, shards_per_worker, seed, owner) != 0) {
    goto oom;
  }
  /* Counting sort by owner keeps each worker's rows in ascending order. */
  for (size_t i = 0; i < n; i++) s->offset[owner[i] + 1]++;
  for (uint32_t w = 0; w < workers; w++) s->offset[w + 1] += s->offset[w];
  size_t *fill = malloc((size_t)workers * sizeof *fill);
  if (!fill) goto oom;
  memcpy(fill, s->offset, (size_t)workers * sizeof *fill);
  for (size_t i = 0; i < n; i++) s->index[fill[owner[i]]++] = i;
  free(fill);
  free(owner);
  return s;
oom:
  free(owner);
  tshards_free(s);
  ccsim_fail(err, CCSIM_ERR_RUNTIME, "shards: out of memory (%zu samples)", n);
  return NULL;
}

void tshards_batch(const tshards *s, uint64_t seed, uint32_t w, uint64_t iteration, size_t batch,
                   size_t *idx) {
  const size_t *rows = s->index + s->offset[w];
  const uint64_t nw = tshards_size(s, w);
  const uint64_t kw = ccr_key(ccr_key(seed, TAG_BATCH), w);
  uint64_t pos = iteration * (uint64_t)batch, epoch = pos / nw;
  tperm p;
  tperm_init(&p, (size_t)nw, ccr_key(kw, epoch));
  for (size_t j = 0; j < batch; j++, pos++) {
    if (pos / nw != epoch) {
      epoch = pos / nw;
      tperm_init(&p, (size_t)nw, ccr_key(kw, epoch));
    }
    idx[j] = rows[tperm_at(&p, (size_t)(pos % nw))];
  }
}

tdataset *tdata_take(const tdataset *d, size_t n, uint64_t seed, ccsim_error *err) {
  if (n < 1 || n > d->n) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "subset: %zu of %zu samples: expected 1..%zu", n, d->n, d->n);
    return NULL;
  }
  size_t *idx = malloc(n * sizeof *idx);
  if (!idx) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "subset: out of memory");
    return NULL;
  }
  tperm p;
  tperm_init(&p, d->n, ccr_key(seed, TAG_TAKE));
  size_t k = 0;
  for (size_t i = 0; i < d->n; i++)
    if (tperm_at(&p, i) < n) idx[k++] = i;
  tdataset *s = tdata_subset(d, idx, n, err);
  free(idx);
  return s;
}
