#include "jit/ref_kernel.h"

#include <cstring>

#include "interp/eval.h"

namespace shrew::jit {
namespace {

using runtime::Shape;
using runtime::Tensor;

class RefKernel final : public runtime::Kernel {
 public:
  RefKernel(const ir::Graph* graph, const ir::Node* node, std::vector<ir::DType> operand_dtypes,
            ir::DType output_dtype, RefEnv* env)
      : graph_(graph), node_(node), operand_dtypes_(std::move(operand_dtypes)), output_dtype_(output_dtype),
        env_(env) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    if (operand_shapes.size() != operand_dtypes_.size()) {
      return Internal("ref kernel for '" + node_->name + "': " + std::to_string(operand_shapes.size()) +
                      " operand shapes for " + std::to_string(operand_dtypes_.size()) + " operands");
    }
    operands_.clear();
    operand_ptrs_.clear();
    for (size_t i = 0; i < operand_shapes.size(); ++i) {
      Result<Tensor> t = Tensor::Zeros(operand_dtypes_[i], operand_shapes[i]);
      if (!t.ok()) return t.status();
      operands_.push_back(std::move(t).value());
    }
    for (const Tensor& t : operands_) operand_ptrs_.push_back(&t);
    output_shape_ = output_shape;
    Result<int64_t> n = runtime::CountElements(output_shape);
    if (!n.ok()) return n.status();
    output_bytes_ = static_cast<size_t>(*n) * ir::StorageByteSize(ir::StorageOf(output_dtype_));
    sources_.assign(operand_shapes.size(), nullptr);
    return size_t{0};
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != operands_.size()) return Internal("ref kernel: operand count changed");
    for (size_t i = 0; i < operands.size(); ++i) sources_[i] = operands[i];
    output_ = output;
    return Status::Ok();
  }

  Status Run() override {
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (operands_[i].byte_size() > 0) {
        std::memcpy(operands_[i].mutable_raw_data(), sources_[i], operands_[i].byte_size());
      }
    }
    Result<Tensor> y = interp::EvalNode(*graph_, *node_, operand_ptrs_, env_->ctx);
    if (!y.ok()) return y.status();
    if (y->shape() != output_shape_ && y->storage() == ir::StorageOf(output_dtype_) && node_->declared_type) {
      // The plan took the node's declared type (a call's result whose length
      // depends on values keeps it); the value contradicts it, as the
      // interpreter reports.
      std::vector<ir::Dim> dims;
      for (int64_t d : output_shape_) dims.push_back(ir::Dim::Fixed(d));
      return InvalidArgument(graph_->NodeLabel(*node_) + ": computed " + y->TypeString() + " does not match its type " +
                             ir::Type::Tensor(std::move(dims), output_dtype_).ToString())
          .At(node_->blame_span());
    }
    if (y->shape() != output_shape_ || y->storage() != ir::StorageOf(output_dtype_)) {
      return Internal("node '" + node_->name + "': reference result " + y->TypeString() + " differs from the planned " +
                      ir::DTypeName(output_dtype_) + runtime::ShapeToString(output_shape_));
    }
    if (output_bytes_ > 0) std::memcpy(output_, y->raw_data(), output_bytes_);
    return Status::Ok();
  }

  const char* impl_name() const override { return "interp"; }

 private:
  const ir::Graph* graph_;
  const ir::Node* node_;
  std::vector<ir::DType> operand_dtypes_;
  ir::DType output_dtype_;
  RefEnv* env_;
  std::vector<Tensor> operands_;
  std::vector<const Tensor*> operand_ptrs_;
  std::vector<const void*> sources_;
  Shape output_shape_;
  size_t output_bytes_ = 0;
  void* output_ = nullptr;
};

}  // namespace

runtime::KernelPtr MakeRefKernel(const ir::Graph* graph, const ir::Node* node,
                                 std::vector<ir::DType> operand_dtypes, ir::DType output_dtype, RefEnv* env) {
  return std::make_unique<RefKernel>(graph, node, std::move(operand_dtypes), output_dtype, env);
}

}  // namespace shrew::jit
