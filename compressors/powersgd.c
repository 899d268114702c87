/* compressors/powersgd.c — PowerSGD (Vogels, Karimireddy & Jaggi, "PowerSGD:
 * Practical Low-Rank Gradient Compression for Distributed Optimization",
 * NeurIPS 2019): rank-r power iteration with error feedback and warm start.
 *
 * [paper, Algorithm 1] per tensor, viewed as a rows x cols matrix M:
 *     P <- M Q;        P <- ALL-REDUCE(P);    P^ <- ORTHOGONALIZE(P)
 *     Q <- M^T P^;     Q <- ALL-REDUCE(Q);    aggregate <- P^ Q^T
 * with Q kept from the previous iteration (warm start, one power-iteration
 * step per training step) and initialised i.i.d. N(0, 1).  Both all-reduces
 * are sums of dense fp32 matrices, so this is a two-phase compressor (see the
 * phase slots in compressor.h): round 0 carries P (rows x r), round 1 Q
 * (cols x r), r (rows + cols) floats in all.  If the summed M has rank <= r,
 * P^ spans its column space and the aggregate is exact (test_powersgd.c).
 *
 * Shape [reconstructed]: PowerSGD views a layer's gradient as
 * (out channels) x (the rest); a flat bucket has no natural shape, so
 * cols = the 'cols' parameter, or ceil(sqrt(n)) when it is 0 (near-square
 * maximises the compression n / (r (rows + cols))), rows = ceil(n / cols), and
 * the last row is zero-padded.  A rank above min(rows, cols) is lowered to it.
 *
 * Error feedback is part of PowerSGD, so it lives in this compressor's state
 * (use memory 'none' with it): e <- M - (what this worker's M became).  What
 * M "became" is switchable, parameter 'error_feedback':
 *   1 = the aggregate P^ Q_mean^T, as the authors' code (epfml/powersgd) and
 *       PyTorch's DDP hook compute it (default);
 *   2 = the worker's own compression P^ (M^T P^)^T, as Algorithm 1 writes it;
 *   0 = none.
 * Orthogonalisation: Gram-Schmidt in double, each column twice ("twice is
 * enough", Giraud et al. 2005); a column whose remainder falls below 1e-4 of
 * its norm is dependent on the previous ones and is set to zero rather than
 * normalised noise (the reference divides by norm + 1e-8) — [reconstructed]
 * detail that keeps rank-deficient inputs exact.
 *
 * The single-shot encode/decode (for collectives that do not drive phases)
 * runs both rounds locally as one worker and sends P^ and Q:
 *     +--------------------------+--------------------------+
 *     | P^: rows x r fp32, LE    | Q: cols x r fp32, LE     |   decode: P^ Q^T
 *     +--------------------------+--------------------------+
 * It is not summable (two workers' P^ differ).  Called on a chunk rather than
 * the whole tensor, it compresses the chunk as its own matrix with a fresh Q
 * from the shared key and without error feedback (both are per tensor).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "bitstream.h"
#include "ccomp/rng.h"
#include "sparse_pairs.h"

#define PSGD_MAX_RANK 256

static const ccomp_param psgd_params[] = {
    {"rank", CCOMP_INT, 1, 1, PSGD_MAX_RANK,
     "rank r of the approximation, lowered to min(rows, cols) (GRACE's and PyTorch's default 1)"},
    {"cols", CCOMP_INT, 0, 0, 4294967295.0,
     "columns of the matrix view of the flat tensor; 0 = ceil(sqrt(n)), near-square"},
    {"error_feedback", CCOMP_INT, 1, 0, 2,
     "0 = none, 1 = e = M - aggregate (authors' code), 2 = e = M - own compression (Algorithm 1)"},
    {"warm_start", CCOMP_BOOL, 1, 0, 1,
     "reuse the previous iteration's Q (1), or draw a fresh N(0,1) Q from the shared key (0)"},
};

typedef struct {
  size_t rows, cols;
} psgd_shape;

typedef struct {
  size_t n;
  size_t cols_param;
  unsigned rank_param, r; /* requested, effective */
  int ef, warm;
  psgd_shape sh;
  float *Q;    /* cols x r: warm-start Q */
  float *P;    /* rows x r: P^ of the current iteration */
  float *Qloc; /* cols x r: this worker's M^T P^ (error_feedback 2) */
  float *e;    /* n: error feedback */
  double *acc; /* max(rows, cols) x r accumulators */
  unsigned next_round;
} psgd_state;

