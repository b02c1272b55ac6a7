// Reductions sum mean max min variance over any set of axes (OPS.md §3.8),
// our own C++ for f32 and f64 (XNNPACK 2024-11 has sum/mean reductions but
// neither max/min/variance nor f64; one family of loops keeps the semantics
// in one place).
//
// Reshape merges adjacent axes of the same kind (reduced / kept) and drops
// size-1 axes, so every reduction becomes a walk over contiguous input rows
// whose innermost merged axis is either reduced (a row sum into one
// accumulator) or kept (a row added element-wise into a row of
// accumulators); both loops vectorise. sum/mean/variance accumulate in
// double in the workspace, or on the stack for a large output reduced over
// a first or middle axis (variance: a second pass over centred values, as
// OPS.md §3.11.3 requires); max/min write the output directly, NaN
// propagating. max/min of an empty slice is the run-time error of the
// interpreter.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/row_sums.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

// Rows reduced to one value each, shorter than this, take
// AccumulateShortRows (whose values equal RowSum's: kShortReducedRow is at
// most kRowSumBlock). Four rows at a time gain up to 64 columns in wasm
// (sum of rows of 8 2.4 -> 0.85 ms per 1M elements, of 64 0.56 -> 0.48) and
// nothing from 256 on.
constexpr int64_t kShortReducedRow = 128;

// Outputs of more elements than this (their double accumulators: 512 KiB)
// reduced over a first or middle axis take RunColumnBlocks, when their rows
// have kColumnBlocksWidth columns or more: a block's loops cost more than
// they save on narrower ones ([65536, 2, 2] over axis 1 took 3.2x the walk,
// [8750, 8, 4] 1.2x), and less from 8 on (the walk took 1.1-1.27x the time
// for variance of rows of 24-63).
constexpr int64_t kColumnBlocksFrom = 64 * 1024;
constexpr int64_t kColumnBlocksWidth = 8;

template <typename T>
bool Better(bool is_max, T v, T acc) {
  // NaN propagates: once the accumulator is NaN no comparison replaces it.
  return std::isnan(v) || (is_max ? v > acc : v < acc);
}

// Better's choice without a branch (v != v: NaN): a select, where
// Better's || was a branch that random data mispredicted half the time.
template <bool kMax, typename T>
[[gnu::always_inline]] inline T Pick(T v, T acc) {
  const bool take = (v != v) | (kMax ? v > acc : v < acc);
  return take ? v : acc;
}

// Rows of C (a compile-time 2, 3 or 4) folded into y's C extremes, held in
// locals: with C from memory each element took a load, a branchy compare
// and a store ([4096, 8, 2] max over axis 1: 4x sum's time).
template <bool kMax, int C, typename T>
[[gnu::always_inline]] inline void FoldShortColumns(const T* __restrict x, int64_t rows, T* __restrict y) {
  T a[C];
  for (int i = 0; i < C; ++i) a[i] = y[i];
  for (int64_t r = 0; r < rows; ++r, x += C) {
    for (int i = 0; i < C; ++i) a[i] = Pick<kMax>(x[i], a[i]);
  }
  for (int i = 0; i < C; ++i) y[i] = a[i];
}

#ifdef __wasm_simd128__
// The row-per-lane pieces by lane type: a vector of one value, a column of
// the rows (element j of each), and which lanes of c replace m.
inline v128_t Splat(float v) { return wasm_f32x4_splat(v); }
inline v128_t Splat(double v) { return wasm_f64x2_splat(v); }
inline v128_t Column(const float* p, size_t n, size_t j) {
  return wasm_f32x4_make(p[j], p[n + j], p[2 * n + j], p[3 * n + j]);
}
inline v128_t Column(const double* p, size_t n, size_t j) { return wasm_f64x2_make(p[j], p[n + j]); }
template <bool kMax>
v128_t Takes(v128_t c, v128_t m, float) {
  return wasm_v128_or(kMax ? wasm_f32x4_gt(c, m) : wasm_f32x4_lt(c, m), wasm_f32x4_ne(c, c));
}
template <bool kMax>
v128_t Takes(v128_t c, v128_t m, double) {
  return wasm_v128_or(kMax ? wasm_f64x2_gt(c, m) : wasm_f64x2_lt(c, m), wasm_f64x2_ne(c, c));
}

