// f32 exp and log without libm, as templates over the lane type: `float`
// (one element) or F32x4 (four, a GCC/clang vector: SIMD128 in wasm, SSE
// natively). ExpRow/LogRow run the F32x4 form over arrays, ExpOne/LogOne the
// float form; both forms do the same IEEE operations in the same order, so
// a lane's result is the scalar's bit for bit — given no contraction into
// FMAs (the build passes -ffp-contract=off), and but for a NaN's sign,
// which wasm leaves to the engine (V8's SIMD and scalar NaNs differ).
// Written out in vectors because compilers left the scalar loops scalar
// (g++: 4.3 ns per exp, 15 per log) or paid for NaN-exact min/max in wasm.
//
// Both are within 1e-6 relative of the exact function (OPS.md §3.3)
// wherever the result is a normal f32 (log: subnormal arguments included);
// exp's subnormal results are within one subnormal step (2^-149), which is
// all that f32 can hold there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace shrew::runtime::kernels {

using F32x4 = float __attribute__((vector_size(16)));
using I32x4 = int32_t __attribute__((vector_size(16)));
using F64x2 = double __attribute__((vector_size(16)));  // vector_math_f64.h's lanes
using U64x2 = uint64_t __attribute__((vector_size(16)));

inline float BitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
inline uint32_t FloatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

