/* src/train/corpus.c — next-word samples from a real English corpus
 * (data.h, tdata_corpus_text): dataset "corpus-text", by default the King
 * James Bible as Debian's bible-kjv-text ships it (docs/training.md says how
 * scripts/kjv-corpus.sh turns the package into plain text, and why).
 *
 * Tokenization: a word is a maximal run of ASCII letters, lower-cased;
 * everything else (digits, punctuation, apostrophes, white space) separates
 * words, so "LORD's" gives "lord" and "s".  The vocabulary is the V most
 * frequent words (ties: the byte-wise smaller word first), ids 0 .. V-1 in
 * that order, and every other word is <unk>, id V.  A sample is a position
 * p of the word stream with at least `context` words before it: its input
 * is the one-hot ids of the words p-1, .., p-context, each in its own block
 * of V + 1 features (block k holds word p-1-k), its label the id of word
 * p.  Fed to an MLP, the first layer's weight is an embedding table per
 * context slot and its gradient has non-zero rows only for the batch's
 * words (the S2 Reducer's and the sparse-gradient studies' structure).
 * `samples` positions are drawn without replacement by a keyed permutation
 * of all positions (a fixed key: the same corpus gives the same samples in
 * every run), in ascending position order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ccomp/rng.h"
#include "train/data.h"

#define TAG_CORPUS 0x636f7270757300ull /* "corpus" */
#define CORPUS_MAX_BYTES ((size_t)1 << 30)

/* The whole file (gzip or plain, through zlib) as a NUL-terminated buffer;
 * NULL with err naming the file. */
static char *slurp(const char *path, size_t *len, ccsim_error *err) {
  errno = 0;
  gzFile gz = gzopen(path, "rb");
  if (!gz) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: cannot open: %s", path, errno ? strerror(errno) : "zlib");
    return NULL;
  }
  size_t cap = 1 << 20, n = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (!buf) break;
    if (n == cap) {
      if (cap >= CORPUS_MAX_BYTES) {
        gzclose(gz);
        free(buf);
        ccsim_fail(err, CCSIM_ERR_INPUT, "%s: larger than %zu bytes", path, CORPUS_MAX_BYTES);
        return NULL;
      }
      char *b = realloc(buf, 2 * cap + 1);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b, cap *= 2;
    }
    const int r = gzread(gz, buf + n, (unsigned)(cap - n));
    if (r < 0) {
      int zerr;
      const char *m = gzerror(gz, &zerr);
      ccsim_fail(err, CCSIM_ERR_INPUT, "%s: read failed: %s", path,
                 zerr == Z_ERRNO ? strerror(errno) : m);
      gzclose(gz);
      free(buf);
      return NULL;
    }
    if (r == 0) {
      int zerr;
      gzerror(gz, &zerr);
      if (zerr == Z_BUF_ERROR) {
        ccsim_fail(err, CCSIM_ERR_INPUT, "%s: unexpected end of the gzip stream", path);
        gzclose(gz);
        free(buf);
        return NULL;
      }
      break;
    }
    n += (size_t)r;
  }
  gzclose(gz);
  if (!buf) {
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory reading the corpus", path);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The words of text, in place: each word lower-cased and NUL-terminated,
 * start[i] its offset.  Returns the count (start may be NULL to count). */
static size_t split_words(char *text, size_t len, uint32_t *start) {
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    if (!is_letter(text[i])) {
      if (start) text[i] = '\0';
      i++;
      continue;
    }
    if (start) start[n] = (uint32_t)i;
    n++;
    while (i < len && is_letter(text[i])) {
      if (start && text[i] <= 'Z') text[i] = (char)(text[i] + 'a' - 'A');
      i++;
    }
  }
  return n;
}

/* A token, sorted by its word (ties: position, so the order is total). */
typedef struct token {
  const char *word;
  uint32_t at;
} token;

