// out = a · b for one [M, K] × [K, N] product (b stored as [N, K] when
// transposed) in plain C++, for the dtypes XNNPACK has no GEMM for (f64,
// integers), f32 batches it cannot take, and f32 products of fewer than 4
// rows against a b that changes per run (XNNPACK packs such a b each run).
//
// Floats: each 4-row × 32-byte tile of out is summed over all of K in
// registers, in 16-byte vectors of the compiler's vector extension (SIMD128
// in wasm, SSE natively), which stay vectors at -Os, where this code is built
// in wasm. The plain i-k-j loop read a row of b and a row of out from memory
// for every multiply-add: f64 [256, 256]² ran at 4 GFLOP/s in wasm. Fewer
// than 4 rows take one-row panels 8 vectors wide; the last columns, short of
// a vector, sum in scalar registers along rows of b; a K under 8 builds rows
// of out in memory. Every element is still the sum over k in increasing order,
// as the plain loop and the interpreter take it, so results do not change by
// a bit.
// Integers: the plain loop. Wasm has no fast 64-bit vector multiply (V8
// emulates i64x2.mul on x64): tiles gained nothing there.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/vec16.h"

namespace shrew::runtime::kernels {

inline constexpr int kGemmTileRows = 4;

// One R × W tile of units U — 16-byte vectors, or single elements for the
// last columns short of a vector (C of them: GemmEdge) — each sum in a
// register over all of k: a at its first row (row stride lda), b at the
// tile's first column (element (k, c) at b[k * ldb + c]), out at the tile's
// corner (row stride ldo). One output at a time read b down a column, a row
// apart: f64 [512, 512] × [512, 3] took 4x [512, 512] × [512, 4].
template <typename T, int R, int W = 2, typename U = Vec16Of<T>>
inline void GemmTile(const T* a, int64_t lda, const T* b, int64_t ldb, T* out, int64_t ldo, int64_t k) {
  constexpr int L = static_cast<int>(sizeof(U) / sizeof(T));
  U acc[R][W] = {};
  for (int64_t p = 0; p < k; ++p) {
    U bv[W];
#pragma GCC unroll 4
    for (int w = 0; w < W; ++w) std::memcpy(&bv[w], b + p * ldb + w * L, sizeof bv[w]);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const T av = a[r * lda + p];
#pragma GCC unroll 4
      for (int w = 0; w < W; ++w) acc[r][w] += av * bv[w];
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int w = 0; w < W; ++w) std::memcpy(out + r * ldo + w * L, &acc[r][w], sizeof acc[r][w]);
  }
}

// The last `cols` columns, 0 < cols < a vector's width: a tile of elements.
template <typename T, int R>
inline void GemmEdge(const T* a, int64_t lda, const T* b, int64_t ldb, T* out, int64_t ldo, int64_t k, int64_t cols) {
  constexpr int64_t L = 16 / sizeof(T);
  if (cols == 1) {
    GemmTile<T, R, 1, T>(a, lda, b, ldb, out, ldo, k);
  } else if constexpr (L > 2) {
    if (cols == 2) GemmTile<T, R, 2, T>(a, lda, b, ldb, out, ldo, k);
    else GemmTile<T, R, 3, T>(a, lda, b, ldb, out, ldo, k);
  }
}

// One row of out (a row of a times b, b not transposed): panels of W
// vectors of columns, each summed over all of k in registers. A 4-row tile's
// panel is 2 vectors wide, which for a single row read b in 32-byte pieces a
// row apart (vector × [1024, 1024]: 3.2 GFLOP/s); streaming whole rows of b
// into out in memory instead loaded and stored out for every k.
template <typename T, int W>
inline void GemmRowPanel(const T* a, const T* b, int64_t ldb, T* out, int64_t k) {
  using V = Vec16Of<T>;
  constexpr int L = static_cast<int>(16 / sizeof(T));
  V acc[W] = {};
  for (int64_t p = 0; p < k; ++p) {
    const T av = a[p];
    const T* brow = b + p * ldb;
#pragma GCC unroll 8
    for (int w = 0; w < W; ++w) {
      V bv;
      std::memcpy(&bv, brow + w * L, sizeof bv);
      acc[w] += av * bv;
    }
  }
  for (int w = 0; w < W; ++w) std::memcpy(out + w * L, &acc[w], sizeof acc[w]);
}

template <typename T>
void GemmRow(const T* a, const T* b, T* out, int64_t k, int64_t n) {
  constexpr int64_t L = 16 / sizeof(T);
  int64_t j = 0;
  for (; j + 8 * L <= n; j += 8 * L) GemmRowPanel<T, 8>(a, b + j, n, out + j, k);
  for (; j + L <= n; j += L) GemmRowPanel<T, 1>(a, b + j, n, out + j, k);
  if (j < n) GemmEdge<T, 1>(a, k, b + j, n, out + j, n, k, n - j);
}

