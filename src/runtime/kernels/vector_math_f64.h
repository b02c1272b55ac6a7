// f64 exp and tanh without libm, as templates over the lane type: `double`
// (one element) or F64x2 (two, a GCC/clang vector: SIMD128 in wasm, SSE2
// natively), in the manner of vector_math.h's f32 functions: both forms do
// the same IEEE operations in the same order, so a lane's result is the
// scalar's bit for bit (given -ffp-contract=off, and but for a NaN's sign).
// Written out because libm's are scalar and branchy: in wasm its tanh took
// 20 ns an element (this one 6). This exp alone is only as fast as libm's
// (the `exp` op keeps libm's); it serves the loops of softmax and
// cross_entropy, which run it in lanes over whole blocks.
//
// Accuracy against the exact function (long double, over tests' samples of
// every binade): exp within 1.01 ulp where the result is normal, within one
// subnormal step below; tanh within 1.9 ulp. The reference interpreter
// keeps libm's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/vector_math.h"

namespace shrew::runtime::kernels {

inline F64x2 LoadF64x2(const double* p) {
  F64x2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void StoreF64x2(double* p, F64x2 v) { std::memcpy(p, &v, sizeof v); }

// For code over both float types: T's vector, its exp constants, loads and
// stores.
template <typename T>
using LanesOf = std::conditional_t<std::is_same_v<T, float>, F32x4, F64x2>;
inline F32x4 LoadLanes(const float* p) { return LoadF32x4(p); }
inline F64x2 LoadLanes(const double* p) { return LoadF64x2(p); }
inline void StoreLanes(float* p, F32x4 v) { StoreF32x4(p, v); }
inline void StoreLanes(double* p, F64x2 v) { StoreF64x2(p, v); }

namespace lanes {

inline uint64_t IntBits(double d) {
  uint64_t i;
  std::memcpy(&i, &d, sizeof i);
  return i;
}
inline U64x2 IntBits(F64x2 v) { return reinterpret_cast<U64x2>(v); }
inline double FloatBits(uint64_t i) {
  double d;
  std::memcpy(&d, &i, sizeof d);
  return d;
}
inline F64x2 FloatBits(U64x2 v) { return reinterpret_cast<F64x2>(v); }

}  // namespace lanes

template <typename V>
struct ExpF64Constants {
  V log2e = lanes::Splat<V>(1.4426950408889634);
  // ln 2 in two parts (fdlibm's): n·ln2_hi is exact for |n| < 2^21.
  V ln2_hi = lanes::Splat<V>(6.93147180369123816490e-01);
  V ln2_lo = lanes::Splat<V>(1.90821492927058770002e-10);
  V round = lanes::Splat<V>(6755399441055744.0);  // 1.5 · 2^52: adding it rounds to an integer
  V lo = lanes::Splat<V>(-745.2), hi = lanes::Splat<V>(709.8);
  V tanh_hi = lanes::Splat<V>(44.0);  // 2|x| past which tanh x is ±1 in f64 (from |x| = 19.1)
  V one = lanes::Splat<V>(1.0), two = lanes::Splat<V>(2.0), neg_zero = lanes::Splat<V>(-0.0);
  V c2 = lanes::Splat<V>(1.0 / 2), c3 = lanes::Splat<V>(1.0 / 6), c4 = lanes::Splat<V>(1.0 / 24);
  V c5 = lanes::Splat<V>(1.0 / 120), c6 = lanes::Splat<V>(1.0 / 720), c7 = lanes::Splat<V>(1.0 / 5040);
  V c8 = lanes::Splat<V>(1.0 / 40320), c9 = lanes::Splat<V>(1.0 / 362880);
  V c10 = lanes::Splat<V>(1.0 / 3628800), c11 = lanes::Splat<V>(1.0 / 39916800);
  V c12 = lanes::Splat<V>(1.0 / 479001600), c13 = lanes::Splat<V>(1.0 / 6227020800);
  V c14 = lanes::Splat<V>(1.0 / 87178291200), c15 = lanes::Splat<V>(1.0 / 1307674368000);
  V c16 = lanes::Splat<V>(1.0 / 20922789888000), c17 = lanes::Splat<V>(1.0 / 355687428096000);
  V half = lanes::Splat<V>(0.5);
};

template <typename T>
using ExpConstantsOf = std::conditional_t<std::is_same_v<T, float>, ExpConstants<F32x4>, ExpF64Constants<F64x2>>;

// e^r − 1 by its Taylor series, r + r²·P(r) with P in Estrin's pairs, so
// that the largest term, r, is added last and exactly once: to r^13 for
// |r| <= ln2 / 2 (truncation 4e-18 relative to e^r); kUpToLn2, to r^17 for
// 0 <= r < ln 2 (a little below 0 by rounding; truncation 2e-19), where
// every term is positive, so it is rounded but never cancels.
template <bool kUpToLn2, typename V>
inline V ExpM1Poly(V r, const ExpF64Constants<V>& k) {
  const V r2 = r * r;
  const V r4 = r2 * r2;
  const V b0 = (k.c2 + r * k.c3) + r2 * (k.c4 + r * k.c5);
  const V b1 = (k.c6 + r * k.c7) + r2 * (k.c8 + r * k.c9);
  V b2 = (k.c10 + r * k.c11) + r2 * (k.c12 + r * k.c13);
  if constexpr (kUpToLn2) b2 = b2 + r4 * ((k.c14 + r * k.c15) + r2 * (k.c16 + r * k.c17));
  return r + r2 * (b0 + r4 * (b1 + r4 * b2));
}

// x = n·ln 2 + r, n = round(x / ln 2), r in two parts (Cody and Waite).
// Returns r; `*n` is n as an integer, in the lanes' integer type.
template <typename V>
inline V ReduceLn2(V x, const ExpF64Constants<V>& k, lanes::IntOf<V>* n) {
  const V t = x * k.log2e + k.round;
  *n = lanes::IntBits(t) - lanes::IntBits(k.round);
  const V nf = t - k.round;
  return (x - nf * k.ln2_hi) - nf * k.ln2_lo;
}

// e^x = 2^n · (1 + (e^r − 1)), the scale applied as two factors so that a
// subnormal result is rounded once; the argument clamped where the result
// is already 0 or inf, which keeps n in [-1075, 1024] and each factor's
// exponent in range. NaN stays NaN.
template <typename V>
inline V ExpOf(V x, const ExpF64Constants<V>& k) {
  using I = lanes::IntOf<V>;
  const V xc = lanes::AtMost(lanes::AtLeast(x, k.lo), k.hi);
  I n;
  const V r = ReduceLn2(xc, k, &n);
  const V p = k.one + ExpM1Poly<false>(r, k);
  // n1 = floor(n / 2) by a logical shift of n + 2048 (n is two's
  // complement in unsigned lanes; wasm's i64x2.shr_s has no x64
  // instruction before AVX-512).
  const I n1 = ((n + 2048) >> 1) - 1024, n2 = n - n1;
  const V s1 = lanes::FloatBits((n1 + 1023) << 52);
  const V s2 = lanes::FloatBits((n2 + 1023) << 52);
  return (p * s1) * s2;
}

// tanh x = ±e/(e + 2), e = e^(2|x|) − 1 = (2^n − 1) + 2^n·(e^r − 1) with
// n = floor(2|x| / ln 2), so r >= 0 and every term is positive: no
// cancellation (near 0, n = 0 leaves e = e^r − 1), and e/(e + 2) passes e's
// relative error on at most once. 2|x| is clamped at 44 (n <= 63), where
// the quotient is 1; the sign is put back last, so tanh(−0) = −0.
template <typename V>
inline V TanhOf(V x, const ExpF64Constants<V>& k) {
  using I = lanes::IntOf<V>;
  const I sign = lanes::IntBits(x) & lanes::IntBits(k.neg_zero);
  const V ax = lanes::FloatBits(lanes::IntBits(x) ^ sign);
  const V y = lanes::AtMost(ax + ax, k.tanh_hi);
  const V t = (y * k.log2e - k.half) + k.round;  // floor(y / ln 2), or one less at an integer
  const I n = lanes::IntBits(t) - lanes::IntBits(k.round);
  const V nf = t - k.round;
  const V r = (y - nf * k.ln2_hi) - nf * k.ln2_lo;
  const V s = lanes::FloatBits((n + 1023) << 52);
  const V e = (s - k.one) + s * ExpM1Poly<true>(r, k);
  // e + 2 is rounded: d + err is exact (Fast2Sum, the larger first), and
  // e/(d + err) = q·(1 − err/d) to first order (the worst of 2e7 samples 2.28 -> 1.89 ulp).
  const V d = e + k.two;
  const V err = (lanes::AtLeast(e, k.two) - d) + lanes::AtMost(e, k.two);
  const V q = e / d;
  return lanes::FloatBits(lanes::IntBits(q - q * (err / d)) | sign);
}

// Overloads of vector_math.h's f32 forms, told apart by their constants.
inline double ExpOne(double x) { return ExpOf(x, ExpF64Constants<double>{}); }
inline double TanhOne(double x) { return TanhOf(x, ExpF64Constants<double>{}); }

// out[i] = f(in[i]) for i < n, two lanes at a time: `f(v, k)` is a generic
// callable over the lane type (double and F64x2) given the constants of its
// lane type. `in` may equal `out`.
template <typename F>
inline void MapF64Lanes(const double* in, double* out, size_t n, F f) {
  const ExpF64Constants<F64x2> k2;
  size_t i = 0;
  for (; i + 2 <= n; i += 2) StoreF64x2(out + i, f(LoadF64x2(in + i), k2));
  if (i < n) out[i] = f(in[i], ExpF64Constants<double>{});
}

// out[i] = exp(in[i]) for i < n; `in` may equal `out`.
inline void ExpRow(const double* in, double* out, size_t n) {
  MapF64Lanes(in, out, n, [](auto v, const auto& k) { return ExpOf(v, k); });
}

}  // namespace shrew::runtime::kernels
