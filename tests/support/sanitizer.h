// Whether this test binary runs under AddressSanitizer (clang spells the check
// __has_feature, GCC __SANITIZE_ADDRESS__). ASan + UBSan at -O1, like an
// unoptimised build, slow the compiler 5-10x: time bounds, which exist to
// catch super-linear blow-ups and not to measure speed, get kTimeScale times
// more room there.
#pragma once

namespace shrew::testing {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHREW_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SHREW_TEST_UNDER_ASAN 1
#endif

#ifdef SHREW_TEST_UNDER_ASAN
inline constexpr bool kUnderAsan = true;
#else
inline constexpr bool kUnderAsan = false;
#endif
#if defined(NDEBUG) && !defined(SHREW_TEST_UNDER_ASAN)
inline constexpr double kTimeScale = 1;
#else
inline constexpr double kTimeScale = 10;
#endif

}  // namespace shrew::testing
