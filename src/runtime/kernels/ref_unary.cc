// Unary elementwise kernels in our own C++ for the dtypes XNNPACK lacks:
// f64 for every unary op, and i64 storage (signed integers) for neg. The
// formulas are OPS.md §3.3's, evaluated in double with libm, but for tanh
// (vector_math_f64.h, two lanes at a time).
#include <cmath>
#include <cstdint>
#include <string>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"
#include "runtime/kernels/vector_math_f64.h"

namespace shrew::runtime::kernels {
namespace {

template <typename T>
class RefUnaryKernel final : public Kernel {
 public:
  explicit RefUnaryKernel(ir::OpKind op) : op_(op) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes(ir::OpName(op_), operand_shapes, 1, 1, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape(ir::OpName(op_), operand_shapes[0], output_shape));
    n_ = static_cast<size_t>(NumElements(output_shape));
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 1 operand");
    in_ = static_cast<const T*>(operands[0]);
    out_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override;
  bool CanRunInPlace(size_t operand_index) const override { return operand_index == 0; }
  const char* impl_name() const override { return "ref"; }

 private:
  ir::OpKind op_;
  size_t n_ = 0;
  const T* in_ = nullptr;
  T* out_ = nullptr;
};

template <>
Status RefUnaryKernel<int64_t>::Run() {
  // Only neg reaches here; negation wraps (−INT64_MIN = INT64_MIN), computed
  // in unsigned arithmetic to avoid signed-overflow UB.
  MapUnary(in_, out_, n_, [](int64_t x) { return static_cast<int64_t>(0u - static_cast<uint64_t>(x)); });
  return Status::Ok();
}

template <>
Status RefUnaryKernel<double>::Run() {
  using K = ir::OpKind;
  constexpr double kC = 0.7978845608028654;  // √(2/π)
  switch (op_) {
    case K::kNeg:
      MapUnary(in_, out_, n_, [](double x) { return -x; });
      break;
    case K::kRelu:
      MapUnary(in_, out_, n_, [](double x) { return x > 0.0 ? x : 0.0; });
      break;
    case K::kGelu:
      // 0.5·(1 + tanh u) as the identical 1 / (1 + e^(−2u)): 1 + tanh u
      // cancels for negative x (no correct digit left below x ≈ −7).
      MapUnary(in_, out_, n_, [](double x) { return x / (1.0 + std::exp(-2.0 * kC * (x + 0.044715 * x * x * x))); });
      break;
    case K::kSilu:
      MapUnary(in_, out_, n_, [](double x) { return x / (1.0 + std::exp(-x)); });
      break;
    case K::kSigmoid:
      MapUnary(in_, out_, n_, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
      break;
    case K::kTanh:
      // libm's took 20 ns an element in wasm; this one 6, within 1.9 ulp.
      MapF64Lanes(in_, out_, n_, [](auto x, const auto& k) { return TanhOf(x, k); });
      break;
    case K::kExp:
      // libm's: as fast in wasm as vector_math_f64.h's two lanes, and
      // within 0.5 ulp rather than 1.
      MapUnary(in_, out_, n_, [](double x) { return std::exp(x); });
      break;
    case K::kLog:
      MapUnary(in_, out_, n_, [](double x) { return std::log(x); });
      break;
    case K::kSqrt:
      MapUnary(in_, out_, n_, [](double x) { return std::sqrt(x); });
      break;
    default:
      return Internal(std::string("ref unary kernel created for ") + ir::OpName(op_));
  }
  return Status::Ok();
}

}  // namespace

Result<KernelPtr> CreateRefUnaryKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const ir::OpKind op = spec.node->op;
  switch (*storage) {
    case ir::StorageType::kF64:
      return KernelPtr(new RefUnaryKernel<double>(op));
    case ir::StorageType::kI64:
      if (op == ir::OpKind::kNeg && ir::IsSignedInt(spec.output_dtype)) {
        return KernelPtr(new RefUnaryKernel<int64_t>(op));
      }
      break;
    default:
      break;
  }
  return InvalidArgument(std::string(ir::OpName(op)) + " does not accept dtype " + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
