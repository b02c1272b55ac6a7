// f32 unary elementwise kernels: UnaryStage (see xnn_unary.h) wrapped as a
// Kernel, plus the vectorisable log.
#include "runtime/kernels/xnn_unary.h"

#include <xnnpack.h>
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/loops.h"
#include "runtime/kernels/vector_math.h"
#include "runtime/xnn_init.h"

namespace shrew::runtime::kernels {
namespace {

// 2·√(2/π) and 2·√(2/π)·0.044715: gelu(x) = x · sigmoid(t), t = x·(kA + kB·x²).
constexpr double kGeluA = 2.0 * 0.7978845608028654;
constexpr double kGeluB = 2.0 * 0.7978845608028654 * 0.044715;
constexpr float kGeluAf = static_cast<float>(kGeluA);
constexpr float kGeluBf = static_cast<float>(kGeluB);
inline double GeluArg(float x) {
  const double d = x;
  return d * (kGeluA + kGeluB * d * d);
}
inline float GeluArgF32(float x) { return x * (kGeluAf + kGeluBf * x * x); }
// sigmoid(t) ≈ e^t for negative t turns an absolute error in t into the
// same relative error in the result: t computed in f32 (about 1.2e-7·|t|)
// stays within OPS.md's 1e-6 while t > −3.75, i.e. x > −2. Below, t is
// recomputed in double and the sigmoid corrected (rare for activations).
constexpr float kGeluExactBelow = -2.0f;

}  // namespace

namespace {

// What rounding t to the f32 argument `hi` of the sigmoid dropped (0 when
// t was clamped or is not finite: the sigmoid is saturated there).
inline float GeluArgLow(double t, float hi) {
  const double lo = t - static_cast<double>(hi);
  return static_cast<float>(std::fabs(lo) < 1.0 ? lo : 0.0);
}

// y[i] = x[i] · s[i]; y may equal x, s is a separate buffer.
void MultiplyBy(const float* x, const float* __restrict s, float* y, size_t n) {
  if (x == y) {
    float* __restrict p = y;
    for (size_t i = 0; i < n; ++i) p[i] *= s[i];
  } else {
    const float* __restrict a = x;
    float* __restrict out = y;
    for (size_t i = 0; i < n; ++i) out[i] = a[i] * s[i];
  }
}

// XNNPACK's f32 sigmoid returns NaN for |x| in about [1e27, 3e38) (its
// rational approximation overflows before the saturation it applies to
// ±inf). sigmoid is already exactly 0 or 1 in f32 for |x| > 104, so the
// argument is clamped to ±kSigmoidArgLimit first; NaN passes through.
constexpr float kSigmoidArgLimit = 128.0f;
inline float ClampSigmoidArg(float v) {
  return v < -kSigmoidArgLimit ? -kSigmoidArgLimit : (v > kSigmoidArgLimit ? kSigmoidArgLimit : v);
}
// XNNPACK's sigmoid returns 0 wherever the result would be subnormal
// (arguments below −87.34), although x·sigmoid is a normal number there:
// silu(−87.5) = −8.7e-37, gelu(−10) = −1.2e-37. Elements whose argument is
// below kSigmoidFlushBelow (rare) are recomputed in double. gelu's argument
// t(x) = x·(kA + kB·x²) is above −86 for x >= kGeluFlushBelow.
constexpr float kSigmoidFlushBelow = -87.0f;
constexpr float kGeluFlushBelow = -9.9f;
inline double SigmoidD(double t) { return 1.0 / (1.0 + std::exp(-t)); }

// y[i] = ClampSigmoidArg(x[i]) (y may be x). In wasm clang turns the
// ternaries into f32x4.min/max, whose NaN rules cost V8 about eight x64
// instructions each; pmin/pmax (one minps/maxps) give the same result here.
void ClampSigmoidArgs(const float* x, float* y, size_t n) {
  size_t i = 0;
#if defined(__wasm_simd128__)
  const v128_t hi = wasm_f32x4_splat(kSigmoidArgLimit);
  const v128_t lo = wasm_f32x4_splat(-kSigmoidArgLimit);
  for (; i + 4 <= n; i += 4) {
    wasm_v128_store(y + i, wasm_f32x4_pmax(wasm_f32x4_pmin(wasm_v128_load(x + i), hi), lo));
  }
#endif
  for (; i < n; ++i) y[i] = ClampSigmoidArg(x[i]);
}

// Bit i set when x[i] < limit, for i < 16: the few such elements are then
// visited without testing the others one by one.
inline uint32_t Below16Mask(const float* x, float limit) {
#if defined(__wasm_simd128__)
  const v128_t l = wasm_f32x4_splat(limit);
  return wasm_i32x4_bitmask(wasm_f32x4_lt(wasm_v128_load(x), l)) |
         wasm_i32x4_bitmask(wasm_f32x4_lt(wasm_v128_load(x + 4), l)) << 4 |
         wasm_i32x4_bitmask(wasm_f32x4_lt(wasm_v128_load(x + 8), l)) << 8 |
         wasm_i32x4_bitmask(wasm_f32x4_lt(wasm_v128_load(x + 12), l)) << 12;
#else
  uint32_t mask = 0;
  for (uint32_t i = 0; i < 16; ++i) mask |= static_cast<uint32_t>(x[i] < limit) << i;
  return mask;
#endif
}

// masks[g] bit b = (x[16g + b] < limit), for n <= kUnaryChunk: one
// vectorisable test per group of 16. Returns whether any bit is set.
bool BelowMasks(const float* x, size_t n, float limit, uint32_t* masks) {
  uint32_t any = 0;
  size_t g = 0;
  for (; g + 16 <= n; g += 16) any |= masks[g / 16] = Below16Mask(x + g, limit);
  if (g < n) {
    uint32_t m = 0;
    for (size_t i = g; i < n; ++i) m |= static_cast<uint32_t>(x[i] < limit) << (i - g);
    any |= masks[g / 16] = m;
  }
  return any != 0;
}
constexpr size_t kMaskWords = (kUnaryChunk + 15) / 16;
// Calls f(i) for every bit set in masks (the rare hits).
template <typename F>
void ForEachSet(const uint32_t* masks, size_t n, F&& f) {
  for (size_t w = 0; w < (n + 15) / 16; ++w) {
    for (uint32_t m = masks[w]; m != 0; m &= m - 1) f(16 * w + static_cast<size_t>(__builtin_ctz(m)));
  }
}
// Clears the bits whose index fails `keep` (visiting only set bits);
// returns whether any bit is left.
template <typename F>
bool KeepSet(uint32_t* masks, size_t n, F&& keep) {
  uint32_t any = 0;
  for (size_t w = 0; w < (n + 15) / 16; ++w) {
    for (uint32_t m = masks[w]; m != 0; m &= m - 1) {
      const uint32_t bit = m & (~m + 1);
      if (!keep(16 * w + static_cast<size_t>(__builtin_ctz(m)))) masks[w] &= ~bit;
    }
    any |= masks[w];
  }
  return any != 0;
}

}  // namespace

void LogF32(const float* in, float* out, size_t n) { LogRow(in, out, n); }
void ExpF32(const float* in, float* out, size_t n) { ExpRow(in, out, n); }

bool UnaryStage::Supports(ir::OpKind op) {
  using K = ir::OpKind;
  switch (op) {
    case K::kNeg:
    case K::kRelu:
    case K::kGelu:
    case K::kSilu:
    case K::kSigmoid:
    case K::kTanh:
    case K::kExp:
    case K::kLog:
    case K::kSqrt:
      return true;
    default:
      return false;
  }
}

UnaryStage::UnaryStage(ir::OpKind op, Mode mode, XnnOperatorPtr xnn_op)
    : op_(op), mode_(mode), xnn_op_(std::move(xnn_op)) {}

Result<UnaryStage> UnaryStage::Create(ir::OpKind op) {
  using K = ir::OpKind;
  if (!Supports(op)) return InvalidArgument(std::string(ir::OpName(op)) + " is not a unary elementwise op");
  if (op == K::kLog) return UnaryStage(op, Mode::kLog, nullptr);
  // XNNPACK's exp flushes results below e^-87.3 to 0 and costs 2-3x its
  // own sigmoid here; ours (vector_math.h) is a vectorised loop.
  if (op == K::kExp) return UnaryStage(op, Mode::kExp, nullptr);
  // XNNPACK's negate gives +0 for +0 (OPS.md: -x, so -0), its sqrt is NaN
  // for +inf and up to 50 % off above 1e37, and its clamp to [0, +inf)
  // returns -0 for -0 (OPS.md: relu is x if x > 0, else 0): plain loops
  // here (exact IEEE operations; the relu select vectorises).
  if (op == K::kNeg || op == K::kSqrt || op == K::kRelu) return UnaryStage(op, Mode::kLoop, nullptr);
  SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());

