// Row copies of a few bytes (a narrow concat slab, split chunk or embedding
// row) made in words inline: a memcpy call per row of 4 bytes cost 2.3-8x a
// plain JS loop. Rows of kMemcpyFrom bytes or more take CopyBytes: from 16
// bytes in wasm, where it copies 16-byte words inline (rows of 13-15 f32
// went 4 bytes at a time, 2.3-2.6x the time of rows of 16), from 64
// natively, where it is a memcpy call.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace shrew::runtime::kernels {

#ifdef __wasm_simd128__
inline constexpr size_t kMemcpyFrom = 16;
#else
inline constexpr size_t kMemcpyFrom = 64;
#endif

// Below this many bytes, CopyBytes copies 16-byte words inline in wasm.
inline constexpr size_t kLargeCopy = 4096;

// dst[0, bytes) = src[0, bytes), the two not overlapping. In wasm a row of
// 64 bytes to a few KiB is copied in 16-byte words inline: Emscripten's
// memcpy took 9 ns a call for 64 bytes and 45 for 512 (its C loop below 512
// bytes, a call into JS above), 3-10x the bytes' time when rows are copied
// one by one (embedding rows, concat slabs, expand rows). Natively, and from
// kLargeCopy bytes, memcpy.
[[gnu::always_inline]] inline void CopyBytes(std::byte* dst, const std::byte* src, size_t bytes) {
#ifdef __wasm_simd128__
  if (bytes >= 16 && bytes < kLargeCopy) {
    size_t b = 0;
    for (; b + 16 <= bytes; b += 16) wasm_v128_store(dst + b, wasm_v128_load(src + b));
    // The last word overlaps the one before: its bytes are written twice, alike.
    if (b < bytes) wasm_v128_store(dst + bytes - 16, wasm_v128_load(src + bytes - 16));
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

// The widest word (8, 4, 2 or 1 bytes) that divides each of the sizes or'ed
// into `sizes` (2: a u8 concat of [N, 2] slabs went byte by byte, 5x slabs
// of 4).
inline size_t WordFor(size_t sizes) {
  return sizes % 8 == 0 ? 8 : sizes % 4 == 0 ? 4 : sizes % 2 == 0 ? 2 : 1;
}

// dst[0, bytes) = src[0, bytes) in words of W bytes (bytes a multiple of
// W); W = 0: CopyBytes.
template <size_t W>
[[gnu::always_inline]] inline void CopyRow(std::byte* dst, const std::byte* src, size_t bytes) {
  if constexpr (W == 0) {
    CopyBytes(dst, src, bytes);
  } else {
    for (size_t b = 0; b < bytes; b += W) std::memcpy(dst + b, src + b, W);
  }
}

// fn(std::integral_constant<size_t, W>{}) for word 8, 4, 2 or else 1.
template <typename Fn>
void WithWord(size_t word, Fn&& fn) {
  if (word == 8) {
    fn(std::integral_constant<size_t, 8>{});
  } else if (word == 4) {
    fn(std::integral_constant<size_t, 4>{});
  } else if (word == 2) {
    fn(std::integral_constant<size_t, 2>{});
  } else {
    fn(std::integral_constant<size_t, 1>{});
  }
}

}  // namespace shrew::runtime::kernels
