#include "runtime/kernels/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "runtime/kernels/vector_math.h"
#include "runtime/kernels/vector_math_f64.h"

namespace shrew::runtime::kernels {
namespace {

constexpr size_t kRowsBlock = 2048;
// Short f32 rows of fewer elements than this go row by row. The row loops'
// selects are branches in V8's code: fast while the predictor knows the
// rows (the same input again: 512 rows of 4 took 0.85x the planes' time),
// not over new data (4,096 rows of 4, 16 inputs in turn: 87-100 µs a call
// against 55-58 with planes, the same input 46-52 against 52; 65,536 rows
// of 4, the same input: 4.6 against 2.5 ns an element).
constexpr size_t kPlanesFrom = 16384;

// Rows of any length, a block of whole rows at a time. kLen: the row
// length when fixed (rows of 2 to 8 take a copy of the loops the compiler
// unrolls: 2 columns 4.5 -> 2.8 ms per 1M elements), else 0.
template <typename T, size_t kLen>
void Rows(const T* in, T* out, size_t n, size_t len_arg) {
  const size_t len = kLen != 0 ? kLen : len_arg;
  const size_t block = std::max<size_t>(1, kRowsBlock / len) * len;
  for (size_t b0 = 0; b0 < n; b0 += block) {
    const size_t b1 = std::min(n, b0 + block);
    for (size_t r = b0; r < b1; r += len) {
      const T* x = in + r;
      T* y = out + r;
      T top = x[0];
      for (size_t j = 1; j < len; ++j) top = x[j] > top ? x[j] : top;
      for (size_t j = 0; j < len; ++j) y[j] = x[j] - top;
    }
    T* __restrict y = out;
    ExpRow(y + b0, y + b0, b1 - b0);
    for (size_t r = b0; r < b1; r += len) {
      T sum = 0;
      for (size_t j = 0; j < len; ++j) sum += y[r + j];
      const T inv = static_cast<T>(1.0 / static_cast<double>(sum));
      for (size_t j = 0; j < len; ++j) y[r + j] *= inv;
    }
  }
}

// plane[j·m + r] = x[r·kLen + j] for m rows, and back, each scaled by its
// row's factor: the only steps that need the length fixed to vectorise.
template <size_t kLen>
void ToPlanes(const float* x, float* plane, size_t m) {
  for (size_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < kLen; ++j) plane[j * m + r] = x[r * kLen + j];
  }
}
template <size_t kLen>
void FromPlanesScaled(const float* plane, const float* scale, float* y, size_t m) {
  for (size_t r = 0; r < m; ++r) {
    for (size_t j = 0; j < kLen; ++j) y[r * kLen + j] = plane[j * m + r] * scale[r];
  }
}
using ToPlanesFn = void (*)(const float*, float*, size_t);
using FromPlanesFn = void (*)(const float*, const float*, float*, size_t);
constexpr ToPlanesFn kToPlanes[] = {nullptr, nullptr, ToPlanes<2>, ToPlanes<3>, ToPlanes<4>,
                                    ToPlanes<5>, ToPlanes<6>, ToPlanes<7>, ToPlanes<8>,
                                    ToPlanes<9>, ToPlanes<10>, ToPlanes<11>, ToPlanes<12>,
                                    ToPlanes<13>, ToPlanes<14>, ToPlanes<15>, ToPlanes<16>};
constexpr FromPlanesFn kFromPlanes[] = {nullptr, nullptr, FromPlanesScaled<2>, FromPlanesScaled<3>,
                                        FromPlanesScaled<4>, FromPlanesScaled<5>, FromPlanesScaled<6>,
                                        FromPlanesScaled<7>, FromPlanesScaled<8>,
                                        FromPlanesScaled<9>, FromPlanesScaled<10>, FromPlanesScaled<11>, FromPlanesScaled<12>,
                                        FromPlanesScaled<13>, FromPlanesScaled<14>, FromPlanesScaled<15>, FromPlanesScaled<16>};
constexpr size_t kMaxPlaneLen = 16;

// f32 rows of len 2 to kMaxPlaneLen: a block of rows is copied into len
// planes (plane j holds every row's element j), so that each step is one
// loop across the rows' lanes instead of a short loop per row (rows of 4:
// 4.6 ns an element row by row). The same operations in the same order as
// Rows: the maximum from element 0 on, the sum from 0 in T, the reciprocal
// in double. (f32 only: f64 rows gained under 10 % when their exp was
// libm's, a call per element; not measured since.) Not inlined: its 12 KB
// of stack in the caller's frame slowed the other paths (f64 rows of 64 by
// 18 %).
[[gnu::noinline]] void ShortRows(const float* in, float* out, size_t n, size_t len) {
  const size_t block_rows = kRowsBlock / len;
  float plane[kRowsBlock];
  float top[kRowsBlock / 2];
  const ToPlanesFn to_planes = kToPlanes[len];
  const FromPlanesFn from_planes = kFromPlanes[len];
  const size_t rows = n / len;
  for (size_t r0 = 0; r0 < rows; r0 += block_rows) {
    const size_t m = std::min(block_rows, rows - r0);
    to_planes(in + r0 * len, plane, m);
    for (size_t r = 0; r < m; ++r) top[r] = plane[r];
    for (size_t j = 1; j < len; ++j) {
      const float* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) top[r] = p[r] > top[r] ? p[r] : top[r];
    }
    for (size_t j = 0; j < len; ++j) {
      float* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) p[r] -= top[r];
    }
    ExpRow(plane, plane, len * m);
    float* sum = top;  // the maxima are no longer needed
    for (size_t r = 0; r < m; ++r) sum[r] = 0;
    for (size_t j = 0; j < len; ++j) {
      const float* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) sum[r] += p[r];
    }
    for (size_t r = 0; r < m; ++r) sum[r] = static_cast<float>(1.0 / static_cast<double>(sum[r]));
    from_planes(plane, sum, out + r0 * len, m);
  }
}

}  // namespace

