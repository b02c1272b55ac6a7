// The two row passes of a log-sum-exp (cross_entropy's log-softmax), out of
// line so that they are compiled for speed while their callers may be
// compiled for size (in wasm clang leaves loops scalar at -Os: the loss was
// 3.8x slower so).
#pragma once

#include <cstddef>

namespace shrew::runtime::kernels {

// max(x[0..n)) as std::max from −inf gives it (NaNs are passed over).
float RowMax(const float* x, size_t n);
double RowMax(const double* x, size_t n);

// Σ exp(x − m) accumulated in double, each exp in the storage type (f32:
// vector_math.h's ExpOne, within 1e-6 relative); `scratch` holds n values.
double RowSumExp(const float* x, size_t n, float m, float* scratch);
double RowSumExp(const double* x, size_t n, double m, double* scratch);

}  // namespace shrew::runtime::kernels
