// Whether this test binary runs under AddressSanitizer (clang spells the check
// __has_feature, GCC __SANITIZE_ADDRESS__). ASan + UBSan at -O1, like an
// unoptimised build, slow the compiler 5-11x: time bounds, which exist to
// catch super-linear blow-ups and not to measure speed, get kTimeScale times
// more room there. 20, not 10: with two sanitized shards at once the tightest
// bounds used 35 % of a 10x room (20,000 inputs matched: 1.8 s of 5 s), and CI
// machines run a quarter slower than the one that measured it.
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
inline constexpr double kTimeScale = 20;
#endif

}  // namespace shrew::testing
