#include "jit/call_kernel.h"

#include <cstring>
#include <string>

#include "interp/eval.h"
#include "jit/binding.h"
#include "jit/executor.h"

namespace shrew::jit {
namespace {

using runtime::Shape;


class CallKernel final : public runtime::Kernel {
 public:
  CallKernel(const ir::Graph* callee, int index, CalleeResolver resolve, ir::DimBindings config_dims,
             std::vector<ir::DType> dtypes, std::vector<int> input_indices, CallResult result, CallCheck check)
      : callee_(callee), index_(index), resolve_(std::move(resolve)), config_dims_(std::move(config_dims)),
        dtypes_(std::move(dtypes)), input_indices_(std::move(input_indices)), result_(result),
        check_(std::move(check)) {}

  Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) override {
    const std::string where = "call[" + callee_->name() + "]";
    if (operand_shapes.size() != dtypes_.size() || input_indices_.size() != dtypes_.size()) {
      return InvalidArgument(where + ": operand count changed");
    }
    // Inputs no operand binds are left-out optional ones (OPS.md §3.16):
    // not present, and an error if the callee reads them, as for a run.
    const size_t num_inputs = callee_->inputs().size();
    descs_.assign(num_inputs, InputDesc{});
    for (size_t k = 0; k < operand_shapes.size(); ++k) {
      const size_t i = static_cast<size_t>(input_indices_[k]);
      if (i >= num_inputs) return Internal(where + ": operand " + std::to_string(k) + " binds no input");
      descs_[i] = {true, dtypes_[k], operand_shapes[k]};
    }
    Result<ir::DimBindings> dims = BindInputs(*callee_, config_dims_, descs_);
    if (!dims.ok()) return dims.status();
    dims_ = std::move(dims).value();
    if (check_) {
      Status held = check_(*callee_, dims_);
      // "graph 'B': assertion failed …": the caller's node names the call.
      if (!held.ok()) return interp::GraphFailure(callee_->name(), held);
    }
    target_ = {};  // other inputs: another executor
    Status resolved = resolve_(index_, descs_, dims_, &target_);
    // The node's label already names the callee (`call[G]`) for a resolve
    // error: its messages name the graph.
    if (!resolved.ok()) return resolved;
    Executor* ex = target_.executor;
    if (ex == nullptr) return FailedPrecondition(where + ": the callee is not compiled");
    shapes_.assign(num_inputs, Shape{});
    for (size_t i = 0; i < num_inputs; ++i) {
      if (descs_[i].present) {
        shapes_[i] = descs_[i].shape;
        continue;
      }
      const ir::Node& in = callee_->node(callee_->inputs()[i].node);
      if (ex->graph().input_read[i]) {
        return InvalidArgument(ir::MissingInputMessage(*callee_, i, in.type.Bind(dims_)));
      }
      shapes_[i] = ConcreteShape(in.type, dims_, 0);
    }
    SHREW_RETURN_IF_ERROR(ex->Bind(shapes_, dims_));
    // A repeat's iteration must give the carried dtype itself (an i64 for an
    // i32 carried is E110, as the interpreter says); other calls, its storage.
    const bool same_dtype = result_.repeat_iteration ? ex->output_dtype(0) == result_.dtype
                                                     : ir::StorageOf(ex->output_dtype(0)) == ir::StorageOf(result_.dtype);
    if (ex->output_shape(0) != output_shape || !same_dtype) {
      const ir::Type planned = ir::FixedType(output_shape, result_.dtype);
      const ir::Type given = ir::FixedType(ex->output_shape(0), ex->output_dtype(0));
      // A repeat's iteration is planned with the carried type: a callee
      // typed per run can give another (OPS.md §3.15), which only shows here.
      if (result_.repeat_iteration) {
        return InvalidArgument(ir::RepeatChangesTypeMessage(planned, given));
      }
      return Internal(where + ": the callee produces " + given.ToString() + " but the caller planned " +
                      planned.ToString());
    }
    out_bytes_ = 0;
    Result<int64_t> n = runtime::CountElements(output_shape);
    if (!n.ok()) return n.status();
    out_bytes_ = static_cast<size_t>(*n) * ir::StorageByteSize(ir::StorageOf(ex->output_dtype(0)));
    in_bytes_.clear();
    for (size_t i = 0; i < operand_shapes.size(); ++i) {
      Result<int64_t> count = runtime::CountElements(operand_shapes[i]);
      if (!count.ok()) return count.status();
      in_bytes_.push_back(static_cast<size_t>(*count) * ir::StorageByteSize(ir::StorageOf(dtypes_[i])));
      if (in_bytes_.back() != ex->input_bytes(input_indices_[i])) {
        return Internal(where + ": input " + std::to_string(i) + " buffer size differs from the operand");
      }
    }
    return size_t{0};
  }

  Status Setup(std::span<const void* const> operands, void* output, void* workspace) override {
    if (operands.size() != dtypes_.size()) return InvalidArgument("call: operand count changed");
    src_.assign(operands.begin(), operands.end());
    out_ = output;
    return Status::Ok();
  }

  Status Run() override {
    SHREW_RETURN_IF_ERROR(resolve_(index_, descs_, dims_, &target_));
    Executor* ex = target_.executor;
    if (ex == nullptr) return FailedPrecondition("call[" + callee_->name() + "]: the callee is not compiled");
    SHREW_RETURN_IF_ERROR(ex->Bind(shapes_, dims_));
    for (size_t i = 0; i < src_.size(); ++i) {
      if (in_bytes_[i] > 0) std::memcpy(ex->input_data(input_indices_[i]), src_[i], in_bytes_[i]);
    }
    SHREW_RETURN_IF_ERROR(ex->Run());
    if (out_bytes_ > 0) std::memcpy(out_, ex->output_data(0), out_bytes_);
    return Status::Ok();
  }

  const char* impl_name() const override { return "call"; }

 private:
  const ir::Graph* callee_;
  int index_;
  CalleeResolver resolve_;
  ir::DimBindings config_dims_;
  std::vector<ir::DType> dtypes_;
  std::vector<int> input_indices_;  // operand k binds input input_indices_[k]
  CallResult result_;
  CallCheck check_;
  std::vector<InputDesc> descs_;    // per callee input
  std::vector<Shape> shapes_;       // per callee input
  ir::DimBindings dims_;
  CalleeTarget target_;             // the last one resolved (keeps a per-signature executor alive)
  std::vector<size_t> in_bytes_;
  size_t out_bytes_ = 0;
  std::vector<const void*> src_;
  void* out_ = nullptr;
};

}  // namespace

runtime::KernelPtr MakeCallKernel(const ir::Graph* callee, int callee_index, CalleeResolver resolve,
                                  ir::DimBindings config_dims, std::vector<ir::DType> operand_dtypes,
                                  std::vector<int> input_indices, CallResult result, CallCheck check) {
  return std::make_unique<CallKernel>(callee, callee_index, std::move(resolve), std::move(config_dims),
                                      std::move(operand_dtypes), std::move(input_indices), result, std::move(check));
}

}  // namespace shrew::jit
