#include "runtime/kernels/log_sum_exp.h"

#include <cmath>
#include <limits>

#include "runtime/row_sums.h"
#include "runtime/kernels/vector_math.h"

namespace shrew::runtime::kernels {
namespace {

// In lanes so that it vectorises; the lanes start at −inf, so a NaN never
// enters one and the result is the sequential std::max's.
template <typename T>
T RowMaxOf(const T* x, size_t n) {
  constexpr size_t kLanes = 8;
  constexpr T kLow = -std::numeric_limits<T>::infinity();
  T lane[kLanes] = {kLow, kLow, kLow, kLow, kLow, kLow, kLow, kLow};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t l = 0; l < kLanes; ++l) lane[l] = x[i + l] > lane[l] ? x[i + l] : lane[l];
  }
  T m = kLow;
  for (size_t l = 0; l < kLanes; ++l) m = lane[l] > m ? lane[l] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

}  // namespace

float RowMax(const float* x, size_t n) { return RowMaxOf(x, n); }
double RowMax(const double* x, size_t n) { return RowMaxOf(x, n); }

double RowSumExp(const float* x, size_t n, float m, float* scratch) {
  for (size_t j = 0; j < n; ++j) scratch[j] = ExpOne(x[j] - m);
  return RowSum(scratch, n);
}

double RowSumExp(const double* x, size_t n, double m, double* scratch) {
  for (size_t j = 0; j < n; ++j) scratch[j] = std::exp(x[j] - m);
  return RowSum(scratch, n);
}

}  // namespace shrew::runtime::kernels
