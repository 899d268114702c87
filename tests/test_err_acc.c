/* tests/test_err_acc.c — the fused pass after a measured combine
 * (src/collectives/err_acc.c, err_acc_fused): the shadows it makes and the
 * figures it adds are, bit for bit, those of the passes it fuses (a's
 * shadows copied, b's added, then err_acc_add against each), for every
 * length (whole vectors and a tail), with and without each of its inputs,
 * over values that include signed zeros, subnormals and large magnitudes. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccomp/rng.h"
#include "check.h"
#include "collectives/err_acc.h"

static uint64_t drawn;
static double draw(void) {
  const uint64_t u = ccr_u64(0x65727261, drawn++);
  switch (u % 16) {
  case 0: return 0.0;
  case 1: return -0.0;
  case 2: return ldexp((double)(u >> 20), -1070); /* subnormal */
  case 3: return (u & 32 ? -1 : 1) * ldexp(1.0 + (double)(u >> 12) * 0x1p-52, 200);
  default: return (u & 32 ? -1 : 1) * ldexp(1.0 + (double)(u >> 12) * 0x1p-52, (int)(u >> 58) - 32);
  }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }
static int same_acc(const err_acc *a, const err_acc *b) {
  return same_bits(a->err2, b->err2) && same_bits(a->ref2, b->ref2) && same_bits(a->out2, b->out2) &&
         same_bits(a->dot, b->dot) && a->count == b->count;
}

int main(void) {
  enum { MAXN = 1031 };
  float *y = malloc(MAXN * sizeof *y);
  double *ax = malloc(MAXN * sizeof *ax), *bx = malloc(MAXN * sizeof *bx), *ai = malloc(MAXN * sizeof *ai),
         *bi = malloc(MAXN * sizeof *bi), *sx = malloc(MAXN * sizeof *sx), *si = malloc(MAXN * sizeof *si),
         *rx = malloc(MAXN * sizeof *rx), *ri = malloc(MAXN * sizeof *ri);
  if (!y || !ax || !bx || !ai || !bi || !sx || !si || !rx || !ri) return 1;
  const size_t lens[] = {0, 1, 3, 4, 5, 7, 8, 63, 64, 65, 511, 512, 513, 1024, 1031};
  int cases = 0;
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
    for (int mode = 0; mode < 16; mode++) {
      const size_t n = lens[li];
      const int with_ax = mode & 1, with_bx = mode & 2, with_si = mode & 4, with_ai = mode & 8;
      if (!with_si && with_ai) continue;
      for (size_t i = 0; i < n; i++) {
        y[i] = (float)draw();
        ax[i] = draw(), bx[i] = draw(), ai[i] = draw(), bi[i] = draw();
        sx[i] = draw(), si[i] = draw(); /* s's own shadows, where a's are taken over */
      }
      /* the reference: the passes the fused one replaces */
      for (size_t i = 0; i < n; i++) {
        rx[i] = with_ax ? ax[i] : sx[i];
        if (with_bx) rx[i] += bx[i];
        ri[i] = (with_ai ? ai[i] : si[i]) + bi[i];
      }
      err_acc e0 = {.err2 = 1.5, .ref2 = 2.5, .out2 = 3.5, .dot = -1.0, .count = 7}, c0 = e0, e1 = e0, c1 = e0;
      err_acc_add(&e0, y, rx, n, 1.0);
      if (with_si) err_acc_add(&c0, y, ri, n, 1.0);
      const fused_pass f = {.y = y, .sx = sx, .si = with_si ? si : NULL, .n = n, .ax = with_ax ? ax : NULL,
                            .ai = with_si && with_ai ? ai : NULL, .bx = with_bx ? bx : NULL,
                            .bi = with_si ? bi : NULL};
      err_acc_fused(&f, &e1, &c1);
      size_t bad = n;
      for (size_t i = 0; i < n && bad == n; i++)
        if (!same_bits(sx[i], rx[i]) || (with_si && !same_bits(si[i], ri[i]))) bad = i;
      CHECK(bad == n, "n %zu, mode %d: shadow %zu differs", n, mode, bad);
      CHECK(same_acc(&e1, &e0), "n %zu, mode %d: exact figures %.17g %.17g %.17g %.17g against %.17g %.17g %.17g %.17g",
            n, mode, e1.err2, e1.ref2, e1.out2, e1.dot, e0.err2, e0.ref2, e0.out2, e0.dot);
      if (with_si) CHECK(same_acc(&c1, &c0), "n %zu, mode %d: ideal figures differ", n, mode);
      else CHECK(same_acc(&c1, &(err_acc){.err2 = 1.5, .ref2 = 2.5, .out2 = 3.5, .dot = -1.0, .count = 7}),
                 "n %zu, mode %d: ideal figures changed without an ideal shadow", n, mode);
      cases++;
    }
  CHECK(cases == 15 * 12, "%d cases", cases);
  free(y), free(ax), free(bx), free(ai), free(bi), free(sx), free(si), free(rx), free(ri);
  return check_status("err_acc");
}