bool SoftmaxRowsInPlanes(size_t n, size_t len) { return n >= kPlanesFrom && len >= 2 && len <= kMaxPlaneLen; }

template <typename T>
void SoftmaxRows(const T* x, T* y, size_t n, size_t len) {
  if constexpr (std::is_same_v<T, float>) {
    if (SoftmaxRowsInPlanes(n, len)) return ShortRows(x, y, n, len);
  }
  switch (len) {
    case 2: return Rows<T, 2>(x, y, n, 2);
    case 3: return Rows<T, 3>(x, y, n, 3);
    case 4: return Rows<T, 4>(x, y, n, 4);
    case 5: return Rows<T, 5>(x, y, n, 5);
    case 6: return Rows<T, 6>(x, y, n, 6);
    case 7: return Rows<T, 7>(x, y, n, 7);
    case 8: return Rows<T, 8>(x, y, n, 8);
    default: return Rows<T, 0>(x, y, n, len);
  }
}

template void SoftmaxRows<float>(const float*, float*, size_t, size_t);
template void SoftmaxRows<double>(const double*, double*, size_t, size_t);

// lane[t] = top[t % inner] for the w = g · inner places of a chunk of g rows.
template <typename T>
void SpreadColumns(const T* top, T* lane, size_t w, size_t inner, size_t g) {
  if (g == 1) {
    std::memcpy(lane, top, w * sizeof(T));
    return;
  }
  for (size_t t = 0; t < w; ++t) lane[t] = top[t % inner];
}

