#include "runtime/kernels/binary_rows.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/float_mod.h"
#include "runtime/float_pow.h"
#include "runtime/kernels/loops.h"
#include "runtime/kernels/row_groups.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;
using S = ir::StorageType;

// ---- arithmetic, exact and never undefined behaviour

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
T Relu(T x) {
  return x > T(0) ? x : T(0);
}

template <typename T>
struct Add {
  T operator()(T a, T b) const { return WrapAdd(a, b); }
};
template <typename T>
struct Sub {
  T operator()(T a, T b) const { return WrapSub(a, b); }
};
template <typename T>
struct Mul {
  T operator()(T a, T b) const { return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)); }
};
template <typename T>
struct AddRelu {
  T operator()(T a, T b) const { return Relu(WrapAdd(a, b)); }
};
template <typename T>
struct SubRelu {
  T operator()(T a, T b) const { return Relu(WrapSub(a, b)); }
};
template <typename T>
struct Div {
  T operator()(T a, T b) const {
    // b != 0 was checked; INT64_MIN / −1 overflows in C++.
    if constexpr (std::is_same_v<T, int64_t>) {
      if (b == -1) return WrapSub<int64_t>(0, a);
    }
    return static_cast<T>(a / b);
  }
};
template <typename T>
struct Mod {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return FloatMod(a, b);
    } else if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;  // INT64_MIN % −1 is undefined in C++; floored result 0
      T r = static_cast<T>(a % b);
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
      return r;
    } else {
      return static_cast<T>(a % b);
    }
  }
};
template <typename T>
struct Pow {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return FloatPow(a, b);
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
};

// ---- comparisons, as bytes (compilers vectorise byte stores, not bool)

template <typename T>
struct Equal {
  uint8_t operator()(T a, T b) const { return a == b; }
};
template <typename T>
struct NotEqual {
  uint8_t operator()(T a, T b) const { return a != b; }
};
template <typename T>
struct Less {
  uint8_t operator()(T a, T b) const { return a < b; }
};
template <typename T>
struct LessEqual {
  uint8_t operator()(T a, T b) const { return a <= b; }
};
template <typename T>
struct And {
  uint8_t operator()(T a, T b) const { return a != T(0) && b != T(0); }
};
template <typename T>
struct Or {
  uint8_t operator()(T a, T b) const { return a != T(0) || b != T(0); }
};

#ifdef __wasm_simd128__
// u8 products in wasm, 16 at a time as two 16-bit extended products whose
// low bytes are kept: wasm has no 8-bit multiply, and the compiler split
// an 8-bit vector product into single lanes (7x the time of an add; the
// same widening written in C++ is folded back into that product). Natively
// BinaryRow's loops vectorise. Steps 0 or 1 as BinaryRow; out may be a or
// b (each vector is loaded first).
void MulBytesRow(const uint8_t* a, int64_t sa, const uint8_t* b, int64_t sb, uint8_t* out, size_t n) {
  size_t i = 0;
  const v128_t a0 = wasm_i8x16_splat(static_cast<int8_t>(a[0])), b0 = wasm_i8x16_splat(static_cast<int8_t>(b[0]));
  for (; i + 16 <= n; i += 16) {
    const v128_t va = sa != 0 ? wasm_v128_load(a + i) : a0;
    const v128_t vb = sb != 0 ? wasm_v128_load(b + i) : b0;
    const v128_t lo = wasm_u16x8_extmul_low_u8x16(va, vb), hi = wasm_u16x8_extmul_high_u8x16(va, vb);
    wasm_v128_store(out + i, wasm_i8x16_shuffle(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30));
  }
  for (; i < n; ++i) out[i] = static_cast<uint8_t>(a[i * static_cast<size_t>(sa)] * b[i * static_cast<size_t>(sb)]);
}
#endif

template <typename T, template <typename> class F>
void ArithmeticRow(const void* a, int64_t sa, const void* b, int64_t sb, void* out, size_t n) {
#ifdef __wasm_simd128__
  if constexpr (std::is_same_v<T, uint8_t> && std::is_same_v<F<T>, Mul<T>>) {
    MulBytesRow(static_cast<const uint8_t*>(a), sa, static_cast<const uint8_t*>(b), sb, static_cast<uint8_t*>(out), n);
    return;
  }
#endif
  BinaryRow(static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, static_cast<T*>(out), n, F<T>{});
}

template <typename T, template <typename> class F>
void ComparisonRow(const void* a, int64_t sa, const void* b, int64_t sb, void* out, size_t n) {
  DisjointBinaryRow(static_cast<const T*>(a), sa, static_cast<const T*>(b), sb, static_cast<uint8_t*>(out), n,
                    F<T>{});
}

