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

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif
#if defined(__wasm_simd128__) && defined(__wasm_nontrapping_fptoint__)
#define SHREW_WASM_TRUNCATE 1
#endif

namespace shrew::runtime::kernels {
namespace {

// Inlined even at -Os (this file's size setting for wasm): a call per
// element made every cast 2-3x slower than the loop around it.
template <typename In, typename Out>
[[gnu::always_inline]] inline Out Convert(In v) {
  if constexpr (std::is_same_v<Out, bool>) {
    return v != In(0);
  } else if constexpr (std::is_same_v<In, bool>) {
    return static_cast<Out>(v ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(v);
  } else if constexpr (std::is_floating_point_v<In>) {
#if defined(__wasm__) && defined(__wasm_nontrapping_fptoint__)
    // The same saturating truncation in one instruction (NaN gives 0).
    int64_t t = 0;
    if constexpr (std::is_same_v<In, float>) t = __builtin_wasm_trunc_saturate_s_i64_f32(v);
    else t = __builtin_wasm_trunc_saturate_s_i64_f64(v);
    return static_cast<Out>(t);
#else
    int64_t t = 0;
    if (std::isnan(v)) t = 0;
    else if (v >= In(9223372036854775808.0)) t = std::numeric_limits<int64_t>::max();
    else if (v < In(-9223372036854775808.0)) t = std::numeric_limits<int64_t>::min();
    else t = static_cast<int64_t>(v);
    return static_cast<Out>(t);
#endif
  } else {
    return static_cast<Out>(v);
  }
}

#if defined(__wasm_simd128__)
// This file is built for size in wasm, where clang leaves plain loops
// scalar: every cast took 0.4-0.8 ns an element, bool -> f32 of a random
// mask the slowest (a branch per element). Natively (-O3) the compiler
// vectorises Convert's loop itself. Below, in wasm:
//
// Anything -> bool (the lanes' != 0 as 0/1 bytes; NaN is not equal) and
// f32 -> f64, kLanes at a time in the compilers' vector extension (its
// widening conversions from bytes come out slower than the scalar loop in
// clang 14: those are WidenRow's).
template <typename In, typename Out>
void ConvertRow(const In* x, Out* y, size_t n) {
  using S = std::conditional_t<std::is_same_v<In, bool>, uint8_t, In>;
  using D = std::conditional_t<std::is_same_v<Out, bool>, uint8_t, Out>;
  constexpr size_t kLanes = 16 / (sizeof(S) > sizeof(D) ? sizeof(S) : sizeof(D));
  typedef S VIn __attribute__((vector_size(kLanes * sizeof(S))));
  typedef D VOut __attribute__((vector_size(kLanes * sizeof(D))));
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    VIn v;
    std::memcpy(&v, reinterpret_cast<const S*>(x) + i, sizeof v);
    VOut o;
    if constexpr (std::is_same_v<Out, bool>) {
      o = __builtin_convertvector((v != S(0)) & 1, VOut);
    } else {
      o = __builtin_convertvector(v, VOut);
    }
    std::memcpy(reinterpret_cast<D*>(y) + i, &o, sizeof o);
  }
  for (; i < n; ++i) y[i] = Convert<In, Out>(x[i]);
}

// Four u32 lanes (each at most 255) as four Out values at o. To f32: the
// lanes or'ed into the bits of 2^23, less 2^23 (exact below 2^23). clang
// turned a conversion of the extended lanes into a lane-by-lane unsigned
// one (u8 -> f32 took 6x its bytes' time).
template <typename Out>
[[gnu::always_inline]] inline void StoreQuarter(Out* o, v128_t q) {
  if constexpr (std::is_same_v<Out, float>) {
    const v128_t two23 = wasm_f32x4_splat(8388608.0f);
    wasm_v128_store(o, wasm_f32x4_sub(wasm_v128_or(q, two23), two23));
  } else if constexpr (std::is_same_v<Out, double>) {
    wasm_v128_store(o, wasm_f64x2_convert_low_i32x4(q));
    wasm_v128_store(o + 2, wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(q, q, 2, 3, 0, 1)));
  } else {
    wasm_v128_store(o, wasm_u64x2_extend_low_u32x4(q));
    wasm_v128_store(o + 2, wasm_u64x2_extend_high_u32x4(q));
  }
}

// u8 (and bool's 0/1 bytes) -> f32, f64, i64: sixteen bytes at a time,
// widened by the extend instructions, written out straight (with arrays of
// halves and quarters, built for size, the loop kept them on the stack and
// converted a quarter lane by lane: u8 -> f32 took 6x its bytes' time).
template <typename Out>
void WidenRow(const uint8_t* x, Out* y, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t v = wasm_v128_load(x + i);
    const v128_t lo = wasm_u16x8_extend_low_u8x16(v), hi = wasm_u16x8_extend_high_u8x16(v);
    StoreQuarter(y + i, wasm_u32x4_extend_low_u16x8(lo));
    StoreQuarter(y + i + 4, wasm_u32x4_extend_high_u16x8(lo));
    StoreQuarter(y + i + 8, wasm_u32x4_extend_low_u16x8(hi));
    StoreQuarter(y + i + 12, wasm_u32x4_extend_high_u16x8(hi));
  }
  for (; i < n; ++i) y[i] = static_cast<Out>(x[i]);
}

