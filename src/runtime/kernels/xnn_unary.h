// UnaryStage: one f32 elementwise function over a contiguous buffer. It is
// the body of the f32 unary kernels and the activation that dense kernels
// apply in place to their output (FC + activation as one kernel).
//
// Implementations (OPS.md §3.3 asks for 1e-6 relative to the exact formula):
//   tanh   XNNPACK unary.
//   exp, log   our loops (vector_math.h): XNNPACK's exp flushes results
//          below e^-87.3 to 0 and is 2-3x slower than its sigmoid here, its
//          rational log 1e-2 relative off near x = 1.
//   sigmoid  XNNPACK unary on the argument clamped to ±128 (XNNPACK's is
//            NaN for |x| ≳ 1e27; sigmoid is exactly 0 or 1 beyond ±104),
//            chunk by chunk through the stage's buffer.
//   neg, sqrt, relu   our loops: XNNPACK's negate gives +0 for +0, its
//            sqrt NaN for +inf and wrong values above 1e37, and its clamp
//            [0, +inf) keeps −0 (relu(−0) is 0: `x > 0 ? x : 0`).
//   silu   x · sigmoid(x): XNNPACK sigmoid (clamped argument) into a chunk
//          buffer, then our multiply.
//   gelu   the tanh form, rewritten as x · sigmoid(2c(x + 0.044715x³)) (the
//          same function: (1 + tanh u)/2 = sigmoid(2u)), which avoids the
//          cancellation of 1 + tanh(u) for negative x; XNNPACK sigmoid plus
//          our loops; for x < −2 the argument is recomputed in double and
//          the f32 rounding of it corrected to first order (1e-6 relative
//          down to the underflow). XNNPACK's own gelu is the erf form, which
//          OPS.md rejects.
// Every stage tolerates in == out. sigmoid, silu and gelu work in chunks of
// kUnaryChunk elements through a scratch buffer owned by the stage (allocated
// at Create), so they need no workspace and re-read x from cache.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/status.h"
#include "ir/op.h"
#include "runtime/kernels/kernel_util.h"

namespace shrew::runtime::kernels {

inline constexpr size_t kUnaryChunk = 2048;

class UnaryStage {
 public:
  // Whether `op` is one of neg relu gelu silu sigmoid tanh exp log sqrt.
  static bool Supports(ir::OpKind op);
  static Result<UnaryStage> Create(ir::OpKind op);

  UnaryStage(UnaryStage&&) = default;
  UnaryStage& operator=(UnaryStage&&) = default;

  // Elements per run.
  Status Reshape(size_t n);
  // `in` may equal `out`; `in` is readable kTailPaddingBytes past its end.
  Status Setup(const float* in, float* out);
  Status Run();

  ir::OpKind op() const { return op_; }
  int num_xnn_operators() const { return xnn_op_ != nullptr ? 1 : 0; }
  // "xnn_unary", "xnn_sigmoid+ref" (silu, gelu) or "ref" (log, neg, sqrt).
  const char* impl_name() const;

 private:
  enum class Mode { kXnn, kChunkedSigmoid, kLog, kExp, kLoop };
  UnaryStage(ir::OpKind op, Mode mode, XnnOperatorPtr xnn_op);
  Status RunChunkedSigmoid();

  ir::OpKind op_;
  Mode mode_;
  XnnOperatorPtr xnn_op_;
  std::unique_ptr<float[]> scratch_;  // kUnaryChunk + padding floats (kChunkedSigmoid)
  size_t n_ = 0;
  const float* in_ = nullptr;
  float* out_ = nullptr;
};

// log(x) per element, accurate to a few ulp, written so that compilers
// vectorise it (no libm call): log(0) = -inf, log(x < 0) = NaN.
void LogF32(const float* in, float* out, size_t n);
// exp(x) per element, within 1e-6 relative (one subnormal step below 2^-126),
// vectorised the same way (vector_math.h); `in` may equal `out`.
void ExpF32(const float* in, float* out, size_t n);

}  // namespace shrew::runtime::kernels
