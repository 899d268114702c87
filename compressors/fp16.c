/* compressors/fp16.c — IEEE binary16, round to nearest even.
 *
 * Wire: n x 2 bytes, little-endian binary16.  Summable: combine decodes both
 * sides to fp32, adds, and re-rounds to fp16, which is what an fp16 ring
 * all-reduce does at every hop; the re-rounding is a (small) cascading error,
 * and a sum beyond 65504 overflows to infinity as it would on a GPU.
 *
 * Speed: on x86-64 CPUs with F16C (checked at run time) the conversions use
 * vcvtps2ph / vcvtph2ps, 8 elements at a time, round to nearest even as
 * half.h does; the two agree on every input except NaN (the hardware keeps
 * NaN payloads), so a block of 8 holding a NaN takes the scalar path and the
 * results are bit-identical to half.h's everywhere (tested in
 * test_quantizers.c). */
#include <math.h>
#include <string.h>

#include "ccomp/compressor.h"
#include "half.h"

static inline void store16(uint8_t *p, uint16_t h) { p[0] = (uint8_t)h, p[1] = (uint8_t)(h >> 8); }
static inline uint16_t load16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) /* clang 14 lacks "f16c" here */
#include <immintrin.h>
#define FP16_HAVE_F16C_PATH 1

static int have_f16c(void) {
  return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
}

__attribute__((target("avx,f16c"))) static void encode_f16c(const float *x, size_t n,
                                                            uint8_t *out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q))) {
      for (size_t j = i; j < i + 8; j++) store16(out + 2 * j, ccomp_f32_to_f16(x[j]));
    } else {
      _mm_storeu_si128((__m128i *)(void *)(out + 2 * i),
                       _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
  }
  for (; i < n; i++) store16(out + 2 * i, ccomp_f32_to_f16(x[i]));
}

/* 8 halves at p, or 0 if one of them is a NaN (then the caller goes scalar). */
__attribute__((target("avx,f16c"))) static inline int load8_f16c(const uint8_t *p, __m256 *v) {
  const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
  const __m128i mag = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
  if (_mm_movemask_epi8(_mm_cmpgt_epi16(mag, _mm_set1_epi16(0x7c00)))) return 0;
  *v = _mm256_cvtph_ps(h);
  return 1;
}

__attribute__((target("avx,f16c"))) static void decode_f16c(const uint8_t *in, size_t n,
                                                            float *y) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v;
    if (load8_f16c(in + 2 * i, &v)) {
      _mm256_storeu_ps(y + i, v);
    } else {
      for (size_t j = i; j < i + 8; j++) y[j] = ccomp_f16_to_f32(load16(in + 2 * j));
    }
  }
  for (; i < n; i++) y[i] = ccomp_f16_to_f32(load16(in + 2 * i));
}

__attribute__((target("avx,f16c"))) static void combine_f16c(const uint8_t *a, const uint8_t *b,
                                                             size_t n, uint8_t *out) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 va, vb;
    if (load8_f16c(a + 2 * i, &va) && load8_f16c(b + 2 * i, &vb)) {
      const __m256 s = _mm256_add_ps(va, vb);
      if (!_mm256_movemask_ps(_mm256_cmp_ps(s, s, _CMP_UNORD_Q))) {
        _mm_storeu_si128((__m128i *)(void *)(out + 2 * i),
                         _mm256_cvtps_ph(s, _MM_FROUND_TO_NEAREST_INT));
        continue;
      }
    }
    for (size_t j = i; j < i + 8; j++)
      store16(out + 2 * j, ccomp_f32_to_f16(ccomp_f16_to_f32(load16(a + 2 * j)) +
                                            ccomp_f16_to_f32(load16(b + 2 * j))));
  }
  for (; i < n; i++)
    store16(out + 2 * i, ccomp_f32_to_f16(ccomp_f16_to_f32(load16(a + 2 * i)) +
                                          ccomp_f16_to_f32(load16(b + 2 * i))));
}
#endif

static size_t fp16_max_wire_bytes(const void *state, size_t n) {
  (void)state;
  return 2 * n;
}

static size_t fp16_encode(void *state, const float *x, size_t n, const ccomp_call *call,
                          uint8_t *out) {
  (void)state, (void)call;
#ifdef FP16_HAVE_F16C_PATH
  if (have_f16c()) {
    encode_f16c(x, n, out);
    return 2 * n;
  }
#endif
  for (size_t i = 0; i < n; i++) store16(out + 2 * i, ccomp_f32_to_f16(x[i]));
  return 2 * n;
}

static void fp16_decode(const void *state, const uint8_t *in, size_t nbytes, size_t n,
                        uint32_t workers, const ccomp_call *call, float *y) {
  (void)state, (void)nbytes, (void)workers, (void)call;
#ifdef FP16_HAVE_F16C_PATH
  if (have_f16c()) {
    decode_f16c(in, n, y);
    return;
  }
#endif
  for (size_t i = 0; i < n; i++) y[i] = ccomp_f16_to_f32(load16(in + 2 * i));
}

static size_t fp16_combine(const void *state, const uint8_t *a, size_t na, uint32_t ka,
                           const uint8_t *b, size_t nb, uint32_t kb, size_t n,
                           const ccomp_call *call, uint8_t *out) {
  (void)state, (void)na, (void)ka, (void)nb, (void)kb, (void)call;
#ifdef FP16_HAVE_F16C_PATH
  if (have_f16c()) {
    combine_f16c(a, b, n, out);
    return 2 * n;
  }
#endif
  for (size_t i = 0; i < n; i++) {
    float s = ccomp_f16_to_f32(load16(a + 2 * i)) + ccomp_f16_to_f32(load16(b + 2 * i));
    uint16_t h = ccomp_f32_to_f16(s);
    out[2 * i] = (uint8_t)h;
    out[2 * i + 1] = (uint8_t)(h >> 8);
  }
  return 2 * n;
}

static void fp16_cost(const void *state, size_t n, enum ccomp_op op, ccomp_cost *c) {
  (void)state;
  c->launches = 1;
  switch (op) {
  case CCOMP_ENCODE:
    c->bytes_read = 4.0 * (double)n, c->bytes_written = 2.0 * (double)n, c->flops = (double)n;
    break;
  case CCOMP_DECODE:
    c->bytes_read = 2.0 * (double)n, c->bytes_written = 4.0 * (double)n, c->flops = (double)n;
    break;
  case CCOMP_COMBINE:
    c->bytes_read = 4.0 * (double)n, c->bytes_written = 2.0 * (double)n, c->flops = 3.0 * (double)n;
    break;
  }
}

/* Round to nearest: |h(x) - x| <= 2^-11 |x| in the normal range, and at most
 * half the subnormal spacing, 2^-25, below it.  Inputs beyond 65504 overflow. */
static double fp16_roundtrip_bound(const void *state, const float *x, size_t n) {
  (void)state;
  return ccomp_rounding_bound(x, n, 0x1p-11, 0x1p-25);
}

const ccomp_type ccomp_fp16 = {
    .name = "fp16",
    .summary = "IEEE binary16, round to nearest even; ring hops re-round the fp32 sum",
    .flags = CCOMP_SUMMABLE | CCOMP_FIXED_SIZE,
    .params = NULL,
    .nparams = 0,
    .state_size = 0,
    .init = NULL,
    .clear = NULL,
    .max_wire_bytes = fp16_max_wire_bytes,
    .encode = fp16_encode,
    .decode = fp16_decode,
    .combine = fp16_combine,
    .finish = NULL,
    .local_stat = NULL,
    .cost = fp16_cost,
    .roundtrip_bound = fp16_roundtrip_bound,
};
