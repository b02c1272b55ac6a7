// BroadcastLoop: a walk over a contiguous output while reading N inputs
// that broadcast to it (OPS.md §1.4), for our own C++ kernels and to give
// XNNPACK's rank-limited operators the fewest possible dimensions.
//
// Init (at Reshape) merges adjacent axes wherever every input stays
// contiguous across them, and drops size-1 output axes, so `[8, 1, 16]` plus
// `[16]` becomes dims {8, 16} with strides {16, 1} and {0, 1}. ForEachRow
// (at Run, no allocation) calls
//     fn(std::array<int64_t, N> input_offsets, int64_t output_offset)
// for each innermost row of `inner()` elements; inside a row input k
// advances by `inner_stride(k)` (0 or 1). ForEachBlock(2, fn) does the same
// per plane of the last two axes.
//
// After merging, an input's stride on a merged axis is either 0 (broadcast
// along all of it) or non-zero (it has the full extent), so `InputDims`
// reconstructs a plain NumPy shape for XNNPACK.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace shrew::runtime::kernels {

template <size_t N>
class BroadcastLoop {
 public:
  // Each input shape must broadcast to `out` (the caller checked it).
  void Init(const Shape& out, const std::array<const Shape*, N>& inputs) {
    dims_.clear();
    for (auto& s : strides_) s.clear();
    empty_ = false;
    for (int64_t d : out) empty_ |= d == 0;
    const size_t rank = out.size();
    // Row-major strides of each input read as `out` (0 on broadcast axes).
    std::array<std::vector<int64_t>, N> full;
    for (size_t k = 0; k < N; ++k) {
      const Shape& in = *inputs[k];
      full[k].assign(rank, 0);
      int64_t stride = 1;
      for (size_t i = 0; i < in.size(); ++i) {
        const size_t in_axis = in.size() - 1 - i;
        const size_t out_axis = rank - 1 - i;
        full[k][out_axis] = in[in_axis] == 1 ? 0 : stride;
        stride *= in[in_axis];
      }
    }
    // Keep non-unit output axes, merging an axis into the one after it when
    // every input is contiguous across the pair.
    for (size_t axis = 0; axis < rank; ++axis) {
      if (out[axis] == 1) continue;
      bool merge = !dims_.empty();
      for (size_t k = 0; k < N && merge; ++k) {
        merge = strides_[k].back() == full[k][axis] * out[axis];
      }
      if (merge) {
        dims_.back() *= out[axis];
        for (size_t k = 0; k < N; ++k) strides_[k].back() = full[k][axis];
      } else {
        dims_.push_back(out[axis]);
        for (size_t k = 0; k < N; ++k) strides_[k].push_back(full[k][axis]);
      }
    }
    if (dims_.empty()) {  // every output axis has size 1 (or rank 0)
      dims_.push_back(1);
      for (size_t k = 0; k < N; ++k) strides_[k].push_back(0);
    }
    index_.assign(dims_.size(), 0);
  }

  bool empty() const { return empty_; }
  size_t rank() const { return dims_.size(); }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t inner() const { return dims_.back(); }
  int64_t inner_stride(size_t k) const { return strides_[k].back(); }
  int64_t stride(size_t k, size_t axis) const { return strides_[k][axis]; }

  // Input k's shape over the merged axes (1 where it is broadcast).
  std::vector<size_t> InputDims(size_t k) const {
    std::vector<size_t> d(dims_.size());
    for (size_t i = 0; i < dims_.size(); ++i) d[i] = strides_[k][i] == 0 ? 1 : static_cast<size_t>(dims_[i]);
    return d;
  }

  template <typename Fn>
  void ForEachRow(Fn&& fn) const {
    ForEachBlock(1, fn);
  }

  // fn(input_offsets, output_offset) for each block of the last
  // `inner_axes` axes (1: rows; 2: planes of rows), in order.
  template <typename Fn>
  void ForEachBlock(size_t inner_axes, Fn&& fn) const {
    if (empty_) return;
    const size_t outer_rank = dims_.size() - inner_axes;
    int64_t blocks = 1, block = 1;
    for (size_t i = 0; i < outer_rank; ++i) blocks *= dims_[i];
    for (size_t i = outer_rank; i < dims_.size(); ++i) block *= dims_[i];
    for (size_t i = 0; i < outer_rank; ++i) index_[i] = 0;
    std::array<int64_t, N> off{};
    for (int64_t r = 0; r < blocks; ++r) {
      fn(off, r * block);
      // Odometer increment over the outer axes.
      for (size_t i = outer_rank; i-- > 0;) {
        ++index_[i];
        for (size_t k = 0; k < N; ++k) off[k] += strides_[k][i];
        if (index_[i] < dims_[i]) break;
        for (size_t k = 0; k < N; ++k) off[k] -= strides_[k][i] * dims_[i];
        index_[i] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> dims_;
  std::array<std::vector<int64_t>, N> strides_;
  mutable std::vector<int64_t> index_;  // sized at Init; reused by ForEachRow
  bool empty_ = false;
};

}  // namespace shrew::runtime::kernels
