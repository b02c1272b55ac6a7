// batch_norm (OPS.md §3.11.4), our own C++ for f32 and f64: for each
// channel c (axis 1) of x: [N, C, …], μ_c and σ²_c (population, second pass
// over centred values) over all other axes of the current batch, then
// y = (x − μ_c) / sqrt(σ²_c + eps) · w_c + b_c, w and b optional ([C],
// defaults 1 and 0). Statistics and the per-element arithmetic in double,
// rounded once, in the interpreter's order (runtime/row_sums.h), so the two
// agree bit for bit (the per-element step in the storage type was a unit in
// the last place off).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"
#include "runtime/row_sums.h"

namespace shrew::runtime::kernels {
namespace {

template <typename T>
class BatchNormKernel final : public Kernel {
 public:
  BatchNormKernel(size_t num_operands, double eps) : num_operands_(num_operands), eps_(eps) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("batch_norm", operand_shapes, num_operands_, num_operands_, output_shape));
    const Shape& x = operand_shapes[0];
    if (x.size() < 2) return InvalidArgument("batch_norm expects rank >= 2, got rank " + std::to_string(x.size()));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("batch_norm", x, output_shape));
    for (size_t p = 1; p < operand_shapes.size(); ++p) {
      const Shape& s = operand_shapes[p];
      if (s.size() != 1 || s[0] != x[1]) {
        return InvalidArgument("batch_norm " + std::string(p == 1 ? "weight" : "bias") + " has shape " +
                               ShapeToString(s) + ", expected [" + std::to_string(x[1]) + "]");
      }
    }
    n_ = x[0];
    c_ = x[1];
    inner_ = 1;
    for (size_t i = 2; i < x.size(); ++i) inner_ *= x[i];
    if (ShortRows()) {
      for (std::vector<double>* v : {&sum_, &sq_, &mean_, &inv_denom_, &scale_, &shift_}) {
        v->assign(static_cast<size_t>(c_), 0.0);
      }
    }
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != num_operands_) return InvalidArgument("batch_norm: operand count changed");
    x_ = static_cast<const T*>(operands[0]);
    w_ = num_operands_ == 3 ? static_cast<const T*>(operands[1]) : nullptr;
    b_ = num_operands_ == 3 ? static_cast<const T*>(operands[2]) : nullptr;
    y_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override {
    const int64_t count = n_ * inner_;
    if (count == 0) return Status::Ok();
    if (ShortRows()) return RunShortRows();
    const size_t inner = static_cast<size_t>(inner_);
    for (int64_t ch = 0; ch < c_; ++ch) {
      // Each row's sums in kRowSumLanes partial sums: one chain of dependent
      // adds per channel held the kernel to one element per add latency
      // (2x the written-out formula at [8, 64, 32, 32]).
      double sum = 0;
      for (int64_t bi = 0; bi < n_; ++bi) sum += RowSum(x_ + (bi * c_ + ch) * inner_, inner);
      const double mean = sum / static_cast<double>(count);
      double sq = 0;
      for (int64_t bi = 0; bi < n_; ++bi) sq += RowSquaredDeviation(x_ + (bi * c_ + ch) * inner_, inner, mean);
      // One division per channel, not per element (f64x2.div is the
      // slowest step of the pass); 1/denom stays finite for any eps > 0, so
      // a constant channel whose mean is exact (any f32 one) still gives
      // 0 · scale + shift.
      const double inv_denom = 1.0 / std::sqrt(sq / static_cast<double>(count) + eps_);
      const double scale = w_ != nullptr ? static_cast<double>(w_[ch]) : 1.0;
      const double shift = b_ != nullptr ? static_cast<double>(b_[ch]) : 0.0;
      for (int64_t bi = 0; bi < n_; ++bi) {
        const T* __restrict row = x_ + (bi * c_ + ch) * inner_;
        T* __restrict out = y_ + (bi * c_ + ch) * inner_;
        for (size_t s = 0; s < inner; ++s) {
          out[s] = static_cast<T>((static_cast<double>(row[s]) - mean) * inv_denom * scale + shift);
        }
      }
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  // Fewer than kShortRowsBelow elements per channel and sample (x: [N, C] or
  // [N, C, …] of small planes): RunShortRows. It gains 20-40% at 8-64 too,
  // and equals the channel walk at 256, where each channel's rows are long
  // enough; 128, the bound of the reductions' short rows, is between the two.
  static constexpr int64_t kShortRowsBelow = 128;
  bool ShortRows() const { return inner_ < kShortRowsBelow; }

  // Run's arithmetic in memory order, every channel at once (channel by
  // channel it strode across x: 3.5x slower than a plain JS loop at [1024,
  // 1024], 4x the neighbouring shapes with 2-4 elements per channel and
  // sample); each channel's sums are still RowSum's of each of its rows,
  // added over n in increasing order, so the values are bit for bit the same.
  Status RunShortRows() {
    const size_t c = static_cast<size_t>(c_), n = static_cast<size_t>(n_), inner = static_cast<size_t>(inner_);
    const double count = static_cast<double>(n_ * inner_);
    std::fill(sum_.begin(), sum_.end(), 0.0);
    std::fill(sq_.begin(), sq_.end(), 0.0);
    AddShortRowSums(x_, n, c, inner, nullptr, sum_.data());
    double* __restrict mean = mean_.data();
    for (size_t ch = 0; ch < c; ++ch) mean[ch] = sum_[ch] / count;
    AddShortRowSums(x_, n, c, inner, mean, sq_.data());
    double* __restrict inv_denom = inv_denom_.data();
    double* __restrict scale = scale_.data();
    double* __restrict shift = shift_.data();
    for (size_t ch = 0; ch < c; ++ch) {
      inv_denom[ch] = 1.0 / std::sqrt(sq_[ch] / count + eps_);
      scale[ch] = w_ != nullptr ? static_cast<double>(w_[ch]) : 1.0;
      shift[ch] = b_ != nullptr ? static_cast<double>(b_[ch]) : 0.0;
    }
    if (inner == 1) {
      NormalizeRows<1>(x_, y_, n, c, inner, mean, inv_denom, scale, shift);
    } else {
      NormalizeRows<0>(x_, y_, n, c, inner, mean, inv_denom, scale, shift);
    }
    return Status::Ok();
  }

  // y = (x − mean) · inv_denom · scale + shift per channel, in memory order
  // (rows of kLen elements, or of len when kLen is 0), row pointers stepped
  // per sample: one index running through x was 3% slower at [4096, 64].
  template <size_t kLen>
  static void NormalizeRows(const T* __restrict x, T* __restrict y, size_t n, size_t c, size_t len,
                            const double* __restrict mean, const double* __restrict inv_denom,
                            const double* __restrict scale, const double* __restrict shift) {
    const size_t row = kLen == 0 ? len : kLen;
    for (size_t bi = 0; bi < n; ++bi, x += c * row, y += c * row) {
      for (size_t ch = 0; ch < c; ++ch) {
        for (size_t e = 0; e < row; ++e) {
          y[ch * row + e] =
              static_cast<T>((static_cast<double>(x[ch * row + e]) - mean[ch]) * inv_denom[ch] * scale[ch] + shift[ch]);
        }
      }
    }
  }

  size_t num_operands_;
  double eps_;
  int64_t n_ = 0, c_ = 0, inner_ = 0;
  // Per channel, for RunShortRows; sized by Reshape.
  std::vector<double> sum_, sq_, mean_, inv_denom_, scale_, shift_;
  const T* x_ = nullptr;
  const T* w_ = nullptr;
  const T* b_ = nullptr;
  T* y_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateBatchNormKernel(const KernelSpec& spec) {
  const size_t n = spec.operand_dtypes.size();
  if (n != 1 && n != 3) return InvalidArgument("batch_norm takes 1 or 3 operands, got " + std::to_string(n));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<double> eps = FloatAttr(*spec.node, "eps");
  if (!eps.ok()) return eps.status();
  if (!(*eps > 0)) return InvalidArgument("batch_norm eps must be > 0, got " + std::to_string(*eps));
  if (*storage == ir::StorageType::kF32) return KernelPtr(new BatchNormKernel<float>(n, *eps));
  if (*storage == ir::StorageType::kF64) return KernelPtr(new BatchNormKernel<double>(n, *eps));
  return InvalidArgument(std::string("batch_norm requires a float operand, got ") + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
