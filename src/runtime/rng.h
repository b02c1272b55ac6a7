// The seeded, portable random generator of OPS.md §5: SplitMix64 bits,
// uniforms `(bits >> 11) · 2⁻⁵³`, normals by the polar Box–Muller method
// with a log compiled into this file (fdlibm's e_log.c), so native (g++/libstdc++)
// and WebAssembly (clang/libc++) builds produce bit-identical values for the
// same seed. No <random> distribution is used: their output differs between
// standard libraries.
//
// One generator serves an executor: parameter initialisation draws from it
// first (program order), then training-mode dropout continues the stream.
//
//   Rng rng(seed);
//   double u = rng.NextUniform();        // [0, 1)
//   double z = rng.NextNormal();         // N(0, 1)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace shrew::runtime {

class Rng {
 public:
  // The state starts at the seed; a negative seed is taken modulo 2⁶⁴.
  explicit Rng(uint64_t seed = 0) : state_(seed) {}
  static Rng FromSignedSeed(int64_t seed) { return Rng(static_cast<uint64_t>(seed)); }

  // One SplitMix64 step. (Inline, with NextUniform: parameter init draws
  // hundreds of thousands of values, often in not-yet-optimised wasm code.)
  uint64_t NextBits() {
    state_ += kGamma;
    return Mix(state_);
  }
  // The next `n` NextBits values into out[0, n), the state in a local: a
  // loop of NextBits calls, not inlined where the caller is built for size,
  // loaded and stored the state through memory per draw (training dropout
  // took 7.4 ns an element).
  void NextBitsInto(uint64_t* out, size_t n) {
    uint64_t s = state_;
    for (size_t i = 0; i < n; ++i) {
      s += kGamma;
      out[i] = Mix(s);
    }
    state_ = s;
  }
  // u ~ U[0, 1): (bits >> 11) · 2⁻⁵³, exact in binary64 (a 53-bit integer
  // times a power of two: no rounding, no contraction possible). One call.
  double NextUniform() {
    constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
    return static_cast<double>(NextBits() >> 11) * kTwoPowMinus53;
  }
  // The least 53-bit k with k · 2⁻⁵³ >= p, for p in [0, 1]: NextUniform()
  // >= p exactly when (NextBits() >> 11) >= UniformThreshold(p), an integer
  // comparison (p · 2⁵³ is exact in binary64).
  static uint64_t UniformThreshold(double p) { return static_cast<uint64_t>(std::ceil(p * 9007199254740992.0)); }
  // a + (b − a)·u, evaluated in binary64 as written.
  double NextUniform(double a, double b);
  // z ~ N(0, 1), polar Box–Muller: u₁, u₂ → a = 2u₁ − 1, b = 2u₂ − 1,
  // s = a² + b², redrawn until 0 < s < 1; z = a · sqrt(−2·log(s) / s). The
  // second normal of the pair is discarded.
  double NextNormal();
  // Advances the state exactly as `n` NextBits (or NextUniform) calls would.
  void SkipBits(uint64_t n) { state_ += n * kGamma; }
  // Advances the state exactly as one NextNormal would (the same rejected
  // and accepted pairs), without computing the value.
  void SkipNormal();

  // The whole generator state (to save and restore a stream position).
  uint64_t state() const { return state_; }
  void set_state(uint64_t state) { state_ = state; }

 private:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // SplitMix64's increment
  // SplitMix64's output function of a state.
  [[gnu::always_inline]] static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Draws uniform pairs until the polar method accepts one: s = a² + b² in
  // (0, 1); returns s, with a in *a.
  double AcceptedPolarPair(double* a);

  uint64_t state_;
};

// Natural logarithm, a faithful port of fdlibm 5.3 __ieee754_log (error
// < 1 ulp). Uses only IEEE +, −, ×, / and bit manipulation, compiled without
// contraction into fused multiply-add, so every build returns the same bits.
double PortableLog(double x);

}  // namespace shrew::runtime
