// Copyright 2026 The GridStore Authors.
//
// shuffle:   dst[b * n + i] = src[i * K + b]   for element i < n, byte b < K
// unshuffle: the inverse, of all n elements or of a range of them (one row of a frame).
// With SSE2, 16 elements are transposed per step by log2(K) passes of byte (de)interleaving;
// otherwise, and for the tail, plain loops.
#include "gridstore/blocks/internal/byte_shuffle.h"

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gridstore::grid {
namespace {

template <size_t K>
void ShuffleScalar(const uint8_t* src, uint8_t* dst, size_t begin, size_t n) {
  for (size_t b = 0; b < K; ++b) {
    uint8_t* plane = dst + b * n;
    for (size_t i = begin; i < n; ++i) plane[i] = src[i * K + b];
  }
}

// Elements [begin, end) of the n shuffled ones at src into dst[0, (end - begin) * K).
template <size_t K>
void UnshuffleScalar(const uint8_t* src, size_t n, size_t begin, size_t end, uint8_t* dst) {
  for (size_t i = begin; i < end; ++i) {
    for (size_t b = 0; b < K; ++b) dst[(i - begin) * K + b] = src[b * n + i];
  }
}

#if defined(__SSE2__)
// v[0..K) hold 16 interleaved K-byte elements. Each pass splits every pair of vectors into their
// even bytes (first half of the output) and odd bytes (second half); after log2(K) passes, v[b]
// holds byte b of the 16 elements.
template <size_t K>
inline void TransposeToPlanes(__m128i* v) {
  const __m128i low = _mm_set1_epi16(0x00ff);
  // Fully unrolled (also at -O2) so that v and t stay in registers.
#pragma GCC unroll 8
  for (size_t pass = 1; pass < K; pass *= 2) {
    __m128i t[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K / 2; ++p) {
      t[p] = _mm_packus_epi16(_mm_and_si128(v[2 * p], low), _mm_and_si128(v[2 * p + 1], low));
      t[K / 2 + p] = _mm_packus_epi16(_mm_srli_epi16(v[2 * p], 8), _mm_srli_epi16(v[2 * p + 1], 8));
    }
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) v[p] = t[p];
  }
}

// The exact inverse of TransposeToPlanes: interleaving the even and odd halves undoes a pass.
template <size_t K>
inline void TransposeFromPlanes(__m128i* v) {
#pragma GCC unroll 8
  for (size_t pass = 1; pass < K; pass *= 2) {
    __m128i t[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K / 2; ++p) {
      t[2 * p] = _mm_unpacklo_epi8(v[p], v[K / 2 + p]);
      t[2 * p + 1] = _mm_unpackhi_epi8(v[p], v[K / 2 + p]);
    }
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) v[p] = t[p];
  }
}

template <size_t K>
void Shuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) {
      v[p] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * K + 16 * p));
    }
    TransposeToPlanes<K>(v);
#pragma GCC unroll 8
    for (size_t b = 0; b < K; ++b) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + b * n + i), v[b]);
    }
  }
  ShuffleScalar<K>(src, dst, i, n);
}

template <size_t K>
void Unshuffle(const uint8_t* src, size_t n, size_t begin, size_t end, uint8_t* dst) {
  size_t i = begin;
  for (; i + 16 <= end; i += 16) {
    __m128i v[K];
#pragma GCC unroll 8
    for (size_t b = 0; b < K; ++b) {
      v[b] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + b * n + i));
    }
    TransposeFromPlanes<K>(v);
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (i - begin) * K + 16 * p), v[p]);
    }
  }
  UnshuffleScalar<K>(src, n, i, end, dst + (i - begin) * K);
}
#else
template <size_t K>
void Shuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  ShuffleScalar<K>(src, dst, 0, n);
}
template <size_t K>
void Unshuffle(const uint8_t* src, size_t n, size_t begin, size_t end, uint8_t* dst) {
  UnshuffleScalar<K>(src, n, begin, end, dst);
}
#endif

}  // namespace

void ShuffleBytes(const char* src, char* dst, size_t size, size_t element_size) {
  auto* s = reinterpret_cast<const uint8_t*>(src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  switch (element_size) {
    case 2:
      return Shuffle<2>(s, d, size / 2);
    case 4:
      return Shuffle<4>(s, d, size / 4);
    default:
      return Shuffle<8>(s, d, size / 8);
  }
}

void UnshuffleBytes(const char* src, char* dst, size_t size, size_t element_size) {
  const size_t n = size / element_size;
  UnshuffleElements(src, n, 0, n, dst, element_size);
}

void UnshuffleElements(const char* src, size_t count, size_t begin, size_t end, char* dst,
                       size_t element_size) {
  auto* s = reinterpret_cast<const uint8_t*>(src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  switch (element_size) {
    case 2:
      return Unshuffle<2>(s, count, begin, end, d);
    case 4:
      return Unshuffle<4>(s, count, begin, end, d);
    default:
      return Unshuffle<8>(s, count, begin, end, d);
  }
}

}  // namespace gridstore::grid
