/* src/collectives/err_acc.c — the error accumulators (collective.h): a
 * decoded payload against its float64 shadows, in four interleaved lanes
 * per quantity so that the additions keep a fixed order; the fused pass
 * after a measured combine (err_acc.h); the figures made from the sums. */
#include "collectives/err_acc.h"

#include <math.h>
#include <string.h>

#include "qbits.h" /* QB_CLONES */

/* Four interleaved partial sums per quantity (lanes i mod 4), added up at
 * the end: the compiler can keep them in vector registers, and the order
 * of additions is fixed, so results stay deterministic.  The AVX2 clone
 * holds each quantity's four lanes in one register: the same operations
 * per lane, so the same sums (AVX2 brings no fused multiply-add). */
typedef double v4d __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));

/* The four quantities' lanes between blocks of one accumulation. */
typedef struct err_lanes {
  v4d e, r, o, d;
} err_lanes;

/* L += the lanes of y[0 .. n) against ref[0 .. n) x sc, n a multiple of 4
 * (the blocks of a longer accumulation keep the lanes, so a run of blocks
 * adds exactly what one call over them all would). */
static inline __attribute__((always_inline)) void lanes_add(err_lanes *L, const float *y, const double *ref,
                                                            size_t n, double ref_scale) {
  const v4d sc = {ref_scale, ref_scale, ref_scale, ref_scale};
  v4d ve = L->e, vr = L->r, vo = L->o, vd = L->d;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    v4f yf;
    v4d rf;
    memcpy(&yf, y + i, sizeof yf);
    memcpy(&rf, ref + i, sizeof rf);
    const v4d r = rf * sc, v = __builtin_convertvector(yf, v4d), diff = v - r;
    ve += diff * diff;
    vr += r * r;
    vo += v * v;
    vd += v * r;
  }
  L->e = ve, L->r = vr, L->o = vo, L->d = vd;
}

/* a += L's lanes, with the elements [from, n) that did not fill a vector
 * added to lane 0 first. */
static inline __attribute__((always_inline)) void lanes_end(err_acc *a, const err_lanes *L, const float *y,
                                                            const double *ref, size_t from, size_t n,
                                                            double ref_scale) {
  double e2[4], r2[4], o2[4], d[4];
  memcpy(e2, &L->e, sizeof e2);
  memcpy(r2, &L->r, sizeof r2);
  memcpy(o2, &L->o, sizeof o2);
  memcpy(d, &L->d, sizeof d);
  for (size_t i = from; i < n; i++) {
    const double r = ref[i] * ref_scale, v = y[i], diff = v - r;
    e2[0] += diff * diff;
    r2[0] += r * r;
    o2[0] += v * v;
    d[0] += v * r;
  }
  a->err2 += (e2[0] + e2[1]) + (e2[2] + e2[3]);
  a->ref2 += (r2[0] + r2[1]) + (r2[2] + r2[3]);
  a->out2 += (o2[0] + o2[1]) + (o2[2] + o2[3]);
  a->dot += (d[0] + d[1]) + (d[2] + d[3]);
  a->count += 1;
}

QB_CLONES void err_acc_add(err_acc *a, const float *y, const double *ref, size_t n, double ref_scale) {
  err_lanes L = {{0}, {0}, {0}, {0}};
  const size_t n4 = n & ~(size_t)3;
  lanes_add(&L, y, ref, n4, ref_scale);
  lanes_end(a, &L, y, ref, n4, n, ref_scale);
}


/* err_acc_fused's whole vectors [0, n4) in one pass: each element's
 * shadows made (a's copied, or s's own kept, then b's added: the one
 * addition the separate passes made) and stored, y measured against both.
 * The operations and their order per lane are lanes_add's (its scale of
 * 1.0 multiplies nothing), so the sums are the same bits; y's own square
 * is the same against either shadow, summed once. */
static inline __attribute__((always_inline)) void fused_vectors(const fused_pass *f, size_t n4, err_lanes *Le,
                                                                err_lanes *Lc, const int ideal) {
  v4d ve = Le->e, vr = Le->r, vo = Le->o, vd = Le->d, ce = Lc->e, cr = Lc->r, cd = Lc->d;
  const double *xa = f->ax ? f->ax : f->sx, *ia = f->ai ? f->ai : f->si;
  for (size_t i = 0; i < n4; i += 4) {
    v4f yf;
    v4d x, b;
    memcpy(&yf, f->y + i, sizeof yf);
    memcpy(&x, xa + i, sizeof x);
    if (f->bx) {
      memcpy(&b, f->bx + i, sizeof b);
      x += b;
    }
    memcpy(f->sx + i, &x, sizeof x);
    const v4d v = __builtin_convertvector(yf, v4d), diff = v - x;
    ve += diff * diff;
    vr += x * x;
    vo += v * v;
    vd += v * x;
    if (ideal) {
      v4d w, bi;
      memcpy(&w, ia + i, sizeof w);
      memcpy(&bi, f->bi + i, sizeof bi);
      w += bi;
      memcpy(f->si + i, &w, sizeof w);
      const v4d dc = v - w;
      ce += dc * dc;
      cr += w * w;
      cd += v * w;
    }
  }
  Le->e = ve, Le->r = vr, Le->o = vo, Le->d = vd;
  Lc->e = ce, Lc->r = cr, Lc->o = vo, Lc->d = cd;
}

QB_CLONES void err_acc_fused(const fused_pass *f, err_acc *e, err_acc *c) {
  err_lanes Le = {{0}, {0}, {0}, {0}}, Lc = Le;
  const size_t n = f->n, n4 = n & ~(size_t)3;
  if (f->si) fused_vectors(f, n4, &Le, &Lc, 1);
  else fused_vectors(f, n4, &Le, &Lc, 0);
  /* the elements past the last whole vector: their shadows, then lane 0 */
  for (size_t i = n4; i < n; i++) {
    if (f->ax) f->sx[i] = f->ax[i];
    if (f->bx) f->sx[i] += f->bx[i];
    if (f->si) f->si[i] = (f->ai ? f->ai[i] : f->si[i]) + f->bi[i];
  }
  lanes_end(e, &Le, f->y, f->sx, n4, n, 1.0);
  if (f->si) lanes_end(c, &Lc, f->y, f->si, n4, n, 1.0);
}

/* A zero reference is exact only when the output is zero too; otherwise no
 * relative error or gain exists, and NaN says so (the writers of result
 * files show it as absent, with the reason) rather than a 0 or a 1 that
 * reads as "perfect". */
double err_acc_rel(const err_acc *a) {
  if (a->ref2 > 0) return sqrt(a->err2 / a->ref2);
  return a->err2 == 0 ? 0.0 : NAN;
}

/* A zero vector has no direction: no cosine exists (NaN), neither the 0 of
 * an orthogonal aggregate nor the 1 of a perfect one; the result files
 * show it as absent, with the reason (sim/run_results.c). */
double err_acc_cos(const err_acc *a) {
  if (a->ref2 > 0 && a->out2 > 0) return a->dot / sqrt(a->ref2 * a->out2);
  return NAN;
}

double err_acc_gain(const err_acc *a) {
  if (a->ref2 > 0) return a->dot / a->ref2;
  return a->out2 == 0 ? 1.0 : NAN;
}

void err_acc_merge(err_acc *a, const err_acc *part) {
  a->err2 += part->err2;
  a->ref2 += part->ref2;
  a->out2 += part->out2;
  a->dot += part->dot;
  a->count += part->count;
}
