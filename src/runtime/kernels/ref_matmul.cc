// matmul, fused_matmul_add, fused_matmul_relu and linear in our own C++ for
// f64 and integer storage (XNNPACK's dense operators take f32, which never
// comes here). The product uses RefMatmul (matmul_shapes.h, ref_gemm.h),
// a float linear's [N, K] weight transposed into the workspace first; "+ c"
// is a broadcast add (binary_rows.h) and relu a final pass. Integer
// arithmetic wraps.
#include <cstdint>
#include <string>
#include <type_traits>

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

template <typename T>
class RefMatmulKernel final : public Kernel {
 public:
  RefMatmulKernel(ir::OpKind op, bool linear, bool has_add, bool relu, BinaryRows add)
      : op_(op), linear_(linear), has_add_(has_add), relu_(relu), add_(add) {}

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
    // A float weight stored [N, K] (linear's) is transposed into the
    // workspace on each run, so that the product runs on ref_gemm.h's tiles
    // along contiguous rows: read down its columns as it is, f64 linear ran
    // at 2.3 GFLOP/s, 6x below matmul. The copy is K·N of the M·K·N work.
    transpose_weight_ = std::is_floating_point_v<T> && dims_.transpose_b && !empty_;
    untransposed_ = dims_;
    if (transpose_weight_) {
      untransposed_.transpose_b = false;
      weight_offset_ = layout.Add(static_cast<size_t>(dims_.k * dims_.n) * sizeof(T));
    }
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
    weight_ = transpose_weight_ ? WorkspaceAt<T>(workspace, weight_offset_) : nullptr;
    return Status::Ok();
  }

  Status Run() override {
    if (empty_) return Status::Ok();
    if (transpose_weight_) {
      const int64_t k = dims_.k, n = dims_.n;
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t p = 0; p < k; ++p) weight_[p * n + j] = b_[j * k + p];
      }
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
  bool product_in_temp_ = false, transpose_weight_ = false;
  size_t product_offset_ = 0, weight_offset_ = 0;
  MatmulDims untransposed_;  // dims_ with b as [K, N], for the transposed copy
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
    case ir::StorageType::kF64:
      return KernelPtr(new RefMatmulKernel<double>(op, linear, has_add, relu, add));
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
