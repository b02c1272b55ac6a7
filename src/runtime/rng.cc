#include "runtime/rng.h"

#include <cmath>
#include <cstring>
#include <limits>

// OPS.md §5 demands formulas evaluated "exactly as written, without fused
// multiply-add". GCC contracts a*b+c by default in C++ (when the target has
// FMA); clang contracts within an expression. Turn both off for this file.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace shrew::runtime {
namespace {

int32_t HighWord(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<int32_t>(static_cast<uint32_t>(bits >> 32));
}

uint32_t LowWord(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return static_cast<uint32_t>(bits);
}

double WithHighWord(double x, int32_t hi) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (static_cast<uint64_t>(static_cast<uint32_t>(hi)) << 32) | (bits & 0xFFFFFFFFu);
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}

}  // namespace

double Rng::NextUniform(double a, double b) {
  const double u = NextUniform();
  return a + (b - a) * u;
}

double Rng::AcceptedPolarPair(double* a_out) {
  for (;;) {
    const double u1 = NextUniform();
    const double u2 = NextUniform();
    const double a = 2.0 * u1 - 1.0;
    const double b = 2.0 * u2 - 1.0;
    const double s = a * a + b * b;
    if (s > 0.0 && s < 1.0) {
      *a_out = a;
      return s;
    }
  }
}

double Rng::NextNormal() {
  double a;
  const double s = AcceptedPolarPair(&a);
  // sqrt is correctly rounded everywhere; log is not, hence PortableLog.
  return a * std::sqrt(-2.0 * PortableLog(s) / s);
}

void Rng::SkipNormal() {
  double a;
  AcceptedPolarPair(&a);
}

double PortableLog(double x) {
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // 3fe62e42 fee00000
  constexpr double ln2_lo = 1.90821492927058770002e-10;  // 3dea39ef 35793c76
  constexpr double two54 = 1.80143985094819840000e+16;   // 43500000 00000000
  constexpr double Lg1 = 6.666666666666735130e-01;       // 3FE55555 55555593
  constexpr double Lg2 = 3.999999999940941908e-01;       // 3FD99999 9997FA04
  constexpr double Lg3 = 2.857142874366239149e-01;       // 3FD24924 94229359
  constexpr double Lg4 = 2.222219843214978396e-01;       // 3FCC71C5 1D8E78AF
  constexpr double Lg5 = 1.818357216161805012e-01;       // 3FC74664 96CB03DE
  constexpr double Lg6 = 1.531383769920937332e-01;       // 3FC39A09 D078C69F
  constexpr double Lg7 = 1.479819860511658591e-01;       // 3FC2F112 DF3E5244

  int32_t hx = HighWord(x);
  const uint32_t lx = LowWord(x);
  int32_t k = 0;
  if (hx < 0x00100000) {  // x < 2^-1022
    if (((hx & 0x7fffffff) | static_cast<int32_t>(lx)) == 0) return -std::numeric_limits<double>::infinity();
    if (hx < 0) return std::numeric_limits<double>::quiet_NaN();  // log(negative)
    k -= 54;
    x *= two54;  // subnormal: scale up
    hx = HighWord(x);
  }
  if (hx >= 0x7ff00000) return x + x;  // inf or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const int32_t i0 = (hx + 0x95f64) & 0x100000;
  x = WithHighWord(x, hx | (i0 ^ 0x3ff00000));  // normalise x or x/2
  k += i0 >> 20;
  const double f = x - 1.0;
  if ((0x000fffff & (2 + hx)) < 3) {  // |f| < 2^-20
    if (f == 0.0) {
      if (k == 0) return 0.0;
      const double dk = k;
      return dk * ln2_hi + dk * ln2_lo;
    }
    const double R = f * f * (0.5 - 0.33333333333333333 * f);
    if (k == 0) return f - R;
    const double dk = k;
    return dk * ln2_hi - ((R - dk * ln2_lo) - f);
  }
  const double s = f / (2.0 + f);
  const double dk = k;
  const double z = s * s;
  int32_t i = hx - 0x6147a;
  const double w = z * z;
  const int32_t j = 0x6b851 - hx;
  const double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  const double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  i |= j;
  const double R = t2 + t1;
  if (i > 0) {
    const double hfsq = 0.5 * f * f;
    if (k == 0) return f - (hfsq - s * (hfsq + R));
    return dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
  }
  if (k == 0) return f - s * (f - R);
  return dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f);
}

}  // namespace shrew::runtime
