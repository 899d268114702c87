/* compressors/s2_sketch.c — S2 Reducer's count sketch for sparse gradients
 * (Ge et al., "S2 Reducer: High-Performance Sparse Communication to
 * Accelerate Distributed Deep Learning", ICASSP 2022); docs/algorithms.md.
 *
 * The chunk x[n] is viewed as R = ceil(n / m) rows of m = 'cols' elements (an
 * embedding table's gradient: R vocabulary rows, m = embedding dimension; the
 * last row may be short).  [code] Count sketch (Charikar, Chen &
 * Farach-Colton, ICALP 2002) with c = max(1, ceil(ratio * R * m)) columns and
 * 'depth' hash rows (the reference uses one): for every non-zero x[t], each
 * hash row r adds sign_r(t) x[t] to table_r[bucket_r(t)]; a bitmap marks the
 * rows of x holding any non-zero.  Both are linear, so payloads are summable.
 * Decode, for each row set in the bitmap:
 *     est(t) = median over r of sign_r(t) table_r[bucket_r(t)]   (the SUM over
 * the workers; finish() divides by n), and zero in the other rows.
 *
 * Hashes: h = ccr_u64(ccr_key(shared_key, r), offset + t), a pure function of
 * the shared key and the global index, identical on every worker; sign = bit
 * 0, bucket = the other 63 bits mapped onto [0, c) by multiply-shift.
 *
 * One sketch per tensor (CCOMP_WHOLE_PAYLOAD): as the reference, which
 * sketches each embedding tensor once and all-reduces the table, a
 * collective that cuts the tensor into chunks (ring, rhd, torus2d,
 * hierarchical) encodes the whole bucket once and cuts the PAYLOAD into
 * units, the table's cells and the bitmap's bytes, so rows are never split
 * and every non-zero collides over all c cells.  Sketching each chunk
 * separately, with chunks cut at element boundaries, put a Zipf embedding's
 * heavy rows into the first chunk's c/N cells (relative error 2.47 against
 * 1.27 for one sketch, 8 workers; tests/s2_ring.sh).
 *
 * Summable: combine adds the tables in fp32 and ORs the bitmaps.  OR rather
 * than a count per row keeps the payload at 32 c depth + R bits for any
 * number of workers (a count would need R ceil(log2(n+1)) bits) and is all
 * recovery needs: which rows anyone touched.  A row touched by one worker
 * only is decoded from the summed table: its estimate carries the other
 * workers' collisions, exactly as if one worker had sent the sum.
 *
 *     +---------------------------------------+---------------------------+
 *     | table: depth x c fp32, LE, row-major  | bitmap: R bits, LSB-first |
 *     +---------------------------------------+---------------------------+
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "ccomp/compressor.h"
#include "bitstream.h"
#include "ccomp/rng.h"
#include "sparse_pairs.h"

#define S2_MAX_DEPTH 15

static const ccomp_param s2_params[] = {
    {"cols", CCOMP_INT, 64, 1, 4294967295.0,
     "elements per row m of the R x m view; set it to the embedding dimension (ccsim's default 64)"},
    {"ratio", CCOMP_REAL, 0.005, 1e-7, 4.0,
     "sketch columns c = ceil(ratio * R * m), at least 1 (e.g. 0.5%)"},
    {"depth", CCOMP_INT, 1, 1, S2_MAX_DEPTH,
     "hash rows of the sketch; the estimate is their median (the reference uses 1)"},
};

typedef struct {
  size_t cols;
  double ratio;
  unsigned depth;
} s2_state;

static int s2_init(void *state, const double *params, const ccomp_setup *setup, char *err,
                   size_t errlen) {
  (void)setup, (void)err, (void)errlen;
  s2_state *s = state;
  s->cols = (size_t)params[0];
  s->ratio = params[1];
  s->depth = (unsigned)params[2];
  return 0;
}

typedef struct {
  size_t rows, c;
} s2_shape;

static s2_shape s2_shape_of(const s2_state *s, size_t n) {
  s2_shape sh;
  sh.rows = (n + s->cols - 1) / s->cols;
  sh.c = ccsp_count(s->ratio, sh.rows * s->cols);
  if (sh.c == 0) sh.c = 1;
  return sh;
}

static size_t s2_max_wire_bytes(const void *state, size_t n) {
  const s2_state *s = state;
  s2_shape sh = s2_shape_of(s, n);
  return 4 * s->depth * sh.c + (sh.rows + 7) / 8;
}

/* Hash row r of global index t: bucket in [0, c) and sign +-1 (the
 * definition; the block kernels below compute exactly this). */
