// Row copies of a few bytes (a narrow concat slab, split chunk or embedding
// row) made in words inline: a memcpy call per row of 4 bytes cost 2.3-8x a
// plain JS loop. Rows of kMemcpyFrom bytes or more take memcpy.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace shrew::runtime::kernels {

inline constexpr size_t kMemcpyFrom = 64;

// The widest word (8, 4, 2 or 1 bytes) that divides each of the sizes or'ed
// into `sizes` (2: a u8 concat of [N, 2] slabs went byte by byte, 5x slabs
// of 4).
inline size_t WordFor(size_t sizes) {
  return sizes % 8 == 0 ? 8 : sizes % 4 == 0 ? 4 : sizes % 2 == 0 ? 2 : 1;
}

// dst[0, bytes) = src[0, bytes) in words of W bytes (bytes a multiple of
// W); W = 0: one memcpy.
template <size_t W>
[[gnu::always_inline]] inline void CopyRow(std::byte* dst, const std::byte* src, size_t bytes) {
  if constexpr (W == 0) {
    std::memcpy(dst, src, bytes);
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