// f64 -> f32, four lanes at a time by the demote instruction (rounds to
// nearest as the scalar conversion does): clang 14 left the loop scalar,
// 2x the time of the widening f32 -> f64.
void NarrowRow(const double* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t a = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(x + i));
    const v128_t b = wasm_f32x4_demote_f64x2_zero(wasm_v128_load(x + i + 2));
    wasm_v128_store(y + i, wasm_i64x2_shuffle(a, b, 0, 2));
  }
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

// Sixteen 1-byte results at a time: `words(x + i)` gives the results of
// four values as 32-bit words of at most 255, and four such groups are
// narrowed twice (nothing saturates); the tail takes `one`.
template <typename In, typename Out, typename Words, typename One>
[[gnu::always_inline]] inline void NarrowBySixteen(const In* x, Out* y, size_t n, Words words, One one) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t lo = wasm_u16x8_narrow_i32x4(words(x + i), words(x + i + 4));
    const v128_t hi = wasm_u16x8_narrow_i32x4(words(x + i + 8), words(x + i + 12));
    wasm_v128_store(y + i, wasm_u8x16_narrow_i16x8(lo, hi));
  }
  for (; i < n; ++i) y[i] = one(x[i]);
}

// i64 -> u8 (the low byte, as Convert): the low words, masked to a byte.
// The scalar loop took 3x the time of u8 -> i64.
void NarrowRow(const int64_t* x, uint8_t* y, size_t n) {
  NarrowBySixteen(
      x, y, n,
      [](const int64_t* g) __attribute__((always_inline)) {
        const v128_t words = wasm_i32x4_shuffle(wasm_v128_load(g), wasm_v128_load(g + 2), 0, 2, 4, 6);
        return wasm_v128_and(words, wasm_i32x4_splat(0xff));
      },
      [](int64_t v) { return static_cast<uint8_t>(v); });
}

// i64 and f64 -> bool: each pair's != 0 lanes (all ones or zero; NaN is
// not equal, -0 is), their low words masked to 1. The vector extension's
// 16-lane compare and convert went lane by lane: 4.3x the time of i64 -> u8.
template <typename In>
void ToBoolRow(const In* x, bool* y, size_t n) {
  NarrowBySixteen(
      x, y, n,
      [](const In* g) __attribute__((always_inline)) {
        const v128_t a = wasm_v128_load(g), b = wasm_v128_load(g + 2);
        v128_t ma, mb;
        if constexpr (std::is_same_v<In, double>) {
          ma = wasm_f64x2_ne(a, wasm_f64x2_splat(0.0));
          mb = wasm_f64x2_ne(b, wasm_f64x2_splat(0.0));
        } else {
          ma = wasm_i64x2_ne(a, wasm_i64x2_splat(0));
          mb = wasm_i64x2_ne(b, wasm_i64x2_splat(0));
        }
        return wasm_v128_and(wasm_i32x4_shuffle(ma, mb, 0, 2, 4, 6), wasm_i32x4_splat(1));
      },
      [](In v) { return v != In(0); });
}