static inline size_t s2_hash(uint64_t rowkey, uint64_t t, size_t c, float *sign) {
  uint64_t h = ccr_u64(rowkey, t);
  *sign = (h & 1) ? -1.0f : 1.0f;
  return (size_t)(((unsigned __int128)(h >> 1) * c) >> 63);
}

/* ---- blocks of 64 ----------------------------------------------------------
 * Encode and decode walk the chunk in blocks of S2_B elements (aligned to the
 * chunk's element 0; the hash depends on the global index only, so any
 * blocking gives the same sketch).  A block of x whose 64 elements are all
 * zero is skipped before any hashing; otherwise every hash row hashes the
 * whole block with s2_hash_block and scatters it, zeros included: adding
 * +-0 leaves a cell unchanged (a cell starts at +0 and a sum of floats is -0
 * only if both terms are), so the table is bit-identical to adding the
 * non-zeros alone, in the same index order.
 *
 * s2_hash_block computes s2_hash for 64 consecutive indices: SplitMix64 on
 * counters z, z + gamma, ... (no multiply for the counter), the sign as an
 * XOR mask on the float's sign bit (no branch: the sign is a coin flip, a
 * branch on it mispredicts half the time), and the bucket from 32-bit halves:
 * for g = h >> 1 = gh 2^32 + gl and c < 2^32,
 *     floor(g c / 2^63) = floor((gh c + floor(gl c / 2^32)) / 2^31)
 * exactly, with no term above 2^64.  On x86-64 with AVX2 (checked at run
 * time) four lanes at a time with intrinsics: gcc's vectorizer does not see
 * that these are 32 x 32-bit products and emulates full 64 x 64-bit ones,
 * 3 multiplies each instead of 1 (CCOMP_NO_CLONES, the switch that turns off
 * the qbits.c clones, turns this path off too).  Buckets for c >= 2^32
 * (chunks of more than 2^32 elements) come from s2_hash itself. */
enum { S2_B = 64 };

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CCOMP_NO_CLONES)
#define S2_AVX2 1
#include <immintrin.h>

#define S2_TARGET __attribute__((target("avx2"), always_inline)) static inline

/* z k mod 2^64 per lane; kl, kh = the low and high 32 bits of k. */
S2_TARGET __m256i s2_mul64(__m256i z, __m256i kl, __m256i kh) {
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(z, 32), kl),
                                         _mm256_mul_epu32(z, kh));
  return _mm256_add_epi64(_mm256_mul_epu32(z, kl), _mm256_slli_epi64(cross, 32));
}

/* ccr_mix (rng.h) per lane, with its two multipliers. */
S2_TARGET __m256i s2_mix4(__m256i z) {
  const uint64_t k1 = 0xBF58476D1CE4E5B9ull, k2 = 0x94D049BB133111EBull;
  const __m256i k1l = _mm256_set1_epi64x((long long)(k1 & 0xffffffffu)),
                k1h = _mm256_set1_epi64x((long long)(k1 >> 32)),
                k2l = _mm256_set1_epi64x((long long)(k2 & 0xffffffffu)),
                k2h = _mm256_set1_epi64x((long long)(k2 >> 32));
  z = s2_mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), k1l, k1h);
  z = s2_mul64(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), k2l, k2h);
  return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

/* Buckets of four hashes (c < 2^32 in every lane of c4). */
S2_TARGET __m256i s2_bucket4(__m256i h, __m256i c4) {
  const __m256i g = _mm256_srli_epi64(h, 1);
  const __m256i lo = _mm256_srli_epi64(_mm256_mul_epu32(g, c4), 32);
  const __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(g, 32), c4);
  return _mm256_srli_epi64(_mm256_add_epi64(hi, lo), 31);
}

/* The sign masks of eight hashes (bit 0 of each, moved to bit 31 of a
 * 32-bit lane), in index order. */
S2_TARGET __m256i s2_flip8(__m256i h0, __m256i h1) {
  const __m256 a = _mm256_castsi256_ps(_mm256_slli_epi64(h0, 63)),
               b = _mm256_castsi256_ps(_mm256_slli_epi64(h1, 63));
  /* odd 32-bit halves: a0 a1 b0 b1 | a2 a3 b2 b3, then the 64-bit pairs in order */
  return _mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xDD)), 0xD8);
}

