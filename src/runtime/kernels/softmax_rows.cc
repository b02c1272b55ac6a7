#include "runtime/kernels/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "runtime/kernels/vector_math.h"

namespace shrew::runtime::kernels {
namespace {

constexpr size_t kRowsBlock = 2048;

// kLen: the row length when fixed (rows of 2 to 8 take a copy of the loops
// the compiler unrolls: 2 columns 4.5 -> 2.8 ms per 1M elements), else 0.
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
    for (size_t i = b0; i < b1; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        y[i] = ExpOne(y[i]);
      } else {
        y[i] = std::exp(y[i]);
      }
    }
    for (size_t r = b0; r < b1; r += len) {
      T sum = 0;
      for (size_t j = 0; j < len; ++j) sum += y[r + j];
      const T inv = static_cast<T>(1.0 / static_cast<double>(sum));
      for (size_t j = 0; j < len; ++j) y[r + j] *= inv;
    }
  }
}

}  // namespace

template <typename T>
void SoftmaxRows(const T* x, T* y, size_t n, size_t len) {
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

}  // namespace shrew::runtime::kernels
