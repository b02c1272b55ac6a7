// layer_norm over the last axis (OPS.md §3.11.3), our own C++ (XNNPACK has
// no f32 layer norm operator in this version), f32 and f64:
//   μ = mean(x), σ² = mean((x − μ)²) (second pass over centred values),
//   y = (x − μ) / sqrt(σ² + eps) · w + b.
// w and b are optional (1 and 0) and broadcast against x: usually [D], but
// any shape that broadcasts to x's shape works; each row of x meets the w/b
// row its outer index selects. Statistics accumulate in double with
// independent partial sums, so the loops vectorise without -ffast-math.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/row_sums.h"

namespace shrew::runtime::kernels {
namespace {


template <typename T>
class LayerNormKernel final : public Kernel {
 public:
  LayerNormKernel(size_t num_operands, double eps) : num_operands_(num_operands), eps_(eps) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("layer_norm", operand_shapes, num_operands_, num_operands_, output_shape));
    const Shape& x = operand_shapes[0];
    if (x.empty()) return InvalidArgument("layer_norm: input must have rank >= 1, got []");
    SHREW_RETURN_IF_ERROR(CheckOutputShape("layer_norm", x, output_shape));
    d_ = static_cast<size_t>(x.back());
    max_denom_ = static_cast<double>(std::numeric_limits<T>::max()) / std::sqrt(static_cast<double>(d_));
    const Shape x_outer(x.begin(), x.end() - 1);
    // Affine operands: shape [..outer, Dp] with Dp in {1, D}; their outer part
    // broadcasts over x's outer axes.
    Shape outer[2] = {{}, {}};
    for (size_t p = 0; p < 2; ++p) {
      step_[p] = 0;
      if (p + 1 >= operand_shapes.size()) continue;
      const Shape& s = operand_shapes[p + 1];
      Result<Shape> b = BroadcastShapes(x, s);
      if (!b.ok() || *b != x) {
        return InvalidArgument(std::string("layer_norm: ") + (p == 0 ? "weight" : "bias") + " shape " +
                               ShapeToString(s) + " does not broadcast to the input shape " + ShapeToString(x));
      }
      if (!s.empty()) {
        outer[p].assign(s.begin(), s.end() - 1);
        step_[p] = s.back() == 1 ? 0 : 1;
      }
      row_len_[p] = s.empty() ? 1 : s.back();
    }
    loop_.Init(x_outer, {&outer[0], &outer[1]});
    empty_ = NumElements(x) == 0;
    return size_t{0};
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != num_operands_) {
      return InvalidArgument("layer_norm: expected " + std::to_string(num_operands_) + " operands");
    }
    x_ = static_cast<const T*>(operands[0]);
    // Absent (or null) weight means 1, absent bias 0: a one-element row.
    present_[0] = operands.size() > 1 && operands[1] != nullptr;
    present_[1] = operands.size() > 2 && operands[2] != nullptr;
    w_ = present_[0] ? static_cast<const T*>(operands[1]) : &kOne;
    b_ = present_[1] ? static_cast<const T*>(operands[2]) : &kZero;
    y_ = static_cast<T*>(output);
    return Status::Ok();
  }

  Status Run() override {
    if (empty_) return Status::Ok();
    // An absent operand is a single element: row length and steps 0.
    const int64_t wl = present_[0] ? row_len_[0] : 0, bl = present_[1] ? row_len_[1] : 0;
    const int64_t w_step = present_[0] ? step_[0] : 0, b_step = present_[1] ? step_[1] : 0;
    const int64_t sw = loop_.inner_stride(0), sb = loop_.inner_stride(1);
    if (d_ == 1) {
      // Rows of one element: μ = x and σ² = 0 for a finite x, so
      // sqrt(σ² + eps) is one number for every row, taken once; the rest
      // is NormalizeRow's arithmetic, whose x − μ is NaN for a non-finite x
      // as there (its two sums, sqrt and division per row cost 10 ns an
      // element, more than a JS loop).
      const double denom = std::sqrt(0.0 + eps_);
      const T rstd = static_cast<T>(1.0 / denom);
      const bool normal = std::isnormal(rstd);
      loop_.ForEachRow([&](const std::array<int64_t, 2>& off, int64_t out_off) {
        const int64_t rows = loop_.inner();
        const T* x = x_ + out_off;  // y may be x (in place): each x is read first
        T* y = y_ + out_off;
        const T* w = w_ + off[0] * wl;
        const T* b = b_ + off[1] * bl;
        const int64_t ws = sw * wl, bs = sb * bl;
        for (int64_t t = 0; t < rows; ++t) {
          const double mean = 0.0 + static_cast<double>(x[t]);  // RowSum's: -0 gives +0
          if (normal) {
            const T mu = static_cast<T>(mean);
            const T mu_lo = static_cast<T>(mean - static_cast<double>(mu));
            y[t] = ((x[t] - mu) - mu_lo) * rstd * w[t * ws] + b[t * bs];
          } else {
            y[t] = static_cast<T>((static_cast<double>(x[t]) - mean) / denom * static_cast<double>(w[t * ws]) +
                                  static_cast<double>(b[t * bs]));
          }
        }
      });
      return Status::Ok();
    }
    loop_.ForEachRow([&](const std::array<int64_t, 2>& off, int64_t out_off) {
      // The rows' statistics a block at a time, each pass over the block's
      // rows before the next: one row's sums, square root and division are
      // a chain of dependent steps, which the next row's overlap only when
      // they come next in the code (rows of 64: 1.0 -> 0.81 ns an element in
      // wasm). Each row's operations are unchanged, so are its bits.
      RowStats stats[kStatsBlock];
      for (int64_t t0 = 0; t0 < loop_.inner(); t0 += kStatsBlock) {
        const int64_t rows = std::min<int64_t>(kStatsBlock, loop_.inner() - t0);
        const T* x = x_ + static_cast<size_t>(out_off + t0) * d_;
        for (int64_t t = 0; t < rows; ++t) stats[t].mean = RowSum(x + t * d_, d_) / static_cast<double>(d_);
        if constexpr (std::is_same_v<T, double>) {
          // An f64 row's sum rounds (f32's is exact in double): corrected by
          // what the centred values still add up to, as the interpreter does.
          for (int64_t t = 0; t < rows; ++t) {
            stats[t].mean += RowDeviation(x + t * d_, d_, stats[t].mean) / static_cast<double>(d_);
          }
        }
        for (int64_t t = 0; t < rows; ++t) {
          const double var = RowSquaredDeviation(x + t * d_, d_, stats[t].mean) / static_cast<double>(d_);
          stats[t].denom = std::sqrt(var + eps_);
          // f64 deviations past ~1.3e154 square to inf (an f32's cannot).
          if constexpr (std::is_same_v<T, double>) {
            if (std::isinf(var) && std::isfinite(stats[t].mean)) {
              stats[t].denom = ScaledRowDenominator(x + t * d_, d_, stats[t].mean, eps_);
            }
          }
        }
        for (int64_t t = 0; t < rows; ++t) {
          const int64_t u = t0 + t;
          NormalizeRow(x + t * d_, stats[t], w_ + (off[0] + u * sw) * wl, w_step, b_ + (off[1] + u * sb) * bl,
                       b_step, y_ + static_cast<size_t>(out_off + u) * d_);
        }
      }
    });
    return Status::Ok();
  }

  bool CanRunInPlace(size_t operand_index) const override { return operand_index == 0; }
  const char* impl_name() const override { return "ref"; }

 private:
  struct RowStats {
    double mean, denom;  // μ and sqrt(σ² + eps)
  };
  static constexpr int64_t kStatsBlock = 32;

  void NormalizeRow(const T* x, const RowStats& stats, const T* w, int64_t w_step, const T* b, int64_t b_step,
                    T* y) const {
    const double mean = stats.mean, denom = stats.denom;
    // μ as hi + lo: x − hi is exact when x is near μ (Sterbenz), so a large
    // common offset does not cost the centred values their precision.
    const T mu = static_cast<T>(mean);
    const T mu_lo = static_cast<T>(mean - static_cast<double>(mu));
    const T rstd = static_cast<T>(1.0 / denom);
    const size_t ws = static_cast<size_t>(w_step), bs = static_cast<size_t>(b_step);
    if (!std::isnormal(rstd) || denom > max_denom_) {
      // 1/sqrt(σ² + eps) beyond T's range (an eps below f32's on a constant
      // row gave 0·inf = NaN), or x − μ possibly beyond it (|x − μ| <=
      // sqrt(D)·σ; a row of ±3.4e38 gave inf): this row in double, as the
      // interpreter does.
      for (size_t i = 0; i < d_; ++i) {
        const double v = (static_cast<double>(x[i]) - mean) / denom;
        y[i] = static_cast<T>(v * static_cast<double>(w[i * ws]) + static_cast<double>(b[i * bs]));
      }
      return;
    }
    if (w_step == 1 && b_step == 1) {
      for (size_t i = 0; i < d_; ++i) y[i] = ((x[i] - mu) - mu_lo) * rstd * w[i] + b[i];
    } else if (w_step == 0 && b_step == 0 && (std::isnormal(rstd * w[0]) || w[0] == 0)) {
      // One factor for the row, unless it leaves T's normal range (rstd =
      // 1e-30 and w = 1e-15 gave 0 where every output is normal).
      const T scale = rstd * w[0], shift = b[0];
      for (size_t i = 0; i < d_; ++i) y[i] = ((x[i] - mu) - mu_lo) * scale + shift;
    } else {
      for (size_t i = 0; i < d_; ++i) y[i] = ((x[i] - mu) - mu_lo) * rstd * w[i * ws] + b[i * bs];
    }
  }

  static constexpr T kOne = T(1);
  static constexpr T kZero = T(0);
  size_t num_operands_;
  double eps_;
  size_t d_ = 0;
  double max_denom_ = 0;  // the largest sqrt(σ² + eps) whose x − μ surely fits T
  int64_t step_[2] = {0, 0};     // along the row: 1, or 0 when broadcast
  int64_t row_len_[2] = {1, 1};  // elements per w/b row (1 or D)
  BroadcastLoop<2> loop_;        // x's outer axes, inputs w/b outer parts
  bool present_[2] = {false, false};
  bool empty_ = true;
  const T* x_ = nullptr;
  const T* w_ = nullptr;
  const T* b_ = nullptr;
  T* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateLayerNormKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 3));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<double> eps = FloatAttr(*spec.node, "eps");
  if (!eps.ok()) return eps.status();
  if (!(*eps > 0)) return InvalidArgument("layer_norm: eps must be > 0, got " + std::to_string(*eps));
  const size_t n = spec.operand_dtypes.size();
  if (*storage == ir::StorageType::kF32) return KernelPtr(new LayerNormKernel<float>(n, *eps));
  if (*storage == ir::StorageType::kF64) return KernelPtr(new LayerNormKernel<double>(n, *eps));
  return InvalidArgument(std::string("layer_norm requires a float operand, got ") + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
