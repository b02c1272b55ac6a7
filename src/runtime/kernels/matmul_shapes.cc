#include "runtime/kernels/matmul_shapes.h"

#include <algorithm>
#include <string>
#include <utility>

#include "runtime/kernels/kernel_util.h"

namespace shrew::runtime::kernels {

Result<MatmulDims> ComputeMatmulDims(std::string_view op, const Shape& a, const Shape& b, BForm form) {
  const std::string name(op);
  if (form == BForm::kMatmulTransposed) {
    if (b.size() < 2) return Internal(name + ": a transposed b of rank " + std::to_string(b.size()));
    Shape swapped = b;
    std::swap(swapped[b.size() - 2], swapped[b.size() - 1]);
    Result<MatmulDims> d = ComputeMatmulDims(op, a, swapped, BForm::kMatmul);
    if (d.ok()) d->transpose_b = true;
    return d;
  }
  MatmulDims d;
  if (form == BForm::kLinear) {
    if (a.empty()) return InvalidArgument(name + ": linear input must have rank >= 1, got []");
    if (b.size() != 2) return InvalidArgument(name + ": linear weight must be 2-D [out, in], got " + ShapeToString(b));
    d.k = a.back();
    if (b[1] != d.k) {
      return InvalidArgument(name + ": linear input has " + std::to_string(d.k) + " features but the weight expects " +
                             std::to_string(b[1]));
    }
    d.n = b[0];
    d.m = NumElements(std::span<const int64_t>(a.data(), a.size() - 1));
    d.transpose_b = true;
    d.result.assign(a.begin(), a.end() - 1);
    d.result.push_back(d.n);
    return d;
  }
  if (a.empty() || b.empty()) {
    return InvalidArgument(name + ": matmul operands must have rank >= 1, got " + ShapeToString(a) + " and " +
                           ShapeToString(b));
  }
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  d.k = a.back();
  const int64_t kb = b_vec ? b[0] : b[b.size() - 2];
  if (d.k != kb) {
    return InvalidArgument(name + ": matmul inner dimensions " + std::to_string(d.k) + " and " + std::to_string(kb) +
                           " differ");
  }
  d.n = b_vec ? 1 : b.back();
  const Shape a_batch = a_vec ? Shape{} : Shape(a.begin(), a.end() - 2);
  const Shape b_batch = b.size() <= 2 ? Shape{} : Shape(b.begin(), b.end() - 2);
  Result<Shape> batch = BroadcastShapes(a_batch, b_batch);
  if (!batch.ok()) return InvalidArgument(name + ": matmul batch dimensions: " + batch.status().message());
  d.result = *batch;
  if (!a_vec) d.result.push_back(a[a.size() - 2]);
  if (!b_vec) d.result.push_back(d.n);
  if (b_batch.empty()) {
    // Every row of a meets the same matrix: fold a's leading axes into M.
    d.m = NumElements(std::span<const int64_t>(a.data(), a.size() - 1));
    return d;
  }
  d.m = a_vec ? 1 : a[a.size() - 2];
  d.batch_out = *batch;
  const size_t r = batch->size();
  d.batch_a.assign(r - a_batch.size(), 1);
  d.batch_a.insert(d.batch_a.end(), a_batch.begin(), a_batch.end());
  d.batch_b.assign(r - b_batch.size(), 1);
  d.batch_b.insert(d.batch_b.end(), b_batch.begin(), b_batch.end());
  return d;
}

void TransposeMatrices(const double* b, int64_t count, int64_t n, int64_t k, double* out) {
  // size_t: 32-bit address arithmetic in wasm (int64_t indices cost 7 %).
  constexpr size_t kTile = 16;
  const size_t rows = static_cast<size_t>(n), cols = static_cast<size_t>(k);
  for (int64_t i = 0; i < count; ++i, b += rows * cols, out += rows * cols) {
    for (size_t j0 = 0; j0 < rows; j0 += kTile) {
      const size_t j1 = std::min(rows, j0 + kTile);
      for (size_t p0 = 0; p0 < cols; p0 += kTile) {
        const size_t p1 = std::min(cols, p0 + kTile);
        // Rows of out in turn (its writes contiguous, b read a row apart):
        // the other way round a 4 KB step of writes hit one cache set.
        for (size_t p = p0; p < p1; ++p) {
          for (size_t j = j0; j < j1; ++j) out[p * rows + j] = b[j * cols + p];
        }
      }
    }
  }
}

Result<MatmulAddShapes> ComputeMatmulAddShapes(std::string_view op, const MatmulDims& dims, const Shape& c, bool linear) {
  if (linear) {
    const bool ok = (c.size() == 1 && c[0] == dims.n) || (c.size() == 2 && c[0] == 1 && c[1] == dims.n);
    if (!ok) {
      return InvalidArgument(std::string(op) + ": linear bias has shape " + ShapeToString(c) + ", expected [" +
                             std::to_string(dims.n) + "] or [1, " + std::to_string(dims.n) + "]");
    }
    return MatmulAddShapes{dims.result, Shape{dims.n}};
  }
  Result<Shape> b = BroadcastShapes(dims.result, c);
  if (!b.ok()) return InvalidArgument(std::string(op) + ": " + b.status().message());
  return MatmulAddShapes{*b, c};
}

}  // namespace shrew::runtime::kernels
