// f32 products of at most 4 columns, y[i, j] = Σ_p a[i, p] · bt[j, p] (+
// bias[j], clamped at 0 for a fused relu), one row of a at a time: each
// row is read once, in 16-byte vectors, against the columns of b stored as
// rows (bt). XNNPACK's GEMM tiles are 8 columns wide and, for a b that
// changes per run, pack it first: a matrix times a vector cost 8x its
// multiply-adds at 8 columns ([64, 4096] x [4096, 1]: 0.44 ns a
// multiply-add against 0.05). Sums are in f32 lanes, in another order than
// the interpreter's (within its f32 tolerance, as XNNPACK's are).
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/kernels/vec16.h"

namespace shrew::runtime::kernels {

inline constexpr int64_t kRowDotsMaxColumns = 4;
inline constexpr int64_t kRowDotsMinK = 8;

// R rows of y at once (each load of bt serves R rows).
template <int N, int R>
[[gnu::always_inline]] inline void RowDotsBlock(const float* a, int64_t lda, const float* bt, int64_t ldb, float* y,
                                                int64_t ldy, int64_t k, const float* bias, bool relu) {
  using V = Vec16Of<float>;
  constexpr int U = N == 1 ? 4 : 2;  // vectors per step and column: independent sums
  V acc[R][N][U] = {};
  int64_t p = 0;
  for (; p + 4 * U <= k; p += 4 * U) {
    V av[R][U];
    for (int r = 0; r < R; ++r) {
      for (int u = 0; u < U; ++u) std::memcpy(&av[r][u], a + r * lda + p + 4 * u, sizeof(V));
    }
    for (int j = 0; j < N; ++j) {
      for (int u = 0; u < U; ++u) {
        V bv;
        std::memcpy(&bv, bt + j * ldb + p + 4 * u, sizeof(V));
        for (int r = 0; r < R; ++r) acc[r][j][u] += av[r][u] * bv;
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int j = 0; j < N; ++j) {
      V s = acc[r][j][0];
      for (int u = 1; u < U; ++u) s += acc[r][j][u];
      float t = (s[0] + s[1]) + (s[2] + s[3]);
      for (int64_t q = p; q < k; ++q) t += a[r * lda + q] * bt[j * ldb + q];
      if (bias != nullptr) t += bias[j];
      // As XNNPACK's output clamp: anything not above 0 (NaN too) is 0.
      if (relu && !(t > 0.0f)) t = 0.0f;
      y[r * ldy + j] = t;
    }
  }
}

// Two rows at a time up to 2 columns (8 vector sums); from 3 columns, two
// rows would hold more sums than x86 has vector registers.
template <int N>
void RowDotsOf(const float* a, int64_t lda, const float* bt, int64_t ldb, float* y, int64_t ldy, int64_t m,
               int64_t k, const float* bias, bool relu) {
  constexpr int R = N <= 2 ? 2 : 1;
  int64_t i = 0;
  for (; i + R <= m; i += R) RowDotsBlock<N, R>(a + i * lda, lda, bt, ldb, y + i * ldy, ldy, k, bias, relu);
  for (; i < m; ++i) RowDotsBlock<N, 1>(a + i * lda, lda, bt, ldb, y + i * ldy, ldy, k, bias, relu);
}

// The product of a [m, k] (row stride lda) and the n <= kRowDotsMaxColumns
// columns of b given as rows of bt (row stride ldb) into y (row stride ldy).
inline void RowDots(const float* a, int64_t lda, const float* bt, int64_t ldb, float* y, int64_t ldy, int64_t m,
                    int64_t n, int64_t k, const float* bias = nullptr, bool relu = false) {
  switch (n) {
    case 1: return RowDotsOf<1>(a, lda, bt, ldb, y, ldy, m, k, bias, relu);
    case 2: return RowDotsOf<2>(a, lda, bt, ldb, y, ldy, m, k, bias, relu);
    case 3: return RowDotsOf<3>(a, lda, bt, ldb, y, ldy, m, k, bias, relu);
    default: return RowDotsOf<4>(a, lda, bt, ldb, y, ldy, m, k, bias, relu);
  }
}

}  // namespace shrew::runtime::kernels