/* The block kernel: bucket[j] for the 64 indices from the counter z0 =
 * rowkey + (t0 + 1) gamma, and either val[j] = sign_j x[j] (x non-NULL) or
 * flip[j] = the sign mask. */
__attribute__((target("avx2"))) static void s2_block_avx2(uint64_t z0, uint32_t c,
                                                          const float *restrict x,
                                                          uint64_t *restrict bucket,
                                                          float *restrict val,
                                                          uint32_t *restrict flip) {
  const __m256i c4 = _mm256_set1_epi64x(c), step = _mm256_set1_epi64x((long long)(8 * CCR_GAMMA));
  __m256i z = _mm256_set_epi64x((long long)(z0 + 3 * CCR_GAMMA), (long long)(z0 + 2 * CCR_GAMMA),
                                (long long)(z0 + CCR_GAMMA), (long long)z0);
  const __m256i four = _mm256_set1_epi64x((long long)(4 * CCR_GAMMA));
  for (int j = 0; j < S2_B; j += 8, z = _mm256_add_epi64(z, step)) {
    const __m256i h0 = s2_mix4(z), h1 = s2_mix4(_mm256_add_epi64(z, four));
    _mm256_storeu_si256((__m256i *)(bucket + j), s2_bucket4(h0, c4));
    _mm256_storeu_si256((__m256i *)(bucket + j + 4), s2_bucket4(h1, c4));
    const __m256i f = s2_flip8(h0, h1);
    if (x)
      _mm256_storeu_ps(val + j, _mm256_xor_ps(_mm256_loadu_ps(x + j), _mm256_castsi256_ps(f)));
    else
      _mm256_storeu_si256((__m256i *)(flip + j), f);
  }
}

/* Bit j set iff x[j] != 0: compares (unordered counts as not equal, so NaN
 * is non-zero) and their sign masks. */
__attribute__((target("avx2"))) static uint64_t s2_nonzero_avx2(const float *x) {
  uint64_t m = 0;
  for (int j = 0; j < S2_B; j += 8) {
    const __m256 ne = _mm256_cmp_ps(_mm256_loadu_ps(x + j), _mm256_setzero_ps(), _CMP_NEQ_UQ);
    m |= (uint64_t)(uint32_t)_mm256_movemask_ps(ne) << j;
  }
  return m;
}

static int s2_use_avx2(void) { return __builtin_cpu_supports("avx2"); }
#else
static int s2_use_avx2(void) { return 0; }
#endif

/* s2_hash for the 64 indices t0 .. t0 + 63: bucket[j], and either val[j] =
 * sign_j x[j] (x non-NULL) or flip[j] = the sign as an XOR mask on a float. */
static void s2_hash_block(int avx2, uint64_t rowkey, uint64_t t0, size_t c, const float *x,
                          uint64_t *bucket, float *val, uint32_t *flip) {
  if (c > UINT32_MAX) {
    for (int j = 0; j < S2_B; j++) {
      float sg;
      bucket[j] = s2_hash(rowkey, t0 + (uint64_t)j, c, &sg);
      const uint32_t f = ccb_f32_bits(sg) & 0x80000000u;
      if (x) val[j] = ccb_bits_f32(ccb_f32_bits(x[j]) ^ f);
      else flip[j] = f;
    }
    return;
  }
  uint64_t z = rowkey + (t0 + 1) * CCR_GAMMA; /* ccr_u64(rowkey, t0 + j) = ccr_mix(z + j gamma) */
#ifdef S2_AVX2
  if (avx2) {
    s2_block_avx2(z, (uint32_t)c, x, bucket, val, flip);
    return;
  }
#else
  (void)avx2;
#endif
  for (int j = 0; j < S2_B; j++, z += CCR_GAMMA) {
    const uint64_t h = ccr_mix(z), g = h >> 1;
    bucket[j] = ((g >> 32) * c + (((g & 0xffffffffu) * c) >> 32)) >> 31;
    const uint32_t f = (uint32_t)h << 31;
    if (x) val[j] = ccb_bits_f32(ccb_f32_bits(x[j]) ^ f);
    else flip[j] = f;
  }
}

