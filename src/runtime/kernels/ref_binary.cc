// Binary arithmetic (add sub mul div, fused_add_relu, fused_sub_relu) in our
// own C++ for f64 and integer storage (i64, u8), with broadcasting; mod and
// pow for every numeric storage type including f32 (XNNPACK's modulus is
// truncated and its pow is exp·log, both wrong for OPS.md §3.4). The
// semantics are binary_rows.h's; this kernel adds the shape checks and the
// integer checks that fail a run: "integer division by zero" and "negative
// integer exponent in pow".
#include <string>

#include "runtime/kernels/binary_rows.h"
#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

namespace shrew::runtime::kernels {
namespace {

class RefBinaryKernel final : public Kernel {
 public:
  RefBinaryKernel(ir::OpKind op, ir::StorageType storage, BinaryRows rows) : op_(op), storage_(storage), rows_(rows) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const char* name = ir::OpName(op_);
    SHREW_RETURN_IF_ERROR(CheckShapes(name, operand_shapes, 2, 2, output_shape));
    Result<Shape> expected = BroadcastShapes(operand_shapes[0], operand_shapes[1]);
    if (!expected.ok()) return InvalidArgument(std::string(name) + ": " + expected.status().message());
    SHREW_RETURN_IF_ERROR(CheckOutputShape(name, *expected, output_shape));
    loop_.Init(output_shape, {&operand_shapes[0], &operand_shapes[1]});
    b_elements_ = static_cast<size_t>(NumElements(operand_shapes[1]));
    for (size_t i = 0; i < 2; ++i) same_shape_[i] = operand_shapes[i] == output_shape;
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 2 operands");
    a_ = operands[0];
    b_ = operands[1];
    out_ = output;
    return Status::Ok();
  }
  Status Run() override {
    if (loop_.empty()) return Status::Ok();
    SHREW_RETURN_IF_ERROR(CheckRightOperand(op_, storage_, b_, b_elements_));
    rows_.Run(loop_, a_, b_, out_);
    return Status::Ok();
  }
  bool CanRunInPlace(size_t i) const override { return i < 2 && same_shape_[i]; }
  const char* impl_name() const override { return "ref"; }

 private:
  ir::OpKind op_;
  ir::StorageType storage_;
  BinaryRows rows_;
  BroadcastLoop<2> loop_;
  size_t b_elements_ = 0;
  bool same_shape_[2] = {true, true};
  const void* a_ = nullptr;
  const void* b_ = nullptr;
  void* out_ = nullptr;
};

}  // namespace

Result<KernelPtr> CreateRefBinaryKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  const ir::OpKind op = spec.node->op;
  const BinaryRows rows = ArithmeticRows(op, *storage);
  if (!rows) {
    return InvalidArgument(std::string(ir::OpName(op)) + " has no kernel for dtype " +
                           ir::DTypeName(spec.output_dtype));
  }
  return KernelPtr(new RefBinaryKernel(op, *storage, rows));
}

}  // namespace shrew::runtime::kernels