inline F32x4 LoadF32x4(const float* p) {
  F32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void StoreF32x4(float* p, F32x4 v) { std::memcpy(p, &v, sizeof v); }

namespace lanes {

// A lane type's element (Scalar) and same-width integer lanes (Int): a
// float or double is its own single lane. f64's are unsigned: their
// exponent arithmetic on a NaN's bits would overflow int64 (undefined;
// UBSan stops there), where unsigned wraps, and a NaN's result is NaN
// either way.
template <typename V>
struct Types;
template <>
struct Types<float> {
  using Scalar = float;
  using Int = int32_t;
};
template <>
struct Types<F32x4> {
  using Scalar = float;
  using Int = I32x4;
};
template <>
struct Types<double> {
  using Scalar = double;
  using Int = uint64_t;
};
template <>
struct Types<F64x2> {
  using Scalar = double;
  using Int = U64x2;
};
template <typename V>
using IntOf = typename Types<V>::Int;

inline int32_t IntBits(float f) { return static_cast<int32_t>(FloatToBits(f)); }
inline I32x4 IntBits(F32x4 v) { return reinterpret_cast<I32x4>(v); }
inline float FloatBits(int32_t i) { return BitsToFloat(static_cast<uint32_t>(i)); }
inline F32x4 FloatBits(I32x4 v) { return reinterpret_cast<F32x4>(v); }
inline float IntToFloat(int32_t i) { return static_cast<float>(i); }
inline F32x4 IntToFloat(I32x4 v) { return __builtin_convertvector(v, F32x4); }

// x < lo ? lo : x and hi < x ? hi : x, NaN staying NaN, for a float, a
// double or their lanes: in wasm, pmax/pmin for lanes (one x64 instruction
// each in V8, where f32x4.max/min's NaN rules cost about eight).
template <typename V>
inline V AtLeast(V x, V lo) {
#if defined(__wasm_simd128__)
  if constexpr (std::is_same_v<V, F32x4>) {
    return reinterpret_cast<V>(wasm_f32x4_pmax(reinterpret_cast<v128_t>(x), reinterpret_cast<v128_t>(lo)));
  } else if constexpr (std::is_same_v<V, F64x2>) {
    return reinterpret_cast<V>(wasm_f64x2_pmax(reinterpret_cast<v128_t>(x), reinterpret_cast<v128_t>(lo)));
  }
#endif
  return x < lo ? lo : x;
}
template <typename V>
inline V AtMost(V x, V hi) {
#if defined(__wasm_simd128__)
  if constexpr (std::is_same_v<V, F32x4>) {
    return reinterpret_cast<V>(wasm_f32x4_pmin(reinterpret_cast<v128_t>(x), reinterpret_cast<v128_t>(hi)));
  } else if constexpr (std::is_same_v<V, F64x2>) {
    return reinterpret_cast<V>(wasm_f64x2_pmin(reinterpret_cast<v128_t>(x), reinterpret_cast<v128_t>(hi)));
  }
#endif
  return hi < x ? hi : x;
}

// Whether every lane of a comparison's mask is set.
inline bool AllTrue(I32x4 mask) {
#if defined(__wasm_simd128__)
  return wasm_i32x4_all_true(reinterpret_cast<v128_t>(mask));
#else
  uint64_t half[2];
  std::memcpy(half, &mask, sizeof half);
  return (half[0] & half[1]) == ~uint64_t{0};
#endif
}

// `c` in every lane. In wasm the vector forms pass `c` through an empty asm
// so that it stays a splat built once before a loop: V8 rebuilds each
// v128.const at its use inside the loop (three x64 instructions; exp took
// 1.56 instead of 1.08 ns per element).
template <typename V>
inline V Splat(typename Types<V>::Scalar c) {
  if constexpr (std::is_same_v<V, F32x4> || std::is_same_v<V, F64x2>) {
#if defined(__wasm_simd128__)
    __asm__("" : "+r"(c));
#endif
    // F32x4{} + c is the form the f32 kernels were tuned with (clang keeps
    // an add of zero; {c, c, c, c} changed inlining: rows of 64 of
    // cross_entropy 8 % slower); it turns −0 into +0, which no f32
    // constant is. F64x2 needs −0 (TanhOf's sign mask).
    if constexpr (std::is_same_v<V, F32x4>) return F32x4{} + c;
    else return F64x2{c, c};
  } else {
    return c;
  }
}

}  // namespace lanes

template <typename V>
struct ExpConstants {
  V log2e = lanes::Splat<V>(1.44269504088896341f);
  V ln2_hi = lanes::Splat<V>(0.693145751953125f);         // exact in 16 bits
  V ln2_lo = lanes::Splat<V>(1.428606765330187045e-06f);  // ln 2 − ln2_hi
  V round = lanes::Splat<V>(12582912.0f);                 // 1.5 · 2^23: adding it rounds to an integer
  V lo = lanes::Splat<V>(-104.0f), hi = lanes::Splat<V>(89.0f);
  V c1 = lanes::Splat<V>(1.0f), c2 = lanes::Splat<V>(0.5f), c3 = lanes::Splat<V>(1.0f / 6);
  V c4 = lanes::Splat<V>(1.0f / 24), c5 = lanes::Splat<V>(1.0f / 120), c6 = lanes::Splat<V>(1.0f / 720);
  V c7 = lanes::Splat<V>(1.0f / 5040);
};

// e^x = 2^n · e^r, n = round(x / ln 2), r = x − n·ln 2 in two parts (Cody
// and Waite: n·ln2_hi is exact), |r| <= ln2 / 2, e^r by its Taylor series to
// r^7 (truncation 5e-9 relative), the terms after 1 summed in Estrin's
// pairs (a third of Horner's dependent steps) and 1 added last. The scale
// 2^n is applied as two factors so that a subnormal result is rounded once
// and never flushed (XNNPACK's exp returns 0 below e^-87.3). The argument is
// clamped where the result is already 0 or inf, which keeps both factors'
// exponents in range; NaN stays NaN. Measured against double exp over every
// f32: at most 1.09e-7 relative on normal results, 0.77 of a subnormal step
// below.
template <typename V>
inline V ExpOf(V x, const ExpConstants<V>& k) {
  using I = lanes::IntOf<V>;
  const V xc = lanes::AtMost(lanes::AtLeast(x, k.lo), k.hi);
  const V t = xc * k.log2e + k.round;
  const I n = lanes::IntBits(t) - lanes::IntBits(k.round);  // round(xc / ln 2), in [-150, 129]
  const V nf = t - k.round;
  const V r = (xc - nf * k.ln2_hi) - nf * k.ln2_lo;
  const V r2 = r * r;
  const V q = (r + r2 * (k.c2 + r * k.c3)) + (r2 * r2) * ((k.c4 + r * k.c5) + r2 * (k.c6 + r * k.c7));
  const V p = k.c1 + q;
  const I n1 = n >> 1, n2 = n - n1;  // each in [-75, 65]
  const V s1 = lanes::FloatBits((n1 + 127) << 23);
  const V s2 = lanes::FloatBits((n2 + 127) << 23);
  return (p * s1) * s2;
}

template <typename V>
struct LogConstants {
  V ln2_hi = lanes::Splat<V>(0.693145751953125f);
  V ln2_lo = lanes::Splat<V>(1.428606765330187045e-06f);
  V min_normal = lanes::Splat<V>(1.17549435e-38f);
  V two_23 = lanes::Splat<V>(8388608.0f);
  V sqrt2 = lanes::Splat<V>(1.41421356f);
  V zero = lanes::Splat<V>(0.0f), half = lanes::Splat<V>(0.5f), one = lanes::Splat<V>(1.0f);
  V two = lanes::Splat<V>(2.0f), twenty_three = lanes::Splat<V>(23.0f);
  V c3 = lanes::Splat<V>(1.0f / 3), c5 = lanes::Splat<V>(1.0f / 5), c7 = lanes::Splat<V>(1.0f / 7);
  V c9 = lanes::Splat<V>(1.0f / 9), c11 = lanes::Splat<V>(1.0f / 11);
  V inf = lanes::Splat<V>(std::numeric_limits<float>::infinity());
  V nan = lanes::Splat<V>(std::numeric_limits<float>::quiet_NaN());
};

// log(x) = e·ln2 + log(m), x = 2^e·m with m in [√½, √2), and
// log(m) = 2·atanh(s) = 2s·(1 + s²/3 + s⁴/5 + …), s = (m − 1)/(m + 1),
// |s| <= 0.172, so terms up to s¹⁰/11 reach f32 precision (summed in
// Estrin's pairs). Right for normal x > 0 and finite (anything else gives
// a value LogOf replaces), with `ef_offset` subtracted from the exponent
// (23 where a subnormal x was scaled up by 2^23, else 0).
template <typename V>
inline V LogOfPositive(V x, V ef_offset, const LogConstants<V>& k) {
  using I = lanes::IntOf<V>;
  const I bits = lanes::IntBits(x);
  const I e = ((bits >> 23) & 0xff) - 127;
  V m = lanes::FloatBits((bits & 0x007fffff) | 0x3f800000);  // [1, 2)
  const auto high = m > k.sqrt2;
  m = high ? m * k.half : m;
  const V ef = (lanes::IntToFloat(e) + (high ? k.one : k.zero)) - ef_offset;
  const V f = m - k.one;  // exact
  const V s = f / (k.two + f);
  const V z = s * s;
  const V z2 = z * z;
  const V p = z * ((k.c3 + z * k.c5) + z2 * ((k.c7 + z * k.c9) + z2 * k.c11));
  const V two_s = s + s;
  return ef * k.ln2_hi + (two_s + (two_s * p + ef * k.ln2_lo));
}

// Any x: subnormal x scaled by 2^23 first; log(0) = −inf, log(inf) = inf,
// NaN for x < 0 and NaN.
template <typename V>
inline V LogOf(V x, const LogConstants<V>& k) {
  const auto subnormal = x < k.min_normal;
  V y = LogOfPositive(subnormal ? x * k.two_23 : x, subnormal ? k.twenty_three : k.zero, k);
  y = x == k.inf ? k.inf : y;
  y = x == k.zero ? -k.inf : y;
  y = (x < k.zero || x != x) ? k.nan : y;
  return y;
}

inline float ExpOne(float x) { return ExpOf(x, ExpConstants<float>{}); }
inline float LogOne(float x) { return LogOf(x, LogConstants<float>{}); }

// out[i] = exp(in[i]) (ExpRow), log(in[i]) (LogRow) for i < n; `in` may
// equal `out`.
inline void ExpRow(const float* in, float* out, size_t n) {
  const ExpConstants<F32x4> k;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) StoreF32x4(out + i, ExpOf(LoadF32x4(in + i), k));
  for (; i < n; ++i) out[i] = ExpOne(in[i]);
}
inline void LogRow(const float* in, float* out, size_t n) {
  const LogConstants<F32x4> k;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const F32x4 x = LoadF32x4(in + i);
    // Four normal positive finite lanes (nearly always) skip the special
    // cases' compares and selects: the same operations for them otherwise,
    // so the same bits (wasm: 2.43 -> 1.62 ns an element; rows where most
    // groups of four hold a zero pay the test, 2.53 -> 2.81).
    const bool normal = lanes::AllTrue((x >= k.min_normal) & (x < k.inf));
    StoreF32x4(out + i, normal ? LogOfPositive(x, k.zero, k) : LogOf(x, k));
  }
  for (; i < n; ++i) out[i] = LogOne(in[i]);
}

}  // namespace shrew::runtime::kernels
