// matmul, fused_matmul_add, fused_matmul_relu and linear in our own C++ for
// f64 and integer storage (XNNPACK's dense operators take f32, which never
// comes here). The product uses RefMatmul (matmul_shapes.h, ref_gemm.h),
// a float b stored [N, K] (linear's weight, the source of a transpose the
// JIT folded in) transposed first (a constant one once); "+ c"
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

template <typename T>
class RefMatmulKernel final : public Kernel {
 public:
  RefMatmulKernel(ir::OpKind op, BForm form, bool has_add, bool relu, BinaryRows add)
      : op_(op), form_(form), has_add_(has_add), relu_(relu), add_(add) {}

  // A constant float weight stored [N, K] (linear's, a folded transpose's
  // source) transposed once, here, not on every run (the kernel is created
  // again when the parameter changes).
  void PackWeight(const Tensor& w) {
    if (w.rank() != 2 || w.num_elements() == 0) return;
    packed_shape_ = w.shape();
    packed_weight_.resize(static_cast<size_t>(w.num_elements()));
    TransposeMatrices(w.data<T>(), 1, w.dim(0), w.dim(1), packed_weight_.data());
  }

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    const size_t want = has_add_ ? 3 : 2;
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, want, want, output_shape));
    Result<MatmulDims> dims = ComputeMatmulDims(name, operand_shapes[0], operand_shapes[1], form_);
    if (!dims.ok()) return dims.status();
    dims_ = std::move(dims).value();
    Shape expected = dims_.result;
    if (has_add_) {
      Result<MatmulAddShapes> add = ComputeMatmulAddShapes(name, dims_, operand_shapes[2], form_ == BForm::kLinear);
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
    // A float b stored [N, K] (linear's weight, a folded transpose) runs as
    // [K, N], so that the product takes ref_gemm.h's tiles along contiguous
    // rows: read down its columns as it is, f64 linear ran at 2.3 GFLOP/s,
    // 6x below matmul. A constant one was transposed at creation; any other
    // is transposed into the workspace on each run, matrix by matrix (K·N
    // of the M·K·N work), when there are rows enough to repay it (a tile's):
    // fewer take dot products as stored.
    const bool float_linear = std::is_same_v<T, double> && dims_.transpose_b && !empty_;
    use_packed_ = float_linear && !packed_weight_.empty() && operand_shapes[1] == packed_shape_;
    transpose_weight_ = float_linear && !use_packed_ && dims_.m >= kGemmTileRows;
    untransposed_ = dims_;
    if (use_packed_ || transpose_weight_) untransposed_.transpose_b = false;
    b_matrices_ = dims_.batch_b.empty() ? 1 : NumElements(dims_.batch_b);
    if (transpose_weight_) {
      weight_offset_ = layout.Add(static_cast<size_t>(b_matrices_ * dims_.k * dims_.n) * sizeof(T));
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
    weight_ = transpose_weight_ ? WorkspaceAt<T>(workspace, weight_offset_)
              : use_packed_     ? packed_weight_.data()
                                : nullptr;
    return Status::Ok();
  }

  Status Run() override {
    if (empty_) return Status::Ok();
    if constexpr (std::is_same_v<T, double>) {
      if (transpose_weight_) TransposeMatrices(b_, b_matrices_, dims_.n, dims_.k, weight_);
    }
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
  BForm form_;
  bool has_add_, relu_;
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
  int64_t b_matrices_ = 1;  // matrices in b (its batch axes' product)
  MatmulDims untransposed_;  // dims_ with b as [K, N], for the transposed copy
  std::vector<T> packed_weight_;  // a constant [N, K] weight as [K, N] (floats)
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
  BForm form = spec.b_transposed ? BForm::kMatmulTransposed : BForm::kMatmul;
  bool has_add = false, relu = false;
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
      if (spec.b_transposed) return InvalidArgument("linear: a transposed weight operand");
      SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 3));
      Result<bool> bias = BoolAttr(*spec.node, "bias");
      if (!bias.ok()) return bias.status();
      form = BForm::kLinear;
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
      auto k = std::make_unique<RefMatmulKernel<double>>(op, form, has_add, relu, add);
      const Tensor* weight = spec.constant_operands.size() > 1 ? spec.constant_operands[1] : nullptr;
      if (form != BForm::kMatmul && weight != nullptr) k->PackWeight(*weight);
      return KernelPtr(std::move(k));
    }
    case ir::StorageType::kI64:
      return KernelPtr(new RefMatmulKernel<int64_t>(op, form, has_add, relu, add));
    case ir::StorageType::kU8:
      return KernelPtr(new RefMatmulKernel<uint8_t>(op, form, has_add, relu, add));
    default:
      break;
  }
  return InvalidArgument(std::string(ir::OpName(op)) + " does not accept dtype " + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
