// matmul, fused_matmul_add, fused_matmul_relu and linear in our own C++ for
// f64 and integer storage (XNNPACK's dense operators take f32, which never
// comes here). The product uses RefMatmul (matmul_shapes.h, ref_gemm.h),
// a float linear's [N, K] weight transposed first (a constant one once); "+ c"
// is a broadcast add (binary_rows.h) and relu a final pass. Integer
// arithmetic wraps.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/binary_rows.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"
#include "runtime/kernels/matmul_shapes.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

// Accumulator of the same size: unsigned for i64 so that overflow wraps.
template <typename T>
using AccOf = std::conditional_t<std::is_same_v<T, int64_t>, uint64_t, T>;

// b [n, k] as [k, n], in 16 × 16 tiles: element by element one side
// strode a row apart (a 512 × 512 f64 weight took 1.3 ms, 10x the product
// of one row it was for).
template <typename T>
void TransposeWeight(const T* b, int64_t n, int64_t k, T* out) {
  constexpr int64_t kTile = 16;
  for (int64_t j0 = 0; j0 < n; j0 += kTile) {
    const int64_t j1 = std::min(n, j0 + kTile);
    for (int64_t p0 = 0; p0 < k; p0 += kTile) {
      const int64_t p1 = std::min(k, p0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        for (int64_t p = p0; p < p1; ++p) out[p * n + j] = b[j * k + p];
      }
    }
  }
}

template <typename T>
class RefMatmulKernel final : public Kernel {
 public:
  RefMatmulKernel(ir::OpKind op, bool linear, bool has_add, bool relu, BinaryRows add)
      : op_(op), linear_(linear), has_add_(has_add), relu_(relu), add_(add) {}