static psgd_shape psgd_shape_of(size_t cols_param, size_t n) {
  psgd_shape sh;
  if (n == 0) return (psgd_shape){0, 0};
  sh.cols = cols_param ? cols_param : (size_t)ceil(sqrt((double)n));
  if (sh.cols > n) sh.cols = n;
  sh.rows = (n + sh.cols - 1) / sh.cols;
  return sh;
}

static unsigned psgd_rank_of(unsigned rank, psgd_shape sh) {
  size_t m = sh.rows < sh.cols ? sh.rows : sh.cols;
  return rank < m ? rank : (unsigned)m;
}

/* Q <- i.i.d. N(0, 1) from key (Box-Muller on ccr_unit pairs). */
static void gaussian_fill(float *q, size_t len, uint64_t key) {
  for (size_t i = 0; i < len; i++) {
    double u1 = ccr_unit(key, 2 * i), u2 = ccr_unit(key, 2 * i + 1);
    q[i] = (float)(sqrt(-2.0 * log1p(-u1)) * cos(2 * M_PI * u2));
  }
}

static void psgd_clear(void *state) {
  psgd_state *s = state;
  free(s->Q), free(s->P), free(s->Qloc), free(s->e), free(s->acc);
}

/* Shape, rank and buffers for n elements, s's parameters being set; 0 or -1. */
static int psgd_alloc(psgd_state *s, size_t n) {
  s->n = n;
  s->sh = psgd_shape_of(s->cols_param, n);
  s->r = psgd_rank_of(s->rank_param, s->sh);
  size_t rr = s->r ? s->r : 1, big = s->sh.rows > s->sh.cols ? s->sh.rows : s->sh.cols;
  s->Q = malloc((s->sh.cols + 1) * rr * sizeof *s->Q);
  s->P = malloc((s->sh.rows + 1) * rr * sizeof *s->P);
  s->acc = malloc((big + 1) * rr * sizeof *s->acc);
  if (s->ef == 2) s->Qloc = malloc((s->sh.cols + 1) * rr * sizeof *s->Qloc);
  if (s->ef) s->e = ccomp_zeroed(n + 1, sizeof *s->e);
  if (!s->Q || !s->P || !s->acc || (s->ef == 2 && !s->Qloc) || (s->ef && !s->e)) {
    psgd_clear(s);
    s->Q = s->P = s->Qloc = s->e = NULL, s->acc = NULL;
    return -1;
  }
  return 0;
}

static int psgd_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                     size_t errlen) {
  psgd_state *s = state;
  s->rank_param = (unsigned)params[0];
  s->cols_param = (size_t)params[1];
  s->ef = (int)params[2];
  s->warm = params[3] != 0;
  if (s->cols_param > setup->n) {
    snprintf(err, errlen, "powersgd: parameter 'cols' = %zu exceeds the tensor's %zu elements",
             s->cols_param, setup->n);
    return -1;
  }
  if (psgd_alloc(s, setup->n)) {
    snprintf(err, errlen, "powersgd: cannot allocate the state of a %zu x %zu matrix, rank %u",
             s->sh.rows, s->sh.cols, s->r);
    return -1;
  }
  /* The same on every worker: the experiment seed is. */
  gaussian_fill(s->Q, s->sh.cols * s->r, ccr_key(setup->seed, 0x506f77657253ull /* "PowerS" */));
  return 0;
}

/* M[idx] = x[idx] + e[idx] (0 in the padding). */
static inline double m_at(const psgd_state *s, const float *x, size_t idx) {
  return s->e ? (double)x[idx] + s->e[idx] : (double)x[idx];
}

static size_t psgd_phase_bytes(const void *state, size_t n, unsigned phase) {
  const psgd_state *s = state;
  psgd_shape sh = psgd_shape_of(s->cols_param, n);
  unsigned r = psgd_rank_of(s->rank_param, sh);
  return 4 * r * (phase == 0 ? sh.rows : sh.cols);
}