// i64 -> f32, two lanes at a time while both are in [-2^51, 2^51): v added
// to the bits of 1.5 * 2^52 is the double 1.5 * 2^52 + v exactly, so
// subtracting that double leaves v, then rounded once to f32. wasm SIMD has
// no i64 -> float conversion; the scalar one to f32 took 1.6x this (to f64
// it is as fast as this, and stays scalar). A group with a larger lane
// converts lane by lane. The range check is
// v + 2^51 < 2^52 unsigned, as a shift: clang turns two signed compares
// into that unsigned one, which wasm SIMD lacks, and then goes lane by lane.
[[gnu::always_inline]] inline v128_t OutsideLanes(v128_t v) {
  return wasm_u64x2_shr(wasm_i64x2_add(v, wasm_i64x2_splat(int64_t{1} << 51)), 52);
}
[[gnu::always_inline]] inline v128_t PairToF64(v128_t v) {
  const v128_t magic = wasm_f64x2_splat(0x1.8p52);
  return wasm_f64x2_sub(wasm_i64x2_add(v, magic), magic);
}
void WidenRow(const int64_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v0 = wasm_v128_load(x + i), v1 = wasm_v128_load(x + i + 2);
    if (!wasm_v128_any_true(wasm_v128_or(OutsideLanes(v0), OutsideLanes(v1)))) {
      const v128_t a = wasm_f32x4_demote_f64x2_zero(PairToF64(v0));
      const v128_t b = wasm_f32x4_demote_f64x2_zero(PairToF64(v1));
      wasm_v128_store(y + i, wasm_i64x2_shuffle(a, b, 0, 2));
    } else {
      for (size_t j = i; j < i + 4; ++j) y[j] = static_cast<float>(x[j]);
    }
  }
  for (; i < n; ++i) y[i] = static_cast<float>(x[i]);
}
#endif

