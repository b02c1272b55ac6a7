// The row passes of a log-sum-exp (cross_entropy's log-softmax), out of
// line so that they are compiled for speed while their callers may be
// compiled for size (in wasm clang leaves loops scalar at -Os: the loss was
// 3.8x slower so).
#pragma once

#include <cstddef>

namespace shrew::runtime::kernels {

// Rows per call of RowsLogSumExp.
inline constexpr size_t kLogSumExpRows = 64;

// Elements of scratch RowsLogSumExp needs for rows of n values.
size_t LogSumExpScratch(size_t n);

// For `rows` <= kLogSumExpRows rows of n values (row r at x + r·n): m[r] =
// the row's max as std::max from −inf gives it (NaNs are passed over) and
// log_sum[r] = log Σ exp(x − m[r]), the sum in double (RowSum's order), each
// exp in the storage type (f32: vector_math.h's ExpOne, within 1e-6
// relative). Short rows are done together: their differences x − m in
// scratch, then one flat exp loop over all of them (SIMD in wasm); a call
// per row of 2 classes cost 31 ns, most of it the loops' set-up.
void RowsLogSumExp(const float* x, size_t rows, size_t n, float* m, double* log_sum, float* scratch);
void RowsLogSumExp(const double* x, size_t rows, size_t n, double* m, double* log_sum, double* scratch);

}  // namespace shrew::runtime::kernels
