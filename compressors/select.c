/* compressors/select.c — radix select of the k-th largest key (see select.h). */
#include "select.h"

#include <assert.h>
#include <stdlib.h>

/* Digits, most significant first: bits 31..21, 20..10, 9..0. */
static const unsigned digit_shift[3] = {21, 10, 0};
static const uint32_t digit_mask[3] = {0x7ff, 0x7ff, 0x3ff};

void ccsel_scratch_clear(ccsel_scratch *s) {
  if (!s) return;
  free(s->buf);
  s->buf = NULL;
  s->cap = 0;
}

/* From the top bin down, the bin holding the r-th largest (1-based); *r
 * becomes the rank inside that bin and *above grows by the bins skipped. */
static uint32_t pick_bin(const uint32_t *hist, uint32_t nbins, size_t *r, size_t *above) {
  size_t cum = 0;
  uint32_t b = nbins;
  while (b-- > 0) {
    if (cum + hist[b] >= *r) break;
    cum += hist[b];
  }
  assert(b < nbins);
  *r -= cum;
  *above += cum;
  return b;
}

/* The first pass: four interleaved histograms, so that runs of equal keys do
 * not serialise on one counter, summed at the end. */
static void hist_first(const float *x, size_t n, enum ccsel_mode mode, uint32_t *hist) {
  uint32_t hh[4][2048]; /* 32 KiB of stack: SimGrid actors have 8 MiB by default */
  memset(hh, 0, sizeof hh);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    hh[0][ccsel_key(x[i], mode) >> 21]++;
    hh[1][ccsel_key(x[i + 1], mode) >> 21]++;
    hh[2][ccsel_key(x[i + 2], mode) >> 21]++;
    hh[3][ccsel_key(x[i + 3], mode) >> 21]++;
  }
  for (; i < n; i++) hh[0][ccsel_key(x[i], mode) >> 21]++;
  for (unsigned b = 0; b < 2048; b++) hist[b] = hh[0][b] + hh[1][b] + hh[2][b] + hh[3][b];
}

uint32_t ccsel_kth(const float *x, size_t n, size_t k, enum ccsel_mode mode, ccsel_scratch *s,
                   size_t *above) {
  assert(k >= 1 && k <= n && n <= UINT32_MAX);
  uint32_t hist[2048];
  size_t r = k;
  *above = 0;
  hist_first(x, n, mode, hist);
  uint32_t b = pick_bin(hist, 2048, &r, above);
  uint32_t prefix = b << 21, pmask = 0xffe00000u;
  size_t m = hist[b];

  /* Candidates into scratch when they are few enough to be worth copying. */
  uint32_t *cand = NULL;
  if (s && m <= n / 4 + 64) {
    /* one spare slot: the branch-free filter of the next digit writes cand[j] first */
    if (s->cap < m + 1) {
      uint32_t *nb = realloc(s->buf, (m + 1) * sizeof *nb);
      if (nb) s->buf = nb, s->cap = m + 1;
    }
    if (s->cap >= m + 1) cand = s->buf;
  }
  if (cand) {
    size_t j = 0; /* a branch, not a branch-free store: few elements match */
    for (size_t i = 0; i < n; i++) {
      uint32_t key = ccsel_key(x[i], mode);
      if ((key & pmask) == prefix) cand[j++] = key;
    }
    assert(j == m);
  }
  for (int d = 1; d < 3; d++) {
    unsigned sh = digit_shift[d];
    uint32_t dm = digit_mask[d], nbins = dm + 1;
    memset(hist, 0, nbins * sizeof *hist);
    if (cand) {
      for (size_t i = 0; i < m; i++) hist[(cand[i] >> sh) & dm]++;
    } else {
      for (size_t i = 0; i < n; i++) {
        uint32_t key = ccsel_key(x[i], mode);
        if ((key & pmask) == prefix) hist[(key >> sh) & dm]++;
      }
    }
    b = pick_bin(hist, nbins, &r, above);
    prefix |= b << sh;
    pmask |= dm << sh;
    if (cand && d < 2) { /* keep only the candidates that share the new digit */
      size_t j = 0;
      for (size_t i = 0; i < m; i++) {
        cand[j] = cand[i];
        j += (cand[i] & pmask) == prefix;
      }
      m = j;
    }
  }
  return prefix;
}

uint32_t ccsel_topk_indices(const float *x, size_t n, size_t k, enum ccsel_mode mode,
                            ccsel_scratch *s, uint32_t *idx) {
  size_t above;
  uint32_t t = ccsel_kth(x, n, k, mode, s, &above);
  size_t eq_left = k - above, j = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t key = ccsel_key(x[i], mode);
    if (key > t || (key == t && eq_left > 0)) {
      eq_left -= (key == t);
      idx[j++] = (uint32_t)i;
    }
  }
  assert(j == k);
  return t;
}