/* Round 0: out = M Q (rows x r).  Round 1: out = M^T P^ (cols x r). */
static void psgd_phase_encode(void *state, const float *x, size_t n, unsigned phase,
                              const ccomp_call *call, uint8_t *out) {
  psgd_state *s = state;
  assert(n == s->n && phase == s->next_round);
  const size_t rows = s->sh.rows, cols = s->sh.cols, r = s->r;
  double *acc = s->acc;
  if (phase == 0) {
    if (!s->warm) gaussian_fill(s->Q, cols * r, ccr_key(call->shared_key, 0x51));
    for (size_t i = 0; i < rows; i++) {
      for (size_t k = 0; k < r; k++) acc[k] = 0;
      size_t hi = (i + 1) * cols < n ? cols : n - i * cols;
      for (size_t j = 0; j < hi; j++) {
        double m = m_at(s, x, i * cols + j);
        const float *q = s->Q + j * r;
        for (size_t k = 0; k < r; k++) acc[k] += m * q[k];
      }
      for (size_t k = 0; k < r; k++) ccb_store_f32(out + 4 * (i * r + k), (float)acc[k]);
    }
  } else {
    memset(acc, 0, cols * r * sizeof *acc);
    for (size_t i = 0; i < rows; i++) {
      const float *p = s->P + i * r;
      size_t hi = (i + 1) * cols < n ? cols : n - i * cols;
      for (size_t j = 0; j < hi; j++) {
        double m = m_at(s, x, i * cols + j);
        for (size_t k = 0; k < r; k++) acc[j * r + k] += m * p[k];
      }
    }
    for (size_t t = 0; t < cols * r; t++) {
      ccb_store_f32(out + 4 * t, (float)acc[t]);
      if (s->Qloc) s->Qloc[t] = (float)acc[t];
    }
  }
}

/* P (rows x r, in acc as double) <- orthonormal columns, dependent ones zero. */
static void orthogonalize(double *a, size_t rows, size_t r) {
  for (size_t k = 0; k < r; k++) {
    double before = 0;
    for (size_t i = 0; i < rows; i++) before += a[i * r + k] * a[i * r + k];
    for (int pass = 0; pass < 2; pass++)
      for (size_t l = 0; l < k; l++) {
        double dot = 0;
        for (size_t i = 0; i < rows; i++) dot += a[i * r + l] * a[i * r + k];
        for (size_t i = 0; i < rows; i++) a[i * r + k] -= dot * a[i * r + l];
      }
    double after = 0;
    for (size_t i = 0; i < rows; i++) after += a[i * r + k] * a[i * r + k];
    double inv = (after > 0 && after > 1e-8 * before) ? 1.0 / sqrt(after) : 0.0;
    for (size_t i = 0; i < rows; i++) a[i * r + k] *= inv;
  }
}

/* e[idx] = M[idx] - scale sum_k P^[i][k] B[j][k]  (B = Q_sum or Qloc). */
static void ef_update(psgd_state *s, const float *x, const float *B, double scale, const float *y) {
  const size_t cols = s->sh.cols, r = s->r;
  for (size_t idx = 0; idx < s->n; idx++) {
    double rec;
    if (y) {
      rec = y[idx];
    } else {
      const float *p = s->P + (idx / cols) * r, *b = B + (idx % cols) * r;
      rec = 0;
      for (size_t k = 0; k < r; k++) rec += (double)p[k] * b[k];
    }
    s->e[idx] = (float)(m_at(s, x, idx) - scale * rec);
  }
}

/* Round 0: P^ = orthogonalize(sum of P).  Round 1: y = P^ (sum of Q)^T, then
 * error feedback and the warm start Q = mean of Q. */
