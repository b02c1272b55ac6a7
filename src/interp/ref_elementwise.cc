// Reference kernels: unary and binary elementwise operations (OPS.md
// §3.3–3.6), where and cast (§3.17). Binary operations broadcast (§1.4).
#include <cmath>
#include <limits>
#include <type_traits>

#include "interp/kernel.h"
#include "runtime/float_mod.h"
#include "runtime/float_pow.h"

namespace shrew::interp {
namespace {

using K = ir::OpKind;
using runtime::TypeTag;
using runtime::VisitStorage;

// out[i] = f(x[i]).
template <typename In, typename Out, typename F>
Result<Tensor> Map(const Tensor& x, ir::DType out_dtype, F f) {
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(out_dtype, x.shape()));
  std::span<const In> src = x.values<In>();
  std::span<Out> dst = out.mutable_values<Out>();
  for (size_t i = 0; i < src.size(); ++i) dst[i] = f(src[i]);
  return out;
}

// out[i…] = f(a[…], b[…]) over the broadcast shape.
template <typename In, typename Out, typename F>
Result<Tensor> Zip(const Tensor& a, const Tensor& b, ir::DType out_dtype, F f) {
  SHREW_TRY_ASSIGN(Shape shape, BroadcastShapes(a.shape(), b.shape()));
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(out_dtype, shape));
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* po = out.mutable_data<Out>();
  ForEachIndex<2>(shape, {BroadcastStrides(a.shape(), shape), BroadcastStrides(b.shape(), shape)},
                  [&](int64_t i, const std::array<int64_t, 2>& off) { po[i] = f(pa[off[0]], pb[off[1]]); });
  return out;
}

// Each formula is evaluated in double and rounded once to T: the oracle
// must be more accurate than the tape. gelu's 0.5·(1 + tanh u) is written
// as the identical 1 / (1 + e^(−2u)): 1 + tanh u cancels for negative x
// (in f32 about 1e-5 relative off at x = −3; in double all digits lost
// below x ≈ −7).
template <typename T>
Result<Tensor> FloatUnary(K op, const Tensor& x) {
  const ir::DType dt = x.dtype();
  auto map = [&](double (*f)(double)) { return Map<T, T>(x, dt, [f](T v) { return static_cast<T>(f(v)); }); };
  switch (op) {
    case K::kNeg: return Map<T, T>(x, dt, [](T v) { return -v; });
    case K::kRelu: return Map<T, T>(x, dt, [](T v) { return v > T(0) ? v : T(0); });
    case K::kGelu:
      return map([](double v) {
        const double c = 0.7978845608028654;  // sqrt(2/pi)
        return v / (1.0 + std::exp(-2.0 * c * (v + 0.044715 * v * v * v)));
      });
    case K::kSilu: return map([](double v) { return v / (1.0 + std::exp(-v)); });
    case K::kSigmoid: return map([](double v) { return 1.0 / (1.0 + std::exp(-v)); });
    case K::kTanh: return map([](double v) { return std::tanh(v); });
    case K::kExp: return map([](double v) { return std::exp(v); });
    case K::kLog: return map([](double v) { return std::log(v); });
    case K::kSqrt: return map([](double v) { return std::sqrt(v); });
    default: return Internal(std::string(ir::OpName(op)) + " is not a unary elementwise operation");
  }
}

// ---- integer arithmetic: wrapping, exact, never undefined behaviour

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

template <typename T>
T WrapAdd(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b)); }
template <typename T>
T WrapSub(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b)); }
template <typename T>
T WrapMul(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b)); }