/* Bit j set iff x[j] != 0 (NaN counts as non-zero, -0 as zero). */
static uint64_t s2_nonzero_mask(int avx2, const float *x) {
#ifdef S2_AVX2
  if (avx2) return s2_nonzero_avx2(x);
#else
  (void)avx2;
#endif
  uint64_t m = 0;
  for (int j = 0; j < S2_B; j++) m |= (uint64_t)((ccb_f32_bits(x[j]) & 0x7fffffffu) != 0) << j;
  return m;
}

/* Rows of the R x m view met by one block, segment by segment: the current
 * row and its end are kept across blocks, so there is no division per block. */
typedef struct {
  size_t row, row_end, cols, n;
} s2_rows;

static uint64_t s2_bits(size_t lo, size_t hi) { /* bits [lo, hi) of a word, hi <= 64 */
  uint64_t upto = hi == 64 ? ~0ull : (1ull << hi) - 1;
  return upto & ~((1ull << lo) - 1);
}

/* The segment of the block [b, end) that starts at p: its row (*row), its
 * bits in the block's word (*mask); returns where the next one starts. */
static size_t s2_segment(s2_rows *rw, size_t p, size_t b, size_t end, size_t *row, uint64_t *mask) {
  const size_t e = rw->row_end < end ? rw->row_end : end;
  *row = rw->row;
  *mask = s2_bits(p - b, e - b);
  if (e == rw->row_end) {
    rw->row++;
    rw->row_end = rw->row_end + rw->cols < rw->n ? rw->row_end + rw->cols : rw->n;
  }
  return e;
}

static size_t s2_wire_sizes(const s2_state *s, size_t n, s2_shape *sh) {
  *sh = s2_shape_of(s, n);
  return 4 * s->depth * sh->c;
}

static size_t s2_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                        uint8_t *out) {
  const s2_state *s = state;
  s2_shape sh;
  const size_t tbytes = s2_wire_sizes(s, n, &sh), total = s2_max_wire_bytes(s, n);
  memset(out, 0, total);
  uint8_t *bitmap = out + tbytes;
  uint64_t rowkey[S2_MAX_DEPTH];
  for (unsigned r = 0; r < s->depth; r++) rowkey[r] = ccr_key(call->shared_key, r);
  const int avx2 = s2_use_avx2();
  /* The table is summed in an aligned fp32 array, then stored little-endian. */
  float *tab = calloc((size_t)s->depth * sh.c + 1, sizeof *tab);
  s2_rows rw = {0, s->cols < n ? s->cols : n, s->cols, n};
  for (size_t b = 0; b < n; b += S2_B) {
    const size_t len = n - b < S2_B ? n - b : S2_B;
    const float *xb = x + b;
    float pad[S2_B];
    if (len < S2_B) { /* the last block, zero-padded: padding adds nothing */
      memcpy(pad, xb, len * sizeof *pad);
      memset(pad + len, 0, (S2_B - len) * sizeof *pad);
      xb = pad;
    }
    /* x streams from memory while the scatter keeps the caches busy: fetch
     * ahead. */
    if (n - b > 17 * S2_B)
      for (int l = 0; l < S2_B; l += 16) __builtin_prefetch(x + b + 16 * S2_B + l);
    const uint64_t nz = s2_nonzero_mask(avx2, xb);
    /* Mark the rows of this block holding a non-zero. */
    for (size_t p = b, row; p < b + len;) {
      uint64_t m;
      p = s2_segment(&rw, p, b, b + len, &row, &m);
      if (nz & m) bitmap[row / 8] |= (uint8_t)(1u << (row % 8));
    }
    if (!nz) continue;
    for (unsigned r = 0; r < s->depth; r++) {
      uint64_t bucket[S2_B];
      float val[S2_B];
      s2_hash_block(avx2, rowkey[r], (uint64_t)call->offset + b, sh.c, xb, bucket, val, NULL);
      float *table = tab + r * sh.c;
      for (int j = 0; j < S2_B; j++) table[bucket[j]] += val[j];
    }
  }
  for (size_t j = 0; j < s->depth * sh.c; j++) ccb_store_f32(out + 4 * j, tab[j]);
  free(tab);
  return total;
}

/* Median of v[d] (d <= S2_MAX_DEPTH), by insertion sort; the mean of the two
 * middle values when d is even. */
