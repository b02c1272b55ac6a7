// Broadcasts whose rows are short, run in groups of whole rows. A kernel
// that calls a row function once per row of a BroadcastLoop pays the call
// and the walk per row; when rows are shorter than kShortRow that costs more
// than the row's elements ([524288, 2] + [2]: 3 ms for 1M elements, 7x a
// plain loop). Over the last two merged axes each operand is read one of
// four ways, and a group of rows becomes one row of contiguous elements:
//
//   a full plane        read in place, step 1
//   one repeated row    copied `group` times into a tile once per plane
//   one value per row   each value copied n times into a tile per group
//   one value           read in place, step 0
//
// Tiles live on the stack (kGroupBytes per operand), so Run allocates
// nothing. Each group covers the same elements, in the same order, as its
// rows: results are those of the row function, and an output that is a
// full operand (in place) is read before it is written, as by rows.
// Planes small enough to take several per call go in groups of planes
// (ForEachPlaneGroup).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/vec16.h"

namespace shrew::runtime::kernels {

inline constexpr int64_t kShortRow = 32;
inline constexpr size_t kGroupBytes = 2048;

namespace row_groups {

enum class Pattern { kContiguous, kRepeat, kColumn, kConstant };

template <size_t N>
Pattern PatternOf(const BroadcastLoop<N>& loop, size_t k) {
  const int64_t s2 = loop.stride(k, loop.rank() - 2), s1 = loop.inner_stride(k);
  if (s1 == 1) return s2 == 0 ? Pattern::kRepeat : Pattern::kContiguous;
  return s2 == 0 ? Pattern::kConstant : Pattern::kColumn;
}

// Rows of 2 to 16 bytes: one splat store each (a loop per row ran at 0.9
// ns an element for rows of 2 floats, 11 at -Os in expand); longer rows in
// 16-byte splats, the last one overlapping.
template <typename T, size_t kRowBytes>
void FillSplatRowsOf(uint8_t* tile, const T* c, int64_t rows) {
  using V = Vec16Of<T>;
  for (int64_t r = 0; r < rows; ++r) {
    const V splat = V{} + c[r];
    std::memcpy(tile + r * static_cast<int64_t>(kRowBytes), &splat, kRowBytes);
  }
}

template <typename T>
void FillColumnOf(uint8_t* tile, const uint8_t* column, int64_t rows, int64_t n) {
  using V = Vec16Of<T>;
  constexpr int64_t L = 16 / sizeof(T);
  T* t = reinterpret_cast<T*>(tile);
  const T* c = reinterpret_cast<const T*>(column);
  switch (static_cast<size_t>(n) * sizeof(T)) {
    case 2: return FillSplatRowsOf<T, 2>(tile, c, rows);
    case 4: return FillSplatRowsOf<T, 4>(tile, c, rows);
    case 8: return FillSplatRowsOf<T, 8>(tile, c, rows);
    // Rows of 3 floats: the element loop below made [R, 3] + [R, 1] take
    // 3x [R, 4] + [R, 1] in wasm.
    case 12: return FillSplatRowsOf<T, 12>(tile, c, rows);
    case 16: return FillSplatRowsOf<T, 16>(tile, c, rows);
    default:
      if (n < L) {
        for (int64_t r = 0; r < rows; ++r) {
          for (int64_t j = 0; j < n; ++j) t[r * n + j] = c[r];
        }
        return;
      }
      for (int64_t r = 0; r < rows; ++r) {
        const V splat = V{} + c[r];
        T* row = t + r * n;
        int64_t j = 0;
        for (; j + L <= n; j += L) std::memcpy(row + j, &splat, 16);
        if (j < n) std::memcpy(row + n - L, &splat, 16);
      }
  }
}

// tile = each of `rows` values of `column` (of `bytes` each) n times.
inline void FillColumn(uint8_t* tile, const uint8_t* column, int64_t rows, int64_t n, size_t bytes) {
  switch (bytes) {
    case 1: return FillColumnOf<uint8_t>(tile, column, rows, n);
    case 4: return FillColumnOf<uint32_t>(tile, column, rows, n);
    default: return FillColumnOf<uint64_t>(tile, column, rows, n);
  }
}

// o[d, n] = d copies of row[0, n), for rows of kRowBytes (at most 32).
template <size_t kRowBytes, typename T>
void RepeatSmallRow(T* o, const T* row, size_t d) {
  std::byte value[kRowBytes];
  std::memcpy(value, row, kRowBytes);
  auto* out = reinterpret_cast<std::byte*>(o);
  for (size_t r = 0; r < d; ++r) std::memcpy(out + r * kRowBytes, value, kRowBytes);
}

// o[d, n] = d copies of row[0, n) (o may start with row itself): up to 16
// rows by stores, then the plane so far doubled until it is full (memcpy
// calls of growing size: one per row cost 20 ns a plane of 8).
template <typename T>
void RepeatRow(T* o, const T* row, size_t d, size_t n) {
  const size_t first = std::min<size_t>(d, 16);
  switch (n * sizeof(T)) {
    case 4: RepeatSmallRow<4>(o, row, first); break;
    case 8: RepeatSmallRow<8>(o, row, first); break;
    case 12: RepeatSmallRow<12>(o, row, first); break;
    case 16: RepeatSmallRow<16>(o, row, first); break;
    case 24: RepeatSmallRow<24>(o, row, first); break;
    case 32: RepeatSmallRow<32>(o, row, first); break;
    default:
      for (size_t r = 0; r < first; ++r) std::memmove(o + r * n, row, n * sizeof(T));
  }
  for (size_t done = first * n, total = d * n; done < total; done *= 2) {
    std::memcpy(o + done, o, std::min(done, total - done) * sizeof(T));
  }
}

// RepeatRow for elements of `bytes` (1, 4 or 8).
inline void RepeatRowOf(uint8_t* o, const uint8_t* row, int64_t d, int64_t n, size_t bytes) {
  const size_t rows = static_cast<size_t>(d), cols = static_cast<size_t>(n);
  switch (bytes) {
    case 1: return RepeatRow(o, row, rows, cols);
    case 4: return RepeatRow(reinterpret_cast<uint32_t*>(o), reinterpret_cast<const uint32_t*>(row), rows, cols);
    default: return RepeatRow(reinterpret_cast<uint64_t*>(o), reinterpret_cast<const uint64_t*>(row), rows, cols);
  }
}

// Whether RepeatRow copies rows of `bytes` by stores (no memcpy call per row).
inline bool RepeatsByStores(size_t bytes) {
  return bytes == 4 || bytes == 8 || bytes == 12 || bytes == 16 || bytes == 24 || bytes == 32;
}

// A row that repeats along the next axis out (stride 0 there: an operand
// broadcast over rows) at least 4 times, of a size RepeatRow stores, is
// gathered once and copied by RepeatRow: a loop per row cost 1.2 ns an
// element for [64, 64, 4] * [64, 1, 4]. Fewer copies, or other sizes
// (memmove calls), stay in the loop, which was up to 1.9x faster there.
template <typename T>
void GatherOf(uint8_t* tile, const uint8_t* src, const int64_t* dims, const int64_t* strides, size_t axes) {
  T* t = reinterpret_cast<T*>(tile);
  const T* s = reinterpret_cast<const T*>(src);
  const int64_t n = dims[axes - 1], s1 = strides[axes - 1];
  const bool repeat = axes >= 2 && strides[axes - 2] == 0 && dims[axes - 2] >= 4 &&
                      RepeatsByStores(static_cast<size_t>(n) * sizeof(T));
  const size_t walked = repeat ? axes - 2 : axes - 1;  // the axes of the odometer below
  const int64_t copies = repeat ? dims[axes - 2] : 1;
  int64_t index[8] = {};
  int64_t off = 0;
  while (true) {
    if (repeat) {
      for (int64_t j = 0; j < n; ++j) t[j] = s[off + j * s1];
      RepeatRow(t, t, static_cast<size_t>(copies), static_cast<size_t>(n));
      t += copies * n;
    } else {
      for (int64_t j = 0; j < n; ++j) *t++ = s[off + j * s1];
    }
    size_t i = walked;
    while (i-- > 0) {
      off += strides[i];
      if (++index[i] < dims[i]) break;
      off -= strides[i] * dims[i];
      index[i] = 0;
    }
    if (i == static_cast<size_t>(-1)) return;
  }
}

// tile = src's elements over `axes` axes of sizes `dims`, strides `strides`
// (in elements of `bytes` each), in row-major order.
inline void Gather(uint8_t* tile, const uint8_t* src, const int64_t* dims, const int64_t* strides, size_t axes,
                   size_t bytes) {
  switch (bytes) {
    case 1: return GatherOf<uint8_t>(tile, src, dims, strides, axes);
    case 4: return GatherOf<uint32_t>(tile, src, dims, strides, axes);
    default: return GatherOf<uint64_t>(tile, src, dims, strides, axes);
  }
}

// The axes of the group loop when whole planes of the last two axes are
// small enough to take several per group (rank >= 3), else 0: the
// innermost axes that fit in a tile together (`block` elements), grouped
// along the next one out, `chunk` of its indices at a time. A plane per
// call cost 16 ns ([65536, 2, 2] + [1, 2, 1]: 4 ns an element).
struct PlaneGroups {
  size_t axes = 0;  // the block's axes plus the grouped one
  int64_t block = 1, chunk = 1;
};

template <size_t N>
PlaneGroups PlaneGroupsOf(const BroadcastLoop<N>& loop, size_t widest) {
  const size_t rank = loop.rank();
  const int64_t capacity = static_cast<int64_t>(kGroupBytes / widest);
  PlaneGroups g;
  if (rank < 3 || loop.inner() * loop.dims()[rank - 2] * 2 > capacity) return g;
  size_t m = 1;
  int64_t block = loop.inner();
  while (m + 1 < rank && m + 1 < 8 && block * loop.dims()[rank - 1 - m] <= capacity) block *= loop.dims()[rank - 1 - m++];
  g.axes = m + 1;
  g.block = block;
  g.chunk = std::max<int64_t>(1, std::min(loop.dims()[rank - 1 - m], capacity / block));
  return g;
}

}  // namespace row_groups

// Whether `loop` has rows shorter than kShortRow under a second axis, with
// each operand read one of the four ways (merged axes always give that: a
// full operand's next row is n elements on, a column's next value 1 on).
template <size_t N>
bool RunsInGroups(const BroadcastLoop<N>& loop) {
  using row_groups::Pattern;
  // An empty output (a last axis of 0 does not merge away) has no rows.
  if (loop.empty() || loop.rank() < 2 || loop.inner() >= kShortRow) return false;
  for (size_t k = 0; k < N; ++k) {
    const int64_t s2 = loop.stride(k, loop.rank() - 2);
    const Pattern p = row_groups::PatternOf(loop, k);
    if ((p == Pattern::kContiguous && s2 != loop.inner()) || (p == Pattern::kColumn && s2 != 1)) return false;
  }
  return true;
}

// For a loop that RunsInGroups: calls
//     fn(std::array<const uint8_t*, N> inputs, std::array<int64_t, N> steps, int64_t out_offset, int64_t count)
// for each group of whole rows, `count` elements from output element
// `out_offset`, input k read from inputs[k] with step 0 or 1. `base[k]` is
// input k's data, `bytes[k]` its element size (1, 4 or 8).
//
// Planes of the last two axes small enough to take several at a time go in
// groups of planes instead (row_groups::PlaneGroupsOf): an operand that is
// contiguous over the group's axes, or one value there, is read in place;
// any other is gathered into its tile, once for as long as its elements
// stay the same (a broadcast operand's tile serves every group).
template <size_t N, typename Fn>
void ForEachPlaneGroup(const BroadcastLoop<N>& loop, const row_groups::PlaneGroups& g,
                       const std::array<const void*, N>& base, const std::array<size_t, N>& bytes, Fn&& fn) {
  const size_t rank = loop.rank(), first = rank - g.axes;
  const int64_t extent = loop.dims()[first];
  enum class Read { kInPlace, kConstant, kTile };
  std::array<Read, N> read;
  std::array<std::array<int64_t, 8>, N> strides{};
  for (size_t k = 0; k < N; ++k) {
    bool contiguous = true, constant = true;
    int64_t want = 1;
    for (size_t i = rank; i-- > first;) {
      const int64_t s = loop.stride(k, i);
      strides[k][i - first] = s;
      contiguous = contiguous && (s == want || loop.dims()[i] == 1);
      constant = constant && s == 0;
      want *= loop.dims()[i];
    }
    read[k] = contiguous ? Read::kInPlace : constant ? Read::kConstant : Read::kTile;
  }
  std::array<int64_t, 8> dims{};
  for (size_t i = first; i < rank; ++i) dims[i - first] = loop.dims()[i];
  alignas(16) uint8_t tiles[N][kGroupBytes];
  std::array<const uint8_t*, N> built{};  // the source each tile holds
  std::array<int64_t, N> built_count{};
  std::array<int64_t, N> step;
  for (size_t k = 0; k < N; ++k) step[k] = read[k] == Read::kConstant ? 0 : 1;
  loop.ForEachBlock(g.axes, [&](const std::array<int64_t, N>& off, int64_t out_off) {
    for (int64_t c0 = 0; c0 < extent; c0 += g.chunk) {
      const int64_t count = std::min(g.chunk, extent - c0);
      std::array<const uint8_t*, N> q;
      for (size_t k = 0; k < N; ++k) {
        const int64_t ib = static_cast<int64_t>(bytes[k]);
        const uint8_t* src = static_cast<const uint8_t*>(base[k]) + (off[k] + c0 * strides[k][0]) * ib;
        if (read[k] != Read::kTile) {
          q[k] = src;
          continue;
        }
        if (src != built[k] || count != built_count[k]) {
          std::array<int64_t, 8> tile_dims = dims;
          tile_dims[0] = count;
          row_groups::Gather(tiles[k], src, tile_dims.data(), strides[k].data(), g.axes, bytes[k]);
          built[k] = src;
          built_count[k] = count;
        }
        q[k] = tiles[k];
      }
      fn(q, step, out_off + c0 * g.block, count * g.block);
    }
  });
}

template <size_t N, typename Fn>
void ForEachRowGroup(const BroadcastLoop<N>& loop, const std::array<const void*, N>& base,
                     const std::array<size_t, N>& bytes, Fn&& fn) {
  using row_groups::Pattern;
  const int64_t n = loop.inner(), d = loop.dims()[loop.rank() - 2];
  const size_t widest = *std::max_element(bytes.begin(), bytes.end());
  const row_groups::PlaneGroups planes = row_groups::PlaneGroupsOf(loop, widest);
  if (planes.axes > 0) return ForEachPlaneGroup(loop, planes, base, bytes, fn);
  const int64_t group = std::max<int64_t>(1, std::min<int64_t>(d, static_cast<int64_t>(kGroupBytes / widest) / n));
  std::array<Pattern, N> pattern;
  for (size_t k = 0; k < N; ++k) pattern[k] = row_groups::PatternOf(loop, k);
  alignas(16) uint8_t tiles[N][kGroupBytes];
  loop.ForEachBlock(2, [&](const std::array<int64_t, N>& off, int64_t out_off) {
    std::array<const uint8_t*, N> p;
    std::array<int64_t, N> step;
    for (size_t k = 0; k < N; ++k) {
      const int64_t ib = static_cast<int64_t>(bytes[k]);
      p[k] = static_cast<const uint8_t*>(base[k]) + off[k] * ib;
      step[k] = pattern[k] == Pattern::kConstant ? 0 : 1;
      if (pattern[k] == Pattern::kRepeat) row_groups::RepeatRowOf(tiles[k], p[k], group, n, bytes[k]);
    }
    for (int64_t r0 = 0; r0 < d; r0 += group) {
      const int64_t rows = std::min(group, d - r0);
      std::array<const uint8_t*, N> q;
      for (size_t k = 0; k < N; ++k) {
        const int64_t ib = static_cast<int64_t>(bytes[k]);
        switch (pattern[k]) {
          case Pattern::kContiguous: q[k] = p[k] + r0 * n * ib; break;
          case Pattern::kConstant: q[k] = p[k]; break;
          case Pattern::kRepeat: q[k] = tiles[k]; break;
          case Pattern::kColumn:
            row_groups::FillColumn(tiles[k], p[k] + r0 * ib, rows, n, bytes[k]);
            q[k] = tiles[k];
            break;
        }
      }
      fn(q, step, out_off + r0 * n, rows * n);
    }
  });
}

}  // namespace shrew::runtime::kernels