template <typename T>
void SoftmaxColumns(const T* x, T* y, size_t len, size_t inner, T* scratch, double* sums) {
  constexpr size_t kChunkElements = 32, kBlockRows = 32;
  constexpr size_t kMaxWidth = kChunkElements + kNarrowColumnsBelow;
  const bool narrow = inner < kNarrowColumnsBelow;
  const size_t g = narrow ? (kChunkElements + inner - 1) / inner : 1;  // rows per chunk
  const size_t w = g * inner;
  const size_t chunks = len / g, tail = chunks * g;
  const size_t chunks_per_block = std::max<size_t>(1, kBlockRows / g);
  T narrow_scratch[2 * kMaxWidth + kNarrowColumnsBelow];
  double narrow_sums[kNarrowColumnsBelow];
  if (narrow) {
    scratch = narrow_scratch;
    sums = narrow_sums;
  }
  T* __restrict lane = scratch;           // w: a chunk's running maxima, then its places' max or 1 / Σ
  T* __restrict part = scratch + w;       // w: a block's sums per place
  T* __restrict top = scratch + 2 * w;    // inner: each column's maximum, then 1 / Σ
  double* __restrict sum = sums;          // inner
  for (size_t i = 0; i < inner; ++i) sum[i] = 0;
  // (1) column maxima, starting from row 0 (a NaN anywhere in a column
  // makes the whole column NaN either way).
  for (size_t i = 0; i < inner; ++i) top[i] = x[i];
  if (chunks > 0) {
    for (size_t t = 0; t < w; ++t) lane[t] = x[t];
    for (size_t c = 1; c < chunks; ++c) {
      const T* xc = x + c * w;
      for (size_t t = 0; t < w; ++t) lane[t] = xc[t] > lane[t] ? xc[t] : lane[t];
    }
    if (g == 1) {
      for (size_t t = 0; t < w; ++t) top[t] = lane[t] > top[t] ? lane[t] : top[t];
    } else {
      for (size_t t = 0; t < w; ++t) top[t % inner] = lane[t] > top[t % inner] ? lane[t] : top[t % inner];
    }
  }
  for (size_t l = tail; l < len; ++l) {
    for (size_t i = 0; i < inner; ++i) top[i] = x[l * inner + i] > top[i] ? x[l * inner + i] : top[i];
  }
  // (2) y = exp(x − max), summed in T over blocks of about 32 rows, each
  // block added in double: as accurate as a double sum for any length, at
  // the speed of T's (x may be y: each element is read first).
  // (A place's column is t % inner; with one row per chunk, t itself: a
  // division per element made softmax over 2 rows of 65536 take 3x one over
  // 64 rows of 2048.)
  SpreadColumns(top, lane, w, inner, g);
  using V = LanesOf<T>;
  constexpr size_t kLanes = sizeof(V) / sizeof(T);
  const ExpConstantsOf<T> expv;
  for (size_t c = 0; c < chunks;) {
    const size_t c1 = std::min(chunks, c + chunks_per_block);
    for (size_t t = 0; t < w; ++t) part[t] = 0;
    for (; c < c1; ++c) {
      const T* xc = x + c * w;
      T* yc = y + c * w;
      size_t t = 0;
      // ExpOf's lanes (ExpOne's bits), constants built once.
      for (; t + kLanes <= w; t += kLanes) {
        const V e = ExpOf(LoadLanes(xc + t) - LoadLanes(lane + t), expv);
        StoreLanes(yc + t, e);
        StoreLanes(part + t, LoadLanes(part + t) + e);
      }
      for (; t < w; ++t) {
        const T e = ExpOne(xc[t] - lane[t]);
        yc[t] = e;
        part[t] += e;
      }
    }
    if (g == 1) {
      for (size_t t = 0; t < w; ++t) sum[t] += static_cast<double>(part[t]);
    } else {
      for (size_t t = 0; t < w; ++t) sum[t % inner] += static_cast<double>(part[t]);
    }
  }
  for (size_t l = tail; l < len; ++l) {
    for (size_t i = 0; i < inner; ++i) {
      const T e = ExpOne(x[l * inner + i] - top[i]);
      y[l * inner + i] = e;
      sum[i] += static_cast<double>(e);
    }
  }
  // (3) scale by the reciprocal sums.
  for (size_t i = 0; i < inner; ++i) top[i] = static_cast<T>(1.0 / sum[i]);
  SpreadColumns(top, lane, w, inner, g);
  for (size_t c = 0; c < chunks; ++c) {
    T* yc = y + c * w;
    for (size_t t = 0; t < w; ++t) yc[t] *= lane[t];
  }
  for (size_t l = tail; l < len; ++l) {
    for (size_t i = 0; i < inner; ++i) y[l * inner + i] *= top[i];
  }
}

template void SoftmaxColumns<float>(const float*, float*, size_t, size_t, float*, double*);
template void SoftmaxColumns<double>(const double*, double*, size_t, size_t, double*, double*);

}  // namespace shrew::runtime::kernels
