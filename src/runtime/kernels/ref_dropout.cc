// dropout in training mode (OPS.md §3.11.5), f32 and f64: one uniform draw
// u ~ U[0,1) per element in row-major order from the program's seeded
// generator (continuing its stream, so results are deterministic for a
// seed and identical to the interpreter's for the same generator state);
// kept elements (u ≥ p) are scaled by 1/(1 − p), computed in double then
// rounded to the storage type. In inference mode (or p = 0) the JIT makes
// dropout an alias and never creates this kernel; CreateCopyKernel serves
// an explicit inference-mode instruction. An invalid p (outside [0, 1))
// is reported when the instruction runs, like the interpreter does.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "ir/attr.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

namespace shrew::runtime::kernels {
namespace {

// v, or +0 where !keep, by masking its bits (v may be inf or NaN: no
// multiply by 0).
template <typename T>
T KeptOrZero(T v, uint32_t keep) {  // keep: 0 or 1
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits &= U(0) - static_cast<U>(keep);
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

template <typename T>
class DropoutKernel final : public Kernel {
 public:
  DropoutKernel(double p, Rng* rng) : p_(p), rng_(rng) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes("dropout", operand_shapes, 1, 1, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape("dropout", operand_shapes[0], output_shape));
    n_ = static_cast<size_t>(NumElements(output_shape));
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument("dropout: expected 1 operand");
    x_ = static_cast<const T*>(operands[0]);
    y_ = static_cast<T*>(output);
    return Status::Ok();
  }
  Status Run() override {
    const T scale = static_cast<T>(1.0 / (1.0 - p_));
    // u >= p as an integer comparison, stored for a block, then the choice
    // as a mask in a loop that vectorises: a branch (or a select, which V8
    // may compile to one) on random draws mispredicted (p = 0.5: 10 ns an
    // element).
    const uint64_t keep_from = Rng::UniformThreshold(p_);
    constexpr size_t kBlock = 256;
    uint64_t bits[kBlock];
    uint32_t keep[kBlock];
    for (size_t i0 = 0; i0 < n_; i0 += kBlock) {
      const size_t len = std::min(kBlock, n_ - i0);
      rng_->NextBitsInto(bits, len);
      for (size_t j = 0; j < len; ++j) keep[j] = static_cast<uint32_t>((bits[j] >> 11) >= keep_from);
      const T* x = x_ + i0;  // may be y (in place): each element read, then written
      T* y = y_ + i0;
      for (size_t j = 0; j < len; ++j) y[j] = KeptOrZero(x[j] * scale, keep[j]);
    }
    return Status::Ok();
  }
  bool CanRunInPlace(size_t i) const override { return i == 0; }
  const char* impl_name() const override { return "ref"; }

 private:
  double p_;
  Rng* rng_;
  size_t n_ = 0;
  const T* x_ = nullptr;
  T* y_ = nullptr;
};

// Reports an invalid probability when run (the graph still compiles).
class InvalidDropoutKernel final : public Kernel {
 public:
  explicit InvalidDropoutKernel(double p) : p_(p) {}
  Result<size_t> Reshape(std::span<const Shape>, const Shape&) override { return size_t{0}; }
  Status Setup(std::span<const void* const>, void*, void*) override { return Status::Ok(); }
  Status Run() override {
    return InvalidArgument("dropout probability " + ir::FormatDouble(p_) + " is outside [0, 1)");
  }
  const char* impl_name() const override { return "ref"; }

 private:
  double p_;
};

}  // namespace

Result<KernelPtr> CreateDropoutKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  Result<double> p = FloatAttr(*spec.node, "p");
  if (!p.ok()) return p.status();
  if (!(*p >= 0.0 && *p < 1.0)) return KernelPtr(new InvalidDropoutKernel(*p));
  if (!spec.training || *p == 0.0) return CreateCopyKernel(spec);
  if (spec.rng == nullptr) return FailedPrecondition("dropout in training mode needs a random generator");
  if (*storage == ir::StorageType::kF32) return KernelPtr(new DropoutKernel<float>(*p, spec.rng));
  if (*storage == ir::StorageType::kF64) return KernelPtr(new DropoutKernel<double>(*p, spec.rng));
  return InvalidArgument(std::string("dropout requires a float operand, got ") + ir::DTypeName(spec.output_dtype));
}

}  // namespace shrew::runtime::kernels
