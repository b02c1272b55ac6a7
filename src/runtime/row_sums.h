// Row reductions in double with kLanes independent partial sums: the lanes
// let the compiler vectorise (SIMD128 in wasm) and keep the rounding of long
// rows small. A row longer than kRowSumBlock is summed block by block, the
// blocks' sums then added: each lane of a 1e6-element row otherwise added
// 125,000 terms in turn (f64 sum of 1e6 values in [1000, 1001): 5.8e-15
// relative off; block by block, 1.7e-16). Shared by the reduction and normalisation
// kernels, and by the interpreter's batch_norm, which the tape's matches bit
// for bit.
#pragma once

#include <algorithm>
#include <cstddef>

namespace shrew::runtime {

inline constexpr int kRowSumLanes = 8;
inline constexpr size_t kRowSumBlock = 4096;

// Calls block(x + i, length) for each block of the row and sums the results
// (one block: its value, as is).
template <typename Block>
double Blockwise(size_t n, Block block) {
  if (n <= kRowSumBlock) return block(size_t{0}, n);
  double total = 0;
  for (size_t i = 0; i < n; i += kRowSumBlock) total += block(i, std::min(kRowSumBlock, n - i));
  return total;
}

// Σ term(i) for i in [at, at + len), len <= kRowSumBlock: kRowSumLanes
// partial sums, then the tail in order, then the lanes folded in in turn.
// The one order every row sum here takes. A block shorter than the lanes is
// its terms added in order from +0: folding in the zero lanes after them
// would change nothing (a sum that starts at +0 is never -0) but cost a
// chain of kRowSumLanes dependent adds, most of a short row's time
// (layer_norm of rows of 2: 17 ns a row). Inlined, term too, even at -Os
// (mse_loss is built so in wasm: called, it cost 1.8x).
template <typename Term>
[[gnu::always_inline]] inline double LaneSumOfBlock(const Term& term, size_t at, size_t len) {
  double s = 0;
  if (len < static_cast<size_t>(kRowSumLanes)) {
    for (size_t i = 0; i < len; ++i) s += term(at + i);
    return s;
  }
  double lanes[kRowSumLanes] = {};
  size_t i = 0;
  for (; i + kRowSumLanes <= len; i += kRowSumLanes) {
    for (int l = 0; l < kRowSumLanes; ++l) lanes[l] += term(at + i + static_cast<size_t>(l));
  }
  for (; i < len; ++i) s += term(at + i);
  for (int l = 0; l < kRowSumLanes; ++l) s += lanes[l];
  return s;
}

// Σ term(i) for i < n, block by block: for sums whose terms are computed on
// the fly (mse_loss's squared differences), the same value as RowSum over
// those terms stored.
template <typename Term>
[[gnu::always_inline]] inline double LaneSum(size_t n, Term term) {
  return Blockwise(n, [&term](size_t at, size_t len)
                          __attribute__((always_inline)) { return LaneSumOfBlock(term, at, len); });
}

template <typename T>
double RowSumOfBlock(const T* x, size_t n) {
  return LaneSumOfBlock([x](size_t i) __attribute__((always_inline)) { return static_cast<double>(x[i]); }, 0, n);
}

template <typename T>
double RowSum(const T* x, size_t n) {
  return Blockwise(n, [x](size_t i, size_t len) { return RowSumOfBlock(x + i, len); });
}

// sums[r] = RowSum of row r, for `rows` rows of n < 2·kRowSumLanes values
// (row r at x + r·n): the same adds in the same order (the tail in order,
// then the lanes, each lane one term), but with the rows as the inner loop,
// so that the rows' chains of dependent adds overlap; row by row, a row of 8
// was a chain of 8 adds (cross_entropy over 8 classes: most of its time).
template <typename T>
void ShortRowSums(const T* x, size_t rows, size_t n, double* sums) {
  for (size_t r = 0; r < rows; ++r) sums[r] = 0;
  const auto column = [&](size_t j) {
    for (size_t r = 0; r < rows; ++r) sums[r] += static_cast<double>(x[r * n + j]);
  };
  const size_t lanes = n >= static_cast<size_t>(kRowSumLanes) ? static_cast<size_t>(kRowSumLanes) : 0;
  for (size_t j = lanes; j < n; ++j) column(j);
  for (size_t j = 0; j < lanes; ++j) column(j);
}

template <typename T>
double RowSquaredDeviationOfBlock(const T* x, size_t n, double mean) {
  return LaneSumOfBlock(
      [x, mean](size_t i) __attribute__((always_inline)) {
        const double d = static_cast<double>(x[i]) - mean;
        return d * d;
      },
      0, n);
}

// Σ (x - mean)² over the row (the second pass of a two-pass variance).
template <typename T>
double RowSquaredDeviation(const T* x, size_t n, double mean) {
  return Blockwise(n, [x, mean](size_t i, size_t len) { return RowSquaredDeviationOfBlock(x + i, len, mean); });
}

}  // namespace shrew::runtime
