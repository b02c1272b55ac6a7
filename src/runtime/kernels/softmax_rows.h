// Softmax along the last axis of rows of `len`, y = exp(x − max) / Σ,
// computed across rows rather than row by row: over blocks of whole rows
// of about 2,048 elements (in L1), (1) y = x − its row's maximum, (2) exp
// over the block at once (vector_math.h's ExpOne for f32, std::exp for f64),
// (3) each row scaled by its reciprocal sum (summed in T, the reciprocal in
// double). For short rows, where a call or loop setup per row costs more
// than the row's work. x may be y. Kept out of the kernel's translation unit
// so that its unrolled copies stay out of SoftmaxKernel::Run, which V8
// compiles on the first run of every softmax (inlined: +0.5 ms there).
#pragma once

#include <cstddef>

namespace shrew::runtime::kernels {

// n elements (a multiple of len, len >= 1).
template <typename T>
void SoftmaxRows(const T* x, T* y, size_t n, size_t len);

extern template void SoftmaxRows<float>(const float*, float*, size_t, size_t);
extern template void SoftmaxRows<double>(const double*, double*, size_t, size_t);

// Softmax over the first axis of one [len, inner] slice whose rows are
// narrow (inner < kNarrowColumnsBelow): the column passes of the kernel,
// but over chunks of G rows at a time (G * inner >= 32 elements) with each
// column's maximum, sum and reciprocal held G times, so that every loop
// runs over a chunk instead of a row of `inner` ([32768, 2] over its first
// axis: 6.9 ns an element, 7.7x the last-axis softmax of the same data).
// The sums are in T per place in the chunk, added in double every block of
// about 32 rows (so grouped otherwise than by the column passes: within
// f32's tolerance, 4e-7 relative over 1e5 rows). x may be y.
inline constexpr size_t kNarrowColumnsBelow = 16;

template <typename T>
void SoftmaxNarrowColumns(const T* x, T* y, size_t len, size_t inner);

extern template void SoftmaxNarrowColumns<float>(const float*, float*, size_t, size_t);
extern template void SoftmaxNarrowColumns<double>(const double*, double*, size_t, size_t);

}  // namespace shrew::runtime::kernels
