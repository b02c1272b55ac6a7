#include "opt/const_fold.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "interp/eval.h"
#include "ir/shapes.h"
#include "opt/dce.h"
#include "runtime/tensor.h"

namespace shrew::opt {
namespace {

using ir::AttrValue;
using ir::OpKind;

enum class ArithClass : uint8_t { kFloat, kInt };

bool IsFoldableOp(OpKind op) {
  return op == OpKind::kAdd || op == OpKind::kSub || op == OpKind::kMul || op == OpKind::kDiv;
}

// The constant's value, when it is a scalar of a kind constants can hold.
const AttrValue* ScalarValue(const ir::Node& node) {
  if (node.op != OpKind::kConstant || node.is_source() || !node.operands.empty()) return nullptr;
  const AttrValue* v = node.attr("value");
  if (v == nullptr || !(v->is_int() || v->is_float() || v->is_bool())) return nullptr;
  return v;
}

// How `node` must be computed, or nullopt when it must not be folded.
std::optional<ArithClass> ClassFor(const ir::Node& node, const AttrValue& a, const AttrValue& b) {
  if (node.type.is_tensor()) {
    if (node.type.rank() != 0) return std::nullopt;
    ir::DType d = node.type.dtype();
    if (ir::IsFloat(d)) return ArithClass::kFloat;
    if (ir::IsInteger(d)) return ArithClass::kInt;
    return std::nullopt;  // bool, complex: arithmetic is a type error there
  }
  if (a.is_bool() || b.is_bool()) return std::nullopt;
  if (a.is_float() || b.is_float()) return ArithClass::kFloat;
  return ArithClass::kInt;
}

// The value converted to the arithmetic class (OPS.md §1.3 conversions).
std::optional<double> AsDouble(const AttrValue& v) {
  if (v.is_bool()) return v.as_bool() ? 1.0 : 0.0;
  return v.as_float();
}

std::optional<int64_t> AsInt(const AttrValue& v) {
  if (v.is_bool()) return v.as_bool() ? 1 : 0;
  if (v.is_int()) return v.as_int();
  double f = v.as_float();
  // Integral and inside int64 (2^63 itself is not): otherwise the literal
  // could not have adopted an integer dtype; leave it alone.
  if (!std::isfinite(f) || f != std::trunc(f) || f < -9223372036854775808.0 ||
      f >= 9223372036854775808.0) {
    return std::nullopt;
  }
  return static_cast<int64_t>(f);
}

// Evaluates `node` on the two values with the reference interpreter, on
// rank-0 f64 / i64 tensors: the interpreter computes in its operands'
// storage type, so this is exactly the spec's double / wrapping-int64
// arithmetic, with the interpreter's definition of each op (truncating
// division, INT64_MIN / -1, …). An evaluation error (integer division by
// zero) means "do not fold": the error stays for run time.
std::optional<AttrValue> Evaluate(const ir::Graph& graph, const ir::Node& node, ArithClass cls,
                                  const AttrValue& a, const AttrValue& b,
                                  const interp::EvalContext& ctx) {
  runtime::Tensor ta, tb;
  if (cls == ArithClass::kFloat) {
    std::optional<double> x = AsDouble(a), y = AsDouble(b);
    if (!x || !y) return std::nullopt;
    ta = runtime::Tensor::Scalar<double>(ir::DType::kF64, *x);
    tb = runtime::Tensor::Scalar<double>(ir::DType::kF64, *y);
  } else {
    std::optional<int64_t> x = AsInt(a), y = AsInt(b);
    if (!x || !y) return std::nullopt;
    ta = runtime::Tensor::Scalar<int64_t>(ir::DType::kI64, *x);
    tb = runtime::Tensor::Scalar<int64_t>(ir::DType::kI64, *y);
  }
  const runtime::Tensor* operands[2] = {&ta, &tb};
  Result<runtime::Tensor> r = interp::EvalNode(graph, node, operands, ctx);
  if (!r.ok() || r->num_elements() != 1 || r->storage() != ta.storage()) return std::nullopt;
  if (cls == ArithClass::kFloat) return AttrValue::Float(r->GetDouble(0));
  return AttrValue::Int(r->GetInt64(0));
}

// The same in a graph that folds in its nodes' dtypes: the operands as a
// run materialises them, the op in the node's dtype (f32 rounding, i32
// wrap-around), exactly what the unfolded graph computes.
std::optional<AttrValue> EvaluateInNodeDtype(const ir::Graph& graph, const ir::Node& node, const ir::Node& a,
                                             const ir::Node& b) {
  if (!node.type.is_tensor() || !a.type.is_tensor() || !b.type.is_tensor()) return std::nullopt;
  const interp::EvalContext ctx{};
  Result<runtime::Tensor> ta = interp::EvalNode(graph, a, {}, ctx), tb = interp::EvalNode(graph, b, {}, ctx);
  if (!ta.ok() || !tb.ok()) return std::nullopt;
  const runtime::Tensor* operands[2] = {&*ta, &*tb};
  Result<runtime::Tensor> r = interp::EvalNode(graph, node, operands, ctx);
  if (!r.ok() || r->num_elements() != 1 || r->dtype() != node.type.dtype()) return std::nullopt;
  if (ir::IsFloat(node.type.dtype())) return AttrValue::Float(r->GetDouble(0));
  return AttrValue::Int(r->GetInt64(0));
}

struct Fold {
  ir::NodeId node;
  AttrValue value;
};

}  // namespace

std::optional<AttrValue> FoldedValue(const ir::Graph& graph, const ir::Node& node, bool provisional) {
  if (node.is_source() || !IsFoldableOp(node.op) || node.operands.size() != 2) return std::nullopt;
  ir::NodeId ia = node.operands[0], ib = node.operands[1];
  if (!graph.HasNode(ia) || !graph.HasNode(ib)) return std::nullopt;
  if (provisional && (ir::IsRetypedLiteral(graph.node(ia)) || ir::IsRetypedLiteral(graph.node(ib)))) {
    return std::nullopt;
  }
  const AttrValue* a = ScalarValue(graph.node(ia));
  const AttrValue* b = ScalarValue(graph.node(ib));
  if (a == nullptr || b == nullptr) return std::nullopt;
  std::optional<ArithClass> cls = ClassFor(node, *a, *b);
  if (!cls) return std::nullopt;
  // Typed nodes fold in their dtype, as the unfolded graph runs: folding in
  // double (PIPELINE.md §6.4's wording) changed values — `x * (1e-50 * 1e50)`
  // gave x on f32 where the graph computes 0 * inf = NaN, and 16777217 - 1
  // gave 16777216 for 16777215 — so optimising changed what a program means.
  // An integer node's operands must be integral (a float literal could not
  // have adopted its dtype otherwise).
  if (*cls == ArithClass::kInt && (!AsInt(*a) || !AsInt(*b))) return std::nullopt;
  const bool typed = node.type.is_tensor() && graph.node(ia).type.is_tensor() && graph.node(ib).type.is_tensor();
  if (typed || graph.folds_in_node_dtypes()) return EvaluateInNodeDtype(graph, node, graph.node(ia), graph.node(ib));
  return Evaluate(graph, node, *cls, *a, *b, interp::EvalContext{});
}

void MakeConstant(ir::Node& node, AttrValue value) {
  node.op = OpKind::kConstant;
  node.operands.clear();
  node.attrs = ir::Attrs();
  node.attrs.Set("value", std::move(value));
}

int RunConstFold(ir::Graph& graph) {
  // Decide every fold on the unmodified graph: a node folded here is not a
  // constant operand for later nodes until the next round (§6.4).
  std::vector<Fold> folds;
  const bool provisional = ir::TypesDependOnInputs(graph);
  for (const ir::Node& node : graph.nodes()) {
    if (std::optional<AttrValue> value = FoldedValue(graph, node, provisional)) {
      folds.push_back({node.id, std::move(*value)});
    }
  }
  if (folds.empty()) return 0;

  OrphanSweep sweep(graph);
  for (Fold& f : folds) MakeConstant(graph.node(f.node), std::move(f.value));
  sweep.Run(graph);
  return static_cast<int>(folds.size());
}

}  // namespace shrew::opt
