// The row passes of the losses (ref_loss.cc): cross_entropy's log-sum-exp
// and mse_loss's squared differences, out of line so that they are
// compiled for speed while their callers may be compiled for size (in wasm
// clang leaves loops scalar at -Os: cross_entropy was 3.8x slower so).
#pragma once

#include <cstddef>
#include <cstdint>

namespace shrew::runtime::kernels {

// Rows per call of RowsLogSumExp.
inline constexpr size_t kLogSumExpRows = 64;

// Elements of scratch RowsLogSumExp needs for rows of n values.
size_t LogSumExpScratch(size_t n);

// For `rows` <= kLogSumExpRows rows of n values (row r at x + r·n): m[r] =
// the row's max as std::max from −inf gives it (NaNs are passed over) and
// log_sum[r] = log Σ exp(x − m[r]), the sum in double (RowSum's order), each
// exp in the storage type (f32: vector_math.h's ExpOne, within 1e-6
// relative; f64: vector_math_f64.h's, within 1.01 ulp). Short rows, four or more, are done together, copied into
// planes in scratch (element j of every row together), each step one loop
// across the rows, then one flat exp loop over all of them (SIMD in wasm);
// a call per row of 2 classes cost 31 ns, most of it the loops' set-up.
void RowsLogSumExp(const float* x, size_t rows, size_t n, float* m, double* log_sum, float* scratch);
void RowsLogSumExp(const double* x, size_t rows, size_t n, double* m, double* log_sum, double* scratch);

// Σ (a[i·sa] − b[i·sb])² for i < n, steps 0 or 1, each difference rounded
// in the storage type (as the interpreter computes it), squared and summed
// in double in RowSum's lanes (LaneSum: for steps 1, the value the
// interpreter's sum of the same differences has).
double SquaredDifferenceSum(const float* a, int64_t sa, const float* b, int64_t sb, size_t n);
double SquaredDifferenceSum(const double* a, int64_t sa, const double* b, int64_t sb, size_t n);

}  // namespace shrew::runtime::kernels
