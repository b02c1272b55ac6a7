// EvalNode: generic checks, then dispatch through a table indexed by OpKind
// (generated from ir/ops.def). Also the plumbing kernels: identity,
// constant, repeat, call, custom.
#include "interp/eval.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "interp/kernel.h"

namespace shrew::interp {
namespace {

constexpr KernelFn kKernels[] = {
#define SHREW_OP(kind, name, arity, flags, rule) &Ref##kind,
#include "ir/ops.def"
#undef SHREW_OP
};
static_assert(sizeof(kKernels) / sizeof(kKernels[0]) == ir::kNumOpKinds);

}  // namespace

Status NodeFailure(const ir::Graph& graph, const ir::Node& node, const Status& s) {
  return s.Prefixed(graph.NodeLabel(node) + ": ").At(node.blame_span());
}

Status GraphFailure(std::string_view graph, const Status& s) {
  const std::string head = "graph '" + std::string(graph) + "'";
  const std::string_view m = s.message();
  if (m.starts_with(head) && m.size() > head.size() && (m[head.size()] == ':' || m[head.size()] == ' ')) return s;
  return s.Prefixed(head + ": ");
}

Result<Tensor> MaterializeConstant(const ir::AttrValue& value, ir::DType dtype, Shape shape) {
  SHREW_TRY_ASSIGN(Tensor t, Tensor::Zeros(dtype, std::move(shape)));
  const ir::StorageType st = t.storage();
  Status status = Status::Ok();
  runtime::VisitStorage(st, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v{};
    if constexpr (std::is_same_v<T, bool>) {
      v = value.is_bool() ? value.as_bool() : value.is_int() ? value.as_int() != 0 : value.as_float() != 0.0;
    } else if constexpr (std::is_floating_point_v<T>) {
      v = value.is_bool() ? T(value.as_bool() ? 1 : 0)
          : value.is_int() ? static_cast<T>(value.as_int())
                           : static_cast<T>(value.as_float());
    } else {
      int64_t iv = 0;
      if (value.is_bool()) {
        iv = value.as_bool() ? 1 : 0;
      } else if (value.is_int()) {
        iv = value.as_int();
      } else {
        const double f = value.as_float();
        if (!std::isfinite(f) || std::trunc(f) != f || f < -9223372036854775808.0 || f >= 9223372036854775808.0) {
          status = InvalidArgument("float literal " + ir::FormatDouble(f) + " cannot be used with an integer operand");
          return;
        }
        iv = static_cast<int64_t>(f);
      }
      if constexpr (std::is_same_v<T, uint8_t>) {
        if (iv < 0 || iv > 255) {
          status = InvalidArgument("integer literal " + std::to_string(iv) + " does not fit " + ir::DTypeName(dtype));
          return;
        }
      }
      v = static_cast<T>(iv);
    }
    for (T& x : t.mutable_values<T>()) x = v;
  });
  if (!status.ok()) return status;
  return t;
}

Result<Tensor> RefIdentity(const KernelArgs& args) {
  if (args.size() != 1) {
    return FailedPrecondition(std::string("is ") + (args.node.is_input() ? "an input" : "a parameter or source") +
                              ": its value is bound by the caller, not computed");
  }
  return args[0].Clone();
}

Result<Tensor> RefConstant(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(ir::AttrValue value, GetAttr(args.node, "value"));
  if (!value.is_number() && !value.is_bool()) {
    return InvalidArgument("constant value " + value.ToString() + " is not a number or bool");
  }
  const ir::Type& type = args.node.type;
  ir::DType dtype;
  Shape shape;
  if (type.is_tensor()) {
    dtype = type.dtype();
    if (type.IsStatic()) {
      for (const ir::Dim& d : type.dims()) shape.push_back(d.size());
    }
  } else {
    // Still weak (shape inference did not run): the unadopted defaults.
    dtype = value.is_bool() ? ir::DType::kBool : value.is_int() ? ir::DType::kI64 : args.ctx.default_float_dtype;
  }
  return MaterializeConstant(value, dtype, std::move(shape));
}

Result<Tensor> RefRepeat(const KernelArgs& args) {
  if (!args.node.repeat_body.has_value()) return InvalidArgument("repeat node has no body");
  SHREW_TRY_ASSIGN(int64_t count, GetIntAttr(args.node, "count"));
  if (count < 0) return InvalidArgument("repeat count " + std::to_string(count) + " is negative");
  const ir::RepeatBody& body = *args.node.repeat_body;
  if (body.op == ir::OpKind::kRepeat) return InvalidArgument("repeat body cannot be another repeat");
  // The body as a node of its own, sharing this node's operands.
  ir::Node step;
  step.id = args.node.id;
  step.name = args.node.name;
  step.op = body.op;
  step.attrs = body.attrs;
  step.callee = body.callee;
  step.operands = args.node.operands;
  SHREW_TRY_ASSIGN(Tensor carried, args[0].Clone());
  std::vector<const Tensor*> ops(args.in.begin(), args.in.end());
  for (int64_t i = 0; i < count; ++i) {
    ops[0] = &carried;
    Result<Tensor> next = EvalNode(args.graph, step, ops, args.ctx);
    if (!next.ok()) {
      return next.status().Prefixed("iteration " + std::to_string(i) + ": ");
    }
    carried = std::move(next).value();
  }
  return carried;
}

