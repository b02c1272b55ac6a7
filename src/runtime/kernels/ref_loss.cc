// cross_entropy and mse_loss (OPS.md §3.13), our own C++ for f32 and f64;
// both produce a rank-0 value of the float operand's dtype.
//
// cross_entropy(logits [..., C], target): per row the stable log-softmax
// x − m − log Σ exp(x − m); the target is either a distribution (the
// logits' shape and dtype) or class indices (the logits' shape without the
// last axis; i64/u8, or float with integral values). Every class index is
// checked (in [0, C), integral) before any arithmetic: "cross_entropy class
// index I (element K) out of range for C classes". loss = −(1/N) Σ.
// mse_loss: mean over the broadcast (pred − target)². Sums accumulate in
// double. The row passes are loss_rows.h's vectorised loops (expf per
// element made the loss cost 7-10x a softmax of the same logits).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "ir/attr.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loss_rows.h"
#include "runtime/kernels/row_groups.h"

namespace shrew::runtime::kernels {
namespace {

// T: logits storage; I: target storage (T for the distribution form).
template <typename T, typename I>
class CrossEntropyKernel final : public Kernel {
 public:
  CrossEntropyKernel(bool indices_dtype, std::string target_label)
      : indices_dtype_(indices_dtype), target_label_(std::move(target_label)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("cross_entropy", operand_shapes, 2, 2, output_shape));
    const Shape& logits = operand_shapes[0];
    const Shape& target = operand_shapes[1];
    if (logits.size() < 2) {
      return InvalidArgument("cross_entropy expects logits of rank >= 2, got rank " + std::to_string(logits.size()));
    }
    SHREW_RETURN_IF_ERROR(CheckOutputShape("cross_entropy", Shape{}, output_shape));
    const Shape lead(logits.begin(), logits.end() - 1);
    c_ = logits.back();
    n_ = NumElements(lead);
    if (target == logits && !indices_dtype_) {
      distribution_ = true;
    } else if (target == lead) {
      distribution_ = false;
    } else {
      return InvalidArgument("cross_entropy target of shape " + ShapeToString(target) +
                             " matches neither the logits' shape " + ShapeToString(logits) + " (distribution) nor " +
                             ShapeToString(lead) + " (class indices)");
    }
    if (distribution_ && !std::is_same_v<T, I>) return InvalidArgument("dtype mismatch in cross_entropy");
    return LogSumExpScratch(static_cast<size_t>(c_)) * sizeof(T);
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument("cross_entropy: expected 2 operands");
    x_ = static_cast<const T*>(operands[0]);
    t_ = static_cast<const I*>(operands[1]);
    y_ = static_cast<T*>(output);
    row_ = static_cast<T*>(workspace);
    return Status::Ok();
  }
  Status Run() override {
    const size_t c = static_cast<size_t>(c_);
    if (!distribution_) SHREW_RETURN_IF_ERROR(CheckClasses());
    double total = 0;
    T m[kLogSumExpRows];
    double log_sum[kLogSumExpRows];
    for (size_t r0 = 0; r0 < static_cast<size_t>(n_); r0 += kLogSumExpRows) {
      const size_t rows = std::min(kLogSumExpRows, static_cast<size_t>(n_) - r0);
      RowsLogSumExp(x_ + r0 * c, rows, c, m, log_sum, row_);
      for (size_t k = 0; k < rows; ++k) {
        const size_t r = r0 + k;
        const T* x = x_ + r * c;
        // (x − m) − log Σ, in this order: folding m into the log-sum first
        // (x − (m + log Σ)) loses log Σ against a large m (logits of 1e30).
        const double md = static_cast<double>(m[k]);
        if (distribution_) {
          const I* t = t_ + r * c;
          for (size_t j = 0; j < c; ++j) {
            total += static_cast<double>(t[j]) * ((static_cast<double>(x[j]) - md) - log_sum[k]);
          }
        } else {
          total += (static_cast<double>(x[static_cast<size_t>(t_[r])]) - md) - log_sum[k];
        }
      }
    }
    y_[0] = static_cast<T>(-total / static_cast<double>(n_));
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // A branch-free pass over all (it vectorises; a Status per element cost a
  // quarter of a 2-class loss), then the first offender's message.
  Status CheckClasses() const {
    bool ok = true;
    for (int64_t i = 0; i < n_; ++i) ok &= IsClass(t_[i]);
    if (ok) return Status::Ok();
    for (int64_t i = 0; i < n_; ++i) SHREW_RETURN_IF_ERROR(CheckClass(t_[i], i));
    return Status::Ok();
  }
  bool IsClass(I v) const {
    if constexpr (std::is_floating_point_v<I>) {
      const double d = static_cast<double>(v);
      return (d >= 0) & (d < static_cast<double>(c_)) & (std::trunc(d) == d);  // NaN and ±inf fail
    } else {
      return static_cast<uint64_t>(static_cast<int64_t>(v)) < static_cast<uint64_t>(c_);
    }
  }
  Status CheckClass(I v, int64_t element) const {
    if constexpr (std::is_floating_point_v<I>) {
      const double d = static_cast<double>(v);
      if (!std::isfinite(d) || std::trunc(d) != d) {
        return InvalidArgument("cross_entropy target " + ir::FormatDouble(d) + " is not an integral class index (target " +
                               target_label_ + ", element " + std::to_string(element) + ")");
      }
      if (d < 0 || d >= static_cast<double>(c_)) return OutOfRangeClass(ir::FormatDouble(d), element);
    } else {
      const int64_t k = static_cast<int64_t>(v);
      if (k < 0 || k >= c_) return OutOfRangeClass(std::to_string(k), element);
    }
    return Status::Ok();
  }
  Status OutOfRangeClass(const std::string& shown, int64_t element) const {
    return OutOfRange("cross_entropy class index " + shown + " out of range for " + std::to_string(c_) +
                      " classes (target " + target_label_ + ", element " + std::to_string(element) + ")");
  }

  bool indices_dtype_;
  std::string target_label_;  // names the target in index errors, as embedding names its indices
  bool distribution_ = true;
  int64_t c_ = 0, n_ = 0;
  T* row_ = nullptr;  // workspace: RowsLogSumExp's scratch
  const T* x_ = nullptr;
  const I* t_ = nullptr;
  T* y_ = nullptr;
};

template <typename T>
class MseLossKernel final : public Kernel {
 public:
  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("mse_loss", operand_shapes, 2, 2, output_shape));
    Result<Shape> b = BroadcastShapes(operand_shapes[0], operand_shapes[1]);
    if (!b.ok()) return InvalidArgument("mse_loss: " + b.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape("mse_loss", Shape{}, output_shape));
    shape_ = *b;
    count_ = NumElements(shape_);
    loop_.Init(shape_, {&operand_shapes[0], &operand_shapes[1]});
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument("mse_loss: expected 2 operands");
    a_ = static_cast<const T*>(operands[0]);
    b_ = static_cast<const T*>(operands[1]);
    y_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override {
    double sum = 0;
    if (RunsInGroups(loop_)) {
      // Short rows a group of whole rows at a time (row_groups.h): a call
      // per row of 10 cost 5x the same operands unbroadcast.
      ForEachRowGroup<2>(loop_, {a_, b_}, {sizeof(T), sizeof(T)},
                         [&](const std::array<const uint8_t*, 2>& q, const std::array<int64_t, 2>& step, int64_t,
                             int64_t count) {
                           sum += SquaredDifferenceSum(reinterpret_cast<const T*>(q[0]), step[0],
                                                       reinterpret_cast<const T*>(q[1]), step[1],
                                                       static_cast<size_t>(count));
                         });
    } else {
      const int64_t sa = loop_.inner_stride(0), sb = loop_.inner_stride(1);
      const size_t n = static_cast<size_t>(loop_.inner());
      loop_.ForEachRow([&](const std::array<int64_t, 2>& off, int64_t) {
        sum += SquaredDifferenceSum(a_ + off[0], sa, b_ + off[1], sb, n);
      });
    }
    y_[0] = static_cast<T>(sum / static_cast<double>(count_));
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  Shape shape_;
  int64_t count_ = 0;
  BroadcastLoop<2> loop_;
  const T* a_ = nullptr;
  const T* b_ = nullptr;
  T* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateLossKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
  const ir::StorageType s = ir::StorageOf(spec.operand_dtypes[0]);
  if (s != ir::StorageType::kF32 && s != ir::StorageType::kF64) {
    return InvalidArgument(std::string(OpNameOf(spec)) + " requires a float operand, got " +
                           ir::DTypeName(spec.operand_dtypes[0]));
  }
  if (ir::StorageOf(spec.output_dtype) != s) return InvalidArgument(std::string(OpNameOf(spec)) + ": output dtype differs");
  if (spec.node->op == ir::OpKind::kMseLoss) {
    if (spec.operand_dtypes[1] != spec.operand_dtypes[0]) {
      return InvalidArgument(std::string("dtype mismatch: ") + ir::DTypeName(spec.operand_dtypes[0]) + " and " +
                             ir::DTypeName(spec.operand_dtypes[1]));
    }
    if (s == ir::StorageType::kF32) return KernelPtr(new MseLossKernel<float>());
    return KernelPtr(new MseLossKernel<double>());
  }
  if (spec.node->op != ir::OpKind::kCrossEntropy) return InvalidArgument(std::string(OpNameOf(spec)) + " is not a loss");
  const ir::DType t = spec.operand_dtypes[1];
  // Same dtype: distribution (or float class indices, decided by shape).
  const bool same = t == spec.operand_dtypes[0];
  const std::string name = spec.operand_label ? spec.operand_label(1) : "#1";
  auto make = [&](auto tag) -> Result<KernelPtr> {
    using T = typename decltype(tag)::type;
    if (same) return KernelPtr(new CrossEntropyKernel<T, T>(false, name));
    switch (ir::StorageOf(t)) {
      case ir::StorageType::kI64: return KernelPtr(new CrossEntropyKernel<T, int64_t>(true, name));
      case ir::StorageType::kU8: return KernelPtr(new CrossEntropyKernel<T, uint8_t>(true, name));
      case ir::StorageType::kF32: return KernelPtr(new CrossEntropyKernel<T, float>(true, name));
      case ir::StorageType::kF64: return KernelPtr(new CrossEntropyKernel<T, double>(true, name));
      default: break;
    }
    return InvalidArgument(std::string("cross_entropy class indices must be integers, got ") + ir::DTypeName(t));
  };
  if (s == ir::StorageType::kF32) return make(TypeTag<float>{});
  return make(TypeTag<double>{});
}

}  // namespace shrew::runtime::kernels
