// softmax along any axis (OPS.md §3.9: y = exp(x − max) / Σ exp(x − max)).
//
// f32, last axis: XNNPACK softmax (rows of the last axis). It sums the
// exponentials in f32, which drifts over a long row (in wasm, with one large
// logit: 4.7e-6 relative off at 1,024 elements, 1.7e-5 at 4,096, 1.3e-4 at
// 1e5, a vocabulary's size): rows longer than kRenormaliseAbove are then
// divided by their sum taken in double blocks, which leaves them within
// about 1e-6, the rounding of each exp and of x − max (+15-20 % on such rows).
// f32 and f64, another axis, viewed as [outer, L, inner]: three passes
// along contiguous `inner` rows, narrow columns a chunk of rows at a time
// (SoftmaxColumns, softmax_rows.h).
// Rows of the last axis: f32 rows shorter than kShortRowsBelow, or many up
// to 16 long (SoftmaxRowsInPlanes), and f64 rows of any length, run the
// passes across rows (softmax_rows.h).
// XNNPACK's three micro-kernel calls per row cost more than a short row's
// work ([524288, 2]: 10.4 ms, now 2.3 ms in wasm; 8 columns 3.2 -> 2.4 ms,
// even at 9-15), and the column passes' setup per row doubled f64's time
// (0.40-0.52x now, 8 to 4,096 columns).
// The axis is normalised at Reshape (negative axes count from the end).
#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"
#include "runtime/kernels/softmax_rows.h"
#include "runtime/xnn_init.h"

namespace shrew::runtime::kernels {
namespace {

constexpr int64_t kRenormaliseAbove = 256;
// Another axis than the last, with fewer than kNarrowColumnsBelow places
// after it and shorter than TransposedRowsBelow: each slice's columns are
// gathered into rows, which take SoftmaxRows, and scattered back.
// SoftmaxColumns' setup per slice made such softmaxes 4-14x one over
// contiguous rows ([10922, 3, 2] over dim 1: 24 ns an element in wasm,
// [21845, 3] over the last axis 1.8); a user's permute, softmax, permute
// took 3.3. The gathering costs 2.5-3.6 ns an element whatever the length,
// SoftmaxColumns less once a slice holds 4 of its chunks of 32 elements or
// more ([., 64, 2]: 3.4 against 3.6, [., 32, 4]: 3.0 against 3.1; at [., 256,
// 4] 1.7 against 3.1).
int64_t TransposedRowsBelow(int64_t inner) { return 4 * ((32 + inner - 1) / inner); }
// f32 rows of the last axis shorter than this take our passes: XNNPACK's
// per-row calls cost 1.2-1.6x their time below 16 ([512, 12] 2.5 -> 2.0 ns
// an element in wasm, [1024, 10] 3.1 -> 2.0), and its exp flushes
// probabilities under 2^-126 to 0 where ours keep them.
constexpr int64_t kShortRowsBelow = 16;
constexpr size_t kSumBlock = 32;

// Σ y in double at f32 speed: 8 lanes of f32 partial sums over blocks of
// 8 · kSumBlock elements, each block's added in double (RowSum, all in
// double, made renormalising cost twice as much).
double BlockedSum(const float* y, size_t n) {
  constexpr size_t kLanes = 8, kBlock = kLanes * kSumBlock;
  double total = 0;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    float lane[kLanes] = {};
    for (size_t b = 0; b < kBlock; b += kLanes) {
      for (size_t l = 0; l < kLanes; ++l) lane[l] += y[i + b + l];
    }
    double block = 0;
    for (size_t l = 0; l < kLanes; ++l) block += static_cast<double>(lane[l]);
    total += block;
  }
  for (; i < n; ++i) total += static_cast<double>(y[i]);
  return total;
}

template <typename T>
class SoftmaxKernel final : public Kernel {
 public:
  explicit SoftmaxKernel(int64_t axis) : axis_(axis) {}