static float median(float *v, unsigned d) {
  for (unsigned i = 1; i < d; i++) {
    float a = v[i];
    unsigned j = i;
    for (; j > 0 && v[j - 1] > a; j--) v[j] = v[j - 1];
    v[j] = a;
  }
  return (d & 1) ? v[d / 2] : 0.5f * (v[d / 2 - 1] + v[d / 2]);
}

/* Elements [lo, hi) of the tensor of n elements that payload `in` sketches
 * into y[0 .. hi - lo) (lo = 0, hi = n: decode).  Blocks start at lo: the
 * hashes depend on the global index only. */
static void s2_decode_span(const s2_state *s, const uint8_t *in, size_t n, size_t lo, size_t hi,
                           const ccomp_call *call, float *y) {
  s2_shape sh;
  const size_t tbytes = s2_wire_sizes(s, n, &sh);
  const uint8_t *bitmap = in + tbytes;
  uint64_t rowkey[S2_MAX_DEPTH];
  for (unsigned r = 0; r < s->depth; r++) rowkey[r] = ccr_key(call->shared_key, r);
  const int avx2 = s2_use_avx2();
  const size_t row0 = lo / s->cols, end0 = (row0 + 1) * s->cols;
  s2_rows rw = {row0, end0 < n ? end0 : n, s->cols, n};
  y -= lo; /* y[b] below: element b */
  for (size_t b = lo; b < hi; b += S2_B) {
    const size_t len = hi - b < S2_B ? hi - b : S2_B;
    /* Bit j set iff element b + j lies in a row set in the bitmap. */
    uint64_t want = 0;
    for (size_t p = b, row; p < b + len;) {
      uint64_t m;
      p = s2_segment(&rw, p, b, b + len, &row, &m);
      if (bitmap[row / 8] >> (row % 8) & 1) want |= m;
    }
    if (!want) {
      memset(y + b, 0, len * sizeof *y);
      continue;
    }
    /* One hash row and a whole block wanted (the common dense case): the
     * estimates go straight to y. */
    const int direct = s->depth == 1 && len == S2_B && want == ~0ull;
    float est[S2_MAX_DEPTH][S2_B];
    for (unsigned r = 0; r < s->depth; r++) {
      uint64_t bucket[S2_B];
      uint32_t flip[S2_B];
      s2_hash_block(avx2, rowkey[r], (uint64_t)call->offset + b, sh.c, NULL, bucket, NULL, flip);
      const uint8_t *table = in + 4 * r * sh.c;
      float *e = direct ? y + b : est[r];
      for (int j = 0; j < S2_B; j++)
        e[j] = ccb_bits_f32(ccb_load_u32(table + 4 * bucket[j]) ^ flip[j]);
    }
    if (direct) continue;
    if (s->depth > 1)
      for (int j = 0; j < S2_B; j++) {
        float v[S2_MAX_DEPTH];
        for (unsigned r = 0; r < s->depth; r++) v[r] = est[r][j];
        est[0][j] = median(v, s->depth);
      }
    for (size_t j = 0; j < len; j++) y[b + j] = want >> j & 1 ? est[0][j] : 0.0f;
  }
}

static void s2_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                      uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers;
  assert(nbytes == s2_max_wire_bytes(state, n));
  (void)nbytes;
  s2_decode_span(state, in, n, 0, n, call, y);
}

/* compressor.h: decode_range (whole mode). */
static void s2_decode_range(const void *state, const uint8_t *in, size_t n, size_t lo, size_t hi,
                            uint32_t workers, const ccomp_call *call, float *y) {
  (void)workers;
  s2_decode_span(state, in, n, lo, hi, call, y);
}

static size_t s2_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                         const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                         const ccomp_call *call, uint8_t *out) {
  (void)ka, (void)kb, (void)call, (void)nb;
  const s2_state *s = state;
  s2_shape sh = s2_shape_of(s, n);
  size_t tbytes = 4 * s->depth * sh.c;
  assert(na == nb && na == s2_max_wire_bytes(s, n));
  for (size_t o = 0; o < tbytes; o += 4)
    ccb_store_f32(out + o, ccb_load_f32(a + o) + ccb_load_f32(b + o));
  for (size_t o = tbytes; o < na; o++) out[o] = a[o] | b[o];
  return na;
}

/* Units of the whole payload (compressor.h): the table's fp32 cells (summed),
 * then the bitmap's bytes in groups of four (ORed; the last group shorter). */