  xnn_unary_operator type = xnn_unary_invalid;
  Mode mode = Mode::kXnn;
  switch (op) {
    case K::kTanh:
      type = xnn_unary_tanh;
      break;
    case K::kSigmoid:
    case K::kSilu:
    case K::kGelu:
      type = xnn_unary_sigmoid;
      mode = Mode::kChunkedSigmoid;
      break;
    default:
      break;
  }
  xnn_operator_t raw = nullptr;
  SHREW_RETURN_IF_ERROR(XnnCheck(xnn_create_unary_elementwise_nc(type, xnn_datatype_fp32, xnn_datatype_fp32,
                                                                 /*params=*/nullptr, nullptr, nullptr, /*flags=*/0,
                                                                 &raw),
                                 ir::OpName(op), "create"));
  UnaryStage stage(op, mode, AdoptXnnOperator(raw));
  if (mode == Mode::kChunkedSigmoid) {
    stage.scratch_.reset(new float[kUnaryChunk + kTailPaddingBytes / sizeof(float)]());
  }
  return stage;
}

Status UnaryStage::Reshape(size_t n) {
  n_ = n;
  if (mode_ == Mode::kXnn) {
    return XnnCheck(xnn_reshape_unary_elementwise_nc(xnn_op_.get(), /*batch_size=*/1, /*channels=*/n,
                                                     /*input_stride=*/n, /*output_stride=*/n, nullptr),
                    ir::OpName(op_), "reshape");
  }
  return Status::Ok();
}

