// embedding(indices, table) (OPS.md §3.11.1): y[i…, :] = table[indices[i…], :],
// one row copy per index. Indices: i64 or u8 storage, or float (truncated
// toward zero); table: f32 or f64 [V, D]. Every index is range-checked
// before it is used: an index outside [0, V) (negative, too large, NaN) is
// the run-time error "embedding index I out of range for a table of V rows
// (indices 'NAME', element K)", naming the indices operand (ir::Graph::ValueLabel).
#include <cmath>
#include <string>
#include <type_traits>

#include "ir/attr.h"
#include "ir/dtype.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/word_copy.h"

namespace shrew::runtime::kernels {
namespace {

template <typename I>
class EmbeddingKernel final : public Kernel {
 public:
  EmbeddingKernel(std::string indices_label, size_t element_bytes)
      : indices_label_(std::move(indices_label)), eb_(element_bytes) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("embedding", operand_shapes, 2, 2, output_shape));
    const Shape& table = operand_shapes[1];
    if (table.size() != 2) {
      return InvalidArgument("embedding expects a rank-2 table, got rank " + std::to_string(table.size()));
    }
    Shape expected = operand_shapes[0];
    expected.push_back(table[1]);
    SHREW_RETURN_IF_ERROR(CheckOutputShape("embedding", expected, output_shape));
    rows_ = table[0];
    row_bytes_ = static_cast<size_t>(table[1]) * eb_;
    n_ = NumElements(operand_shapes[0]);
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument("embedding: expected 2 operands");
    idx_ = static_cast<const I*>(operands[0]);
    table_ = static_cast<const std::byte*>(operands[1]);
    y_ = static_cast<std::byte*>(output);
    return Status::Ok();
  }
  Status Run() override {
    // Rows under kMemcpyFrom bytes (a table of scalars or short vectors)
    // are copied in words inline (word_copy.h): a memcpy call per index of
    // one float cost 2.3x a JS gather. Rows are 4 or 8 bytes a value.
    if (row_bytes_ >= kMemcpyFrom) return Gather<0>();
    if (WordFor(row_bytes_) == 8) return Gather<8>();
    return Gather<4>();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // W: the word the rows are copied in (0: a memcpy per row).
  template <size_t W>
  Status Gather() {
    for (int64_t i = 0; i < n_; ++i) {
      const I v = idx_[i];
      int64_t row;
      if constexpr (std::is_floating_point_v<I>) {
        // Truncated toward zero; NaN and huge values are simply out of range.
        const double d = static_cast<double>(v);
        const bool in_range = std::isfinite(d) && std::trunc(d) >= 0 && std::trunc(d) < static_cast<double>(rows_);
        if (!in_range) return OutOfRangeAt(ir::FormatDouble(d), i);
        row = static_cast<int64_t>(d);
      } else {
        row = static_cast<int64_t>(v);
        if (row < 0 || row >= rows_) return OutOfRangeAt(std::to_string(row), i);
      }
      CopyRow<W>(y_ + static_cast<size_t>(i) * row_bytes_, table_ + static_cast<size_t>(row) * row_bytes_, row_bytes_);
    }
    return Status::Ok();
  }

  // Only on the error path (allocating the message is fine there).
  Status OutOfRangeAt(const std::string& shown, int64_t element) const {
    return OutOfRange("embedding index " + shown + " out of range for a table of " + std::to_string(rows_) +
                      " rows (indices " + indices_label_ + ", element " + std::to_string(element) + ")");
  }

  std::string indices_label_;
  size_t eb_;
  int64_t rows_ = 0;
  size_t row_bytes_ = 0;
  int64_t n_ = 0;
  const I* idx_ = nullptr;
  const std::byte* table_ = nullptr;
  std::byte* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateEmbeddingKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
  const ir::DType idx = spec.operand_dtypes[0];
  const ir::DType table = spec.operand_dtypes[1];
  if (!ir::IsFloat(table) || ir::StorageOf(spec.output_dtype) != ir::StorageOf(table)) {
    return InvalidArgument(std::string("embedding table must have a float dtype, got ") + ir::DTypeName(table) +
                           " (operands are (indices, table))");
  }
  const std::string name = spec.operand_label ? spec.operand_label(0) : "#0";
  const size_t eb = ir::StorageByteSize(ir::StorageOf(table));
  switch (ir::StorageOf(idx)) {
    case ir::StorageType::kI64: return KernelPtr(new EmbeddingKernel<int64_t>(name, eb));
    case ir::StorageType::kU8: return KernelPtr(new EmbeddingKernel<uint8_t>(name, eb));
    case ir::StorageType::kF32: return KernelPtr(new EmbeddingKernel<float>(name, eb));
    case ir::StorageType::kF64: return KernelPtr(new EmbeddingKernel<double>(name, eb));
    default: break;
  }
  return InvalidArgument(std::string("embedding indices must have an integer dtype, got ") + ir::DTypeName(idx));
}

}  // namespace shrew::runtime::kernels
