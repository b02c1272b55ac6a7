// Softmax along the last axis of rows of `len`, y = exp(x − max) / Σ,
// computed across rows rather than row by row: over blocks of whole rows
// of about 2,048 elements (in L1), (1) y = x − its row's maximum, (2) exp
// over the block at once (ExpRow: vector_math.h's for f32, vector_math_f64.h's
// for f64), (3) each row scaled by its reciprocal sum (summed in T, the
// reciprocal in double). Many f32 rows of 2 to 16 are first copied into
// planes (element j of every row together), so that each step runs across
// rows in SIMD lanes; the same operations in the same order, so the same
// bits. For
// short rows, where a call or loop setup per row costs more than the row's
// work. x may be y. Kept out of the kernel's translation unit so that its
// unrolled copies stay out of SoftmaxKernel::Run, which V8 compiles on the
// first run of every softmax (inlined: +0.5 ms there).
#pragma once

#include <cstddef>

namespace shrew::runtime::kernels {

// n elements (a multiple of len, len >= 1).
template <typename T>
void SoftmaxRows(const T* x, T* y, size_t n, size_t len);

// Whether f32 rows of len, n elements in all, go through planes: faster
// then than XNNPACK's softmax too (rows of 9 in wasm: 4.3 -> 2.3 ns an
// element, of 16 3.2 -> 2.5), which takes rows of 16 or more otherwise.
bool SoftmaxRowsInPlanes(size_t n, size_t len);

extern template void SoftmaxRows<float>(const float*, float*, size_t, size_t);
extern template void SoftmaxRows<double>(const double*, double*, size_t, size_t);

// Softmax over the first axis of one [len, inner] slice (the kernel's
// passes off the last axis): (1) per-column maximum, (2) y = exp(x − max)
// (ExpOf in lanes, vector_math.h's four f32 or vector_math_f64.h's two f64;
// XNNPACK's f32 exp flushes results below e^-87.3 to 0 and is slower) and per-column sums in T over blocks of
// about 32 rows, each block added in double (a plain f32 sum drifted 1.3e-3
// over 1e5 rows), (3) scale by the reciprocals. Every loop runs along
// contiguous rows, so they vectorise without the two transposes of a "move
// the axis last" scheme. Narrow columns (inner < kNarrowColumnsBelow) go a
// chunk of G rows at a time (G * inner >= 32), each column's maximum, sum
// and reciprocal held per place in the chunk, so that no loop runs over a
// row of 2 ([32768, 2] over its first axis took 6.9 ns an element, 7.7x
// the last-axis softmax); their sums are grouped per place, within f32's
// tolerance (4e-7 relative over 1e5 rows). x may be y.
// Scratch: `scratch` holds SoftmaxColumnsScratch(inner) values of T and
// `sums` inner doubles (sized by the caller, so runs never allocate);
// narrow columns use the stack and may pass null.
inline constexpr size_t kNarrowColumnsBelow = 16;
inline size_t SoftmaxColumnsScratch(size_t inner) { return inner < kNarrowColumnsBelow ? 0 : 3 * inner; }

template <typename T>
void SoftmaxColumns(const T* x, T* y, size_t len, size_t inner, T* scratch, double* sums);

extern template void SoftmaxColumns<float>(const float*, float*, size_t, size_t, float*, double*);
extern template void SoftmaxColumns<double>(const double*, double*, size_t, size_t, double*, double*);

}  // namespace shrew::runtime::kernels