static void psgd_phase_decode(void *state, const float *x, const uint8_t *sum, size_t n,
                              unsigned phase, uint32_t workers, const ccomp_call *call, float *y) {
  (void)call;
  psgd_state *s = state;
  assert(n == s->n && phase == s->next_round && workers >= 1);
  const size_t rows = s->sh.rows, cols = s->sh.cols, r = s->r;
  if (phase == 0) {
    for (size_t t = 0; t < rows * r; t++) s->acc[t] = ccb_load_f32(sum + 4 * t);
    orthogonalize(s->acc, rows, r);
    for (size_t t = 0; t < rows * r; t++) s->P[t] = (float)s->acc[t];
    s->next_round = 1;
    return;
  }
  float *Qs = s->Q; /* the warm start is replaced by this round's Q anyway */
  const float inv_w = 1.0f / (float)workers;
  for (size_t t = 0; t < cols * r; t++) Qs[t] = ccb_load_f32(sum + 4 * t);
  for (size_t idx = 0; idx < n; idx++) {
    const float *p = s->P + (idx / cols) * r, *q = Qs + (idx % cols) * r;
    double v = 0;
    for (size_t k = 0; k < r; k++) v += (double)p[k] * q[k];
    y[idx] = (float)v;
  }
  if (s->ef == 1) ef_update(s, x, NULL, 1.0 / workers, y);
  if (s->ef == 2) ef_update(s, x, s->Qloc, 1.0, NULL);
  for (size_t t = 0; t < cols * r; t++) Qs[t] *= inv_w; /* same on every worker */
  s->next_round = 0;
}

static size_t psgd_max_wire_bytes(const void *state, size_t n) {
  return psgd_phase_bytes(state, n, 0) + psgd_phase_bytes(state, n, 1);
}

/* Single shot: both rounds as the only worker; payload P^ | Q. */
static size_t psgd_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  psgd_state *s = state;
  if (n == 0) return 0;
  if (n != s->n) {
    /* A chunk, not the tensor (e.g. a recompressing ring): compress it as its
     * own matrix, with a fresh Q from the shared key and no error feedback,
     * which are per tensor.  Out of memory: send P^ = 0, which decodes to 0. */
    psgd_state t = {.rank_param = s->rank_param, .cols_param = s->cols_param, .ef = 0, .warm = 0};
    size_t bytes = psgd_max_wire_bytes(s, n);
    if (psgd_alloc(&t, n)) {
      memset(out, 0, bytes);
      return bytes;
    }
    size_t nb = psgd_encode(&t, x, n, call, out);
    psgd_clear(&t);
    return nb;
  }
  size_t bp = psgd_phase_bytes(s, n, 0), bq = psgd_phase_bytes(s, n, 1);
  psgd_phase_encode(s, x, n, 0, call, out);
  psgd_phase_decode(s, x, out, n, 0, 1, call, NULL);
  for (size_t t = 0; t < s->sh.rows * s->r; t++) ccb_store_f32(out + 4 * t, s->P[t]);
  psgd_phase_encode(s, x, n, 1, call, out + bp);
  /* round 1's decode, without materialising y: with one worker the aggregate
   * and the own compression coincide */
  for (size_t t = 0; t < s->sh.cols * s->r; t++) s->Q[t] = ccb_load_f32(out + bp + 4 * t);
  if (s->ef) ef_update(s, x, s->Q, 1.0, NULL);
  s->next_round = 0;
  return bp + bq;
}

static void psgd_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers, (void)call;
  const psgd_state *s = state;
  psgd_shape sh = psgd_shape_of(s->cols_param, n);
  unsigned r = psgd_rank_of(s->rank_param, sh);
  size_t bp = 4 * r * sh.rows;
  assert(nbytes == bp + 4 * r * sh.cols);
  (void)nbytes;
  for (size_t idx = 0; idx < n; idx++) {
    size_t i = idx / sh.cols, j = idx % sh.cols;
    double v = 0;
    for (size_t k = 0; k < r; k++)
      v += (double)ccb_load_f32(in + 4 * (i * r + k)) * ccb_load_f32(in + bp + 4 * (j * r + k));
    y[idx] = (float)v;
  }
}

/* Per round, one worker: round 0 encode is a (rows x cols) x (cols x r)
 * matrix product (2 n r flops, reading M and, with error feedback, e); its
 * decode the Gram-Schmidt of P (2 passes x r columns, ~8 rows r^2 flops,
 * 2r + 1 small kernels); round 1 encode the product M^T P^ (2 n r); its decode
 * the reconstruction P^ Q^T (2 n r, writing n floats) plus the error feedback
 * update (reading M, writing e). */
