/* src/collectives/err_acc.h — the fused pass after a measured combine
 * (err_acc.c; the accumulators themselves are in collective.h). */
#ifndef CCSIM_COLLECTIVES_ERR_ACC_H
#define CCSIM_COLLECTIVES_ERR_ACC_H

#include <stddef.h>

#include "collectives/collective.h"

/* The pass after a combine that is measured (coll_combine_measure), over
 * blocks small enough to stay in the first-level cache: the shadows of the
 * sum s = a + b made (sx = a's exact when copied, then += b's; the same for
 * the ideal), and y, the decoded sum, measured against both (e, c): one
 * pass where coll_combine and coll_measure made four, with the same
 * operations in the same order, so the same bits. */
typedef struct fused_pass {
  const float *y;
  double *sx, *si;              /* s's shadows (si NULL: none) */
  const double *ax, *ai;        /* copied into them first, or NULL */
  const double *bx, *bi;        /* added, or NULL */
  size_t n;
} fused_pass;

/* Runs pass f: makes s's shadows and adds y against them to e (exact) and c
 * (ideal, when f->si). */
void err_acc_fused(const fused_pass *f, err_acc *e, err_acc *c);

#endif
