// Data-movement kernels in our own C++, any dtype (by element size):
//   copy    identity, reshape, view and dropout in inference mode (or p = 0):
//           the same bytes (OPS.md §3.1, §3.10.3, §3.11.5). A memcpy, or
//           nothing when the planner placed the output over the operand.
//   expand  broadcast copy (§3.10.4): rows of the merged broadcast are a
//           memcpy (input contiguous there) or a fill (input broadcast);
//           rows shorter than 32 a plane of the last two axes at a time.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/row_groups.h"
#include "runtime/kernels/word_copy.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;

class CopyKernel final : public Kernel {
 public:
  CopyKernel(ir::OpKind op, size_t element_size) : op_(op), element_size_(element_size) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes(ir::OpName(op_), operand_shapes, 1, 1, output_shape));
    const int64_t n = NumElements(operand_shapes[0]);
    if (n != NumElements(output_shape)) {
      return InvalidArgument(std::string(ir::OpName(op_)) + ": cannot copy " + ShapeToString(operand_shapes[0]) + " (" +
                             std::to_string(n) + " elements) into " + ShapeToString(output_shape));
    }
    bytes_ = static_cast<size_t>(n) * element_size_;
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 1 operand");
    in_ = operands[0];
    out_ = output;
    return Status::Ok();
  }
  Status Run() override {
    if (in_ != out_ && bytes_ > 0) std::memcpy(out_, in_, bytes_);
    return Status::Ok();
  }
  bool CanRunInPlace(size_t operand_index) const override { return operand_index == 0; }
  const char* impl_name() const override { return "copy"; }

 private:
  ir::OpKind op_;
  size_t element_size_;
  size_t bytes_ = 0;
  const void* in_ = nullptr;
  void* out_ = nullptr;
};

// o[0..n) = *v: row_groups.h's column fill of one row, in 16-byte splats
// (this file is built at -Os in wasm, where a plain loop stays scalar:
// expanding a column [N, 1] ran at a ninth of a JS fill).
template <typename T>
void FillRow(T* o, size_t n, const T* v) {
  row_groups::FillColumn(reinterpret_cast<uint8_t*>(o), reinterpret_cast<const uint8_t*>(v), 1,
                         static_cast<int64_t>(n), sizeof(T));
}

class ExpandKernel final : public Kernel {
 public:
  ExpandKernel(size_t element_size, std::vector<ir::Dim> target)
      : element_size_(element_size), target_(std::move(target)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("expand", operand_shapes, 1, 1, output_shape));
    const Shape& x = operand_shapes[0];
    if (output_shape.size() < x.size()) {
      return InvalidArgument("expand: target " + ShapeToString(output_shape) + " has lower rank than the input " +
                             ShapeToString(x));
    }
    const size_t lead = output_shape.size() - x.size();
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] != 1 && x[i] != output_shape[lead + i]) {
        return InvalidArgument("expand: cannot expand " + ShapeToString(x) + " to " + ShapeToString(output_shape));
      }
    }
    // The attribute's fixed entries must agree with the concrete output.
    if (!target_.empty()) {
      if (target_.size() != output_shape.size()) {
        return InvalidArgument("expand: output " + ShapeToString(output_shape) + " does not match the target " +
                               ir::DimsToString(target_));
      }
      for (size_t i = 0; i < target_.size(); ++i) {
        if (target_[i].is_fixed() && target_[i].size() != output_shape[i]) {
          return InvalidArgument("expand: output " + ShapeToString(output_shape) + " does not match the target " +
                                 ir::DimsToString(target_));
        }
      }
    }
    loop_.Init(output_shape, {&x});
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("expand: expected 1 operand");
    in_ = operands[0];
    out_ = output;
    return Status::Ok();
  }
  Status Run() override {
    switch (element_size_) {
      case 1:
        Broadcast<uint8_t>();
        break;
      case 4:
        Broadcast<uint32_t>();
        break;
      default:
        Broadcast<uint64_t>();
        break;
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref_broadcast"; }

 private:
  template <typename T>
  void Broadcast() {
    const T* in = static_cast<const T*>(in_);
    T* out = static_cast<T*>(out_);
    // A row repeated down a plane, of any length: RepeatRow doubles what it
    // has written (rows of 128 bytes one by one took 3.7x rows of 124).
    const bool repeated = !loop_.empty() && loop_.rank() >= 2 && row_groups::PatternOf(loop_, 0) == row_groups::Pattern::kRepeat;
    if (repeated || RunsInGroups(loop_)) return BroadcastShortRows(in, out);
    const size_t inner = static_cast<size_t>(loop_.inner());
    const bool contiguous = loop_.inner_stride(0) != 0;
    loop_.ForEachRow([&](const std::array<int64_t, 1>& off, int64_t out_off) {
      T* o = out + out_off;
      if (contiguous) {
        CopyBytes(reinterpret_cast<std::byte*>(o), reinterpret_cast<const std::byte*>(in + off[0]), inner * sizeof(T));
      } else {
        FillRow(o, inner, in + off[0]);
      }
    });
  }

  // Rows shorter than kShortRow (row_groups.h), or repeated down the plane,
  // a plane of the last two axes at a time: a call per row cost 22 ns, ten times the row's two
  // elements ([N, 1] -> [N, 2]: 11 ns an element against 0.3 for a JS loop).
  template <typename T>
  void BroadcastShortRows(const T* in, T* out) {
    using row_groups::Pattern;
    const size_t n = static_cast<size_t>(loop_.inner());
    const size_t d = static_cast<size_t>(loop_.dims()[loop_.rank() - 2]);
    const Pattern pattern = row_groups::PatternOf(loop_, 0);
    loop_.ForEachBlock(2, [&](const std::array<int64_t, 1>& off, int64_t out_off) {
      const T* i = in + off[0];
      T* o = out + out_off;
      switch (pattern) {
        case Pattern::kContiguous:  // (one operand's contiguous axes merge: for completeness)
          std::memcpy(o, i, d * n * sizeof(T));
          break;
        case Pattern::kConstant:
          FillRow(o, d * n, i);
          break;
        case Pattern::kRepeat:
          row_groups::RepeatRow(o, i, d, n);
          break;
        case Pattern::kColumn:  // straight into the output, as into a tile
          row_groups::FillColumn(reinterpret_cast<uint8_t*>(o), reinterpret_cast<const uint8_t*>(i),
                                 static_cast<int64_t>(d), static_cast<int64_t>(n), sizeof(T));
          break;
      }
    });
  }

  size_t element_size_;
  std::vector<ir::Dim> target_;
  BroadcastLoop<1> loop_;
  const void* in_ = nullptr;
  void* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateCopyKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const ir::OpKind op = spec.node->op;
  if (op == K::kDropout) {
    Result<double> p = FloatAttr(*spec.node, "p");
    if (!p.ok()) return p.status();
    if (!(*p >= 0.0 && *p < 1.0)) return InvalidArgument("dropout: p must be in [0, 1), got " + std::to_string(*p));
    // Training-mode dropout draws from the executor's generator (OPS.md
    // §3.11.5), which kernels do not own.
    if (spec.training && *p > 0.0) return Unimplemented("dropout in training mode has no kernel");
  }
  return KernelPtr(new CopyKernel(op, ir::StorageByteSize(*storage)));
}

Result<KernelPtr> CreateExpandKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  std::vector<ir::Dim> target;
  if (const ir::AttrValue* s = spec.node->attr("shape"); s != nullptr && s->is_shape()) target = s->as_shape();
  return KernelPtr(new ExpandKernel(ir::StorageByteSize(*storage), std::move(target)));
}

}  // namespace shrew::runtime::kernels
