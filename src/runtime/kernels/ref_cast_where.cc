// cast and where (OPS.md §3.17), our own C++ for every storage type.
//
// cast: float → integer truncates toward zero (NaN gives 0, out-of-range
// saturates — the spec leaves both unspecified; this matches the
// interpreter), integer → float and f64 → f32 round to nearest, integer →
// integer keeps the value for i64 storage and wraps modulo 256 for u8,
// anything → bool is "non-zero" (NaN is true), bool → number is 0/1.
// where: per element `a` where `cond` is non-zero, else `b`; all three
// broadcast together.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/broadcast.h"
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

template <typename C, typename T>
class WhereKernel final : public Kernel {
 public:
  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("where", operand_shapes, 3, 3, output_shape));
    Result<Shape> ab = BroadcastShapes(operand_shapes[1], operand_shapes[2]);
    if (!ab.ok()) return InvalidArgument("where: " + ab.status().message());
    Result<Shape> all = BroadcastShapes(operand_shapes[0], *ab);
    if (!all.ok()) return InvalidArgument("where: " + all.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape("where", *all, output_shape));
    loop_.Init(output_shape, {&operand_shapes[0], &operand_shapes[1], &operand_shapes[2]});
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 3) return InvalidArgument("where: expected 3 operands");
    c_ = static_cast<const C*>(operands[0]);
    a_ = static_cast<const T*>(operands[1]);
    b_ = static_cast<const T*>(operands[2]);
    y_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override {
    const int64_t sc = loop_.inner_stride(0), sa = loop_.inner_stride(1), sb = loop_.inner_stride(2);
    const int64_t n = loop_.inner();
    loop_.ForEachRow([&](const std::array<int64_t, 3>& off, int64_t out_off) {
      // A bool condition is read as its bytes (0/1): vectorises.
      using CB = std::conditional_t<std::is_same_v<C, bool>, uint8_t, C>;
      const CB* c = reinterpret_cast<const CB*>(c_) + off[0];
      const T* a = a_ + off[1];
      const T* b = b_ + off[2];
      T* y = y_ + out_off;
      if (sc == 1 && sa == 1 && sb == 1) {  // the common contiguous row: vectorises
        for (int64_t i = 0; i < n; ++i) y[i] = c[i] != CB(0) ? a[i] : b[i];
      } else if (sc == 1 && sa == 1 && sb == 0) {
        const T bv = b[0];
        for (int64_t i = 0; i < n; ++i) y[i] = c[i] != CB(0) ? a[i] : bv;
      } else if (sc == 1 && sa == 0 && sb == 1) {
        const T av = a[0];
        for (int64_t i = 0; i < n; ++i) y[i] = c[i] != CB(0) ? av : b[i];
      } else {
        for (int64_t i = 0; i < n; ++i) y[i] = c[i * sc] != CB(0) ? a[i * sa] : b[i * sb];
      }
    });
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  BroadcastLoop<3> loop_;
  const C* c_ = nullptr;
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  T* y_ = nullptr;
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

Result<KernelPtr> CreateWhereKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 3, 3));
  const ir::StorageType s = ir::StorageOf(spec.operand_dtypes[1]);
  if (ir::StorageOf(spec.operand_dtypes[2]) != s || ir::StorageOf(spec.output_dtype) != s) {
    return InvalidArgument(std::string("dtype mismatch: ") + ir::DTypeName(spec.operand_dtypes[1]) + " and " +
                           ir::DTypeName(spec.operand_dtypes[2]));
  }
  KernelPtr k;
  const bool ok = Visit(ir::StorageOf(spec.operand_dtypes[0]), [&](auto ctag) {
    using C = typename decltype(ctag)::type;
    Visit(s, [&](auto tag) {
      using T = typename decltype(tag)::type;
      k.reset(new WhereKernel<C, T>());
    });
  });
  if (!ok || k == nullptr) {
    return InvalidArgument(std::string("where: dtype ") + ir::DTypeName(spec.output_dtype) +
                           " is not supported for execution");
  }
  return k;
}

}  // namespace shrew::runtime::kernels
