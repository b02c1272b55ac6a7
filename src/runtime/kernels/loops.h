// Elementwise loop shapes our own kernels share, written so that compilers
// auto-vectorise them natively and for wasm SIMD128: plain counted loops,
// __restrict pointers, and a separate loop for the in-place case (in == out),
// which restrict would otherwise make undefined.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shrew::runtime::kernels {

// out[i] = f(in[i]); `in` may equal `out`.
template <typename T, typename U, typename F>
inline void MapUnary(const T* in, U* out, size_t n, F f) {
  if (static_cast<const void*>(in) == static_cast<const void*>(out)) {
    U* p = out;
    for (size_t i = 0; i < n; ++i) p[i] = f(p[i]);
  } else {
    const T* __restrict a = in;
    U* __restrict y = out;
    for (size_t i = 0; i < n; ++i) y[i] = f(a[i]);
  }
}

// out[i] = f(a[i·sa], b[i·sb]) for a row of n elements, steps 0 (broadcast)
// or 1; `out` may equal `a` or `b` where that operand has step 1.
template <typename T, typename U, typename F>
inline void BinaryRow(const T* a, int64_t sa, const T* b, int64_t sb, U* out, size_t n, F f) {
  if (sa != 0 && sb != 0) {
    if (static_cast<const void*>(a) == static_cast<const void*>(out) ||
        static_cast<const void*>(b) == static_cast<const void*>(out)) {
      for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
    } else {
      const T* __restrict pa = a;
      const T* __restrict pb = b;
      U* __restrict y = out;
      for (size_t i = 0; i < n; ++i) y[i] = f(pa[i], pb[i]);
    }
  } else if (sa != 0) {
    const T bv = b[0];
    MapUnary(a, out, n, [&](T x) { return f(x, bv); });
  } else if (sb != 0) {
    const T av = a[0];
    MapUnary(b, out, n, [&](T x) { return f(av, x); });
  } else {
    const U v = f(a[0], b[0]);
    for (size_t i = 0; i < n; ++i) out[i] = v;
  }
}

// BinaryRow for an output of another type than the operands, which
// therefore never overlaps them: one loop per step combination.
template <typename T, typename U, typename F>
inline void DisjointBinaryRow(const T* __restrict a, int64_t sa, const T* __restrict b, int64_t sb,
                              U* __restrict out, size_t n, F f) {
  if (sa != 0 && sb != 0) {
    for (size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa != 0) {
    const T bv = b[0];
    for (size_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (sb != 0) {
    const T av = a[0];
    for (size_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    const U v = f(a[0], b[0]);
    for (size_t i = 0; i < n; ++i) out[i] = v;
  }
}

}  // namespace shrew::runtime::kernels
