#include "runtime/kernels/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "runtime/kernels/vector_math.h"

namespace shrew::runtime::kernels {
namespace {

constexpr size_t kRowsBlock = 2048;
// Short rows of fewer elements than this go row by row. The row loops'
// selects are branches in V8's code: fast while the predictor knows the
// rows (the same input again: 512 rows of 4 took 0.85x the planes' time),
// not over new data (4,096 rows of 4, 16 inputs in turn: 87 µs a call
// against 67 with planes; 65,536 rows of 4, the same input: 4.6 against
// 2.5 ns an element).
constexpr size_t kPlanesFrom = 16384;

// v[i] = exp(v[i]) for i < n (f32: ExpRow, ExpOne's bits four at a time).
template <typename T>
void ExpInPlace(T* v, size_t n) {
  if constexpr (std::is_same_v<T, float>) {
    ExpRow(v, v, n);
  } else {
    for (size_t i = 0; i < n; ++i) v[i] = std::exp(v[i]);
  }
}

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
    if constexpr (std::is_same_v<T, float>) {
      ExpRow(y + b0, y + b0, b1 - b0);
    } else {
      for (size_t i = b0; i < b1; ++i) y[i] = std::exp(y[i]);
    }
    for (size_t r = b0; r < b1; r += len) {
      T sum = 0;
      for (size_t j = 0; j < len; ++j) sum += y[r + j];
      const T inv = static_cast<T>(1.0 / static_cast<double>(sum));
      for (size_t j = 0; j < len; ++j) y[r + j] *= inv;
    }
  }
}

// Rows of kLen (2 to 8): a block of rows is copied into kLen planes (plane
// j holds every row's element j), so that each step is one loop across the
// rows' lanes instead of a short loop per row (rows of 4: 4.7 ns an element
// row by row). The same operations in the same order as Rows: the maximum
// from element 0 on, the sum from 0 in T, the reciprocal in double.
template <typename T, size_t kLen>
[[gnu::noinline]] void ShortRows(const T* in, T* out, size_t n) {
  constexpr size_t kBlockRows = kRowsBlock / kLen;
  T plane[kLen * kBlockRows];
  T top[kBlockRows];
  const size_t rows = n / kLen;
  for (size_t r0 = 0; r0 < rows; r0 += kBlockRows) {
    const size_t m = std::min(kBlockRows, rows - r0);
    const T* x = in + r0 * kLen;
    for (size_t r = 0; r < m; ++r) {
      for (size_t j = 0; j < kLen; ++j) plane[j * m + r] = x[r * kLen + j];
    }
    for (size_t r = 0; r < m; ++r) top[r] = plane[r];
    for (size_t j = 1; j < kLen; ++j) {
      const T* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) top[r] = p[r] > top[r] ? p[r] : top[r];
    }
    for (size_t j = 0; j < kLen; ++j) {
      T* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) p[r] -= top[r];
    }
    ExpInPlace(plane, kLen * m);
    T* sum = top;  // the maxima are no longer needed
    for (size_t r = 0; r < m; ++r) sum[r] = 0;
    for (size_t j = 0; j < kLen; ++j) {
      const T* p = plane + j * m;
      for (size_t r = 0; r < m; ++r) sum[r] += p[r];
    }
    for (size_t r = 0; r < m; ++r) sum[r] = static_cast<T>(1.0 / static_cast<double>(sum[r]));
    T* y = out + r0 * kLen;
    for (size_t r = 0; r < m; ++r) {
      for (size_t j = 0; j < kLen; ++j) y[r * kLen + j] = plane[j * m + r] * sum[r];
    }
  }
}

}  // namespace

template <typename T>
void SoftmaxRows(const T* x, T* y, size_t n, size_t len) {
  if (n >= kPlanesFrom) {
    switch (len) {
      case 2: return ShortRows<T, 2>(x, y, n);
      case 3: return ShortRows<T, 3>(x, y, n);
      case 4: return ShortRows<T, 4>(x, y, n);
      case 5: return ShortRows<T, 5>(x, y, n);
      case 6: return ShortRows<T, 6>(x, y, n);
      case 7: return ShortRows<T, 7>(x, y, n);
      case 8: return ShortRows<T, 8>(x, y, n);
      default: break;
    }
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

template <typename T>
void SoftmaxColumns(const T* x, T* y, size_t len, size_t inner, T* scratch, double* sums) {
  constexpr size_t kChunkElements = 32, kBlockRows = 32;
  constexpr size_t kMaxWidth = kChunkElements + kNarrowColumnsBelow;
  const bool narrow = inner < kNarrowColumnsBelow;
  const size_t g = narrow ? (kChunkElements + inner - 1) / inner : 1;  // rows per chunk
  const size_t w = g * inner;
  const size_t chunks = len / g, tail = chunks * g;
  const size_t chunks_per_block = std::max<size_t>(1, kBlockRows / g);
  auto exp = [](T v) {
    if constexpr (std::is_same_v<T, float>) {
      return ExpOne(v);
    } else {
      return std::exp(v);
    }
  };
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
    for (size_t t = 0; t < w; ++t) top[t % inner] = lane[t] > top[t % inner] ? lane[t] : top[t % inner];
  }
  for (size_t l = tail; l < len; ++l) {
    for (size_t i = 0; i < inner; ++i) top[i] = x[l * inner + i] > top[i] ? x[l * inner + i] : top[i];
  }
  // (2) y = exp(x − max), summed in T over blocks of about 32 rows, each
  // block added in double: as accurate as a double sum for any length, at
  // the speed of T's (x may be y: each element is read first).
  for (size_t t = 0; t < w; ++t) lane[t] = top[t % inner];
  const ExpConstants<F32x4> exp4;
  for (size_t c = 0; c < chunks;) {
    const size_t c1 = std::min(chunks, c + chunks_per_block);
    for (size_t t = 0; t < w; ++t) part[t] = 0;
    for (; c < c1; ++c) {
      const T* xc = x + c * w;
      T* yc = y + c * w;
      size_t t = 0;
      if constexpr (std::is_same_v<T, float>) {
        // ExpOf's four lanes (ExpOne's bits), constants built once.
        for (; t + 4 <= w; t += 4) {
          const F32x4 e = ExpOf(LoadF32x4(xc + t) - LoadF32x4(lane + t), exp4);
          StoreF32x4(yc + t, e);
          StoreF32x4(part + t, LoadF32x4(part + t) + e);
        }
      }
      for (; t < w; ++t) {
        const T e = exp(xc[t] - lane[t]);
        yc[t] = e;
        part[t] += e;
      }
    }
    for (size_t t = 0; t < w; ++t) sum[t % inner] += static_cast<double>(part[t]);
  }
  for (size_t l = tail; l < len; ++l) {
    for (size_t i = 0; i < inner; ++i) {
      const T e = exp(x[l * inner + i] - top[i]);
      y[l * inner + i] = e;
      sum[i] += static_cast<double>(e);
    }
  }
  // (3) scale by the reciprocal sums.
  for (size_t i = 0; i < inner; ++i) top[i] = static_cast<T>(1.0 / sum[i]);
  for (size_t t = 0; t < w; ++t) lane[t] = top[t % inner];
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
