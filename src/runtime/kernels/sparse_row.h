// One row of an f32 product against a constant [K, N] weight that reads
// only the weight rows whose input is not zero (products of 1 to 3 rows,
// row by row). A row of ReLU activations is
// about half zeros, and at batch 1 a product is bound by streaming its
// weight (mlp: 2.7 MB per call through a 2 MiB L2): skipping the rows a zero
// multiplies leaves that share of the stream out.
//
// Exact for a finite weight: a skipped term is 0 · w = ±0, and adding ±0 to
// a sum that starts at +0 changes nothing. The caller checks the weight once
// (0 · inf is NaN) and adds any bias after the sum, as the interpreter does.
// Terms are added in increasing k, as in the dense product.
#pragma once

#include <cstdint>
#include <cstring>

#include "runtime/kernels/vec16.h"

namespace shrew::runtime::kernels {

// The count of a[p] != 0 (NaN included), in vectors: a dense row pays only
// this (0.1 ns an element) before the dense product.
inline int64_t CountNonzero(const float* a, int64_t k) {
  using V = Vec16Of<float>;
  using M = Vec16Of<int32_t>;
  M acc = {};
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    V v;
    std::memcpy(&v, a + p, sizeof v);
    acc -= v != V{};  // lanes of -1 where true
  }
  int64_t count = static_cast<int64_t>(acc[0]) + acc[1] + acc[2] + acc[3];
  for (; p < k; ++p) count += a[p] != 0.0f;
  return count;
}

// Writes the indices p with a[p] != 0 (NaN included) to `rows` in increasing
// order and returns their count. `rows` holds k entries.
inline int64_t ListNonzeroRows(const float* a, int64_t k, int32_t* rows) {
  int64_t count = 0;
  for (int64_t p = 0; p < k; ++p) {
    rows[count] = static_cast<int32_t>(p);
    count += a[p] != 0.0f;
  }
  return count;
}

// Whether a row with `count` nonzeros of k is worth the sparse product
// against a weight n columns wide: `rows` is 1 when the row is weighed
// against one dense row, else the count of rows (2 or 3) that must all pay
// to leave XNNPACK's tile of 4 rows. Measured in wasm against XNNPACK's
// dense one-row product (64 KB to 4 MB weights): even at about a quarter of
// zeros, faster from 40 % on (4 MB: 0.68x the time at 40 %, 0.48x at 50 %,
// 0.19x at 75 %). Rows under 128 columns pay more per row (out is loaded and
// stored for every four rows of the weight): [2048, 64] breaks even at
// about 55 % zeros. Against the tile of 4, which costs 2.2-3.3x one row,
// 3 rows pay from 40 % zeros (0.47x the time at 60 %).
inline bool SparseRowPays(int64_t count, int64_t k, int64_t n, int64_t rows = 1) {
  const int64_t tenths = n >= 128 ? (rows == 3 ? 6 : 7) : 4;  // the largest share of nonzeros, in tenths
  return count * 10 <= k * tenths;
}

// out[0, n) = Σ over the listed rows p of a[p] · b[p, :], b being [K, n]:
// four weight rows at a time streamed into out (n floats, in L1), each
// element summed in the order of the list.
inline void SparseRowProduct(const float* a, const int32_t* rows, int64_t count, const float* b, float* out,
                             int64_t n) {
  using V = Vec16Of<float>;
  for (int64_t j = 0; j < n; ++j) out[j] = 0.0f;
  int64_t q = 0;
  for (; q + 4 <= count; q += 4) {
    const float a0 = a[rows[q]], a1 = a[rows[q + 1]], a2 = a[rows[q + 2]], a3 = a[rows[q + 3]];
    const float* b0 = b + static_cast<int64_t>(rows[q]) * n;
    const float* b1 = b + static_cast<int64_t>(rows[q + 1]) * n;
    const float* b2 = b + static_cast<int64_t>(rows[q + 2]) * n;
    const float* b3 = b + static_cast<int64_t>(rows[q + 3]) * n;
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      V o, v0, v1, v2, v3;
      std::memcpy(&o, out + j, sizeof o);
      std::memcpy(&v0, b0 + j, sizeof v0);
      std::memcpy(&v1, b1 + j, sizeof v1);
      std::memcpy(&v2, b2 + j, sizeof v2);
      std::memcpy(&v3, b3 + j, sizeof v3);
      o = (((o + a0 * v0) + a1 * v1) + a2 * v2) + a3 * v3;
      std::memcpy(out + j, &o, sizeof o);
    }
    for (; j < n; ++j) out[j] = (((out[j] + a0 * b0[j]) + a1 * b1[j]) + a2 * b2[j]) + a3 * b3[j];
  }
  for (; q < count; ++q) {
    const float av = a[rows[q]];
    const float* br = b + static_cast<int64_t>(rows[q]) * n;
    for (int64_t j = 0; j < n; ++j) out[j] += av * br[j];
  }
}

}  // namespace shrew::runtime::kernels