// PowIntegral for one k: its multiplications unrolled (the same products
// in the same order: same bits).
template <int32_t K>
[[gnu::always_inline]] inline float PowIntegralOf(float x) {
  double base = x, acc = 1.0;
  for (uint32_t m = K < 0 ? -K : K; m != 0; m >>= 1) {
    if (m & 1) acc *= base;
    if (m > 1) base *= base;
  }
  return static_cast<float>(K < 0 ? 1.0 / acc : acc);
}

#ifdef __wasm_simd128__
// PowIntegralOf on two doubles at once: the same multiplications, lane by lane.
template <int32_t K>
[[gnu::always_inline]] inline v128_t PowIntegralOf(v128_t base) {
  v128_t acc = wasm_f64x2_splat(1.0);
  for (uint32_t m = K < 0 ? -K : K; m != 0; m >>= 1) {
    if (m & 1) acc = wasm_f64x2_mul(acc, base);
    if (m > 1) base = wasm_f64x2_mul(base, base);
  }
  return K < 0 ? wasm_f64x2_div(wasm_f64x2_splat(1.0), acc) : acc;
}

// A row of x ** K, four floats at a time as two f64x2 (clang's cost model
// leaves the plain loop scalar for these: 1.5 ns an element for x ** 3).
template <int32_t K>
void PowIntegralRowOf(const float* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    const v128_t lo = PowIntegralOf<K>(wasm_f64x2_promote_low_f32x4(v));
    const v128_t hi = PowIntegralOf<K>(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1)));
    wasm_v128_store(y + i, wasm_i64x2_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 2));
  }
  for (; i < n; ++i) y[i] = PowIntegralOf<K>(x[i]);
}
#endif

// PowIntegral over a row. x ** -1 as one loop of arithmetic in registers,
// which clang vectorises (1.1 -> 0.19 ns an element in wasm); in wasm the
// other small powers four at a time in f64x2 (PowIntegralRowOf); the rest
// a block at a time, so that each multiplication is one vectorised loop.
void PowIntegralRow(const float* x, float* y, size_t n, int32_t k) {
  if (k == -1) return MapUnary(x, y, n, [](float v) { return PowIntegralOf<-1>(v); });
#ifdef __wasm_simd128__
  switch (k) {
    case 3: return PowIntegralRowOf<3>(x, y, n);
    case 4: return PowIntegralRowOf<4>(x, y, n);
    case -2: return PowIntegralRowOf<-2>(x, y, n);
    case -3: return PowIntegralRowOf<-3>(x, y, n);
    default: break;
  }
#endif
  constexpr size_t kBlock = 256;
  double base[kBlock], acc[kBlock];
  const uint32_t m0 = static_cast<uint32_t>(k < 0 ? -k : k);
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t len = n - start < kBlock ? n - start : kBlock;
    for (size_t i = 0; i < len; ++i) base[i] = x[start + i], acc[i] = 1.0;
    for (uint32_t m = m0; m != 0; m >>= 1) {
      if (m & 1) {
        for (size_t i = 0; i < len; ++i) acc[i] *= base[i];
      }
      if (m > 1) {
        for (size_t i = 0; i < len; ++i) base[i] *= base[i];
      }
    }
    if (k < 0) {
      for (size_t i = 0; i < len; ++i) y[start + i] = static_cast<float>(1.0 / acc[i]);
    } else {
      for (size_t i = 0; i < len; ++i) y[start + i] = static_cast<float>(acc[i]);
    }
  }
}

// Float mod, a block at a time: the remainders that double arithmetic gives
// exactly (runtime/float_mod.h) in one vectorised loop, the rare rest
// (large quotients, NaN, inf, b = 0) again through FloatMod; the block is
// staged so that in place the operands are still there for that.
template <typename T, bool kStepA, bool kStepB>
void FloatModRowSteps(const T* a, const T* b, T* out, size_t n) {
  constexpr size_t kBlock = 256;
  T r[kBlock];
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t len = n - start < kBlock ? n - start : kBlock;
    const T* pa = a + (kStepA ? start : 0);
    const T* pb = b + (kStepB ? start : 0);
    bool all_exact = true;
    for (size_t i = 0; i < len; ++i) {
      const T x = pa[kStepA ? i : 0], y = pb[kStepB ? i : 0];
      bool exact = false;
      r[i] = FlooredFromTruncated(RemainderIfExact(x, y, &exact), y);
      all_exact &= exact;
    }
    if (!all_exact) {
      for (size_t i = 0; i < len; ++i) r[i] = FloatMod(pa[kStepA ? i : 0], pb[kStepB ? i : 0]);
    }
    for (size_t i = 0; i < len; ++i) out[start + i] = r[i];
  }
}