static void psgd_phase_cost(const void *state, size_t n, unsigned phase, enum ccomp_op op,
                            ccomp_cost *c) {
  const psgd_state *s = state;
  psgd_shape sh = psgd_shape_of(s->cols_param, n);
  double r = psgd_rank_of(s->rank_param, sh), nn = (double)n, ef = s->ef ? 1 : 0;
  double rows = (double)sh.rows, cols = (double)sh.cols;
  if (phase == 0 && op == CCOMP_ENCODE) {
    c->launches = 1 + ef;
    c->bytes_read = 4 * nn * (1 + ef) + 4 * cols * r;
    c->bytes_written = 4 * rows * r;
    c->flops = 2 * nn * r + ef * nn;
  } else if (phase == 0) {
    c->launches = 2 * r + 1;
    c->bytes_read = 2 * 4 * rows * r * r;
    c->bytes_written = 4 * rows * r * r;
    c->flops = 8 * rows * r * r;
  } else if (op == CCOMP_ENCODE) {
    c->launches = 1 + ef;
    c->bytes_read = 4 * nn * (1 + ef) + 4 * rows * r;
    c->bytes_written = 4 * cols * r;
    c->flops = 2 * nn * r + ef * nn;
  } else {
    c->launches = 1 + ef;
    c->bytes_read = 4 * (rows + cols) * r + ef * 8 * nn;
    c->bytes_written = 4 * nn + ef * 4 * nn;
    c->flops = 2 * nn * r + ef * 2 * nn;
  }
}

/* Single shot: encode = all four steps; decode = the reconstruction. */
static void psgd_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  if (op == CCOMP_COMBINE) return; /* not summable as a single payload */
  if (op == CCOMP_DECODE) {
    const psgd_state *s = state;
    psgd_shape sh = psgd_shape_of(s->cols_param, n);
    double r = psgd_rank_of(s->rank_param, sh);
    c->launches = 1;
    c->bytes_read = 4 * ((double)sh.rows + (double)sh.cols) * r;
    c->bytes_written = 4.0 * (double)n;
    c->flops = 2.0 * (double)n * r;
    return;
  }
  ccomp_cost part;
  *c = (ccomp_cost){0, 0, 0, 0};
  for (unsigned p = 0; p < 2; p++)
    for (int o = 0; o < 2; o++) {
      part = (ccomp_cost){0, 0, 0, 0};
      psgd_phase_cost(state, n, p, o ? CCOMP_DECODE : CCOMP_ENCODE, &part);
      c->launches += part.launches, c->bytes_read += part.bytes_read;
      c->bytes_written += part.bytes_written, c->flops += part.flops;
    }
}

/* Deterministic: one worker's decode is P^ P^T M, the orthogonal projection of
 * M onto the span of P^'s columns, so ||M - P^ P^T M||_F <= ||M||_F; the
 * padding only removes terms.  fp32 rounding of P^ (orthonormal to ~1e-7)
 * and of the products is covered by 1e-5 relative slack. */
static double psgd_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  return (1.0 + 1e-5) * ccsp_norm2(x, n);
}

const ccomp_type ccomp_powersgd = {
    .name = "powersgd",
    .summary = "PowerSGD rank-r: two summable fp32 rounds (P, then Q); error feedback, warm start",
    .flags = CCOMP_STATEFUL | CCOMP_SHARED_SEED,
    .params = psgd_params,
    .nparams = sizeof psgd_params / sizeof psgd_params[0],
    .state_size = sizeof(psgd_state),
    .init = psgd_init,
    .clear = psgd_clear,
    .max_wire_bytes = psgd_max_wire_bytes,
    .encode = psgd_encode,
    .decode = psgd_decode,
    .combine = NULL,
    .finish = NULL,
    .local_stat = NULL,
    .cost = psgd_cost,
    .roundtrip_bound = psgd_roundtrip_bound,
    .phases = 2,
    .phase_bytes = psgd_phase_bytes,
    .phase_encode = psgd_phase_encode,
    .phase_decode = psgd_phase_decode,
    .phase_cost = psgd_phase_cost,
};
