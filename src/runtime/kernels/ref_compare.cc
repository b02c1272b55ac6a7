// Comparisons (equal not_equal less greater less_equal greater_equal) and
// logical and/or/not (OPS.md §3.5, §3.6), our own C++ for every storage type,
// with broadcasting; the output is bool (one byte, 0 or 1). NaN compares
// false except `!=`; for and/or/not an element is true when non-zero (NaN
// is true).
#include <cstdint>
#include <string>
#include <type_traits>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

template <typename T>
class CompareKernel final : public Kernel {
 public:
  explicit CompareKernel(K op) : op_(op) {}

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
    a_ = static_cast<const T*>(operands[0]);
    b_ = static_cast<const T*>(operands[1]);
    out_ = static_cast<bool*>(output);
    return Status::Ok();
  }
  Status Run() override {
    switch (op_) {
      case K::kEqual: Apply([](T x, T y) { return x == y; }); break;
      case K::kNotEqual: Apply([](T x, T y) { return x != y; }); break;
      case K::kLess: Apply([](T x, T y) { return x < y; }); break;
      case K::kGreater: Apply([](T x, T y) { return x > y; }); break;
      case K::kLessEqual: Apply([](T x, T y) { return x <= y; }); break;
      case K::kGreaterEqual: Apply([](T x, T y) { return x >= y; }); break;
      case K::kAnd: Apply([](T x, T y) { return x != T(0) && y != T(0); }); break;
      case K::kOr: Apply([](T x, T y) { return x != T(0) || y != T(0); }); break;
      default: return Internal(std::string("compare kernel created for ") + ir::OpName(op_));
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // Written as uint8_t 0/1 (the bool storage): compilers vectorise byte
  // stores of a comparison, not bool stores.
  template <typename F>
  void Apply(F f) {
    BroadcastBinary(loop_, a_, b_, reinterpret_cast<uint8_t*>(out_),
                    [f](T x, T y) { return static_cast<uint8_t>(f(x, y) ? 1 : 0); });
  }

  K op_;
  BroadcastLoop<2> loop_;
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  bool* out_ = nullptr;
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
  // A bool input has the output's layout.
  bool CanRunInPlace(size_t i) const override { return i == 0 && std::is_same_v<T, bool>; }
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
  switch (storage) {
    case ir::StorageType::kF32: return is_not ? KernelPtr(new NotKernel<float>()) : KernelPtr(new CompareKernel<float>(op));
    case ir::StorageType::kF64: return is_not ? KernelPtr(new NotKernel<double>()) : KernelPtr(new CompareKernel<double>(op));
    case ir::StorageType::kI64:
      return is_not ? KernelPtr(new NotKernel<int64_t>()) : KernelPtr(new CompareKernel<int64_t>(op));
    case ir::StorageType::kU8:
      return is_not ? KernelPtr(new NotKernel<uint8_t>()) : KernelPtr(new CompareKernel<uint8_t>(op));
    case ir::StorageType::kBool: return is_not ? KernelPtr(new NotKernel<bool>()) : KernelPtr(new CompareKernel<bool>(op));
    default: break;
  }
  return InvalidArgument(std::string(ir::OpName(op)) + ": dtype " + ir::DTypeName(spec.operand_dtypes[0]) +
                         " is not supported for execution");
}

}  // namespace shrew::runtime::kernels