template <typename T>
void FloatModRow(const void* a, int64_t sa, const void* b, int64_t sb, void* out, size_t n) {
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  T* po = static_cast<T*>(out);
  if (sa != 0 && sb != 0) return FloatModRowSteps<T, true, true>(pa, pb, po, n);
  if (sa != 0) return FloatModRowSteps<T, true, false>(pa, pb, po, n);
  if (sb != 0) return FloatModRowSteps<T, false, true>(pa, pb, po, n);
  return FloatModRowSteps<T, false, false>(pa, pb, po, n);
}

// Integer pow with one small exponent for the row, its products written
// out (this file is built without loop unrolling, so Pow's loop over the
// exponent's bits stayed a loop per element, and scalar: i64 x ** 2 took 4x
// x * x). Multiplication modulo 2^bits is associative: Pow's values.
template <typename T, int kExponent>
void IntegerPowRowOf(const T* x, T* y, size_t n) {
  static_assert(kExponent >= 2 && kExponent <= 4);
  using U = std::make_unsigned_t<T>;
  MapUnary(x, y, n, [](T v) {
    const U u = static_cast<U>(v);
    const U sq = static_cast<U>(u * u);
    if constexpr (kExponent == 2) {
      return static_cast<T>(sq);
    } else if constexpr (kExponent == 3) {
      return static_cast<T>(static_cast<U>(sq * u));
    } else {
      return static_cast<T>(static_cast<U>(sq * sq));
    }
  });
}

// pow: an exponent that is one value for the row gets a loop of its own, in
// which FloatPow's own cases (2, 1, 0.5, -0.5, 1.5), f32's integral powers and small
// integer powers vectorise.
template <typename T>
void PowRow(const void* a, int64_t sa, const void* b, int64_t sb, void* out, size_t n) {
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  T* po = static_cast<T*>(out);
  if (sa != 0 && sb == 0) {
    const T e = pb[0];
    if constexpr (std::is_floating_point_v<T>) {
      if (e == T(2)) return MapUnary(pa, po, n, [](T x) { return FloatPow(x, T(2)); });
      if (e == T(1)) return MapUnary(pa, po, n, [](T x) { return FloatPow(x, T(1)); });
      if (e == T(0.5)) return MapUnary(pa, po, n, [](T x) { return FloatPow(x, T(0.5)); });
      if (e == T(-0.5)) return MapUnary(pa, po, n, [](T x) { return FloatPow(x, T(-0.5)); });
      if (e == T(1.5)) return MapUnary(pa, po, n, [](T x) { return FloatPow(x, T(1.5)); });
      if constexpr (std::is_same_v<T, float>) {
        int32_t k = 0;
        // In place is fine: each block reads its x before writing its y.
        if (IntegralExponent(e, &k)) return PowIntegralRow(pa, po, n, k);
      }
    } else {
      switch (e) {
        case 2: return IntegerPowRowOf<T, 2>(pa, po, n);
        case 3: return IntegerPowRowOf<T, 3>(pa, po, n);
        case 4: return IntegerPowRowOf<T, 4>(pa, po, n);
        default: break;
      }
    }
  }
  BinaryRow(pa, sa, pb, sb, po, n, Pow<T>{});
}

template <template <typename> class F>
BinaryRows Arithmetic(S s) {
  switch (s) {
    case S::kF32: return {&ArithmeticRow<float, F>, 4, 4};
    case S::kF64: return {&ArithmeticRow<double, F>, 8, 8};
    case S::kI64: return {&ArithmeticRow<int64_t, F>, 8, 8};
    case S::kU8: return {&ArithmeticRow<uint8_t, F>, 1, 1};
    default: return {};
  }
}

// bool is stored as bytes 0/1, which compare and combine like u8.
template <template <typename> class F>
BinaryRows Comparison(S s, bool swap = false) {
  switch (s) {
    case S::kF32: return {&ComparisonRow<float, F>, 4, 1, swap};
    case S::kF64: return {&ComparisonRow<double, F>, 8, 1, swap};
    case S::kI64: return {&ComparisonRow<int64_t, F>, 8, 1, swap};
    case S::kU8:
    case S::kBool: return {&ComparisonRow<uint8_t, F>, 1, 1, swap};
    default: return {};
  }
}