  Status Init() {
    if constexpr (std::is_same_v<T, float>) {
      SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());
      xnn_operator_t raw = nullptr;
      SHREW_RETURN_IF_ERROR(XnnCheck(xnn_create_softmax_nc_f32(0, &raw), "softmax", "create"));
      softmax_op_ = AdoptXnnOperator(raw);
    }
    return Status::Ok();
  }

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("softmax", operand_shapes, 1, 1, output_shape));
    const Shape& x = operand_shapes[0];
    SHREW_RETURN_IF_ERROR(CheckOutputShape("softmax", x, output_shape));
    Result<int> axis = NormalizeAxis(axis_, static_cast<int>(x.size()));
    if (!axis.ok()) return InvalidArgument("softmax: " + axis.status().message());
    const size_t a = static_cast<size_t>(*axis);
    outer_ = NumElements(std::span<const int64_t>(x.data(), a));
    len_ = x[a];
    inner_ = NumElements(std::span<const int64_t>(x.data() + a + 1, x.size() - a - 1));
    n_ = static_cast<size_t>(outer_ * len_ * inner_);
    rows_ = inner_ == 1 && (std::is_same_v<T, double> || len_ < kShortRowsBelow ||
                            SoftmaxRowsInPlanes(n_, static_cast<size_t>(len_)));
    use_xnn_softmax_ = std::is_same_v<T, float> && inner_ == 1 && !rows_;
    transposed_ = inner_ > 1 && static_cast<size_t>(inner_) < kNarrowColumnsBelow && len_ < TransposedRowsBelow(inner_);
    if (n_ == 0) return size_t{0};
    if (transposed_) return n_ * sizeof(T);
    if (use_xnn_softmax_) {
      const size_t c = static_cast<size_t>(len_);
      SHREW_RETURN_IF_ERROR(
          XnnCheck(xnn_reshape_softmax_nc_f32(softmax_op_.get(), c, c, c, static_cast<size_t>(outer_), nullptr),
                   "softmax", "reshape"));
    }
    // Column statistics for the own passes, sized here so Run never
    // allocates (narrow columns keep theirs on the stack).
    if (!use_xnn_softmax_ && !rows_ && SoftmaxColumnsScratch(static_cast<size_t>(inner_)) > 0) {
      column_.assign(SoftmaxColumnsScratch(static_cast<size_t>(inner_)), T(0));
      column_sum_.assign(static_cast<size_t>(inner_), 0.0);
    }
    return size_t{0};
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("softmax: expected 1 operand");
    in_ = static_cast<const T*>(operands[0]);
    out_ = static_cast<T*>(output);
    rows_buffer_ = static_cast<T*>(workspace);
    if (n_ == 0) return Status::Ok();
    if constexpr (std::is_same_v<T, float>) {
      if (use_xnn_softmax_) return XnnCheck(xnn_setup_softmax_nc_f32(softmax_op_.get(), in_, out_), "softmax", "setup");
    }
    return Status::Ok();
  }

  Status Run() override {
    if (n_ == 0) return Status::Ok();
    if (len_ == 1) {
      // One element per slice: exp(x − x) / itself, 1 (NaN for ±inf and
      // NaN). Off the last axis the column passes took 3x a real softmax.
      for (size_t i = 0; i < n_; ++i) out_[i] = (in_[i] - in_[i]) + T(1);
      return Status::Ok();
    }
    if (use_xnn_softmax_) {
      SHREW_RETURN_IF_ERROR(XnnCheck(xnn_run_operator(softmax_op_.get(), nullptr), "softmax", "run"));
      if (len_ > kRenormaliseAbove) Renormalise();
      return Status::Ok();
    }
    if (rows_) {
      SoftmaxRows(in_, out_, n_, static_cast<size_t>(len_));
      return Status::Ok();
    }
    const size_t len = static_cast<size_t>(len_), inner = static_cast<size_t>(inner_);
    if (transposed_) {
      // Each [len, inner] slice as inner rows of len, softmax across rows,
      // and back (the output may be the input: all of it is read first).
      const size_t slice = len * inner;
      for (int64_t o = 0; o < outer_; ++o) {
        const T* x = in_ + static_cast<size_t>(o) * slice;
        T* r = rows_buffer_ + static_cast<size_t>(o) * slice;
        for (size_t l = 0; l < len; ++l) {
          for (size_t i = 0; i < inner; ++i) r[i * len + l] = x[l * inner + i];
        }
      }
      SoftmaxRows(rows_buffer_, rows_buffer_, n_, len);
      for (int64_t o = 0; o < outer_; ++o) {
        const T* r = rows_buffer_ + static_cast<size_t>(o) * slice;
        T* y = out_ + static_cast<size_t>(o) * slice;
        for (size_t l = 0; l < len; ++l) {
          for (size_t i = 0; i < inner; ++i) y[l * inner + i] = r[i * len + l];
        }
      }
      return Status::Ok();
    }
    for (int64_t o = 0; o < outer_; ++o) {
      const size_t at = static_cast<size_t>(o) * len * inner;
      SoftmaxColumns(in_ + at, out_ + at, len, inner, column_.data(), column_sum_.data());
    }
    return Status::Ok();
  }

  bool CanRunInPlace(size_t operand_index) const override { return operand_index == 0; }

  // Each row of XNNPACK's output divided by its sum in double. A row whose
  // sum is NaN (a NaN or an inf in x) or 0 is left as XNNPACK gave it.
  void Renormalise() {
    if constexpr (std::is_same_v<T, float>) {
      const size_t len = static_cast<size_t>(len_);
      for (int64_t o = 0; o < outer_; ++o) {
        float* __restrict y = out_ + static_cast<size_t>(o) * len;
        const double total = BlockedSum(y, len);
        if (!(total > 0)) continue;
        const float inv = static_cast<float>(1.0 / total);
        for (size_t j = 0; j < len; ++j) y[j] *= inv;
      }
    }
  }
  int num_xnn_operators() const override { return softmax_op_ ? 1 : 0; }
  const char* impl_name() const override {
    return use_xnn_softmax_ ? "xnn_softmax" : rows_ ? "ref_rows" : transposed_ ? "ref_transposed_rows" : "ref";
  }

 private:
  int64_t axis_;
  XnnOperatorPtr softmax_op_;
  int64_t outer_ = 0, len_ = 0, inner_ = 0;
  size_t n_ = 0;
  bool use_xnn_softmax_ = false;
  bool rows_ = false;  // SoftmaxRows
  bool transposed_ = false;  // SoftmaxRows of each slice's columns, gathered into rows_buffer_
  T* rows_buffer_ = nullptr;  // the workspace: n_ values
  std::vector<T> column_;  // SoftmaxColumns' scratch (SoftmaxColumnsScratch(inner) values)
  std::vector<double> column_sum_;
  const T* in_ = nullptr;
  T* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateSoftmaxKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<int64_t> axis = IntAttr(*spec.node, "dim");
  if (!axis.ok()) return axis.status();
  if (*storage == ir::StorageType::kF32) {
    auto k = std::make_unique<SoftmaxKernel<float>>(*axis);
    SHREW_RETURN_IF_ERROR(k->Init());
    return KernelPtr(std::move(k));
  }
  if (*storage == ir::StorageType::kF64) return KernelPtr(new SoftmaxKernel<double>(*axis));
  return InvalidArgument(std::string("softmax requires a float operand, got ") + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
