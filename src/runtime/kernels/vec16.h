// A 16-byte vector of T in the compiler's vector extension (GCC and clang):
// SIMD128 in wasm, SSE natively, and still vectors in code built at -Os,
// where clang leaves plain loops scalar in wasm. Loaded and stored with
// std::memcpy (no alignment assumed).
#pragma once

namespace shrew::runtime::kernels {

template <typename T>
struct Vec16 {
  typedef T type __attribute__((vector_size(16)));
};

template <typename T>
using Vec16Of = typename Vec16<T>::type;

}  // namespace shrew::runtime::kernels
