// Comparisons (equal not_equal less greater less_equal greater_equal) and
// logical and/or/not (OPS.md §3.5, §3.6), our own C++ for every storage type,
// with broadcasting; the output is bool (one byte, 0 or 1). NaN compares
// false except `!=`; for and/or/not an element is true when non-zero (NaN
// is true). The binary ones run binary_rows.h's comparison rows.
#include <cstdint>
#include <string>
#include <type_traits>

#include "runtime/kernels/binary_rows.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

class CompareKernel final : public Kernel {
 public:
  CompareKernel(K op, BinaryRows rows) : op_(op), rows_(rows) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, 2, 2, output_shape));
    Result<Shape> expected = BroadcastShapes(operand_shapes[0], operand_shapes[1]);
    if (!expected.ok()) return InvalidArgument(std::string(name) + ": " + expected.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, *expected, output_shape));
    loop_.Init(output_shape, {&operand_shapes[0], &operand_shapes[1]});
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 2 operands");
    a_ = operands[0];
    b_ = operands[1];
    out_ = output;
    return Status::Ok();
  }
  Status Run() override {
    rows_.Run(loop_, a_, b_, out_);
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  K op_;
  BinaryRows rows_;
  BroadcastLoop<2> loop_;
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* out_ = nullptr;
};

template <typename T>
class NotKernel final : public Kernel {
 public:
  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("not", operand_shapes, 1, 1, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("not", operand_shapes[0], output_shape));
    n_ = static_cast<size_t>(NumElements(output_shape));
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("not: expected 1 operand");
    x_ = static_cast<const T*>(operands[0]);
    out_ = static_cast<bool*>(output);
    return Status::Ok();
  }
  Status Run() override {
    MapUnary(x_, reinterpret_cast<uint8_t*>(out_), n_, [](T v) { return static_cast<uint8_t>(v == T(0) ? 1 : 0); });
    return Status::Ok();
  }
  // A bool or u8 input (both read as bytes) has the output's layout.
  bool CanRunInPlace(size_t i) const override { return i == 0 && std::is_same_v<T, uint8_t>; }
  const char* impl_name() const override { return "ref"; }

 private:
  size_t n_ = 0;
  const T* x_ = nullptr;
  bool* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateCompareKernel(const KernelSpec& spec) {
  const K op = spec.node->op;
  const bool is_not = op == K::kNot;
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, is_not ? 1 : 2, is_not ? 1 : 2));
  if (!ir::HasFlag(op, ir::kFlagComparison) && !ir::HasFlag(op, ir::kFlagLogical)) {
    return InvalidArgument(std::string(ir::OpName(op)) + " is not a comparison or logical op");
  }
  if (spec.output_dtype != ir::DType::kBool) {
    return InvalidArgument(std::string(ir::OpName(op)) + ": output must be bool, got " +
                           ir::DTypeName(spec.output_dtype));
  }
  const ir::StorageType storage = ir::StorageOf(spec.operand_dtypes[0]);
  if (!is_not && ir::StorageOf(spec.operand_dtypes[1]) != storage) {
    return InvalidArgument(std::string("dtype mismatch: ") + ir::DTypeName(spec.operand_dtypes[0]) + " and " +
                           ir::DTypeName(spec.operand_dtypes[1]));
  }
  if (ir::HasFlag(op, ir::kFlagComparison) && !ir::IsNumeric(spec.operand_dtypes[0]) &&
      !ir::IsBool(spec.operand_dtypes[0])) {
    return InvalidArgument(std::string(ir::OpName(op)) + " requires numeric or bool operands, got " +
                           ir::DTypeName(spec.operand_dtypes[0]));
  }
  if (!is_not) {
    const BinaryRows rows = ComparisonRows(op, storage);
    if (rows) return KernelPtr(new CompareKernel(op, rows));
  } else {
    switch (storage) {
      case ir::StorageType::kF32: return KernelPtr(new NotKernel<float>());
      case ir::StorageType::kF64: return KernelPtr(new NotKernel<double>());
      case ir::StorageType::kI64: return KernelPtr(new NotKernel<int64_t>());
      case ir::StorageType::kU8:
      case ir::StorageType::kBool: return KernelPtr(new NotKernel<uint8_t>());
      default: break;
    }
  }
  return InvalidArgument(std::string(ir::OpName(op)) + ": dtype " + ir::DTypeName(spec.operand_dtypes[0]) +
                         " is not supported for execution");
}

}  // namespace shrew::runtime::kernels
