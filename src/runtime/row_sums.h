// Row reductions in double with kLanes independent partial sums: the lanes
// let the compiler vectorise (SIMD128 in wasm) and keep the rounding of long
// rows small. Shared by the reduction and normalisation kernels, and by the
// interpreter's batch_norm, which the tape's matches bit for bit.
#pragma once

#include <cstddef>

namespace shrew::runtime {

inline constexpr int kRowSumLanes = 8;

template <typename T>
double RowSum(const T* x, size_t n) {
  double acc[kRowSumLanes] = {};
  size_t i = 0;
  for (; i + kRowSumLanes <= n; i += kRowSumLanes) {
    for (int l = 0; l < kRowSumLanes; ++l) acc[l] += static_cast<double>(x[i + l]);
  }
  double s = 0;
  for (; i < n; ++i) s += static_cast<double>(x[i]);
  for (int l = 0; l < kRowSumLanes; ++l) s += acc[l];
  return s;
}

// Σ (x - mean)² over the row (the second pass of a two-pass variance).
template <typename T>
double RowSquaredDeviation(const T* x, size_t n, double mean) {
  double acc[kRowSumLanes] = {};
  size_t i = 0;
  for (; i + kRowSumLanes <= n; i += kRowSumLanes) {
    for (int l = 0; l < kRowSumLanes; ++l) {
      const double d = static_cast<double>(x[i + l]) - mean;
      acc[l] += d * d;
    }
  }
  double s = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    s += d * d;
  }
  for (int l = 0; l < kRowSumLanes; ++l) s += acc[l];
  return s;
}

}  // namespace shrew::runtime