#ifdef SHREW_WASM_TRUNCATE
// Float -> i64 storage, as Convert does, four or two lanes at a time: V8
// compiles the scalar saturating truncation to a slow sequence (2.5 ns per
// element here, 3x a plain JS `x | 0`). A group with a lane out of the
// fast range (NaN, inf, |x| >= 2^31 for f32, >= 2^51 for f64) takes the
// scalar instruction, whose result is the same by definition.
void TruncateRow(const float* x, int64_t* y, size_t n) {
  const v128_t limit = wasm_f32x4_splat(2147483520.0f);  // largest f32 below 2^31
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    if (wasm_i32x4_all_true(wasm_f32x4_lt(wasm_f32x4_abs(v), limit))) {
      const v128_t t = wasm_i32x4_trunc_sat_f32x4(v);
      wasm_v128_store(y + i, wasm_i64x2_extend_low_i32x4(t));
      wasm_v128_store(y + i + 2, wasm_i64x2_extend_high_i32x4(t));
    } else {
      for (size_t j = i; j < i + 4; ++j) y[j] = Convert<float, int64_t>(x[j]);
    }
  }
  for (; i < n; ++i) y[i] = Convert<float, int64_t>(x[i]);
}
void TruncateRow(const double* x, int64_t* y, size_t n) {
  // trunc(v) + 1.5 * 2^52 holds trunc(v) + 2^51 in its low mantissa bits
  // while |v| < 2^51: subtracting the magic constant's bits leaves trunc(v).
  const v128_t limit = wasm_f64x2_splat(0x1p51);
  const v128_t magic = wasm_f64x2_splat(0x1.8p52);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    const v128_t v = wasm_v128_load(x + i);
    if (wasm_i64x2_all_true(wasm_f64x2_lt(wasm_f64x2_abs(v), limit))) {
      wasm_v128_store(y + i, wasm_i64x2_sub(wasm_f64x2_add(wasm_f64x2_trunc(v), magic), magic));
    } else {
      for (size_t j = i; j < i + 2; ++j) y[j] = Convert<double, int64_t>(x[j]);
    }
  }
  for (; i < n; ++i) y[i] = Convert<double, int64_t>(x[i]);
}
// Float -> u8 (the truncation's low byte, as Convert): sixteen lanes at a
// time truncated to i32 and their low bytes gathered, while every lane is
// below 2^31 (an image's values: 4.5x the time of a cast to i64 before).
void TruncateRow(const float* x, uint8_t* y, size_t n) {
  const v128_t limit = wasm_f32x4_splat(2147483520.0f);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t v0 = wasm_v128_load(x + i), v1 = wasm_v128_load(x + i + 4);
    const v128_t v2 = wasm_v128_load(x + i + 8), v3 = wasm_v128_load(x + i + 12);
    const v128_t in_range = wasm_v128_and(
        wasm_v128_and(wasm_f32x4_lt(wasm_f32x4_abs(v0), limit), wasm_f32x4_lt(wasm_f32x4_abs(v1), limit)),
        wasm_v128_and(wasm_f32x4_lt(wasm_f32x4_abs(v2), limit), wasm_f32x4_lt(wasm_f32x4_abs(v3), limit)));
    if (wasm_i32x4_all_true(in_range)) {
      const v128_t t0 = wasm_i32x4_trunc_sat_f32x4(v0), t1 = wasm_i32x4_trunc_sat_f32x4(v1);
      const v128_t t2 = wasm_i32x4_trunc_sat_f32x4(v2), t3 = wasm_i32x4_trunc_sat_f32x4(v3);
      const v128_t lo = wasm_i8x16_shuffle(t0, t1, 0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
      const v128_t hi = wasm_i8x16_shuffle(t2, t3, 0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
      wasm_v128_store(y + i, wasm_i8x16_shuffle(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
    } else {
      for (size_t j = i; j < i + 16; ++j) y[j] = Convert<float, uint8_t>(x[j]);
    }
  }
  for (; i < n; ++i) y[i] = Convert<float, uint8_t>(x[i]);
}
// f64 -> u8 the same way, eight lanes at a time (2.3 ns an element before,
// 4x a JS loop).
void TruncateRow(const double* x, uint8_t* y, size_t n) {
  const v128_t limit = wasm_f64x2_splat(2147483647.0);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t v0 = wasm_v128_load(x + i), v1 = wasm_v128_load(x + i + 2);
    const v128_t v2 = wasm_v128_load(x + i + 4), v3 = wasm_v128_load(x + i + 6);
    const v128_t in_range = wasm_v128_and(
        wasm_v128_and(wasm_f64x2_lt(wasm_f64x2_abs(v0), limit), wasm_f64x2_lt(wasm_f64x2_abs(v1), limit)),
        wasm_v128_and(wasm_f64x2_lt(wasm_f64x2_abs(v2), limit), wasm_f64x2_lt(wasm_f64x2_abs(v3), limit)));
    if (wasm_i64x2_all_true(in_range)) {
      // Each truncation fills lanes 0-1 of its i32x4: bytes 0 and 4.
      const v128_t t0 = wasm_i32x4_trunc_sat_f64x2_zero(v0), t1 = wasm_i32x4_trunc_sat_f64x2_zero(v1);
      const v128_t t2 = wasm_i32x4_trunc_sat_f64x2_zero(v2), t3 = wasm_i32x4_trunc_sat_f64x2_zero(v3);
      const v128_t lo = wasm_i8x16_shuffle(t0, t1, 0, 4, 16, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
      const v128_t hi = wasm_i8x16_shuffle(t2, t3, 0, 4, 16, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
      const v128_t bytes = wasm_i8x16_shuffle(lo, hi, 0, 1, 2, 3, 16, 17, 18, 19, 0, 0, 0, 0, 0, 0, 0, 0);
      const int64_t low = wasm_i64x2_extract_lane(bytes, 0);
      std::memcpy(y + i, &low, sizeof low);
    } else {
      for (size_t j = i; j < i + 8; ++j) y[j] = Convert<double, uint8_t>(x[j]);
    }
  }
  for (; i < n; ++i) y[i] = Convert<double, uint8_t>(x[i]);
}
#endif

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
#ifdef SHREW_WASM_TRUNCATE
    } else if constexpr ((std::is_floating_point_v<In> && std::is_same_v<Out, int64_t>) ||
                         (std::is_floating_point_v<In> && std::is_same_v<Out, uint8_t>)) {
      TruncateRow(x_, y_, n_);
#endif
#if defined(__wasm_simd128__)
    } else if constexpr (std::is_same_v<Out, bool> && sizeof(In) == 8) {
      ToBoolRow(x_, y_, n_);
    } else if constexpr (std::is_same_v<Out, bool> || (std::is_same_v<In, float> && std::is_same_v<Out, double>)) {
      ConvertRow(x_, y_, n_);
    } else if constexpr (std::is_same_v<In, bool> && std::is_same_v<Out, uint8_t>) {
      if (n_ > 0) std::memcpy(y_, x_, n_);  // bool bytes are 0/1: the same bytes
    } else if constexpr ((std::is_same_v<In, uint8_t> || std::is_same_v<In, bool>) &&
                         (std::is_floating_point_v<Out> || std::is_same_v<Out, int64_t>)) {
      WidenRow(reinterpret_cast<const uint8_t*>(x_), y_, n_);
    } else if constexpr (std::is_same_v<In, int64_t> && std::is_same_v<Out, float>) {
      WidenRow(x_, y_, n_);
    } else if constexpr ((std::is_same_v<In, double> && std::is_same_v<Out, float>) ||
                         (std::is_same_v<In, int64_t> && std::is_same_v<Out, uint8_t>)) {
      NarrowRow(x_, y_, n_);
#endif
    } else {
      MapUnary(x_, y_, n_, [](In v) __attribute__((always_inline)) { return Convert<In, Out>(v); });
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