Status UnaryStage::Setup(const float* in, float* out) {
  in_ = in;
  out_ = out;
  if (mode_ == Mode::kXnn && n_ > 0) {
    return XnnCheck(xnn_setup_unary_elementwise_nc(xnn_op_.get(), in, out), ir::OpName(op_), "setup");
  }
  return Status::Ok();
}

Status UnaryStage::Run() {
  if (n_ == 0) return Status::Ok();
  switch (mode_) {
    case Mode::kXnn:
      return XnnCheck(xnn_run_operator(xnn_op_.get(), nullptr), ir::OpName(op_), "run");
    case Mode::kLog:
      LogF32(in_, out_, n_);
      return Status::Ok();
    case Mode::kExp:
      ExpF32(in_, out_, n_);
      return Status::Ok();
    case Mode::kLoop:
      if (op_ == ir::OpKind::kNeg) {
        MapUnary(in_, out_, n_, [](float x) { return -x; });
      } else if (op_ == ir::OpKind::kRelu) {
        MapUnary(in_, out_, n_, [](float x) { return x > 0.0f ? x : 0.0f; });
      } else {
        MapUnary(in_, out_, n_, [](float x) { return std::sqrt(x); });
      }
      return Status::Ok();
    case Mode::kChunkedSigmoid:
      return RunChunkedSigmoid();
  }
  return Status::Ok();
}

