/* compressors/gqsgd_exp.h — Global-QSGD's exponential dithering: the kernels
 * behind global-qsgd's `dithering: exponential` (global_qsgd.c holds the
 * wire format and the type; gqsgd_exp.c says why the rules are unbiased).
 *
 * An element is a signed level code q in [-emax, emax]: q = 0 is zero,
 * otherwise the value is sign(q) 2^(head - |q|) M, M the global max.  One
 * worker's |x| <= M rounds to codes >= head; a combine can lower the code of
 * the larger input by one, so a payload of k workers keeps codes
 * >= head - (k - 1), and head = workers keeps every code >= 1. */
#ifndef CCOMP_GQSGD_EXP_H
#define CCOMP_GQSGD_EXP_H

#include <stddef.h>
#include <stdint.h>

/* q[m] = the unbiased stochastic rounding of x[m] / M to the levels
 * 2^(head - e), e = head .. emax, and below the smallest to 0 or it; draws
 * from `key` at global indices g0 + i.  M > 0.  Returns 1 if some |x| > M
 * (clipped to the top level: a caller bug), else 0. */
int gqx_round(const float *x, size_t m, float M, int32_t head, int32_t emax, uint64_t key,
              uint64_t g0, int32_t *q);

/* y[m] = the values of the codes q[m] (fp32, rounded to nearest). */
void gqx_values(const int32_t *q, size_t m, float M, int32_t head, int32_t emax, float *y);

/* qa[m] = an unbiased combination of qa and qb: E[value(out)] = value(qa) +
 * value(qb) exactly, one level code again; draws from `key` at g0 + i.
 * Returns 1 if some result would need code 0 or less (more headroom than
 * head gives: a caller bug), else 0. */
int gqx_add(int32_t *qa, const int32_t *qb, size_t m, uint64_t key, uint64_t g0);

#endif