  // A constant float weight of linear ([N, K]) transposed once, here, not
  // on every run (the kernel is created again when the parameter changes).
  void PackWeight(const Tensor& w) {
    if (w.rank() != 2 || w.num_elements() == 0) return;
    packed_shape_ = w.shape();
    packed_weight_.resize(static_cast<size_t>(w.num_elements()));
    TransposeWeight(w.data<T>(), w.dim(0), w.dim(1), packed_weight_.data());
  }

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    const size_t want = has_add_ ? 3 : 2;
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, want, want, output_shape));
    Result<MatmulDims> dims = ComputeMatmulDims(name, operand_shapes[0], operand_shapes[1], linear_);
    if (!dims.ok()) return dims.status();
    dims_ = std::move(dims).value();
    Shape expected = dims_.result;
    if (has_add_) {
      Result<MatmulAddShapes> add = ComputeMatmulAddShapes(name, dims_, operand_shapes[2], linear_);
      if (!add.ok()) return add.status();
      expected = add->output;
      addend_shape_ = add->addend;
      add_loop_.Init(output_shape, {&dims_.result, &addend_shape_});
    }
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, expected, output_shape));
    batch_loop_.Init(dims_.batch_out, {&dims_.batch_a, &dims_.batch_b});
    empty_ = NumElements(output_shape) == 0 || NumElements(dims_.result) == 0;
    out_elements_ = static_cast<size_t>(NumElements(output_shape));
    // The product needs its own buffer when "+ c" broadcasts it larger.
    WorkspaceLayout layout;
    product_in_temp_ = has_add_ && dims_.result != output_shape && !empty_;
    if (product_in_temp_) product_offset_ = layout.Add(static_cast<size_t>(NumElements(dims_.result)) * sizeof(T));
    // A float weight stored [N, K] (linear's) runs as [K, N], so that the
    // product takes ref_gemm.h's tiles along contiguous rows: read down its
    // columns as it is, f64 linear ran at 2.3 GFLOP/s, 6x below matmul. A
    // constant one was transposed at creation; any other is transposed into
    // the workspace on each run (K·N of the M·K·N work) when there are rows
    // enough to repay it (a tile's): fewer take dot products as stored.
    const bool float_linear = std::is_floating_point_v<T> && dims_.transpose_b && !empty_;
    use_packed_ = float_linear && !packed_weight_.empty() && operand_shapes[1] == packed_shape_;
    transpose_weight_ = float_linear && !use_packed_ && dims_.m >= kGemmTileRows;
    untransposed_ = dims_;
    if (use_packed_ || transpose_weight_) untransposed_.transpose_b = false;
    if (transpose_weight_) weight_offset_ = layout.Add(static_cast<size_t>(dims_.k * dims_.n) * sizeof(T));
    temp_bytes_ = layout.total();
    return temp_bytes_;
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    const size_t want = has_add_ ? 3 : 2;
    if (operands.size() != want) {
      return InvalidArgument(std::string(ir::OpName(op_)) + ": expected " + std::to_string(want) + " operands");
    }
    SHREW_RETURN_IF_ERROR(CheckWorkspace(ir::OpName(op_), workspace, temp_bytes_));
    a_ = static_cast<const T*>(operands[0]);
    b_ = static_cast<const T*>(operands[1]);
    c_ = has_add_ ? static_cast<const T*>(operands[2]) : nullptr;
    out_ = static_cast<T*>(output);
    product_ = product_in_temp_ ? WorkspaceAt<T>(workspace, product_offset_) : out_;
    weight_ = transpose_weight_ ? WorkspaceAt<T>(workspace, weight_offset_)
              : use_packed_     ? packed_weight_.data()
                                : nullptr;
    return Status::Ok();
  }

  Status Run() override {
    if (empty_) return Status::Ok();
    if (transpose_weight_) TransposeWeight(b_, dims_.n, dims_.k, weight_);
    if (weight_ != nullptr) {
      RefMatmul<T, AccOf<T>>(untransposed_, batch_loop_, a_, weight_, product_);
    } else {
      RefMatmul<T, AccOf<T>>(dims_, batch_loop_, a_, b_, product_);
    }
    if (has_add_) add_.Run(add_loop_, product_, c_, out_);
    if (relu_) MapUnary(out_, out_, out_elements_, [](T x) { return x > T(0) ? x : T(0); });
    return Status::Ok();
  }

  const char* impl_name() const override { return "ref_matmul"; }

 private:
  ir::OpKind op_;
  bool linear_, has_add_, relu_;
  BinaryRows add_;  // "+ c", wrapping for integers
  MatmulDims dims_;
  BroadcastLoop<2> batch_loop_;
  BroadcastLoop<2> add_loop_;
  Shape addend_shape_;  // the shape c is added as (linear: the bias as [n])
  bool empty_ = true;
  size_t out_elements_ = 0;
  size_t temp_bytes_ = 0;
  bool product_in_temp_ = false, transpose_weight_ = false, use_packed_ = false;
  size_t product_offset_ = 0, weight_offset_ = 0;
  MatmulDims untransposed_;  // dims_ with b as [K, N], for the transposed copy
  std::vector<T> packed_weight_;  // a constant linear weight as [K, N] (floats)
  Shape packed_shape_;            // its shape as given, [N, K]
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  const T* c_ = nullptr;
  T* out_ = nullptr;
  T* product_ = nullptr;
  T* weight_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateRefMatmulKernel(const KernelSpec& spec) {
  const ir::OpKind op = spec.node->op;
  bool linear = false, has_add = false, relu = false;
  switch (op) {
    case K::kMatmul:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
      break;
    case K::kFusedMatmulRelu:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
      relu = true;
      break;
    case K::kFusedMatmulAdd:
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 3, 3));
      has_add = true;
      break;
    case K::kLinear: {
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 3));
      Result<bool> bias = BoolAttr(*spec.node, "bias");
      if (!bias.ok()) return bias.status();
      linear = true;
      has_add = spec.operand_dtypes.size() == 3;
      if (has_add && !*bias) return InvalidArgument("linear: bias: false together with a bias operand");
      break;
    }
    default:
      return Unimplemented(std::string("no dense kernel for ") + ir::OpName(op));
  }
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const BinaryRows add = ArithmeticRows(K::kAdd, *storage);
  switch (*storage) {
    case ir::StorageType::kF64: {
      auto k = std::make_unique<RefMatmulKernel<double>>(op, linear, has_add, relu, add);
      const Tensor* weight = spec.constant_operands.size() > 1 ? spec.constant_operands[1] : nullptr;
      if (linear && weight != nullptr) k->PackWeight(*weight);
      return KernelPtr(std::move(k));
    }
    case ir::StorageType::kI64:
      return KernelPtr(new RefMatmulKernel<int64_t>(op, linear, has_add, relu, add));
    case ir::StorageType::kU8:
      return KernelPtr(new RefMatmulKernel<uint8_t>(op, linear, has_add, relu, add));
    default:
      break;
  }
  return InvalidArgument(std::string(ir::OpName(op)) + " does not accept dtype " + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