static size_t s2_units(const void *state, size_t n, size_t *summed) {
  const s2_state *s = state;
  s2_shape sh = s2_shape_of(s, n);
  *summed = s->depth * sh.c;
  return *summed + ((sh.rows + 7) / 8 + 3) / 4;
}

static void s2_combine_units(const void *state, size_t n, size_t u0, size_t m, const uint8_t *a,
                             const uint8_t *b, uint8_t *out) {
  size_t summed;
  s2_units(state, n, &summed);
  const size_t wire = s2_max_wire_bytes(state, n);
  for (size_t u = u0; u < u0 + m; u++) {
    const size_t o = 4 * (u - u0);
    if (u < summed) {
      ccb_store_f32(out + o, ccb_load_f32(a + o) + ccb_load_f32(b + o));
      continue;
    }
    for (size_t j = 0; j < 4 && 4 * u + j < wire; j++) out[o + j] = a[o + j] | b[o + j];
  }
}

/* Encode: zero the table (one kernel), then one kernel that hashes each
 * element (SplitMix64, ~10 integer operations per hash row, counted as flops)
 * and scatter-adds the non-zeros into the table (atomics on a GPU; charged as
 * a read and a write of 4 bytes per element and hash row, the dense worst
 * case) and sets the row bits.  Decode: per element of the touched rows
 * (charged as all rows), depth hashes and table reads, a median, a write.
 * Combine: one element-wise add of the tables and OR of the bitmaps. */
static void s2_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  const s2_state *s = state;
  s2_shape sh = s2_shape_of(s, n);
  double d = s->depth, wire = (double)s2_max_wire_bytes(s, n), nn = (double)n;
  switch (op) {
  case CCOMP_ENCODE:
    c->launches = 2;
    c->bytes_read = 4 * nn + 4 * d * nn;
    c->bytes_written = wire + 4 * d * nn;
    c->flops = 12 * d * nn;
    break;
  case CCOMP_DECODE:
    c->launches = 1;
    c->bytes_read = (double)(sh.rows + 7) / 8 + 4 * d * nn;
    c->bytes_written = 4 * nn;
    c->flops = 12 * d * nn + d * d * nn;
    break;
  case CCOMP_COMBINE:
    c->launches = 1;
    c->bytes_read = 2 * wire;
    c->bytes_written = wire;
    c->flops = d * (double)sh.c + (double)(sh.rows + 63) / 64;
    break;
  }
}

/* Deterministic, for any hashes (the shared key is not known here): rows
 * without a non-zero decode to exact zeros; in the others, each hash row's
 * estimate of x_t is x_t plus signed colliding entries, off by at most
 * L - |x_t| with L = ||x||_1, and so is the median.  fp32 accumulation adds at
 * most (n + 1) 2^-23 L per element.  Hence
 *   ||x - C(x)||^2 <= sum_t (L - |x_t| + (n + 1) 2^-23 L)^2.
 * Loose for dense x, which a count sketch is not meant for; test_s2_sketch.c
 * measures the error of sparse inputs against c. */
static double s2_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  double L = 0, e2 = 0;
  for (size_t i = 0; i < n; i++) L += fabs((double)x[i]);
  double slack = ((double)n + 1) * 0x1p-23 * L;
  for (size_t i = 0; i < n; i++) {
    double e = L - fabs((double)x[i]) + slack;
    e2 += e * e;
  }
  return sqrt(e2);
}

const ccomp_type ccomp_s2_sketch = {
    .name = "s2-sketch",
    .summary = "S2 Reducer: count sketch (32c bits) + touched-row bitmap (R bits); summable",
    .flags = CCOMP_SUMMABLE | CCOMP_SHARED_SEED | CCOMP_FIXED_SIZE | CCOMP_WHOLE_PAYLOAD,
    .params = s2_params,
    .nparams = sizeof s2_params / sizeof s2_params[0],
    .state_size = sizeof(s2_state),
    .init = s2_init,
    .clear = NULL,
    .max_wire_bytes = s2_max_wire_bytes,
    .encode = s2_encode,
    .decode = s2_decode,
    .combine = s2_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = s2_cost,
    .roundtrip_bound = s2_roundtrip_bound,
    .phases = 0,
    .phase_bytes = NULL,
    .phase_encode = NULL,
    .phase_decode = NULL,
    .phase_cost = NULL,
    .units = s2_units,
    .combine_units = s2_combine_units,
    .decode_range = s2_decode_range,
};
