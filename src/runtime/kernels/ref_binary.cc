// Binary arithmetic (add sub mul div, fused_add_relu, fused_sub_relu) in our
// own C++ for f64 and integer storage (i64, u8), with broadcasting; mod and
// pow for every numeric storage type including f32 (XNNPACK's modulus is
// truncated and its pow is exp·log, both wrong for OPS.md §3.4). Integer
// add/sub/mul wrap (computed unsigned, no UB); integer division truncates,
// fails on a zero divisor with "integer division by zero" and wraps
// INT64_MIN / −1 to INT64_MIN. mod is floored (sign of the divisor; floats
// via fmod plus a correction, integers exact, INT64_MIN % −1 = 0); pow is C
// pow for floats (negative bases with integral exponents, 0**0 = 1) and
// exact wrapping repeated multiplication for integers (a negative integer
// exponent is an error).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"

namespace shrew::runtime::kernels {
namespace {

template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, int64_t>, uint64_t, T>;

template <typename T>
T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) - static_cast<Wide<T>>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
}
template <typename T>
T Divide(T a, T b) {
  if constexpr (std::is_same_v<T, int64_t>) {
    // b != 0 was checked; INT64_MIN / −1 overflows in C++.
    if (b == -1) return WrapSub<int64_t>(0, a);
    return a / b;
  } else {
    return a / b;
  }
}
template <typename T>
T FlooredMod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    // fmod then a sign correction avoids the rounding of floor(a/b).
    T r = std::fmod(a, b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
    return r;
  } else if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;  // INT64_MIN % −1 is undefined in C++; floored result 0
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}
template <typename T>
T Power(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::pow(a, b));
  } else {
    // Exponentiation by squaring modulo 2^bits (= repeated multiplication);
    // b >= 0 was checked.
    using U = std::make_unsigned_t<T>;
    U result = 1;
    U base = static_cast<U>(a);
    uint64_t e = static_cast<uint64_t>(b);
    while (e != 0) {
      if (e & 1) result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
      e >>= 1;
    }
    return static_cast<T>(result);
  }
}
template <typename T>
T Relu(T x) {
  return x > T(0) ? x : T(0);
}

template <typename T>
class RefBinaryKernel final : public Kernel {
 public:
  RefBinaryKernel(ir::OpKind op, ir::OpKind base, bool relu) : op_(op), base_(base), relu_(relu) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, 2, 2, output_shape));
    Result<Shape> expected = BroadcastShapes(operand_shapes[0], operand_shapes[1]);
    if (!expected.ok()) return InvalidArgument(std::string(name) + ": " + expected.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, *expected, output_shape));
    loop_.Init(output_shape, {&operand_shapes[0], &operand_shapes[1]});
    b_elements_ = static_cast<size_t>(NumElements(operand_shapes[1]));
    for (size_t i = 0; i < 2; ++i) same_shape_[i] = operand_shapes[i] == output_shape;
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 2 operands");
    a_ = static_cast<const T*>(operands[0]);
    b_ = static_cast<const T*>(operands[1]);
    out_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override {
    using K = ir::OpKind;
    if (loop_.empty()) return Status::Ok();
    if (relu_) {
      if (base_ == K::kAdd)
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return Relu(WrapAdd(x, y)); });
      else
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return Relu(WrapSub(x, y)); });
      return Status::Ok();
    }
    switch (base_) {
      case K::kAdd:
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return WrapAdd(x, y); });
        break;
      case K::kSub:
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return WrapSub(x, y); });
        break;
      case K::kMul:
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return WrapMul(x, y); });
        break;
      case K::kDiv:
        if constexpr (!std::is_floating_point_v<T>) {
          for (size_t i = 0; i < b_elements_; ++i) {
            if (b_[i] == 0) return InvalidArgument("integer division by zero");
          }
        }
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return Divide(x, y); });
        break;
      case K::kMod:
        if constexpr (!std::is_floating_point_v<T>) {
          for (size_t i = 0; i < b_elements_; ++i) {
            if (b_[i] == 0) return InvalidArgument("integer division by zero");
          }
        }
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return FlooredMod(x, y); });
        break;
      case K::kPow:
        if constexpr (std::is_signed_v<T> && !std::is_floating_point_v<T>) {
          for (size_t i = 0; i < b_elements_; ++i) {
            if (b_[i] < 0) return InvalidArgument("negative integer exponent in pow");
          }
        }
        BroadcastBinary(loop_, a_, b_, out_, [](T x, T y) { return Power(x, y); });
        break;
      default:
        return Internal(std::string("ref binary kernel created for ") + ir::OpName(op_));
    }
    return Status::Ok();
  }
  bool CanRunInPlace(size_t i) const override { return i < 2 && same_shape_[i]; }
  const char* impl_name() const override { return "ref"; }

 private:
  ir::OpKind op_;
  ir::OpKind base_;
  bool relu_;
  BroadcastLoop<2> loop_;
  size_t b_elements_ = 0;
  bool same_shape_[2] = {true, true};
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  T* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateRefBinaryKernel(const KernelSpec& spec) {
  using K = ir::OpKind;
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const K op = spec.node->op;
  const bool relu = op == K::kFusedAddRelu || op == K::kFusedSubRelu;
  const K base = op == K::kFusedAddRelu ? K::kAdd : op == K::kFusedSubRelu ? K::kSub : op;
  if (base != K::kAdd && base != K::kSub && base != K::kMul && base != K::kDiv && base != K::kMod &&
      base != K::kPow) {
    return InvalidArgument(std::string(ir::OpName(op)) + " is not a binary arithmetic op with a kernel");
  }
  switch (*storage) {
    case ir::StorageType::kF32:
      return KernelPtr(new RefBinaryKernel<float>(op, base, relu));
    case ir::StorageType::kF64:
      return KernelPtr(new RefBinaryKernel<double>(op, base, relu));
    case ir::StorageType::kI64:
      return KernelPtr(new RefBinaryKernel<int64_t>(op, base, relu));
    case ir::StorageType::kU8:
      return KernelPtr(new RefBinaryKernel<uint8_t>(op, base, relu));
    default:
      break;
  }
  return InvalidArgument(std::string(ir::OpName(op)) + " does not accept dtype " + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
