/* src/train/text.c — a synthetic Zipf language for next-token training
 * with an embedding table (data.h, tdata_zipf_text).
 *
 * Why synthetic: Debian ships no plain public-domain text corpus that the
 * project installs (the fortune files are quotations, with markup), and a
 * generated language has stated parameters.  The stream: t_0 ~ Zipf(V, s);
 * t_{i+1} = succ(t_i) with probability `follow`, else a fresh Zipf(V, s)
 * draw, where succ is a seeded random permutation of the vocabulary (a
 * bigram structure a model can learn: the best achievable accuracy is
 * about follow + (1 - follow) P(the mode), ~0.5 + 0.5 x 0.13 at the
 * defaults).  Sample i is (one-hot t_i, label t_{i+1}): fed to an MLP, the
 * first layer's weight is an embedding table (one-hot x W = W's row t_i),
 * and its gradient has non-zero rows only for the tokens of the batch. */
#include <stdlib.h>
#include <string.h>

#include "train/data.h"
#include "variates.h"
#include "ccomp/rng.h"

#define TAG_TEXT 0x74657874ull /* "text" */

tdataset *tdata_zipf_text(const ttext_spec *sp, ccsim_error *err) {
  if (sp->vocab < 2 || sp->vocab > (1u << 16) || sp->samples < 1 || !(sp->zipf > 0) ||
      !(sp->follow >= 0 && sp->follow <= 1)) {
    ccsim_fail(err, CCSIM_ERR_INPUT,
               "zipf text: need vocab in [2, 65536], samples >= 1, zipf > 0, follow in [0, 1] "
               "(got %zu, %zu, %g, %g)", sp->vocab, sp->samples, sp->zipf, sp->follow);
    return NULL;
  }
  const size_t V = sp->vocab, n = sp->samples;
  if (n > SIZE_MAX / sizeof(float) / V) {
    ccsim_fail(err, CCSIM_ERR_INPUT, "zipf text: %zu samples x %zu tokens overflow", n, V);
    return NULL;
  }
  tdataset *d = calloc(1, sizeof *d);
  if (d) {
    d->n = n, d->features = V, d->classes = V;
    d->X = calloc(n * V, sizeof *d->X);
    d->y = malloc(n * sizeof *d->y);
  }
  if (!d || !d->X || !d->y) {
    tdata_free(d);
    ccsim_fail(err, CCSIM_ERR_RUNTIME, "zipf text: out of memory (%zu x %zu)", n, V);
    return NULL;
  }
  const uint64_t key = ccr_key(sp->seed, TAG_TEXT);
  const uint64_t kz = ccr_key(key, 1), kf = ccr_key(key, 2);
  tperm succ;
  tperm_init(&succ, V, ccr_key(key, 3));
  size_t tok = (size_t)grad_zipf(kz, 0, V, sp->zipf) - 1;
  for (size_t i = 0; i < n; i++) {
    const size_t next = ccr_unit(kf, i) < sp->follow ? tperm_at(&succ, tok)
                                                    : (size_t)grad_zipf(kz, i + 1, V, sp->zipf) - 1;
    d->X[i * V + tok] = 1.0f;
    d->y[i] = (int)next;
    tok = next;
  }
  return d;
}
