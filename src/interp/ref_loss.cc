// Reference kernels: cross_entropy and mse_loss (OPS.md §3.13). Both return
// a rank-0 tensor of the float operand's dtype.
#include <cmath>
#include <limits>
#include <type_traits>

#include "interp/kernel.h"
#include "runtime/row_sums.h"

namespace shrew::interp {
namespace {

// log_softmax of one row, stably, in double: x − m − log Σ exp(x − m).
template <typename T>
void LogSoftmaxRow(const T* x, int64_t c, double* out) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < c; ++j) m = std::max(m, static_cast<double>(x[j]));
  double sum = 0;
  for (int64_t j = 0; j < c; ++j) sum += std::exp(static_cast<double>(x[j]) - m);
  const double lse = std::log(sum);
  for (int64_t j = 0; j < c; ++j) out[j] = static_cast<double>(x[j]) - m - lse;
}

}  // namespace

Result<Tensor> RefCrossEntropy(const KernelArgs& args) {
  const Tensor& logits = args[0];
  const Tensor& target = args[1];
  if (logits.rank() < 2) {
    return InvalidArgument("cross_entropy expects logits of rank >= 2, got rank " + std::to_string(logits.rank()));
  }
  const int64_t c = logits.dim(logits.rank() - 1);
  const Shape lead(logits.shape().begin(), logits.shape().end() - 1);
  const int64_t n = NumElements(lead);
  const bool distribution = target.shape() == logits.shape();
  if (distribution) {
    SHREW_RETURN_IF_ERROR(RequireSameDType(logits, target));
  } else if (target.shape() == lead) {
    if (!ir::IsInteger(target.dtype()) && !ir::IsFloat(target.dtype())) {
      return InvalidArgument(std::string("cross_entropy class indices must be integers, got ") +
                             ir::DTypeName(target.dtype()));
    }
  } else {
    return InvalidArgument("cross_entropy target of shape " + runtime::ShapeToString(target.shape()) +
                           " matches neither the logits' shape " + runtime::ShapeToString(logits.shape()) +
                           " (distribution) nor " + runtime::ShapeToString(lead) + " (class indices)");
  }
  // Class indices, validated before any arithmetic.
  std::vector<int64_t> classes;
  if (!distribution) {
    classes.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t cls;
      std::string shown;
      if (ir::IsFloat(target.dtype())) {
        const double v = target.GetDouble(i);
        shown = ir::FormatDouble(v);
        if (!std::isfinite(v) || std::trunc(v) != v) {
          return InvalidArgument("cross_entropy target " + shown + " is not an integral class index (target " +
                                 args.OperandLabel(1) + ", element " + std::to_string(i) + ")");
        }
        cls = v >= 0 && v < static_cast<double>(c) ? static_cast<int64_t>(v) : -1;
      } else {
        cls = target.GetInt64(i);
        shown = std::to_string(cls);
      }
      if (cls < 0 || cls >= c) {
        return OutOfRange("cross_entropy class index " + shown + " out of range for " + std::to_string(c) +
                          " classes (target " + args.OperandLabel(1) + ", element " + std::to_string(i) + ")");
      }
      classes[static_cast<size_t>(i)] = cls;
    }
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(logits.dtype(), {}));
  runtime::VisitStorage(logits.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* px = logits.data<T>();
      std::vector<double> ls(static_cast<size_t>(c));
      double total = 0;
      for (int64_t r = 0; r < n; ++r) {
        LogSoftmaxRow<T>(px + r * c, c, ls.data());
        if (distribution) {
          const T* pt = target.data<T>() + r * c;
          for (int64_t j = 0; j < c; ++j) total += static_cast<double>(pt[j]) * ls[static_cast<size_t>(j)];
        } else {
          total += ls[static_cast<size_t>(classes[static_cast<size_t>(r)])];
        }
      }
      out.mutable_values<T>()[0] = static_cast<T>(-total / static_cast<double>(n));
    }
  });
  return out;
}

Result<Tensor> RefMseLoss(const KernelArgs& args) {
  const Tensor& pred = args[0];
  const Tensor& target = args[1];
  SHREW_RETURN_IF_ERROR(RequireSameDType(pred, target));
  SHREW_TRY_ASSIGN(Tensor diff, BinaryOp(ir::OpKind::kSub, pred, target));
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(pred.dtype(), {}));
  runtime::VisitStorage(diff.storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      // In RowSum's lanes, as the tape sums operands of the same shape.
      const std::span<const T> d = diff.values<T>();
      const double sum =
          runtime::LaneSum(d.size(), [&d](size_t i) { return static_cast<double>(d[i]) * static_cast<double>(d[i]); });
      out.mutable_values<T>()[0] = static_cast<T>(sum / static_cast<double>(diff.num_elements()));
    }
  });
  return out;
}

}  // namespace shrew::interp