// Exponentiation by squaring modulo 2^bits: the same value as repeated
// multiplication. exp >= 0.
template <typename T>
T IntPow(T base, T exp) {
  Unsigned<T> result = 1;
  Unsigned<T> b = static_cast<Unsigned<T>>(base);
  uint64_t e = static_cast<uint64_t>(exp);
  while (e != 0) {
    if (e & 1) result = static_cast<Unsigned<T>>(result * b);
    b = static_cast<Unsigned<T>>(b * b);
    e >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T>
Result<Tensor> IntArith(K op, const Tensor& a, const Tensor& b) {
  const ir::DType dt = a.dtype();
  bool div_by_zero = false;
  bool negative_exp = false;
  Result<Tensor> out = Internal("unreachable");
  switch (op) {
    case K::kAdd: return Zip<T, T>(a, b, dt, WrapAdd<T>);
    case K::kSub: return Zip<T, T>(a, b, dt, WrapSub<T>);
    case K::kMul: return Zip<T, T>(a, b, dt, WrapMul<T>);
    case K::kDiv:
      out = Zip<T, T>(a, b, dt, [&](T x, T y) -> T {
        if (y == 0) {
          div_by_zero = true;
          return 0;
        }
        // INT64_MIN / -1 overflows in C++: it wraps to INT64_MIN (OPS.md §3.4).
        if constexpr (std::is_signed_v<T>) {
          if (y == -1) return WrapSub<T>(0, x);
        }
        return static_cast<T>(x / y);
      });
      break;
    case K::kMod:
      out = Zip<T, T>(a, b, dt, [&](T x, T y) -> T {
        if (y == 0) {
          div_by_zero = true;
          return 0;
        }
        if constexpr (std::is_signed_v<T>) {
          if (y == -1) return 0;  // INT64_MIN % -1 is UB in C++; the floored result is 0
          T r = static_cast<T>(x % y);
          if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);  // floored: sign of y
          return r;
        } else {
          return static_cast<T>(x % y);
        }
      });
      break;
    case K::kPow:
      out = Zip<T, T>(a, b, dt, [&](T x, T y) -> T {
        if constexpr (std::is_signed_v<T>) {
          if (y < 0) {
            negative_exp = true;
            return 0;
          }
        }
        return IntPow<T>(x, y);
      });
      break;
    default: return Internal("not an arithmetic operation");
  }
  if (div_by_zero) return InvalidArgument("integer division by zero");
  if (negative_exp) return InvalidArgument("negative integer exponent in pow");
  return out;
}

template <typename T>
Result<Tensor> FloatArith(K op, const Tensor& a, const Tensor& b) {
  const ir::DType dt = a.dtype();
  switch (op) {
    case K::kAdd: return Zip<T, T>(a, b, dt, [](T x, T y) { return x + y; });
    case K::kSub: return Zip<T, T>(a, b, dt, [](T x, T y) { return x - y; });
    case K::kMul: return Zip<T, T>(a, b, dt, [](T x, T y) { return x * y; });
    case K::kDiv: return Zip<T, T>(a, b, dt, [](T x, T y) { return x / y; });
    case K::kMod:
      return Zip<T, T>(a, b, dt, [](T x, T y) { return runtime::FloatMod(x, y); });
    case K::kPow: return Zip<T, T>(a, b, dt, [](T x, T y) { return runtime::FloatPow(x, y); });
    default: return Internal("not an arithmetic operation");
  }
}

template <typename T>
Result<Tensor> Compare(K op, const Tensor& a, const Tensor& b) {
  const ir::DType dt = ir::DType::kBool;
  switch (op) {
    case K::kEqual: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x == y; });
    case K::kNotEqual: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x != y; });
    case K::kLess: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x < y; });
    case K::kGreater: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x > y; });
    case K::kLessEqual: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x <= y; });
    case K::kGreaterEqual: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x >= y; });
    case K::kAnd: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x != T(0) && y != T(0); });
    case K::kOr: return Zip<T, bool>(a, b, dt, [](T x, T y) { return x != T(0) || y != T(0); });
    default: return Internal("not a comparison");
  }
}

// A constant operand whose type shape inference never resolved (weak,
// OPS.md §1.3): it adopts the other operand's dtype.
bool IsWeakConstant(const KernelArgs& args, size_t i) {
  if (i >= args.node.operands.size() || !args.graph.HasNode(args.node.operands[i])) return false;
  const ir::Node& n = args.graph.node(args.node.operands[i]);
  return n.op == K::kConstant && n.type.is_unknown() && n.attr("value") != nullptr;
}

