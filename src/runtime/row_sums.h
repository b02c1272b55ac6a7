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
#include <cmath>
#include <cstddef>
#include <limits>

namespace shrew::runtime {

inline constexpr int kRowSumLanes = 8;
inline constexpr size_t kRowSumBlock = 4096;
// Rows shorter than this are their one block's value, called directly.
// Longer ones, even of one block, take the loop (0 + the block's sum: the
// same bits, as the sum started from +0 is never -0): clang compiled the
// direct call inlined into the reduction's row walk at a third of the
// loop's speed in wasm (sum over the last axis of [256, 1024] 120 -> 39 µs,
// variance 233 -> 97 µs, f64 mean 118 -> 32 µs), while rows of 4 (layer_norm)
// lose to the loop's overhead.
inline constexpr size_t kRowSumShortRow = 64;

// Calls block(x + i, length) for each block of the row and sums the results.
template <typename Block>
double Blockwise(size_t n, Block block) {
  if (n < kRowSumShortRow) return block(size_t{0}, n);
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

// sums[r] = RowSum of row r, for rows <= kMaxRows rows of n <= kRowSumBlock
// values held as planes (element j of row r at plane[j·rows + r]):
// LaneSumOfBlock's adds in its order, each step one loop across the rows
// (so that it vectorises: cross_entropy's short rows).
template <size_t kMaxRows, typename T>
void PlaneRowSums(const T* plane, size_t rows, size_t n, double* sums) {
  // Element j into lane j mod 8 while whole groups of 8 last, then the rest
  // in order from +0, then the lanes folded in. With one group at most,
  // lane l is element l alone, added straight in.
  constexpr size_t kLanes = static_cast<size_t>(kRowSumLanes);
  const size_t grouped = n / kLanes * kLanes;
  const auto add = [&](double* acc, size_t j) {
    const T* p = plane + j * rows;
    for (size_t r = 0; r < rows; ++r) acc[r] += static_cast<double>(p[r]);
  };
  for (size_t r = 0; r < rows; ++r) sums[r] = 0;
  if (grouped <= kLanes) {
    for (size_t j = grouped; j < n; ++j) add(sums, j);
    for (size_t j = 0; j < grouped; ++j) add(sums, j);
  } else {
    double lane[kLanes][kMaxRows];
    for (size_t l = 0; l < kLanes; ++l) {
      for (size_t r = 0; r < rows; ++r) lane[l][r] = 0;
    }
    for (size_t j = 0; j < grouped; ++j) add(lane[j % kLanes], j);
    for (size_t j = grouped; j < n; ++j) add(sums, j);
    for (size_t l = 0; l < kLanes; ++l) {
      for (size_t r = 0; r < rows; ++r) sums[r] += lane[l][r];
    }
  }
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

// AddShortRowSums's loop for rows of N elements (N = 0: of n).
template <size_t N, bool kCentred, typename T>
void AddShortRowSumsOf(const T* __restrict x, size_t outer, size_t k, size_t n, const double* __restrict mean,
                       double* __restrict acc) {
  const size_t len = N == 0 ? n : N;
  const auto term = [&](size_t i, size_t j) __attribute__((always_inline)) {
    const double v = static_cast<double>(x[i]);
    if constexpr (!kCentred) return v;
    const double d = v - mean[j];
    return d * d;
  };
  size_t i = 0;
  for (size_t o = 0; o < outer; ++o) {
    if constexpr (N == 1) {
      // acc[j] + (0 + t) is acc[j] + t: only t = -0 differs, and acc[j]
      // (see the contract) is never -0. Without the 0 + the loop vectorises.
      for (size_t j = 0; j < k; ++j) acc[j] += term(i + j, j);
      i += k;
    } else {
      for (size_t j = 0; j < k; ++j, i += len) {
        acc[j] += LaneSumOfBlock([&](size_t e) __attribute__((always_inline)) { return term(e, j); }, i, len);
      }
    }
  }
}

template <bool kCentred, typename T>
void AddShortRowSumsBy(const T* x, size_t outer, size_t k, size_t n, const double* mean, double* acc) {
  switch (n) {
    case 1: return AddShortRowSumsOf<1, kCentred>(x, outer, k, n, mean, acc);
    case 2: return AddShortRowSumsOf<2, kCentred>(x, outer, k, n, mean, acc);
    case 3: return AddShortRowSumsOf<3, kCentred>(x, outer, k, n, mean, acc);
    case 4: return AddShortRowSumsOf<4, kCentred>(x, outer, k, n, mean, acc);
    default: return AddShortRowSumsOf<0, kCentred>(x, outer, k, n, mean, acc);
  }
}

// x as [outer, k, n], 1 <= n <= kRowSumBlock: for o = 0, 1, … in turn,
// acc[j] += the sum of row (o, j) — of its values, or, with mean given
// (mean[j] for every row j of each plane), of their squared deviations from
// it — each row's terms added as LaneSumOfBlock adds them: RowSum's
// (RowSquaredDeviation's) value for every row, added in the row walk's
// order, so the same bits, but in memory order and without a call per row
// (walking each j's rows down the planes, as batch_norm took its channels,
// cost 4x the neighbouring shapes at n = 2–4). acc holds sums started from
// +0 (zeroed, or earlier such sums: never -0); x, mean and acc do not
// overlap.
template <typename T>
void AddShortRowSums(const T* x, size_t outer, size_t k, size_t n, const double* mean, double* acc) {
  if (mean == nullptr) return AddShortRowSumsBy<false>(x, outer, k, n, mean, acc);
  AddShortRowSumsBy<true>(x, outer, k, n, mean, acc);
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

// Σ (x - mean) over the row: what a mean rounded from RowSum is still off
// by, times n (the corrected two-pass mean, for f64 rows, whose RowSum
// rounds: a row of 16 × 1e30 came out 1 ulp off, and layer_norm then gave
// ±1 for 0).
template <typename T>
double RowDeviation(const T* x, size_t n, double mean) {
  return Blockwise(n, [x, mean](size_t at, size_t len) {
    return LaneSumOfBlock([x, mean](size_t i) __attribute__((always_inline)) { return static_cast<double>(x[i]) - mean; },
                          at, len);
  });
}

// Σ (x - mean)² over the row (the second pass of a two-pass variance).
template <typename T>
double RowSquaredDeviation(const T* x, size_t n, double mean) {
  return Blockwise(n, [x, mean](size_t i, size_t len) { return RowSquaredDeviationOfBlock(x + i, len, mean); });
}

// sqrt(Σ (x − mean)² / n + eps) for a row whose squared deviations overflow
// (f64 values with |x − mean| past about 1.3e154): the deviations are scaled
// by the largest first, so a denominator that is finite comes out finite
// (layer_norm gave 0 for such rows). Infinite when a deviation is.
template <typename T>
double ScaledRowDenominator(const T* x, size_t n, double mean, double eps) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s = std::max(s, std::abs(static_cast<double>(x[i]) - mean));
  if (!(s > 0) || !std::isfinite(s)) return std::numeric_limits<double>::infinity();
  double q = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = (static_cast<double>(x[i]) - mean) / s;
    q += d * d;
  }
  return s * std::sqrt(q / static_cast<double>(n) + eps / s / s);
}

}  // namespace shrew::runtime