template <typename T>
bool AnyZero(const void* b, size_t n) {
  const T* p = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) {
    if (p[i] == T(0)) return true;
  }
  return false;
}

}  // namespace

bool BinaryRows::RunsInGroups(const BroadcastLoop<2>& loop) { return kernels::RunsInGroups(loop); }

void BinaryRows::Run(const BroadcastLoop<2>& loop, const void* a, const void* b, void* out) const {
  auto* po = static_cast<uint8_t*>(out);
  const int64_t io = static_cast<int64_t>(out_bytes);
  if (kernels::RunsInGroups(loop)) {
    // A call per group of whole rows (row_groups.h).
    ForEachRowGroup<2>(loop, {a, b}, {in_bytes, in_bytes},
                       [&](const std::array<const uint8_t*, 2>& q, const std::array<int64_t, 2>& step, int64_t out_off,
                           int64_t count) {
                         uint8_t* o = po + out_off * io;
                         if (swap) {
                           fn(q[1], step[1], q[0], step[0], o, static_cast<size_t>(count));
                         } else {
                           fn(q[0], step[0], q[1], step[1], o, static_cast<size_t>(count));
                         }
                       });
    return;
  }
  const int64_t sa = loop.inner_stride(0), sb = loop.inner_stride(1);
  const size_t n = static_cast<size_t>(loop.inner());
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  const int64_t ia = static_cast<int64_t>(in_bytes);
  loop.ForEachRow([&](const std::array<int64_t, 2>& off, int64_t out_off) {
    const uint8_t* ra = pa + off[0] * ia;
    const uint8_t* rb = pb + off[1] * ia;
    if (swap) {
      fn(rb, sb, ra, sa, po + out_off * io, n);
    } else {
      fn(ra, sa, rb, sb, po + out_off * io, n);
    }
  });
}

BinaryRows ArithmeticRows(ir::OpKind op, ir::StorageType storage) {
  switch (op) {
    case K::kAdd: return Arithmetic<Add>(storage);
    case K::kSub: return Arithmetic<Sub>(storage);
    case K::kMul: return Arithmetic<Mul>(storage);
    case K::kDiv: return Arithmetic<Div>(storage);
    case K::kMod:
      if (storage == S::kF32) return {&FloatModRow<float>, 4, 4};
      if (storage == S::kF64) return {&FloatModRow<double>, 8, 8};
      return Arithmetic<Mod>(storage);
    case K::kPow:
      if (storage == S::kF32) return {&PowRow<float>, 4, 4};
      if (storage == S::kF64) return {&PowRow<double>, 8, 8};
      if (storage == S::kI64) return {&PowRow<int64_t>, 8, 8};
      if (storage == S::kU8) return {&PowRow<uint8_t>, 1, 1};
      return {};
    // relu takes floats only, and f32's is an XNNPACK stage.
    case K::kFusedAddRelu:
      if (storage == S::kF64) return {&ArithmeticRow<double, AddRelu>, 8, 8};
      return {};
    case K::kFusedSubRelu:
      if (storage == S::kF64) return {&ArithmeticRow<double, SubRelu>, 8, 8};
      return {};
    default: return {};
  }
}

Status CheckRightOperand(ir::OpKind op, ir::StorageType storage, const void* b, size_t n) {
  if (op == K::kDiv || op == K::kMod) {
    if ((storage == S::kI64 && AnyZero<int64_t>(b, n)) || (storage == S::kU8 && AnyZero<uint8_t>(b, n))) {
      return InvalidArgument("integer division by zero");
    }
  } else if (op == K::kPow && storage == S::kI64) {
    const auto* p = static_cast<const int64_t*>(b);
    for (size_t i = 0; i < n; ++i) {
      if (p[i] < 0) return InvalidArgument("negative integer exponent in pow");
    }
  }
  return Status::Ok();
}

BinaryRows ComparisonRows(ir::OpKind op, ir::StorageType storage) {
  switch (op) {
    case K::kEqual: return Comparison<Equal>(storage);
    case K::kNotEqual: return Comparison<NotEqual>(storage);
    case K::kLess: return Comparison<Less>(storage);
    case K::kGreater: return Comparison<Less>(storage, /*swap=*/true);
    case K::kLessEqual: return Comparison<LessEqual>(storage);
    case K::kGreaterEqual: return Comparison<LessEqual>(storage, /*swap=*/true);
    case K::kAnd: return Comparison<And>(storage);
    case K::kOr: return Comparison<Or>(storage);
    default: return {};
  }
}

}  // namespace shrew::runtime::kernels
