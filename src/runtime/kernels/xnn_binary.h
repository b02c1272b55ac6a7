// BinaryStage: f32 add/sub/mul/div with NumPy broadcasting (OPS.md §1.4),
// the body of the f32 binary kernels and the "+ c" step of dense kernels
// whose added operand cannot be folded into the fully-connected bias.
//
// XNNPACK's binary-elementwise-nd operator does the work. It takes at most
// XNN_MAX_TENSOR_DIMS (6) axes, so the shapes are first merged
// (BroadcastLoop); the rare broadcast that still needs more than 6 axes runs
// our own strided loop, and so does a broadcast over rows shorter than 32,
// which XNNPACK runs a call per row and ours in groups of rows
// (binary_rows.h). `out` may equal `a` (or `b`) when that operand has the
// output's shape.
#pragma once

#include "base/status.h"
#include "ir/op.h"
#include "runtime/kernels/binary_rows.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"

namespace shrew::runtime::kernels {

class BinaryStage {
 public:
  static bool Supports(ir::OpKind op);  // add sub mul div
  static Result<BinaryStage> Create(ir::OpKind op);

  BinaryStage(BinaryStage&&) = default;
  BinaryStage& operator=(BinaryStage&&) = default;

  // `a` and `b` must broadcast to exactly `out` (else InvalidArgument).
  Status Reshape(const Shape& a, const Shape& b, const Shape& out);
  Status Setup(const float* a, const float* b, float* out);
  Status Run();

  int num_xnn_operators() const { return xnn_op_ != nullptr ? 1 : 0; }
  // Whether the last Reshape chose XNNPACK (false: our strided loop).
  bool uses_xnn() const { return use_xnn_; }

 private:
  BinaryStage(ir::OpKind op, XnnOperatorPtr xnn_op, BinaryRows rows)
      : op_(op), xnn_op_(std::move(xnn_op)), rows_(rows) {}

  ir::OpKind op_;
  XnnOperatorPtr xnn_op_;
  BinaryRows rows_;  // the strided loop
  BroadcastLoop<2> loop_;
  bool use_xnn_ = true;
  const float* a_ = nullptr;
  const float* b_ = nullptr;
  float* out_ = nullptr;
};

}  // namespace shrew::runtime::kernels