static int by_word(const void *a, const void *b) {
  const token *x = a, *y = b;
  const int c = strcmp(x->word, y->word);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

typedef struct uword {
  const char *word;
  uint32_t count;
  uint32_t index; /* its place in the sorted unique list */
} uword;

static int by_count(const void *a, const void *b) {
  const uword *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return strcmp(x->word, y->word);
}

static int cmp_size(const void *a, const void *b) {
  const size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* id[ntok]: each token's vocabulary id (V = <unk>).  Returns the number of
 * distinct words, or 0 out of memory. */
static size_t word_ids(const char *text, const uint32_t *start, size_t ntok, size_t V,
                       uint32_t *id) {
  token *ord = malloc(ntok * sizeof *ord);
  uword *u = malloc(ntok * sizeof *u);
  uint32_t *rank = NULL;
  size_t nu = 0;
  if (!ord || !u) goto done;
  for (size_t i = 0; i < ntok; i++) ord[i] = (token){text + start[i], (uint32_t)i};
  qsort(ord, ntok, sizeof *ord, by_word);
  for (size_t i = 0; i < ntok; i++) {
    if (i == 0 || strcmp(ord[i].word, ord[i - 1].word) != 0) {
      u[nu] = (uword){ord[i].word, 0, (uint32_t)nu};
      nu++;
    }
    u[nu - 1].count++;
    id[ord[i].at] = (uint32_t)(nu - 1); /* the unique index, for now */
  }
  qsort(u, nu, sizeof *u, by_count);
  rank = malloc(nu * sizeof *rank);
  if (!rank) {
    nu = 0;
    goto done;
  }
  for (size_t r = 0; r < nu; r++) rank[u[r].index] = (uint32_t)(r < V ? r : V);
  for (size_t i = 0; i < ntok; i++) id[i] = rank[id[i]];
done:
  free(ord);
  free(u);
  free(rank);
  return nu;
}

tdataset *tdata_corpus_text(const char *path, const tcorpus_spec *sp, ccsim_error *err) {
  const size_t V = sp->vocab, C = sp->context, n = sp->samples;
  if (V < 1 || V > (1u << 16) || C < 1 || C > TCORPUS_MAX_CONTEXT || n < 1) {
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "corpus text: need vocab in [1, 65536], context in [1, %d], samples >= 1 (got %zu, "
               "%zu, %zu)", TCORPUS_MAX_CONTEXT, V, C, n);
    return NULL;
  }
  size_t len;
  char *text = slurp(path, &len, err);
  if (!text) return NULL;
  if (len > UINT32_MAX) {
    free(text);
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: over 4 GiB", path);
    return NULL;
  }
  const size_t ntok = split_words(text, len, NULL);
  if (ntok <= C || ntok - C < n) {
    free(text);
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "%s: %zu words give %zu positions with %zu words of context, fewer than the %zu "
               "samples asked for", path, ntok, ntok > C ? ntok - C : 0, C, n);
    return NULL;
  }
  uint32_t *start = malloc(ntok * sizeof *start), *id = malloc(ntok * sizeof *id);
  size_t *pos = malloc(n * sizeof *pos);
  const size_t F = C * (V + 1);
  tdataset *d = calloc(1, sizeof *d);
  size_t nu = 0;
  if (start && id && pos && d && n <= SIZE_MAX / sizeof(float) / F) {
    split_words(text, len, start);
    nu = word_ids(text, start, ntok, V, id);
    d->n = n, d->features = F, d->classes = V + 1;
    d->X = calloc(n * F, sizeof *d->X);
    d->y = malloc(n * sizeof *d->y);
  }
  free(text);
  free(start);
  if (!d || !nu || !d->X || !d->y) {
    free(id);
    free(pos);
    tdata_free(d);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "%s: out of memory for %zu samples x %zu features", path, n,
               F);
    return NULL;
  }
  if (nu < V) {
    free(id);
    free(pos);
    tdata_free(d);
    ccsim_fail(err, CCSIM_ERR_INPUT, "%s: %zu distinct words, fewer than the vocabulary of %zu", path,
               nu, V);
    return NULL;
  }
  tperm perm;
  tperm_init(&perm, ntok - C, ccr_key(TAG_CORPUS, 1));
  for (size_t i = 0; i < n; i++) pos[i] = C + tperm_at(&perm, i);
  qsort(pos, n, sizeof *pos, cmp_size);
  for (size_t i = 0; i < n; i++) {
    const size_t p = pos[i];
    for (size_t k = 0; k < C; k++) d->X[i * F + k * (V + 1) + id[p - 1 - k]] = 1.0f;
    d->y[i] = (int)id[p];
  }
  free(id);
  free(pos);
  return d;
}