// Operands i and j after weak-constant adoption; `holder` owns a converted one.
Status AdoptWeak(const KernelArgs& args, size_t i, size_t j, const Tensor** a, const Tensor** b, Tensor* holder) {
  *a = &args[i];
  *b = &args[j];
  if ((*a)->dtype() == (*b)->dtype()) return Status::Ok();
  const Tensor** weak = nullptr;
  ir::DType target;
  size_t weak_index;
  if (IsWeakConstant(args, i) && !IsWeakConstant(args, j)) {
    weak = a, target = (*b)->dtype(), weak_index = i;
  } else if (IsWeakConstant(args, j) && !IsWeakConstant(args, i)) {
    weak = b, target = (*a)->dtype(), weak_index = j;
  } else {
    return Status::Ok();  // the same-dtype check reports the mismatch
  }
  const ir::Node& c = args.graph.node(args.node.operands[weak_index]);
  SHREW_TRY_ASSIGN(*holder, MaterializeConstant(*c.attr("value"), target, (*weak)->shape()));
  *weak = holder;
  return Status::Ok();
}

Result<Tensor> UnaryKernel(const KernelArgs& args) { return UnaryOp(args.node.op, args[0]); }

Result<Tensor> BinaryKernel(const KernelArgs& args) {
  const Tensor* a;
  const Tensor* b;
  Tensor holder;
  SHREW_RETURN_IF_ERROR(AdoptWeak(args, 0, 1, &a, &b, &holder));
  return BinaryOp(args.node.op, *a, *b);
}

}  // namespace

Result<Tensor> UnaryOp(ir::OpKind op, const Tensor& x) {
  if (op == K::kNot) {
    return VisitStorage(x.storage(), [&](auto tag) -> Result<Tensor> {
      using T = typename decltype(tag)::type;
      return Map<T, bool>(x, ir::DType::kBool, [](T v) { return v == T(0); });
    });
  }
  if (op == K::kNeg && ir::IsSignedInt(x.dtype())) {
    return Map<int64_t, int64_t>(x, x.dtype(), [](int64_t v) { return WrapSub<int64_t>(0, v); });
  }
  if (!ir::IsFloat(x.dtype())) {
    if (op == K::kNeg) {
      return InvalidArgument(std::string("neg requires a float or signed integer operand, got ") +
                             ir::DTypeName(x.dtype()));
    }
    return RequireFloat(op, x);
  }
  return x.storage() == ir::StorageType::kF32 ? FloatUnary<float>(op, x) : FloatUnary<double>(op, x);
}

Result<Tensor> BinaryOp(ir::OpKind op, const Tensor& a, const Tensor& b) {
  SHREW_RETURN_IF_ERROR(RequireSameDType(a, b));
  const bool arithmetic = ir::HasFlag(op, ir::kFlagArithmetic);
  if (arithmetic && !ir::IsNumeric(a.dtype())) {
    return InvalidArgument(std::string(ir::OpName(op)) + " requires numeric operands, got " + ir::DTypeName(a.dtype()));
  }
  if (ir::HasFlag(op, ir::kFlagComparison) && !ir::IsNumeric(a.dtype()) && !ir::IsBool(a.dtype())) {
    return InvalidArgument(std::string(ir::OpName(op)) + " requires numeric or bool operands, got " +
                           ir::DTypeName(a.dtype()));
  }
  return VisitStorage(a.storage(), [&](auto tag) -> Result<Tensor> {
    using T = typename decltype(tag)::type;
    if (!arithmetic) return Compare<T>(op, a, b);
    if constexpr (std::is_floating_point_v<T>) {
      return FloatArith<T>(op, a, b);
    } else if constexpr (std::is_same_v<T, bool>) {
      return Internal("arithmetic on bool");
    } else {
      return IntArith<T>(op, a, b);
    }
  });
}

Result<Tensor> CastTo(const Tensor& x, ir::DType dtype) {
  if (!ir::IsExecutable(dtype)) {
    return InvalidArgument(std::string("dtype ") + ir::DTypeName(dtype) + " is not supported for execution");
  }
  return VisitStorage(x.storage(), [&](auto in_tag) -> Result<Tensor> {
    using In = typename decltype(in_tag)::type;
    return VisitStorage(ir::StorageOf(dtype), [&](auto out_tag) -> Result<Tensor> {
      using Out = typename decltype(out_tag)::type;
      return Map<In, Out>(x, dtype, [](In v) -> Out {
        if constexpr (std::is_same_v<Out, bool>) {
          return v != In(0);  // NaN is non-zero
        } else if constexpr (std::is_same_v<In, bool>) {
          return static_cast<Out>(v ? 1 : 0);
        } else if constexpr (std::is_floating_point_v<Out>) {
          return static_cast<Out>(v);  // round to nearest
        } else if constexpr (std::is_floating_point_v<In>) {
          // Truncate toward zero; NaN and out-of-range values are
          // unspecified by the spec: 0 and saturation here (a plain cast
          // would be undefined behaviour). u8 then wraps modulo 256.
          int64_t t = 0;
          if (std::isnan(v)) t = 0;
          else if (v >= In(9223372036854775808.0)) t = std::numeric_limits<int64_t>::max();
          else if (v < In(-9223372036854775808.0)) t = std::numeric_limits<int64_t>::min();
          else t = static_cast<int64_t>(v);
          return static_cast<Out>(t);
        } else {
          return static_cast<Out>(v);  // i64 keeps the value; u8 wraps modulo 256
        }
      });
    });
  });
}