// max/min of rows of n elements into y, a row per lane: four f32 (two f64)
// rows at a time, each lane taking its row's elements in order as the
// scalar loop does (the same value, NaN payload and sign of zero included),
// chosen by a bitselect where V8 compiles the scalar loop's select of
// floats to a branch, which random rows mispredict (rows of 2: 3.5 ns an
// element). Returns the rows done; the caller takes the rest.
template <bool kMax, typename T>
int64_t ShortRowExtremes(const T* x, T* y, int64_t rows, size_t n) {
  constexpr int64_t kLanes = 16 / sizeof(T);
  const v128_t init = Splat(kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity());
  int64_t r = 0;
  for (; r + kLanes <= rows; r += kLanes) {
    const T* p = x + static_cast<size_t>(r) * n;
    v128_t m = init;
    for (size_t j = 0; j < n; ++j) {
      const v128_t c = Column(p, n, j);
      m = wasm_v128_bitselect(c, m, Takes<kMax>(c, m, T{}));
    }
    wasm_v128_store(y + r, m);
  }
  return r;
}
#endif

template <typename T>
class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(K op, ir::AttrValue dims, bool keepdim) : op_(op), dims_attr_(std::move(dims)), keepdim_(keepdim) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, 1, 1, output_shape));
    const Shape& x = operand_shapes[0];
    const int rank = static_cast<int>(x.size());
    std::vector<bool> reduced(x.size(), dims_attr_.is_all());
    if (!dims_attr_.is_all()) {
      std::vector<int64_t> list;
      if (dims_attr_.is_int()) list.push_back(dims_attr_.as_int());
      else list = dims_attr_.as_int_list();
      for (int64_t d : list) {
        Result<int> axis = NormalizeAxis(d, rank);
        if (!axis.ok()) return InvalidArgument(std::string(name) + ": " + axis.status().message());
        if (reduced[static_cast<size_t>(*axis)]) {
          return InvalidArgument(std::string(name) + ": duplicate axis " + std::to_string(d) + " in dims " +
                                 dims_attr_.ToString());
        }
        reduced[static_cast<size_t>(*axis)] = true;
      }
    }
    Shape expected;
    count_ = 1;
    for (size_t i = 0; i < x.size(); ++i) {
      if (reduced[i]) {
        count_ *= x[i];
        if (keepdim_) expected.push_back(1);
      } else {
        expected.push_back(x[i]);
      }
    }
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, expected, output_shape));
    n_out_ = NumElements(output_shape);
    n_in_ = NumElements(x);
    in_shape_ = x;  // named by the empty-slice error, as the interpreter names it
    // Merge: drop size-1 axes, join neighbours of the same kind.
    dims_.clear();
    red_.clear();
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] == 1) continue;
      if (!dims_.empty() && red_.back() == reduced[i]) {
        dims_.back() *= x[i];
      } else {
        dims_.push_back(x[i]);
        red_.push_back(reduced[i]);
      }
    }
    if (dims_.empty()) {
      dims_.push_back(1);
      red_.push_back(false);
    }
    // Output strides of the merged axes (0 on reduced ones).
    out_stride_.assign(dims_.size(), 0);
    int64_t s = 1;
    for (size_t i = dims_.size(); i-- > 0;) {
      if (red_[i]) continue;
      out_stride_[i] = s;
      s *= dims_[i];
    }
    index_.assign(dims_.size(), 0);
    const bool accumulates = op_ == K::kSum || op_ == K::kMean || op_ == K::kVariance;
    // [R, C] or [K, R, C] reduced over R, with more accumulators than L2
    // holds: RunColumnBlocks, on the stack (with fewer, the walk's long rows
    // win: [1024, 1024] took 1.2x the time in blocks).
    column_blocks_ = accumulates && n_out_ > kColumnBlocksFrom && dims_.back() >= kColumnBlocksWidth &&
                     ((dims_.size() == 2 && red_[0] && !red_[1]) ||
                      (dims_.size() == 3 && !red_[0] && red_[1] && !red_[2]));
    // Only size-1 axes reduced (count_ == 1): Run needs no accumulators.
    const int64_t accumulators = accumulates && !column_blocks_ && count_ != 1 ? n_out_ : 0;
    WorkspaceLayout layout;
    acc_offset_ = layout.AddElements(accumulators, sizeof(double));
    mean_offset_ = layout.AddElements(op_ == K::kVariance ? accumulators : 0, sizeof(double));
    if (layout.overflowed()) {
      // Up to 4x the f32 output's bytes: past a 32-bit size_t near wasm's cap.
      return ResourceExhausted(std::string(name) + ": the double accumulators for an output of " +
                               std::to_string(n_out_) + " elements are more bytes than this platform can address");
    }
    workspace_bytes_ = layout.total();
    return workspace_bytes_;
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 1 operand");
    SHREW_RETURN_IF_ERROR(CheckWorkspace(ir::OpName(op_), workspace, workspace_bytes_));
    x_ = static_cast<const T*>(operands[0]);
    y_ = static_cast<T*>(output);
    acc_ = WorkspaceAt<double>(workspace, acc_offset_);
    mean_ = WorkspaceAt<double>(workspace, mean_offset_);
    return Status::Ok();
  }

  Status Run() override {
    if (n_out_ == 0) return Status::Ok();
    if (count_ == 1) {
      // Only size-1 axes reduced: each output is its one element, added to
      // the accumulator's +0 for sum and mean (-0 gives +0), kept by max and
      // min; variance is (x - x)², 0 or NaN (x infinite or NaN) as through
      // the mean. Through the accumulators it took three passes over
      // doubles (variance five: 22x a sum).
      if (op_ == K::kSum || op_ == K::kMean) {
        for (int64_t i = 0; i < n_out_; ++i) y_[i] = x_[i] + T(0);
      } else if (op_ == K::kVariance) {
        // x - x is +0 or NaN in T as in double: the same values, in vectors.
        for (int64_t i = 0; i < n_out_; ++i) {
          const T d = x_[i] - x_[i];
          y_[i] = d * d;
        }
      } else {
        std::memcpy(y_, x_, static_cast<size_t>(n_out_) * sizeof(T));
      }
      return Status::Ok();
    }
    if (column_blocks_) {
      RunColumnBlocks();
      return Status::Ok();
    }
    switch (op_) {
      case K::kSum:
      case K::kMean: {
        Accumulate(acc_, nullptr);
        const double div = op_ == K::kMean ? static_cast<double>(count_) : 1.0;
        for (int64_t i = 0; i < n_out_; ++i) {
          y_[i] = op_ == K::kMean ? static_cast<T>(acc_[i] / div) : static_cast<T>(acc_[i]);
        }
        return Status::Ok();
      }
      case K::kVariance: {
        Accumulate(mean_, nullptr);
        const double n = static_cast<double>(count_);
        for (int64_t i = 0; i < n_out_; ++i) mean_[i] /= n;
        Accumulate(acc_, mean_);
        for (int64_t i = 0; i < n_out_; ++i) y_[i] = static_cast<T>(acc_[i] / n);
        return Status::Ok();
      }
      case K::kMax:
      case K::kMin:
        if (count_ == 0) {
          return InvalidArgument(std::string(ir::OpName(op_)) + " of an empty slice (input shape " + ShapeToString(in_shape_) + ")");
        }
        if (op_ == K::kMax) {
          Extremum<true>();
        } else {
          Extremum<false>();
        }
        return Status::Ok();
      default:
        return Internal(std::string("reduce kernel created for ") + ir::OpName(op_));
    }
  }

  const char* impl_name() const override { return "ref"; }

 private:
  // Calls row(x_ + in_offset, n, out_offset, inner_reduced) for every
  // contiguous innermost row of the input.
  template <typename Fn>
  void ForEachRow(Fn&& row) {
    if (n_in_ == 0) return;
    const size_t outer = dims_.size() - 1;
    const int64_t inner = dims_.back();
    const bool inner_reduced = red_.back();
    int64_t rows = 1;
    for (size_t i = 0; i < outer; ++i) rows *= dims_[i];
    for (size_t i = 0; i < outer; ++i) index_[i] = 0;
    int64_t out_off = 0;
    for (int64_t r = 0; r < rows; ++r) {
      row(x_ + r * inner, static_cast<size_t>(inner), out_off, inner_reduced);
      for (size_t i = outer; i-- > 0;) {
        ++index_[i];
        out_off += out_stride_[i];
        if (index_[i] < dims_[i]) break;
        out_off -= out_stride_[i] * dims_[i];
        index_[i] = 0;
      }
    }
  }

  // acc[o] += Σ x (or Σ (x − mean[o])² when mean is given).
  void Accumulate(double* acc, const double* mean) {
    for (int64_t i = 0; i < n_out_; ++i) acc[i] = 0.0;
    if (dims_.size() == 2 && !red_[0] && red_[1] && dims_[1] < kShortReducedRow) {
      AccumulateShortRows(acc, mean);
      return;
    }
    if (ShortColumns()) {
      AccumulateShortColumns(acc, mean);
      return;
    }
    if (dims_.size() == 3 && red_[0] && !red_[1] && red_[2] && dims_[2] < kShortReducedRow) {
      // [A, K, n] reduced over A and n (variance over [0, 2, 3] of NCHW
      // with small planes: 2.3x the neighbouring shapes through the walk).
      AddShortRowSums(x_, static_cast<size_t>(dims_[0]), static_cast<size_t>(dims_[1]), static_cast<size_t>(dims_[2]),
                      mean, acc);
      return;
    }
    ForEachRow([&](const T* x, size_t n, int64_t o, bool inner_reduced) {
      if (inner_reduced) {
        acc[o] += mean == nullptr ? RowSum(x, n) : RowSquaredDeviation(x, n, mean[o]);
      } else if (mean == nullptr) {
        double* __restrict a = acc + o;
        for (size_t i = 0; i < n; ++i) a[i] += static_cast<double>(x[i]);
      } else {
        double* __restrict a = acc + o;
        const double* __restrict m = mean + o;
        for (size_t i = 0; i < n; ++i) {
          const double d = static_cast<double>(x[i]) - m[i];
          a[i] += d * d;
        }
      }
    });
  }

  // x: [rows, n] reduced over n < kShortReducedRow, one output per row (a
  // last axis of 4 cost 3× a plain loop, of 8 2.7×, through ForEachRow's
  // call and odometer per row). RowSum / RowSquaredDeviation of a row under
  // kRowSumLanes add it in order from +0, as AddShortRowSums does: the values are
  // theirs, bit for bit.
  // Longer rows go four at a time through the same steps as RowSumOfBlock
  // (lanes, tail, lanes folded in order), so that the four folds, chains of
  // dependent adds, overlap: each row's value is RowSum's, bit for bit.
  void AccumulateShortRows(double* __restrict acc, const double* __restrict mean) {
    const int64_t rows = dims_[0];
    const size_t n = static_cast<size_t>(dims_[1]);
    if (n >= static_cast<size_t>(kRowSumLanes)) {
      if (mean == nullptr) {
        SumRowsByFour(acc, [](T v, int64_t) { return static_cast<double>(v); });
      } else {
        SumRowsByFour(acc, [mean](T v, int64_t r) {
          const double d = static_cast<double>(v) - mean[r];
          return d * d;
        });
      }
      return;
    }
    AddShortRowSums(x_, 1, static_cast<size_t>(rows), n, mean, acc);
  }

  // Whether the merged axes are [R, C] or [K, R, C] reduced over R, with
  // fewer than kShortReducedRow columns.
  bool ShortColumns() const {
    return dims_.back() < kShortReducedRow && !red_.back() &&
           ((dims_.size() == 2 && red_[0]) || (dims_.size() == 3 && !red_[0] && red_[1]));
  }

  // x: [R, C] or [K, R, C] reduced over R into C < kShortReducedRow
  // columns: the rows added in a loop, each to the accumulators in order,
  // as the row walk adds them (the same values), without its call and
  // odometer per row ([131072, 2] over its first axis: 9x a full sum).
  void AccumulateShortColumns(double* __restrict acc, const double* __restrict mean) {
    const bool planes = dims_.size() == 3;
    const int64_t k = planes ? dims_[0] : 1, rows = dims_[planes ? 1 : 0], c = dims_.back();
    for (int64_t p = 0; p < k; ++p) {
      double* __restrict a = acc + p * c;
      const double* __restrict m = mean == nullptr ? nullptr : mean + p * c;
      const T* __restrict x = x_ + p * rows * c;
      for (int64_t r = 0; r < rows; ++r, x += c) {
        if (m == nullptr) {
          for (int64_t i = 0; i < c; ++i) a[i] += static_cast<double>(x[i]);
        } else {
          for (int64_t i = 0; i < c; ++i) {
            const double d = static_cast<double>(x[i]) - m[i];
            a[i] += d * d;
          }
        }
      }
    }
  }

  // acc[r] = Σ term(x[r, i], r) over rows of n (kRowSumLanes <= n <=
  // kRowSumBlock), in RowSumOfBlock's order, four rows at a time.
  template <typename Term>
  void SumRowsByFour(double* __restrict acc, Term term) {
    constexpr int kRows = 4, kLanes = kRowSumLanes;
    const int64_t rows = dims_[0];
    const size_t n = static_cast<size_t>(dims_[1]);
    int64_t r = 0;
    for (; r < rows; r += kRows) {
      const int q_count = static_cast<int>(std::min<int64_t>(kRows, rows - r));
      double lanes[kRows][kLanes] = {};
      double s[kRows] = {};
      const T* x[kRows];
      for (int q = 0; q < kRows; ++q) x[q] = x_ + (r + std::min(q, q_count - 1)) * static_cast<int64_t>(n);
      size_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        for (int q = 0; q < kRows; ++q) {
          for (int l = 0; l < kLanes; ++l) lanes[q][l] += term(x[q][i + l], r + std::min(q, q_count - 1));
        }
      }
      for (; i < n; ++i) {
        for (int q = 0; q < kRows; ++q) s[q] += term(x[q][i], r + std::min(q, q_count - 1));
      }
      for (int l = 0; l < kLanes; ++l) {
        for (int q = 0; q < kRows; ++q) s[q] += lanes[q][l];
      }
      for (int q = 0; q < q_count; ++q) acc[r + q] = s[q];
    }
  }

  // x as [K, R, C] (K = 1 for two axes) reduced over R, for sum, mean and
  // variance of a large output: each block of kColumnBlock output columns
  // summed in double on the stack over the R rows in order, then written. The same operations
  // as the accumulator walk, element by element, so the same values; that
  // walk read and wrote an output's worth of doubles once per row ([2, 1M]
  // sum: 3x a plain loop once the doubles outgrow the cache).
  void RunColumnBlocks() {
    constexpr int64_t kColumnBlock = 1024;
    const bool three = dims_.size() == 3;
    const int64_t outer = three ? dims_[0] : 1, rows = three ? dims_[1] : dims_[0], cols = dims_.back();
    const double n = static_cast<double>(count_);
    double acc[kColumnBlock], mean[kColumnBlock];
    for (int64_t k = 0; k < outer; ++k) {
      for (int64_t c0 = 0; c0 < cols; c0 += kColumnBlock) {
        const int64_t w = std::min(kColumnBlock, cols - c0);
        const T* x = x_ + k * rows * cols + c0;
        T* __restrict y = y_ + k * cols + c0;
        for (int64_t j = 0; j < w; ++j) acc[j] = 0.0;
        for (int64_t r = 0; r < rows; ++r) {
          const T* __restrict row = x + r * cols;
          for (int64_t j = 0; j < w; ++j) acc[j] += static_cast<double>(row[j]);
        }
        if (op_ == K::kSum) {
          for (int64_t j = 0; j < w; ++j) y[j] = static_cast<T>(acc[j]);
        } else if (op_ == K::kMean) {
          for (int64_t j = 0; j < w; ++j) y[j] = static_cast<T>(acc[j] / n);
        } else {  // variance: the second pass over centred values
          for (int64_t j = 0; j < w; ++j) mean[j] = acc[j] / n, acc[j] = 0.0;
          for (int64_t r = 0; r < rows; ++r) {
            const T* __restrict row = x + r * cols;
            for (int64_t j = 0; j < w; ++j) {
              const double d = static_cast<double>(row[j]) - mean[j];
              acc[j] += d * d;
            }
          }
          for (int64_t j = 0; j < w; ++j) y[j] = static_cast<T>(acc[j] / n);
        }
      }
    }
  }

  // A row reduced to one value is first reduced to kBlock running
  // extremes, element by element: the same elementwise select as the
  // other path, which compilers vectorise, where a select-reduction into
  // one value (or into a few scalar lanes) stays scalar without fast-math
  // (5x slower than sum in wasm). kMax is a template argument so that no
  // run-time flag sits in the loop.
  template <bool kMax>
  void Extremum() {
    // 16 running extremes: 4 f32 or 8 f64 vectors. 64 cost rows of 64 as
    // much as a JS loop (initialising and folding the lanes per row).
    constexpr size_t kBlock = 16;
    const T init = kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
#ifdef __wasm_simd128__
    // Rows of up to 63 take a lane each (ShortRowExtremes): 0.35 ns an
    // element against the blocks' 1.9 (branches) at rows of 16.
    constexpr int64_t kShortRow = 64;
#else
    constexpr int64_t kShortRow = kBlock;
#endif
    if (dims_.size() == 2 && !red_[0] && red_[1] && dims_[1] < kShortRow) {
      // Rows shorter than a block, one output each, in order as the
      // interpreter (ForEachRow's call and odometer per row of 4: 5x this).
      const int64_t rows = dims_[0];
      const size_t n = static_cast<size_t>(dims_[1]);
      int64_t r = 0;
#ifdef __wasm_simd128__
      r = ShortRowExtremes<kMax>(x_, y_, rows, n);
#endif
      for (; r < rows; ++r) {
        const T* __restrict x = x_ + r * static_cast<int64_t>(n);
        T m = init;
        for (size_t i = 0; i < n; ++i) m = Better(kMax, x[i], m) ? x[i] : m;
        y_[r] = m;
      }
      return;
    }
    for (int64_t i = 0; i < n_out_; ++i) y_[i] = init;
    if (ShortColumns()) {
      // Short columns, row after row in a loop as the walk takes them (as
      // AccumulateShortColumns).
      const bool planes = dims_.size() == 3;
      const int64_t k = planes ? dims_[0] : 1, rows = dims_[planes ? 1 : 0], c = dims_.back();
      for (int64_t p = 0; p < k; ++p) {
        T* __restrict y = y_ + p * c;
        const T* __restrict x = x_ + p * rows * c;
        switch (c) {
          case 2: FoldShortColumns<kMax, 2>(x, rows, y); break;
          case 3: FoldShortColumns<kMax, 3>(x, rows, y); break;
          case 4: FoldShortColumns<kMax, 4>(x, rows, y); break;
          default:
            for (int64_t r = 0; r < rows; ++r, x += c) {
              for (int64_t i = 0; i < c; ++i) y[i] = Pick<kMax>(x[i], y[i]);
            }
        }
      }
      return;
    }
    ForEachRow([&](const T* x, size_t n, int64_t o, bool inner_reduced) {
      if (inner_reduced) {
        const T before = y_[o];
        T m = before;
        size_t i = 0;
        if (n >= kBlock) {
          T acc[kBlock];
          for (T& a : acc) a = m;
          for (; i + kBlock <= n; i += kBlock) {
            const T* __restrict xb = x + i;
            for (size_t j = 0; j < kBlock; ++j) acc[j] = Better(kMax, xb[j], acc[j]) ? xb[j] : acc[j];
          }
          for (const T a : acc) m = Better(kMax, a, m) ? a : m;
        }
        for (; i < n; ++i) m = Better(kMax, x[i], m) ? x[i] : m;
        // In order (the interpreter), an extreme of 0 reached in this row
        // is the row's first zero: -0 and +0 compare equal, so a later one
        // never replaces it. The lanes above see the row out of order and
        // may keep the other sign; the rare zero result takes the sign of
        // the first zero instead.
        if (m == T(0) && !(before == T(0))) {
          for (size_t k = 0; k < n; ++k) {
            if (x[k] == T(0)) {
              m = x[k];
              break;
            }
          }
        }
        y_[o] = m;
      } else {
        T* __restrict y = y_ + o;
        for (size_t i = 0; i < n; ++i) y[i] = Better(kMax, x[i], y[i]) ? x[i] : y[i];
      }
    });
  }

  K op_;
  ir::AttrValue dims_attr_;
  bool keepdim_;
  std::vector<int64_t> dims_;        // merged input axes
  std::vector<bool> red_;            // per merged axis: reduced
  std::vector<int64_t> out_stride_;  // per merged axis (0 when reduced)
  std::vector<int64_t> index_;       // odometer, sized at Reshape
  int64_t count_ = 1;                // elements per reduced slice
  Shape in_shape_;
  bool column_blocks_ = false;       // RunColumnBlocks
  int64_t n_out_ = 0;
  int64_t n_in_ = 0;
  size_t acc_offset_ = 0, mean_offset_ = 0, workspace_bytes_ = 0;
  const T* x_ = nullptr;
  T* y_ = nullptr;
  double* acc_ = nullptr;
  double* mean_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateReduceKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const K op = spec.node->op;
  if (op != K::kSum && op != K::kMean && op != K::kMax && op != K::kMin && op != K::kVariance) {
    return InvalidArgument(std::string(ir::OpName(op)) + " is not a reduction");
  }
  const ir::AttrValue* dims = spec.node->attr("dims");
  ir::AttrValue all = ir::FindOpAttrSpec(op, "dims")->default_value;
  const ir::AttrValue& d = dims != nullptr ? *dims : all;
  if (!d.is_all() && !d.is_int() && !d.is_int_list()) {
    return InvalidArgument(std::string(ir::OpName(op)) + ": attribute 'dims' must be an int list or all, got " +
                           d.ToString());
  }
  Result<bool> keepdim = BoolAttr(*spec.node, "keepdim");
  if (!keepdim.ok()) return keepdim.status();
  if (*storage == ir::StorageType::kF32) return KernelPtr(new ReduceKernel<float>(op, d, *keepdim));
  if (*storage == ir::StorageType::kF64) return KernelPtr(new ReduceKernel<double>(op, d, *keepdim));
  return InvalidArgument(std::string(ir::OpName(op)) + " requires a float operand, got " +
                         ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
