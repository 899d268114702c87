/* compressors/bitstream.h — LSB-first bit streams and little-endian scalars.
 *
 * The bit order of every packed format in the sparsifiers (Golomb positions,
 * sign bits, row bitmaps) is the same: bit i of a stream is bit (i mod 8) of
 * byte i/8, and a field of w bits is stored least significant bit first:
 *
 *     byte 0            byte 1
 *     b7 b6 ... b1 b0   b15 ... b8        stream bit i = byte[i/8] >> (i%8) & 1
 *
 * so a w-bit field written at stream position s reads back as
 * (stream >> s) & (2^w - 1) on a little-endian view of the bytes.  Header-only
 * (static inline): these sit in the innermost loops of encode and decode.
 */
#ifndef CCOMP_BITSTREAM_H
#define CCOMP_BITSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Little-endian scalars at unaligned addresses. */
static inline void ccb_store_u32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t ccb_load_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint32_t ccb_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline float ccb_bits_f32(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline void ccb_store_f32(uint8_t *p, float f) { ccb_store_u32(p, ccb_f32_bits(f)); }
static inline float ccb_load_f32(const uint8_t *p) { return ccb_bits_f32(ccb_load_u32(p)); }

/* Writer: appends fields to out[], which must be large enough (the callers
 * size it with their max_wire_bytes). */
typedef struct ccb_writer {
  uint8_t *out;
  size_t nbytes;  /* whole bytes written to out */
  uint64_t acc;   /* pending bits, LSB = next stream bit */
  unsigned nacc;  /* pending bit count, < 8 between calls */
} ccb_writer;

static inline void ccb_writer_init(ccb_writer *w, uint8_t *out) {
  w->out = out, w->nbytes = 0, w->acc = 0, w->nacc = 0;
}

/* Append the low `nbits` (<= 32) bits of v. */
static inline void ccb_put(ccb_writer *w, uint64_t v, unsigned nbits) {
  if (nbits == 0) return;
  w->acc |= (v & ((1ull << nbits) - 1)) << w->nacc;
  w->nacc += nbits;
  while (w->nacc >= 8) {
    w->out[w->nbytes++] = (uint8_t)w->acc;
    w->acc >>= 8;
    w->nacc -= 8;
  }
}

/* Append q one-bits followed by a zero-bit (unary code of q). */
static inline void ccb_put_unary(ccb_writer *w, size_t q) {
  while (q >= 32) {
    ccb_put(w, 0xffffffffu, 32);
    q -= 32;
  }
  ccb_put(w, (1ull << q) - 1, (unsigned)q + 1); /* q ones, then the 0 above them */
}

/* Stream position in bits. */
static inline size_t ccb_tell(const ccb_writer *w) { return 8 * w->nbytes + w->nacc; }

/* Pad the last byte with zero bits; return the total bytes written. */
static inline size_t ccb_flush(ccb_writer *w) {
  if (w->nacc) {
    w->out[w->nbytes++] = (uint8_t)w->acc;
    w->acc = 0, w->nacc = 0;
  }
  return w->nbytes;
}

/* Reader over in[nbytes]; reading past the end sets `overrun` and yields zeros. */
typedef struct ccb_reader {
  const uint8_t *in;
  size_t nbytes, pos; /* pos: next byte of in to load into acc */
  uint64_t acc;
  unsigned nacc;
  int overrun;
} ccb_reader;

static inline void ccb_reader_init(ccb_reader *r, const uint8_t *in, size_t nbytes) {
  r->in = in, r->nbytes = nbytes, r->pos = 0, r->acc = 0, r->nacc = 0, r->overrun = 0;
}

static inline void ccb_refill(ccb_reader *r) {
  while (r->nacc <= 56 && r->pos < r->nbytes) {
    r->acc |= (uint64_t)r->in[r->pos++] << r->nacc;
    r->nacc += 8;
  }
}

/* Next `nbits` (<= 32) bits as an unsigned value. */
static inline uint32_t ccb_get(ccb_reader *r, unsigned nbits) {
  if (nbits == 0) return 0;
  if (r->nacc < nbits) ccb_refill(r);
  if (r->nacc < nbits) {
    r->overrun = 1;
    r->acc = 0, r->nacc = 0;
    return 0;
  }
  uint32_t v = (uint32_t)(r->acc & ((1ull << nbits) - 1));
  r->acc >>= nbits;
  r->nacc -= nbits;
  return v;
}

/* Next unary code: the number of one-bits before the next zero-bit. */
static inline size_t ccb_get_unary(ccb_reader *r) {
  size_t q = 0;
  for (;;) {
    if (r->nacc == 0) ccb_refill(r);
    if (r->nacc == 0) {
      r->overrun = 1;
      return q;
    }
    uint64_t zeros = ~r->acc;
    if (r->nacc < 64) zeros &= (1ull << r->nacc) - 1;
    if (zeros) {
      unsigned t = (unsigned)__builtin_ctzll(zeros); /* ones before the terminating zero */
      q += t;
      r->acc = (t + 1 < 64) ? r->acc >> (t + 1) : 0;
      r->nacc -= t + 1;
      return q;
    }
    q += r->nacc;
    r->acc = 0, r->nacc = 0;
  }
}

#endif
