#include "runtime/kernels/log_sum_exp.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/row_sums.h"
#include "runtime/kernels/vector_math.h"

namespace shrew::runtime::kernels {
namespace {

// Rows shorter than this are done a block at a time (ShortRowSums' limit).
constexpr size_t kShortRow = 2 * kRowSumLanes;

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

inline float Exp(float x) { return ExpOne(x); }
inline double Exp(double x) { return std::exp(x); }

template <typename T>
void RowsLogSumExpOf(const T* x, size_t rows, size_t n, T* m, double* log_sum, T* scratch) {
  if (n >= kShortRow) {
    for (size_t r = 0; r < rows; ++r, x += n) {
      const T mr = RowMaxOf(x, n);  // a local: scratch may alias m as far as the compiler knows
      m[r] = mr;
      for (size_t j = 0; j < n; ++j) scratch[j] = Exp(x[j] - mr);
      log_sum[r] = std::log(RowSum(scratch, n));
    }
    return;
  }
  // Rows as the inner loops, into locals (the compiler cannot tell m from x
  // or scratch): the rows' compares and adds overlap.
  constexpr T kLow = -std::numeric_limits<T>::infinity();
  T max[kLogSumExpRows];
  for (size_t r = 0; r < rows; ++r) max[r] = kLow;
  for (size_t j = 0; j < n; ++j) {
    for (size_t r = 0; r < rows; ++r) max[r] = x[r * n + j] > max[r] ? x[r * n + j] : max[r];
  }
  for (size_t r = 0; r < rows; ++r) {
    for (size_t j = 0; j < n; ++j) scratch[r * n + j] = x[r * n + j] - max[r];
  }
  const size_t count = rows * n;
  for (size_t i = 0; i < count; ++i) scratch[i] = Exp(scratch[i]);
  double sum[kLogSumExpRows];
  ShortRowSums(scratch, rows, n, sum);
  for (size_t r = 0; r < rows; ++r) {
    m[r] = max[r];
    log_sum[r] = std::log(sum[r]);
  }
}

}  // namespace

size_t LogSumExpScratch(size_t n) { return n >= kShortRow ? n : n * kLogSumExpRows; }

void RowsLogSumExp(const float* x, size_t rows, size_t n, float* m, double* log_sum, float* scratch) {
  RowsLogSumExpOf(x, rows, n, m, log_sum, scratch);
}
void RowsLogSumExp(const double* x, size_t rows, size_t n, double* m, double* log_sum, double* scratch) {
  RowsLogSumExpOf(x, rows, n, m, log_sum, scratch);
}

}  // namespace shrew::runtime::kernels
