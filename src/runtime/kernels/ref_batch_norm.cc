// batch_norm (OPS.md §3.11.4), our own C++ for f32 and f64: for each
// channel c (axis 1) of x: [N, C, …], μ_c and σ²_c (population, second pass
// over centred values) over all other axes of the current batch, then
// y = (x − μ_c) / sqrt(σ²_c + eps) · w_c + b_c, w and b optional ([C],
// defaults 1 and 0). Statistics accumulate in double; the per-element
// arithmetic is in the storage type, as the interpreter writes it.
#include <cmath>
#include <string>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

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
    const size_t inner = static_cast<size_t>(inner_);
    for (int64_t ch = 0; ch < c_; ++ch) {
      double sum = 0;
      for (int64_t bi = 0; bi < n_; ++bi) {
        const T* row = x_ + (bi * c_ + ch) * inner_;
        for (size_t s = 0; s < inner; ++s) sum += static_cast<double>(row[s]);
      }
      const double mean = sum / static_cast<double>(count);
      double sq = 0;
      for (int64_t bi = 0; bi < n_; ++bi) {
        const T* row = x_ + (bi * c_ + ch) * inner_;
        for (size_t s = 0; s < inner; ++s) {
          const double d = static_cast<double>(row[s]) - mean;
          sq += d * d;
        }
      }
      const T mu = static_cast<T>(mean);
      const double denom_d = std::sqrt(sq / static_cast<double>(count) + eps_);
      const T denom = static_cast<T>(denom_d);
      const T scale = w_ != nullptr ? w_[ch] : T(1);
      const T shift = b_ != nullptr ? b_[ch] : T(0);
      if (!std::isnormal(denom)) {
        // sqrt(σ² + eps) below T's range (an eps below f32's on a constant
        // channel gave 0/0 = NaN): this channel in double, as the interpreter does.
        for (int64_t bi = 0; bi < n_; ++bi) {
          const T* row = x_ + (bi * c_ + ch) * inner_;
          T* out = y_ + (bi * c_ + ch) * inner_;
          for (size_t s = 0; s < inner; ++s) {
            out[s] = static_cast<T>((static_cast<double>(row[s]) - mean) / denom_d * static_cast<double>(scale) +
                                    static_cast<double>(shift));
          }
        }
        continue;
      }
      for (int64_t bi = 0; bi < n_; ++bi) {
        const T* __restrict row = x_ + (bi * c_ + ch) * inner_;
        T* __restrict out = y_ + (bi * c_ + ch) * inner_;
        for (size_t s = 0; s < inner; ++s) out[s] = (row[s] - mu) / denom * scale + shift;
      }
    }
    return Status::Ok();
  }
  const char* impl_name() const override { return "ref"; }

 private:
  size_t num_operands_;
  double eps_;
  int64_t n_ = 0, c_ = 0, inner_ = 0;
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