#define SHREW_UNARY_KERNEL(kind) \
  Result<Tensor> Ref##kind(const KernelArgs& args) { return UnaryKernel(args); }
SHREW_UNARY_KERNEL(Neg)
SHREW_UNARY_KERNEL(Relu)
SHREW_UNARY_KERNEL(Gelu)
SHREW_UNARY_KERNEL(Silu)
SHREW_UNARY_KERNEL(Sigmoid)
SHREW_UNARY_KERNEL(Tanh)
SHREW_UNARY_KERNEL(Exp)
SHREW_UNARY_KERNEL(Log)
SHREW_UNARY_KERNEL(Sqrt)
SHREW_UNARY_KERNEL(Not)
#undef SHREW_UNARY_KERNEL

#define SHREW_BINARY_KERNEL(kind) \
  Result<Tensor> Ref##kind(const KernelArgs& args) { return BinaryKernel(args); }
SHREW_BINARY_KERNEL(Add)
SHREW_BINARY_KERNEL(Sub)
SHREW_BINARY_KERNEL(Mul)
SHREW_BINARY_KERNEL(Div)
SHREW_BINARY_KERNEL(Mod)
SHREW_BINARY_KERNEL(Pow)
SHREW_BINARY_KERNEL(Equal)
SHREW_BINARY_KERNEL(NotEqual)
SHREW_BINARY_KERNEL(Less)
SHREW_BINARY_KERNEL(Greater)
SHREW_BINARY_KERNEL(LessEqual)
SHREW_BINARY_KERNEL(GreaterEqual)
SHREW_BINARY_KERNEL(And)
SHREW_BINARY_KERNEL(Or)
#undef SHREW_BINARY_KERNEL

Result<Tensor> RefWhere(const KernelArgs& args) {
  const Tensor& cond = args[0];
  const Tensor* a;
  const Tensor* b;
  Tensor holder;
  SHREW_RETURN_IF_ERROR(AdoptWeak(args, 1, 2, &a, &b, &holder));
  SHREW_RETURN_IF_ERROR(RequireSameDType(*a, *b));
  SHREW_TRY_ASSIGN(Shape ab, BroadcastShapes(a->shape(), b->shape()));
  SHREW_TRY_ASSIGN(Shape shape, BroadcastShapes(cond.shape(), ab));
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(a->dtype(), shape));
  const std::array<std::vector<int64_t>, 3> strides = {BroadcastStrides(cond.shape(), shape),
                                                       BroadcastStrides(a->shape(), shape),
                                                       BroadcastStrides(b->shape(), shape)};
  VisitStorage(cond.storage(), [&](auto ctag) {
    using C = typename decltype(ctag)::type;
    VisitStorage(a->storage(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const C* pc = cond.data<C>();
      const T* pa = a->data<T>();
      const T* pb = b->data<T>();
      T* po = out.mutable_data<T>();
      ForEachIndex<3>(shape, strides, [&](int64_t i, const std::array<int64_t, 3>& off) {
        po[i] = pc[off[0]] != C(0) ? pa[off[1]] : pb[off[2]];
      });
    });
  });
  return out;
}

Result<Tensor> RefCast(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(args.node, "dtype"));
  if (!v.is_string()) return InvalidArgument("attribute 'dtype' must be a dtype name, got " + v.ToString());
  std::optional<ir::DType> dtype = ir::DTypeFromName(v.as_string());
  if (!dtype) return InvalidArgument("unknown dtype '" + v.as_string() + "'");
  return CastTo(args[0], *dtype);
}

}  // namespace shrew::interp
