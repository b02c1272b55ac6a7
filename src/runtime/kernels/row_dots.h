// f32 products of at most 4 columns, y[i, j] = Σ_p a[i, p] · bt[j, p] (+
// bias[j], clamped at 0 for a fused relu), one row of a at a time: each
// row is read once, in 16-byte vectors, against the columns of b stored as
// rows (bt). XNNPACK's GEMM tiles are 8 columns wide and, for a b that
// changes per run, pack it first: a matrix times a vector cost 8x its
// multiply-adds at 8 columns ([64, 4096] x [4096, 1]: 0.44 ns a
// multiply-add against 0.05). Sums are in f32 lanes, in another order than
// the interpreter's (within its f32 tolerance, as XNNPACK's are).
#pragma once

#include <algorithm>
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
  // Vectors per step and column: independent sums (see RowDotsOf for wasm).
#ifdef __wasm__
  constexpr int U = N == 1 ? 4 : N == 4 ? 1 : 2;
#else
  constexpr int U = N == 1 ? 4 : 2;
#endif
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

// Natively two rows at a time up to 2 columns (8 vector sums); from 3
// columns, two rows would hold more sums than x86 has vector registers. In
// wasm one row at a time, and one vector per step for 4 columns: V8 kept
// fewer of the sums in registers, and two rows of 1 or 2 columns took 1.4x
// and 1.7x the time of one ([512, 512] x [512, 2]: 49 -> 29 us), 4 columns
// of 2 vectors 1.1x.
template <int N>
void RowDotsOf(const float* a, int64_t lda, const float* bt, int64_t ldb, float* y, int64_t ldy, int64_t m,
               int64_t k, const float* bias, bool relu) {
#ifdef __wasm__
  constexpr int R = 1;
#else
  constexpr int R = N <= 2 ? 2 : 1;
#endif
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

// The product of a [m, k] (row stride lda) and b [k, n] stored as it is
// (row-major, 2 <= n <= 4), no copy of b: each row of y is a sum of b's
// rows scaled by a's values, n lanes of a vector per row of b (two rows of
// b per vector for n = 2), in four independent sums. Gathering b's columns
// into rows first cost more than the product for one row of a ([1, 4096]
// x [4096, 2]: 6.7 us against 0.3 for one column).
template <int N>
void RowsTimesNarrowOf(const float* a, int64_t lda, const float* b, float* y, int64_t ldy, int64_t m, int64_t k,
                       const float* bias, bool relu) {
  using V = Vec16Of<float>;
  constexpr int64_t kStep = N == 2 ? 2 : 1;  // rows of b per vector
  constexpr int kSums = 4;
  for (int64_t i = 0; i < m; ++i) {
    const float* ar = a + i * lda;
    V acc[kSums] = {};
    int64_t p = 0;
    // The last vector must not read past b's end for n = 3 (16 bytes from
    // b's last row): it ends one row early.
    const int64_t end = N == 3 ? k - 1 : k;
    for (; p + kSums * kStep <= end; p += kSums * kStep) {
      for (int u = 0; u < kSums; ++u) {
        const int64_t q = p + u * kStep;
        V bv;
        std::memcpy(&bv, b + q * N, sizeof(V));
        V av;
        if constexpr (N == 2) {
          av = V{ar[q], ar[q], ar[q + 1], ar[q + 1]};
        } else {
          av = V{} + ar[q];
        }
        acc[u] += av * bv;
      }
    }
    const V s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    float t[N];
    for (int j = 0; j < N; ++j) t[j] = N == 2 ? s[j] + s[j + 2] : s[j];
    for (; p < k; ++p) {
      for (int j = 0; j < N; ++j) t[j] += ar[p] * b[p * N + j];
    }
    for (int j = 0; j < N; ++j) {
      float v = t[j];
      if (bias != nullptr) v += bias[j];
      if (relu && !(v > 0.0f)) v = 0.0f;
      y[i * ldy + j] = v;
    }
  }
}

inline void RowsTimesNarrow(const float* a, int64_t lda, const float* b, float* y, int64_t ldy, int64_t m, int64_t n,
                            int64_t k, const float* bias = nullptr, bool relu = false) {
  switch (n) {
    case 2: return RowsTimesNarrowOf<2>(a, lda, b, y, ldy, m, k, bias, relu);
    case 3: return RowsTimesNarrowOf<3>(a, lda, b, y, ldy, m, k, bias, relu);
    default: return RowsTimesNarrowOf<4>(a, lda, b, y, ldy, m, k, bias, relu);
  }
}

// RowDots for any n, four columns of bt at a time (a's rows are read once
// per four columns: for few rows, where XNNPACK would pack bt every run).
inline void RowDotsWide(const float* a, int64_t lda, const float* bt, int64_t ldb, float* y, int64_t ldy, int64_t m,
                        int64_t n, int64_t k) {
  for (int64_t j = 0; j < n; j += kRowDotsMaxColumns) {
    RowDots(a, lda, bt + j * ldb, ldb, y + j, ldy, m, std::min(kRowDotsMaxColumns, n - j), k);
  }
}

}  // namespace shrew::runtime::kernels