// One row of out built in memory over a short k: out[j] = Σ_p a[p] · b[p, j]
// added row of b by row of b, in vectors along j. With k this small a
// register tile is all setup and stores (an outer product, k = 1, took 2.6x
// the plain loop in tiles).
template <typename T>
void GemmRowShortK(const T* a, const T* b, T* out, int64_t k, int64_t n) {
  using V = Vec16Of<T>;
  constexpr int64_t L = 16 / sizeof(T);
  for (int64_t j = 0; j < n; ++j) out[j] = 0;
  for (int64_t p = 0; p < k; ++p) {
    const T av = a[p];
    const T* brow = b + p * n;
    int64_t j = 0;
    for (; j + L <= n; j += L) {
      V o, bv;
      std::memcpy(&o, out + j, sizeof o);
      std::memcpy(&bv, brow + j, sizeof bv);
      o += av * bv;
      std::memcpy(out + j, &o, sizeof o);
    }
    for (; j < n; ++j) out[j] += av * brow[j];
  }
}

inline constexpr int64_t kGemmShortK = 8;

// Column panels of a tile's width, row tiles of R inside each (the panel of
// b, K × 32 bytes, stays in L1 across them), the edges narrower. Fewer rows
// than a tile's take one-row panels; a k under kGemmShortK builds rows in
// memory.
template <typename T>
void GemmFloat(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n) {
  constexpr int R = kGemmTileRows;
  constexpr int64_t C = 32 / sizeof(T);
  if (k < kGemmShortK) {
    for (int64_t i = 0; i < m; ++i) GemmRowShortK(a + i * k, b, out + i * n, k, n);
    return;
  }
  if (m < R) {
    for (int64_t i = 0; i < m; ++i) GemmRow(a + i * k, b, out + i * n, k, n);
    return;
  }
  constexpr int64_t L = 16 / sizeof(T);
  int64_t j = 0;
  for (; j + C <= n; j += C) {
    int64_t i = 0;
    for (; i + R <= m; i += R) GemmTile<T, R>(a + i * k, k, b + j, n, out + i * n + j, n, k);
    for (; i < m; ++i) GemmTile<T, 1>(a + i * k, k, b + j, n, out + i * n + j, n, k);
  }
  // The edge: a panel one vector wide, then the last columns.
  if (j + L <= n) {
    int64_t i = 0;
    for (; i + R <= m; i += R) GemmTile<T, R, 1>(a + i * k, k, b + j, n, out + i * n + j, n, k);
    for (; i < m; ++i) GemmTile<T, 1, 1>(a + i * k, k, b + j, n, out + i * n + j, n, k);
    j += L;
  }
  if (j < n) {
    int64_t i = 0;
    for (; i + R <= m; i += R) GemmEdge<T, R>(a + i * k, k, b + j, n, out + i * n + j, n, k, n - j);
    for (; i < m; ++i) GemmEdge<T, 1>(a + i * k, k, b + j, n, out + i * n + j, n, k, n - j);
  }
}

// i-k-j order: the inner loop runs along contiguous rows of b and out.
template <typename T, typename Acc>
void GemmPlain(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n, bool transpose_b) {
  static_assert(sizeof(Acc) == sizeof(T), "accumulating in place needs equal sizes");
  for (int64_t i = 0; i < m; ++i) {
    const T* arow = a + i * k;
    T* orow = out + i * n;
    if (transpose_b) {
      for (int64_t j = 0; j < n; ++j) {
        const T* brow = b + j * k;
        Acc acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += static_cast<Acc>(arow[p]) * static_cast<Acc>(brow[p]);
        orow[j] = static_cast<T>(acc);
      }
    } else {
      Acc* __restrict acc = reinterpret_cast<Acc*>(orow);
      for (int64_t j = 0; j < n; ++j) acc[j] = 0;
      for (int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(arow[p]);
        const T* __restrict brow = b + p * n;
        for (int64_t j = 0; j < n; ++j) acc[j] += av * static_cast<Acc>(brow[j]);
      }
    }
  }
}

// Acc: the accumulator (integers: of the same size, unsigned for wrapping).
// A float b stored [N, K] takes the plain loop: the kernels transpose a
// float linear's weight first (ref_matmul.cc) or leave it to XNNPACK.
template <typename T, typename Acc>
void Gemm(const T* a, const T* b, T* out, int64_t m, int64_t k, int64_t n, bool transpose_b) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<T, Acc>) {
    if (!transpose_b) {
      GemmFloat(a, b, out, m, k, n);
      return;
    }
  }
  GemmPlain<T, Acc>(a, b, out, m, k, n, transpose_b);
}

}  // namespace shrew::runtime::kernels
