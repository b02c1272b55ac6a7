// concat and split (OPS.md §3.10.5, §3.10.6) for every dtype: byte copies
// of contiguous slabs. With `outer` the product of the sizes before the
// axis, each operand (concat) or the chosen chunk (split) is `outer` slabs
// of (its axis size × the sizes after the axis) elements; one memcpy each
// (small slabs of either: word by word, word_copy.h).
// Axes are signed and normalised against the actual rank at Reshape.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/shapes.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/word_copy.h"

namespace shrew::runtime::kernels {
namespace {

class ConcatKernel final : public Kernel {
 public:
  ConcatKernel(size_t num_operands, int64_t dim, size_t element_bytes)
      : num_operands_(num_operands), dim_(dim), eb_(element_bytes) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("concat", operand_shapes, num_operands_, num_operands_, output_shape));
    const Shape& first = operand_shapes[0];
    Result<int> axis = NormalizeAxis(dim_, static_cast<int>(first.size()));
    if (!axis.ok()) return InvalidArgument("concat: " + axis.status().message());
    const size_t a = static_cast<size_t>(*axis);
    Shape expected = first;
    expected[a] = 0;
    for (size_t k = 0; k < operand_shapes.size(); ++k) {
      const Shape& t = operand_shapes[k];
      bool ok = t.size() == first.size();
      for (size_t i = 0; ok && i < t.size(); ++i) ok = i == a || t[i] == first[i];
      if (!ok) {
        return InvalidArgument("concat operand " + std::to_string(k) + " has shape " + ShapeToString(t) +
                               ", incompatible with " + ShapeToString(first) + " along axis " + std::to_string(a));
      }
      expected[a] += t[a];
    }
    SHREW_RETURN_IF_ERROR(CheckOutputShape("concat", expected, output_shape));
    // Counted with a 0 first: an empty operand's other sizes may multiply
    // past 2^63 ([0, 2^32, 2^32]), undefined behaviour as int64 products.
    Result<int64_t> outer = CountElements(std::span(first).first(a));
    if (!outer.ok()) return outer.status();
    outer_ = *outer;
    slab_bytes_.clear();
    for (const Shape& t : operand_shapes) {
      Result<int64_t> slab = outer_ > 0 ? CountElements(std::span(t).subspan(a)) : Result<int64_t>(int64_t{0});
      if (!slab.ok()) return slab.status();
      slab_bytes_.push_back(static_cast<size_t>(*slab) * eb_);
    }
    ChooseWord();
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != num_operands_) return InvalidArgument("concat: operand count changed");
    src_.assign(operands.begin(), operands.end());
    dst_ = static_cast<std::byte*>(output);
    return Status::Ok();
  }
  Status Run() override {
    if (min_slab_ >= kMemcpyFrom) {
      std::byte* dst = dst_;
      for (int64_t o = 0; o < outer_; ++o) {
        for (size_t k = 0; k < src_.size(); ++k) {
          const size_t slab = slab_bytes_[k];
          if (slab == 0) continue;
          CopyBytes(dst, static_cast<const std::byte*>(src_[k]) + static_cast<size_t>(o) * slab, slab);
          dst += slab;
        }
      }
    } else {
      WithWord(word_, [this](auto w) { CopyInWords<decltype(w)::value>(); });
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // Operand by operand: a one-word slab is a strided store per row, the
  // tightest loop (row by row, 1.6 ns per element at 4 bytes, 3x JS).
  template <size_t W>
  void CopyInWords() {
    size_t row = 0;
    for (size_t slab : slab_bytes_) row += slab;
    size_t at = 0;
    for (size_t k = 0; k < src_.size(); ++k) {
      const size_t slab = slab_bytes_[k];
      const std::byte* src = static_cast<const std::byte*>(src_[k]);
      std::byte* dst = dst_ + at;
      const size_t rows = static_cast<size_t>(outer_);
      if (slab == W) {
        for (size_t o = 0; o < rows; ++o) CopyRow<W>(dst + o * row, src + o * W, W);
      } else {
        for (size_t o = 0; o < rows; ++o) CopyRow<W>(dst + o * row, src + o * slab, slab);
      }
      at += slab;
    }
  }

  // The widest word (8, 4, 2 or 1 bytes) that divides every slab.
  void ChooseWord() {
    min_slab_ = SIZE_MAX;
    size_t all = 0;
    for (size_t slab : slab_bytes_) {
      min_slab_ = std::min(min_slab_, slab);
      all |= slab;
    }
    word_ = WordFor(all);
  }

  size_t num_operands_;
  int64_t dim_;
  size_t eb_;
  int64_t outer_ = 0;
  std::vector<size_t> slab_bytes_;
  size_t min_slab_ = 0, word_ = 1;
  std::vector<const void*> src_;  // sized at Setup
  std::byte* dst_ = nullptr;
};

class SplitKernel final : public Kernel {
 public:
  SplitKernel(int64_t chunks, int64_t dim, int64_t index, size_t element_bytes)
      : chunks_(chunks), dim_(dim), index_(index), eb_(element_bytes) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("split", operand_shapes, 1, 1, output_shape));
    const Shape& x = operand_shapes[0];
    Result<int> axis = NormalizeAxis(dim_, static_cast<int>(x.size()));
    if (!axis.ok()) return InvalidArgument("split: " + axis.status().message());
    const size_t a = static_cast<size_t>(*axis);
    const int64_t len = x[a];
    const ir::SplitChunks split = ir::SplitChunksOf(len, chunks_);
    const int64_t c = split.size, produced = split.produced;
    if (index_ >= produced) {
      return InvalidArgument("split index " + std::to_string(index_) + " is out of range: an axis of size " +
                             std::to_string(len) + " in " + std::to_string(chunks_) + " chunks gives " +
                             std::to_string(produced) + " chunks");
    }
    const int64_t start = index_ * c;
    const int64_t size = std::min(c, len - start);
    Shape expected = x;
    expected[a] = size;
    SHREW_RETURN_IF_ERROR(CheckOutputShape("split", expected, output_shape));
    // Nothing to copy from an empty input, whose other sizes may multiply
    // past 2^63 (undefined behaviour as int64 products).
    Result<int64_t> total = CountElements(x);
    if (!total.ok()) return total.status();
    int64_t inner = 0;
    outer_ = 0;
    if (*total > 0) {  // then every partial product fits
      inner = CountElements(std::span(x).subspan(a + 1)).value();
      outer_ = CountElements(std::span(x).first(a)).value();
    }
    in_slab_ = static_cast<size_t>(len * inner) * eb_;
    out_slab_ = static_cast<size_t>(size * inner) * eb_;
    offset_ = static_cast<size_t>(start * inner) * eb_;
    word_ = WordFor(in_slab_ | out_slab_ | offset_);
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("split: expected 1 operand");
    src_ = static_cast<const std::byte*>(operands[0]);
    dst_ = static_cast<std::byte*>(output);
    return Status::Ok();
  }
  Status Run() override {
    if (out_slab_ == 0 || outer_ == 0) return Status::Ok();  // nothing to copy (src_ may be null)
    if (out_slab_ >= kMemcpyFrom) {
      CopyInWords<0>();
    } else {
      WithWord(word_, [this](auto w) { CopyInWords<decltype(w)::value>(); });
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // Each row's chunk in words of W bytes (word_copy.h; W = 0: memcpy).
  // A column of [N, 2] by memcpy cost 4.3x a JS loop; a one-word chunk is
  // one load and store per row (as concat's one-word slab): through the
  // loop of a run-time length it still took 3.8x a JS loop.
  template <size_t W>
  void CopyInWords() {
    const size_t rows = static_cast<size_t>(outer_);
    const std::byte* src = src_ + offset_;
    if (W != 0 && out_slab_ == W) {
      for (size_t o = 0; o < rows; ++o) CopyRow<W>(dst_ + o * W, src + o * in_slab_, W);
    } else {
      for (size_t o = 0; o < rows; ++o) CopyRow<W>(dst_ + o * out_slab_, src + o * in_slab_, out_slab_);
    }
  }

  int64_t chunks_, dim_, index_;
  size_t eb_;
  size_t word_ = 1;
  int64_t outer_ = 0;
  size_t in_slab_ = 0, out_slab_ = 0, offset_ = 0;
  const std::byte* src_ = nullptr;
  std::byte* dst_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateConcatKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, SIZE_MAX));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<int64_t> dim = IntAttr(*spec.node, "dim");
  if (!dim.ok()) return dim.status();
  return KernelPtr(new ConcatKernel(spec.operand_dtypes.size(), *dim, ir::StorageByteSize(*storage)));
}

Result<KernelPtr> CreateSplitKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<int64_t> chunks = IntAttr(*spec.node, "chunks");
  if (!chunks.ok()) return chunks.status();
  Result<int64_t> dim = IntAttr(*spec.node, "dim");
  if (!dim.ok()) return dim.status();
  Result<int64_t> index = IntAttr(*spec.node, "index");
  if (!index.ok()) return index.status();
  if (*chunks < 1) return InvalidArgument("split chunks must be >= 1, got " + std::to_string(*chunks));
  if (*index < 0) return InvalidArgument("split index must be >= 0, got " + std::to_string(*index));
  return KernelPtr(new SplitKernel(*chunks, *dim, *index, ir::StorageByteSize(*storage)));
}

}  // namespace shrew::runtime::kernels
