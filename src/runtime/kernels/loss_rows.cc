#include "runtime/kernels/loss_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/row_sums.h"
#include "runtime/kernels/vector_math.h"
#include "runtime/kernels/vector_math_f64.h"

namespace shrew::runtime::kernels {
namespace {

// Rows shorter than this are done a block at a time, unless there are fewer
// than kFewRows of them (one row of 2 classes took 1.7x the time by the
// block's loops).
constexpr size_t kShortRow = 48;
constexpr size_t kFewRows = 4;

// In lanes so that it vectorises; the lanes start at −inf, so a NaN never
// enters one and the result is the sequential std::max's (up to which zero
// of ±0, which no caller can tell apart: x − m and exp give the same).
template <typename T>
T RowMaxOf(const T* x, size_t n) {
  constexpr size_t kLanes = 8;
  constexpr T kLow = -std::numeric_limits<T>::infinity();
  T m = kLow;
  size_t i = 0;
  if (n >= kLanes) {
    T lane[kLanes] = {kLow, kLow, kLow, kLow, kLow, kLow, kLow, kLow};
    for (; i + kLanes <= n; i += kLanes) {
      for (size_t l = 0; l < kLanes; ++l) lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
    }
    for (size_t l = 0; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  }
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// v[i] = exp(v[i]) for i < n (ExpRow: four f32 or two f64 lanes at a time).
template <typename T>
inline void ExpInPlace(T* v, size_t n) {
  ExpRow(v, v, n);
}

template <typename T>
void RowsLogSumExpOf(const T* x, size_t rows, size_t n, T* m, double* log_sum, T* scratch) {
  if (n >= kShortRow || rows < kFewRows) {
    for (size_t r = 0; r < rows; ++r, x += n) {
      const T mr = RowMaxOf(x, n);  // a local: scratch may alias m as far as the compiler knows
      m[r] = mr;
      for (size_t j = 0; j < n; ++j) scratch[j] = x[j] - mr;
      ExpInPlace(scratch, n);
      log_sum[r] = std::log(RowSum(scratch, n));
    }
    return;
  }
  // Short rows: the block is copied into n planes (plane j holds
  // every row's element j), so that each step below is one contiguous loop
  // across the rows, which vectorises without a select per element (V8
  // makes selects branches: strided across rows, rows of 4 took 10 ns an
  // element, mostly mispredicted maxima). The same operations in the same
  // order as row by row: the maximum from −inf over j = 0, 1, …, the sums
  // as RowSum adds them.
  T* __restrict plane = scratch;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < n; ++j) plane[j * rows + r] = x[r * n + j];
  }
  constexpr T kLow = -std::numeric_limits<T>::infinity();
  T max[kLogSumExpRows];
  for (size_t r = 0; r < rows; ++r) max[r] = kLow;
  for (size_t j = 0; j < n; ++j) {
    const T* p = plane + j * rows;
    for (size_t r = 0; r < rows; ++r) max[r] = p[r] > max[r] ? p[r] : max[r];
  }
  for (size_t j = 0; j < n; ++j) {
    T* p = plane + j * rows;
    for (size_t r = 0; r < rows; ++r) p[r] -= max[r];
  }
  ExpInPlace(plane, rows * n);
  double sum[kLogSumExpRows];
  PlaneRowSums<kLogSumExpRows>(plane, rows, n, sum);
  for (size_t r = 0; r < rows; ++r) {
    m[r] = max[r];
    log_sum[r] = std::log(sum[r]);
  }
}

// Each step combination its own loop, so that each vectorises.
template <typename T>
double SquaredDifferenceSumOf(const T* a, int64_t sa, const T* b, int64_t sb, size_t n) {
  const auto squared = [](T d) __attribute__((always_inline)) {
    return static_cast<double>(d) * static_cast<double>(d);
  };
  if (sa == 1 && sb == 1) return LaneSum(n, [&](size_t i) __attribute__((always_inline)) { return squared(a[i] - b[i]); });
  if (sa == 1) {
    const T v = b[0];
    return LaneSum(n, [&](size_t i) __attribute__((always_inline)) { return squared(a[i] - v); });
  }
  const T v = a[0];
  if (sb == 1) return LaneSum(n, [&](size_t i) __attribute__((always_inline)) { return squared(v - b[i]); });
  const double one = squared(v - b[0]);
  return LaneSum(n, [one](size_t) __attribute__((always_inline)) { return one; });
}

}  // namespace

double SquaredDifferenceSum(const float* a, int64_t sa, const float* b, int64_t sb, size_t n) {
  return SquaredDifferenceSumOf(a, sa, b, sb, n);
}
double SquaredDifferenceSum(const double* a, int64_t sa, const double* b, int64_t sb, size_t n) {
  return SquaredDifferenceSumOf(a, sa, b, sb, n);
}

size_t LogSumExpScratch(size_t n) { return n >= kShortRow ? n : n * kLogSumExpRows; }

void RowsLogSumExp(const float* x, size_t rows, size_t n, float* m, double* log_sum, float* scratch) {
  RowsLogSumExpOf(x, rows, n, m, log_sum, scratch);
}
void RowsLogSumExp(const double* x, size_t rows, size_t n, double* m, double* log_sum, double* scratch) {
  RowsLogSumExpOf(x, rows, n, m, log_sum, scratch);
}

}  // namespace shrew::runtime::kernels
