// Shape rules shared by the matmul-family kernels (f32 XNNPACK and ref):
// NumPy matmul (OPS.md §3.7, including 1-D operands and batch broadcasting)
// and linear (§3.11.2, weight [out, in]), reduced to a batch of
// [M, K] × [K, N] (or × [N, K]ᵀ for linear) products.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "base/status.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/ref_gemm.h"
#include "runtime/tensor.h"

namespace shrew::runtime::kernels {

struct MatmulDims {
  // Batch axes of a, b and the result, all of the same length (missing
  // leading axes filled with 1). Empty when b has rank <= 2: a's leading axes
  // are then folded into m, because every row meets the same matrix.
  Shape batch_a, batch_b, batch_out;
  int64_t m = 0, k = 0, n = 0;
  // The product's shape (1-D operands drop their axis), before any fused add.
  Shape result;
  bool transpose_b = false;  // b's matrices are [N, K] (linear's weight, a folded transpose)
};

// How operand b is given: matmul's b (OPS.md §3.7), linear's weight [out,
// in] (§3.11.2), or matmul's b with its last two axes swapped (the source
// of a transpose the JIT folded into the product, KernelSpec::b_transposed).
enum class BForm { kMatmul, kLinear, kMatmulTransposed };

// matmul(a, b): errors "matmul operands must have rank >= 1, got [..]",
// "matmul inner dimensions K1 and K2 differ", batch axes that cannot be
// broadcast (a transposed b's shapes as the product sees them, swapped
// back). linear: the weight must be 2-D: "linear weight must be 2-D [out,
// in], got [..]", "linear input has I features but the weight expects J".
Result<MatmulDims> ComputeMatmulDims(std::string_view op, const Shape& a, const Shape& b, BForm form);

// "+ c" after the product: the shape of the sum, and the shape to add `c` as.
// linear's bias is [n] or [1, n] and never changes the product's shape
// (OPS.md §3.11.2: x [.., in] gives [.., out], x of rank 1 included): it is
// added as [n]. fused_matmul_add's c broadcasts against the product. Errors:
// "linear bias has shape [..], expected [N] or [1, N]", shapes that do not
// broadcast.
struct MatmulAddShapes {
  Shape output;
  Shape addend;
};
Result<MatmulAddShapes> ComputeMatmulAddShapes(std::string_view op, const MatmulDims& dims, const Shape& c, bool linear);

// one(a, b, out) for each matrix product of the batch: a [M, K], b [K, N]
// (or [N, K]) and out [M, N] at their offsets; `batch_loop` walks
// dims.batch_out with inputs batch_a, batch_b (one product when there are
// no batch axes).
template <typename T, typename Fn>
void ForEachProduct(const MatmulDims& dims, const BroadcastLoop<2>& batch_loop, const T* a, const T* b, T* out,
                    Fn&& one) {
  const int64_t a_mat = dims.m * dims.k, b_mat = dims.k * dims.n, o_mat = dims.m * dims.n;
  if (dims.batch_out.empty()) {
    one(a, b, out);
    return;
  }
  // Each "row" of the batch loop is a run of matrices; inner strides are 0/1.
  const int64_t sa = batch_loop.inner_stride(0), sb = batch_loop.inner_stride(1);
  const int64_t inner = batch_loop.inner();
  batch_loop.ForEachRow([&](const std::array<int64_t, 2>& off, int64_t out_off) {
    for (int64_t t = 0; t < inner; ++t) {
      one(a + (off[0] + t * sa) * a_mat, b + (off[1] + t * sb) * b_mat, out + (out_off + t) * o_mat);
    }
  });
}

// `count` matrices [n, k] from b as [k, n] into out, in 16 × 16 tiles:
// element by element one side strode a row apart (a 512 × 512 f64 weight
// took 1.3 ms, 10x the product of one row it was for). Here, in a file
// built for speed, not in the reference matmul, which wasm builds for
// size. f64 only: integer products take dot products over the [N, K] rows
// as they are.
void TransposeMatrices(const double* b, int64_t count, int64_t n, int64_t k, double* out);

// out[batch] = a[batch] · b[batch] (b transposed per dims) in plain C++ (ref_gemm.h) for
// any element type; `loop` walks dims.batch_out with inputs batch_a,
// batch_b. T = int64_t wraps. Used for f64/integers and for f32 products
// whose batch axes XNNPACK cannot take. Accumulates in Acc.
template <typename T, typename Acc>
void RefMatmul(const MatmulDims& dims, const BroadcastLoop<2>& batch_loop, const T* a, const T* b, T* out) {
  const int64_t m = dims.m, k = dims.k, n = dims.n;
  // Float products at most 4 columns wide over a short k (a batch of 2 x 2
  // products): the sums in the plain loop's order, inline, where Gemm's
  // calls per row cost 5x a JS loop over [16384, 2, 2].
  constexpr bool kFloat = std::is_floating_point_v<T> && std::is_same_v<T, Acc>;
  const bool tiny = kFloat && !dims.transpose_b && k < kGemmShortK && n <= 4;
  auto one = [&](const T* pa, const T* pb, T* po) {
    if (tiny) {
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          T s = 0;
          for (int64_t p = 0; p < k; ++p) s += pa[i * k + p] * pb[p * n + j];
          po[i * n + j] = s;
        }
      }
      return;
    }
    Gemm<T, Acc>(pa, pb, po, m, k, n, dims.transpose_b);
  };
  ForEachProduct(dims, batch_loop, a, b, out, one);
}

}  // namespace shrew::runtime::kernels
