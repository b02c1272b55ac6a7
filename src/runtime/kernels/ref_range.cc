// range (OPS.md §3.14): a 1-D i64 tensor [start, …, end − 1]. The operands
// (0–2 scalars, read at Run: constants, config keys or one-element tensors,
// floats truncated toward zero) give start and end; without operands the
// length is the planned output length (the declared type's dimension,
// bound per binding). The values must agree with the planned output shape
// ("range [S, E) has N elements but its planned shape is [M]").
#include <string>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/range_bound.h"

namespace shrew::runtime::kernels {
namespace {

class RangeKernel final : public Kernel {
 public:
  explicit RangeKernel(std::vector<ir::DType> dtypes) : dtypes_(std::move(dtypes)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("range", operand_shapes, dtypes_.size(), dtypes_.size(), output_shape));
    for (size_t k = 0; k < operand_shapes.size(); ++k) {
      if (NumElements(operand_shapes[k]) != 1) {
        return InvalidArgument("range operand " + std::to_string(k) + " must be a scalar, got shape " +
                               ShapeToString(operand_shapes[k]));
      }
    }
    if (output_shape.size() != 1) return InvalidArgument("range: output must be rank 1, got " + ShapeToString(output_shape));
    length_ = output_shape[0];
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != dtypes_.size()) return InvalidArgument("range: operand count changed");
    for (size_t k = 0; k < operands.size(); ++k) src_[k] = operands[k];
    y_ = static_cast<int64_t*>(output);
    return Status::Ok();
  }
  Status Run() override {
    int64_t bounds[2] = {0, 0};
    for (size_t k = 0; k < dtypes_.size(); ++k) {
      switch (ir::StorageOf(dtypes_[k])) {
        case ir::StorageType::kF32:
        case ir::StorageType::kF64: {
          const bool f32 = ir::StorageOf(dtypes_[k]) == ir::StorageType::kF32;
          const double v = f32 ? *static_cast<const float*>(src_[k]) : *static_cast<const double*>(src_[k]);
          Result<int64_t> bound = RangeBoundOfFloat(v, f32);
          if (!bound.ok()) return bound.status();
          bounds[k] = *bound;
          break;
        }
        case ir::StorageType::kI64: bounds[k] = *static_cast<const int64_t*>(src_[k]); break;
        case ir::StorageType::kU8: bounds[k] = *static_cast<const uint8_t*>(src_[k]); break;
        default: return InvalidArgument(std::string("range operands must be numbers, got ") + ir::DTypeName(dtypes_[k]));
      }
    }
    int64_t start = 0, end = length_;
    if (dtypes_.size() == 1) end = bounds[0];
    if (dtypes_.size() == 2) start = bounds[0], end = bounds[1];
    if (end <= start) {
      return InvalidArgument("range is empty (start " + std::to_string(start) + ", end " + std::to_string(end) + ")");
    }
    int64_t length = 0;
    if (__builtin_sub_overflow(end, start, &length)) {
      return InvalidArgument("range [" + std::to_string(start) + ", " + std::to_string(end) +
                             ") has more elements than an i64 can count");
    }
    if (length != length_) {
      return InvalidArgument("range [" + std::to_string(start) + ", " + std::to_string(end) + ") has " +
                             std::to_string(length) + " elements but its planned shape is [" +
                             std::to_string(length_) + "]");
    }
    for (int64_t i = 0; i < length; ++i) y_[i] = start + i;
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  std::vector<ir::DType> dtypes_;
  int64_t length_ = 0;
  const void* src_[2] = {nullptr, nullptr};
  int64_t* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateRangeKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 0, 2));
  if (spec.output_dtype != ir::DType::kI64) {
    return InvalidArgument(std::string("range: output must be i64, got ") + ir::DTypeName(spec.output_dtype));
  }
  return KernelPtr(new RangeKernel(spec.operand_dtypes));
}

}  // namespace shrew::runtime::kernels