Status UnaryStage::RunChunkedSigmoid() {
  // Chunks keep x in cache between the passes; reshaping a unary operator
  // only fills its context (no allocation), so doing it per chunk is cheap.
  float* scratch = scratch_.get();
  const bool gelu = op_ == ir::OpKind::kGelu;
  const bool product = op_ != ir::OpKind::kSigmoid;
  uint32_t hits[kMaskWords];
  for (size_t start = 0; start < n_; start += kUnaryChunk) {
    const size_t len = n_ - start < kUnaryChunk ? n_ - start : kUnaryChunk;
    const float* x = in_ + start;
    float* y = out_ + start;
    const float* __restrict xr = x;
    float* __restrict sr = scratch;
    if (gelu) {
      for (size_t i = 0; i < len; ++i) sr[i] = GeluArgF32(xr[i]);
      ClampSigmoidArgs(scratch, scratch, len);
    } else {
      ClampSigmoidArgs(x, scratch, len);
    }
    SHREW_RETURN_IF_ERROR(XnnCheck(xnn_reshape_unary_elementwise_nc(xnn_op_.get(), 1, len, len, len, nullptr),
                                   ir::OpName(op_), "reshape"));
    SHREW_RETURN_IF_ERROR(XnnCheck(xnn_setup_unary_elementwise_nc(xnn_op_.get(), scratch, product ? scratch : y),
                                   ir::OpName(op_), "setup"));
    SHREW_RETURN_IF_ERROR(XnnCheck(xnn_run_operator(xnn_op_.get(), nullptr), ir::OpName(op_), "run"));
    if (!product) {
      // scratch still holds the (clamped) arguments.
      if (BelowMasks(scratch, len, kSigmoidFlushBelow, hits)) {
        ForEachSet(hits, len, [&](size_t i) { y[i] = static_cast<float>(SigmoidD(scratch[i])); });
      }
      continue;
    }
    // Flushed products, found while x is intact (y may be x): the exact
    // value goes into scratch[i] now and over y[i] after the multiplication.
    bool flushed;
    if (gelu) {
      // sigmoid(hi + lo) = s·(1 + (1 − s)·lo) to first order (|lo| is a few
      // ulp of hi, the second-order term below 1e-11 relative). Such x are
      // rare: groups of 16 without one cost one vectorisable test, which
      // also finds the flushed ones (a subset).
      flushed = BelowMasks(xr, len, kGeluExactBelow, hits) && KeepSet(hits, len, [&](size_t i) {
                  const float lo = GeluArgLow(GeluArg(xr[i]), ClampSigmoidArg(GeluArgF32(xr[i])));
                  const float si = scratch[i];
                  scratch[i] = si + si * (1.0f - si) * lo;
                  return xr[i] < kGeluFlushBelow;
                });
    } else {
      flushed = BelowMasks(xr, len, kSigmoidFlushBelow, hits);
    }
    if (flushed) {
      ForEachSet(hits, len, [&](size_t i) {
        const double xd = xr[i];
        scratch[i] = static_cast<float>(xd * SigmoidD(gelu ? GeluArg(xr[i]) : xd));
      });
    }
    MultiplyBy(x, scratch, y, len);
    if (flushed) ForEachSet(hits, len, [&](size_t i) { y[i] = scratch[i]; });
  }
  return Status::Ok();
}

const char* UnaryStage::impl_name() const {
  switch (mode_) {
    case Mode::kXnn:
      return "xnn_unary";
    case Mode::kChunkedSigmoid:
      return op_ == ir::OpKind::kSigmoid ? "xnn_unary" : "xnn_sigmoid+ref";
    case Mode::kLog:
    case Mode::kExp:
    case Mode::kLoop:
      return "ref";
  }
  return "?";
}

namespace {

class XnnUnaryKernel final : public Kernel {
 public:
  explicit XnnUnaryKernel(UnaryStage stage) : stage_(std::move(stage)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(stage_.op());
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, 1, 1, output_shape));
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, operand_shapes[0], output_shape));
    SHREW_RETURN_IF_ERROR(stage_.Reshape(static_cast<size_t>(NumElements(output_shape))));
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 1) return InvalidArgument(std::string(ir::OpName(stage_.op())) + ": expected 1 operand");
    return stage_.Setup(static_cast<const float*>(operands[0]), static_cast<float*>(output));
  }
  Status Run() override { return stage_.Run(); }
  bool CanRunInPlace(size_t operand_index) const override { return operand_index == 0; }
  int num_xnn_operators() const override { return stage_.num_xnn_operators(); }
  const char* impl_name() const override { return stage_.impl_name(); }

 private:
  UnaryStage stage_;
};

}  // namespace

Result<KernelPtr> CreateUnaryKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 1, 1));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  if (*storage != ir::StorageType::kF32) return CreateRefUnaryKernel(spec);
  Result<UnaryStage> stage = UnaryStage::Create(spec.node->op);
  if (!stage.ok()) return stage.status();
  return KernelPtr(new XnnUnaryKernel(std::move(stage).value()));
}

}  // namespace shrew::runtime::kernels
