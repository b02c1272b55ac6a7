// f32 binary elementwise kernels: add sub mul div and fused_add_relu /
// fused_sub_relu (the binary op, then relu in place on the output; the
// XNNPACK binary operator has no output clamp in this version).
#include "runtime/kernels/xnn_binary.h"

#include <xnnpack.h>

#include <optional>
#include <string>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/xnn_unary.h"
#include "runtime/xnn_init.h"

namespace shrew::runtime::kernels {

bool BinaryStage::Supports(ir::OpKind op) {
  using K = ir::OpKind;
  return op == K::kAdd || op == K::kSub || op == K::kMul || op == K::kDiv;
}

Result<BinaryStage> BinaryStage::Create(ir::OpKind op) {
  using K = ir::OpKind;
  if (!Supports(op)) return InvalidArgument(std::string(ir::OpName(op)) + " is not add, sub, mul or div");
  SHREW_RETURN_IF_ERROR(EnsureXnnInitialized());
  const xnn_binary_operator type = op == K::kAdd   ? xnn_binary_add
                                   : op == K::kSub ? xnn_binary_subtract
                                   : op == K::kMul ? xnn_binary_multiply
                                                   : xnn_binary_divide;
  xnn_operator_t raw = nullptr;
  SHREW_RETURN_IF_ERROR(
      XnnCheck(xnn_create_binary_elementwise_nd(type, xnn_datatype_fp32, nullptr, nullptr, nullptr, /*flags=*/0, &raw),
               ir::OpName(op), "create"));
  return BinaryStage(op, AdoptXnnOperator(raw), ArithmeticRows(op, ir::StorageType::kF32));
}

Status BinaryStage::Reshape(const Shape& a, const Shape& b, const Shape& out) {
  Result<Shape> expected = BroadcastShapes(a, b);
  if (!expected.ok()) return InvalidArgument(std::string(ir::OpName(op_)) + ": " + expected.status().message());
  SHREW_RETURN_IF_ERROR(CheckOutputShape(ir::OpName(op_), *expected, out));
  loop_.Init(out, {&a, &b});
  // XNNPACK makes a call per row: rows shorter than 32 go in groups on ours.
  use_xnn_ = loop_.rank() <= XNN_MAX_TENSOR_DIMS && !BinaryRows::RunsInGroups(loop_);
  if (!use_xnn_ || loop_.empty()) return Status::Ok();
  const std::vector<size_t> da = loop_.InputDims(0);
  const std::vector<size_t> db = loop_.InputDims(1);
  return XnnCheck(xnn_reshape_binary_elementwise_nd(xnn_op_.get(), da.size(), da.data(), db.size(), db.data(), nullptr),
                  ir::OpName(op_), "reshape");
}

Status BinaryStage::Setup(const float* a, const float* b, float* out) {
  a_ = a;
  b_ = b;
  out_ = out;
  if (!use_xnn_ || loop_.empty()) return Status::Ok();
  return XnnCheck(xnn_setup_binary_elementwise_nd(xnn_op_.get(), a, b, out), ir::OpName(op_), "setup");
}

Status BinaryStage::Run() {
  if (loop_.empty()) return Status::Ok();
  if (use_xnn_) return XnnCheck(xnn_run_operator(xnn_op_.get(), nullptr), ir::OpName(op_), "run");
  rows_.Run(loop_, a_, b_, out_);
  return Status::Ok();
}

namespace {

class XnnBinaryKernel final : public Kernel {
 public:
  XnnBinaryKernel(ir::OpKind op, BinaryStage binary, std::optional<UnaryStage> relu)
      : op_(op), binary_(std::move(binary)), relu_(std::move(relu)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    SHREW_RETURN_IF_ERROR(CheckShapes(ir::OpName(op_), operand_shapes, 2, 2, output_shape));
    SHREW_RETURN_IF_ERROR(binary_.Reshape(operand_shapes[0], operand_shapes[1], output_shape));
    if (relu_) SHREW_RETURN_IF_ERROR(relu_->Reshape(static_cast<size_t>(NumElements(output_shape))));
    for (size_t i = 0; i < 2; ++i) same_shape_[i] = operand_shapes[i] == output_shape;
    return size_t{0};
  }
  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != 2) return InvalidArgument(std::string(ir::OpName(op_)) + ": expected 2 operands");
    float* out = static_cast<float*>(output);
    SHREW_RETURN_IF_ERROR(
        binary_.Setup(static_cast<const float*>(operands[0]), static_cast<const float*>(operands[1]), out));
    if (relu_) SHREW_RETURN_IF_ERROR(relu_->Setup(out, out));
    return Status::Ok();
  }
  Status Run() override {
    SHREW_RETURN_IF_ERROR(binary_.Run());
    if (relu_) SHREW_RETURN_IF_ERROR(relu_->Run());
    return Status::Ok();
  }
  // Elementwise: the output may take over an operand of the same shape.
  bool CanRunInPlace(size_t i) const override { return i < 2 && same_shape_[i]; }
  int num_xnn_operators() const override {
    return binary_.num_xnn_operators() + (relu_ ? relu_->num_xnn_operators() : 0);
  }
  const char* impl_name() const override {
    if (!binary_.uses_xnn()) return relu_ ? "ref_strided+relu" : "ref_strided";
    return relu_ ? "xnn_binary+relu" : "xnn_binary";
  }

 private:
  ir::OpKind op_;
  BinaryStage binary_;
  std::optional<UnaryStage> relu_;
  // Before the first Reshape shapes are unknown; the planner asks after it.
  bool same_shape_[2] = {true, true};
};

}  // namespace

Result<KernelPtr> CreateBinaryKernel(const KernelSpec& spec) {
  SHREW_RETURN_IF_ERROR(CheckOperandCount(spec, 2, 2));
  Result<ir::StorageType> storage = CommonStorage(spec);
  if (!storage.ok()) return storage.status();
  using K = ir::OpKind;
  const K op = spec.node->op;
  if (*storage != ir::StorageType::kF32 || op == K::kMod || op == K::kPow) return CreateRefBinaryKernel(spec);
  const bool relu = op == K::kFusedAddRelu || op == K::kFusedSubRelu;
  const K base = op == K::kFusedAddRelu ? K::kAdd : op == K::kFusedSubRelu ? K::kSub : op;
  Result<BinaryStage> binary = BinaryStage::Create(base);
  if (!binary.ok()) return binary.status();
  std::optional<UnaryStage> relu_stage;
  if (relu) {
    Result<UnaryStage> r = UnaryStage::Create(K::kRelu);
    if (!r.ok()) return r.status();
    relu_stage.emplace(std::move(r).value());
  }
  return KernelPtr(new XnnBinaryKernel(op, std::move(binary).value(), std::move(relu_stage)));
}

}  // namespace shrew::runtime::kernels