Result<Tensor> RefCall(const KernelArgs& args) {
  if (!args.ctx.call) return FailedPrecondition("graph calls need an interpreter to run graph '" + args.node.callee + "'");
  // Operand k binds the input CallInputIndices names: spread them over the
  // callee's inputs, the left-out optional ones null.
  const std::vector<int> indices = ir::CallInputIndices(args.node);
  const bool malformed = indices.size() != args.in.size() ||
                         std::any_of(indices.begin(), indices.end(), [](int i) { return i < 0; });
  if (malformed) return InvalidArgument("call[" + args.node.callee + "]: malformed 'inputs' attribute");
  std::vector<const Tensor*> inputs(indices.empty() ? 0 : static_cast<size_t>(*std::max_element(indices.begin(), indices.end())) + 1,
                                    nullptr);
  for (size_t k = 0; k < indices.size(); ++k) inputs[static_cast<size_t>(indices[k])] = args.in[k];
  return args.ctx.call(args.node.callee, inputs);
}

Result<Tensor> RefCustom(const KernelArgs& args) {
  return Unimplemented("custom op '" + args.node.callee + "' has no kernel");
}

Result<Tensor> EvalNode(const ir::Graph& graph, const ir::Node& node, std::span<const Tensor* const> operands,
                        const EvalContext& ctx) {
  auto fail = [&](const Status& s) { return NodeFailure(graph, node, s); };
  if (static_cast<int>(node.op) >= ir::kNumOpKinds) {
    return fail(Internal("unknown operation kind " + std::to_string(static_cast<int>(node.op))));
  }
  if (node.is_source()) {
    return fail(FailedPrecondition(std::string("is ") + (node.is_input() ? "an input" : "a parameter") +
                                   ": its value is bound by the caller, not computed"));
  }
  const ir::OpInfo& info = ir::GetOpInfo(node.op);
  if (!info.arity.Accepts(static_cast<int>(operands.size()))) {
    return fail(InvalidArgument(std::string(info.name) + " expects " + ir::OperandsText(info.arity.ToString()) + ", got " +
                                std::to_string(operands.size())));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr) return fail(Internal("operand " + std::to_string(i) + " has no value"));
  }
  if ((info.flags & ir::kFlagFloatOnly) != 0 && !operands.empty()) {
    Status s = RequireFloat(node.op, *operands[0]);
    if (!s.ok()) return fail(s);
  }
  KernelArgs args{graph, node, operands, ctx};
  Result<Tensor> out = kKernels[static_cast<size_t>(node.op)](args);
  if (!out.ok()) return fail(out.status());
  return out;
}

Status CheckRangeFits(const ir::Graph& graph, const ir::Node& node, std::span<const runtime::Tensor* const> operands,
                      uint64_t max_tensor_bytes) {
  if (node.op != ir::OpKind::kRange || operands.empty()) return Status::Ok();
  for (const runtime::Tensor* t : operands) {
    if (t->num_elements() != 1) return Status::Ok();
  }
  const double start = operands.size() == 2 ? std::trunc(operands[0]->GetDouble(0)) : 0.0;
  const double length = std::trunc(operands.back()->GetDouble(0)) - start;
  // A bound that is no finite int64 (inf, 1e19), or a length no int64 holds,
  // is EvalNode's invalid_argument, as in the interpreter, not a length over
  // the cap.
  constexpr double kInt64Limit = 9223372036854775808.0;  // 2^63
  if (!(std::fabs(start) < kInt64Limit) || !(std::fabs(start + length) < kInt64Limit)) return Status::Ok();
  if (!(length < kInt64Limit)) return Status::Ok();
  const uint64_t cap = std::min<uint64_t>(max_tensor_bytes, uint64_t{1} << 50);
  if (!(length > static_cast<double>(cap / sizeof(int64_t)))) return Status::Ok();
  // Integer bounds give the exact length (the double rounds past 2^53).
  std::string text = std::to_string(static_cast<int64_t>(length));
  bool ints = true;
  for (const runtime::Tensor* t : operands) ints = ints && ir::IsInteger(t->dtype());
  int64_t exact = 0;
  if (ints && !__builtin_sub_overflow(operands.back()->GetInt64(0), operands.size() == 2 ? operands[0]->GetInt64(0) : 0,
                                      &exact)) {
    text = std::to_string(exact);
  }
  return ResourceExhausted("graph '" + graph.name() + "': " + graph.NodeLabel(node) + " would be Tensor<[" +
                           text + "], i64>, over the limit of " + std::to_string(cap) +
                           " bytes per tensor")
      .At(node.blame_span());
}

}  // namespace shrew::interp
