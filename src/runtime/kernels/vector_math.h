// f32 exp and log as branch-free inline functions (selects only), so that
// loops over them vectorise: clang turns them into SIMD128 in wasm and
// SSE natively. Both are within 1e-6 relative of the exact function (OPS.md
// §3.3) wherever the result is a normal f32 (log: subnormal arguments
// included); exp's subnormal results are within one subnormal step (2^-149),
// which is all that f32 can hold there.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

namespace shrew::runtime::kernels {

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

// e^x = 2^n · e^r, n = round(x / ln 2), r = x − n·ln 2 in two parts (Cody
// and Waite: n·kLn2Hi is exact), |r| <= ln2 / 2, e^r by its Taylor series to
// r^7 (truncation 5e-9 relative). The scale 2^n is applied as two factors
// so that a subnormal result is rounded once and never flushed (XNNPACK's
// exp returns 0 below e^-87.3). The argument is clamped where the result is
// already 0 or inf, which keeps both factors' exponents in range; NaN stays
// NaN. Measured against double exp over every f32: at most 1.03e-7 relative on
// normal results, 0.78 of a subnormal step below.
inline float ExpOne(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;         // exact in 16 bits
  constexpr float kLn2Lo = 1.428606765330187045e-06f;  // ln 2 − kLn2Hi
  constexpr float kRound = 12582912.0f;                // 1.5 · 2^23: adding it rounds to an integer
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  const float t = xc * kLog2e + kRound;
  const int32_t n = static_cast<int32_t>(FloatToBits(t) - FloatToBits(kRound));  // round(xc / ln 2), in [-150, 129]
  const float nf = t - kRound;
  const float r = (xc - nf * kLn2Hi) - nf * kLn2Lo;
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
  const int32_t n1 = n >> 1, n2 = n - n1;  // each in [-75, 65]
  const float s1 = BitsToFloat(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = BitsToFloat(static_cast<uint32_t>(n2 + 127) << 23);
  return (p * s1) * s2;
}

// log(x) = e·ln2 + log(m), x = 2^e·m with m in [√½, √2), and
// log(m) = 2·atanh(s) = 2s·(1 + s²/3 + s⁴/5 + …), s = (m − 1)/(m + 1),
// |s| <= 0.172, so terms up to s¹⁰/11 reach f32 precision.
inline float LogOne(float x) {
  constexpr float kLn2Hi = 0.693145751953125f;         // exact in 16 bits
  constexpr float kLn2Lo = 1.428606765330187045e-06f;  // ln 2 − kLn2Hi
  constexpr float kMinNormal = 1.17549435e-38f;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const bool subnormal = x < kMinNormal;
  const float xs = subnormal ? x * 8388608.0f : x;  // 2^23
  const uint32_t bits = FloatToBits(xs);
  const int32_t e = static_cast<int32_t>((bits >> 23) & 0xffu) - 127;
  float m = BitsToFloat((bits & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 1.41421356f;
  m = high ? m * 0.5f : m;
  const float ef = static_cast<float>(e + (high ? 1 : 0)) - (subnormal ? 23.0f : 0.0f);
  const float f = m - 1.0f;  // exact
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float p = ((((z * (1.0f / 11) + 1.0f / 9) * z + 1.0f / 7) * z + 1.0f / 5) * z + 1.0f / 3) * z;
  const float two_s = s + s;
  float y = ef * kLn2Hi + (two_s + (two_s * p + ef * kLn2Lo));
  y = x == inf ? inf : y;
  y = x == 0.0f ? -inf : y;
  y = (x < 0.0f || x != x) ? nan : y;
  return y;
}

}  // namespace shrew::runtime::kernels
