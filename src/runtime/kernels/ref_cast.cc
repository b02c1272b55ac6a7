// cast (OPS.md §3.17), our own C++ for every storage type. Float → integer
// truncates toward zero (NaN gives 0, out-of-range saturates — the spec
// leaves both unspecified; this matches the interpreter), integer → float
// and f64 → f32 round to nearest, integer → integer keeps the value for i64
// storage and wraps modulo 256 for u8, anything → bool is "non-zero" (NaN is
// true), bool → number is 0/1.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"

namespace shrew::runtime::kernels {
namespace {

template <typename In, typename Out>
Out Convert(In v) {
  if constexpr (std::is_same_v<Out, bool>) {
    return v != In(0);
  } else if constexpr (std::is_same_v<In, bool>) {
    return static_cast<Out>(v ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(v);
  } else if constexpr (std::is_floating_point_v<In>) {
    int64_t t = 0;
    if (std::isnan(v)) t = 0;
    else if (v >= In(9223372036854775808.0)) t = std::numeric_limits<int64_t>::max();
    else if (v < In(-9223372036854775808.0)) t = std::numeric_limits<int64_t>::min();
    else t = static_cast<int64_t>(v);
    return static_cast<Out>(t);
  } else {
    return static_cast<Out>(v);
  }
}

template <typename In, typename Out>
class CastKernel final : public Kernel {
 public:
  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("cast", operand_shapes, 1, 1, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("cast", operand_shapes[0], output_shape));
    n_ = static_cast<size_t>(NumElements(output_shape));
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("cast: expected 1 operand");
    x_ = static_cast<const In*>(operands[0]);
    y_ = static_cast<Out*>(output);
    return Status::Ok();
  }
  Status Run() override {
    if constexpr (std::is_same_v<In, Out>) {
      if (n_ > 0 && static_cast<const void*>(x_) != static_cast<void*>(y_)) std::memcpy(y_, x_, n_ * sizeof(In));
    } else {
      MapUnary(x_, y_, n_, [](In v) { return Convert<In, Out>(v); });
    }
    return Status::Ok();
  }
  bool CanRunInPlace(size_t i) const override { return i == 0 && std::is_same_v<In, Out>; }
  const char* impl_name() const override { return "ref"; }

 private:
  size_t n_ = 0;
  const In* x_ = nullptr;
  Out* y_ = nullptr;
};

// Calls fn(TypeTag<T>) for an executable storage type; false otherwise.
template <typename Fn>
bool Visit(ir::StorageType s, Fn&& fn) {
  switch (s) {
    case ir::StorageType::kF32: fn(TypeTag<float>{}); return true;
    case ir::StorageType::kF64: fn(TypeTag<double>{}); return true;
    case ir::StorageType::kI64: fn(TypeTag<int64_t>{}); return true;
    case ir::StorageType::kU8: fn(TypeTag<uint8_t>{}); return true;
    case ir::StorageType::kBool: fn(TypeTag<bool>{}); return true;
    default: return false;
  }
}

}  // namespace

Result<KernelPtr> CreateCastKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  KernelPtr k;
  const bool ok = Visit(ir::StorageOf(spec.operand_dtypes[0]), [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    Visit(ir::StorageOf(spec.output_dtype), [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      k.reset(new CastKernel<In, Out>());
    });
  });
  if (!ok || k == nullptr) {
    return InvalidArgument(std::string("cast from ") + ir::DTypeName(spec.operand_dtypes[0]) + " to " +
                           ir::DTypeName(spec.output_dtype) + " is not supported for execution");
  }
  return k;
}

}  // namespace shrew::runtime::kernels
