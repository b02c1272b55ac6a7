// Private to shapes*.cc: the per-node context the shape rules see, and the
// rule declarations named in ops.def. Each rule reads its operand types from
// the context, reports T-check errors through it and returns the output type
// (unknown when the facts are not static).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/graph.h"
#include "ir/shapes.h"

namespace shrew::ir::shapes_internal {

struct ShapeContext {
  Graph* graph = nullptr;       // the graph being inferred (rules may swap operands)
  const Node* node = nullptr;   // the node (or a synthetic one for a repeat body)
  const Program* program = nullptr;
  const InferOptions* options = nullptr;
  diag::DiagnosticBag* diags = nullptr;
  std::vector<Type> in;         // operand types; unknown for invalid operands
  bool had_error = false;

  int num_operands() const { return static_cast<int>(in.size()); }
  const Type& operand(int i) const { return in[static_cast<size_t>(i)]; }
  const char* op_name() const;

  // Adds `[GRAPH::NODE] message` at the node's span.
  void Error(diag::Kind kind, const std::string& message);

  // Attribute value, or the schema default, or nullptr when neither exists.
  const AttrValue* Attr(std::string_view name) const;
  // Typed reads; a wrong kind or a missing required value is a BadAttribute
  // error and gives nullopt.
  std::optional<int64_t> IntAttr(std::string_view name);
  std::optional<bool> BoolAttr(std::string_view name);
  std::optional<double> FloatAttr(std::string_view name);

  // ---- checks shared by the rules; each reports and returns false on a
  // definite violation.
  bool RequireFloat(const Type& t);                 // T7
  bool RequireNumeric(const Type& t);               // T7 (float or integer)
  bool SameDType(const Type& a, const Type& b);     // T1 (both known)
  bool RequireRankAtLeast(const Type& t, int r);    // T8 "OP expects rank >= R, got rank R2"
  bool RequireRank(const Type& t, int r, const char* what = nullptr);  // T8 "OP expects [what ]rank R, got rank R2"
  // T3; nullopt after reporting.
  std::optional<std::vector<Dim>> Broadcast(const std::vector<Dim>& a, const std::vector<Dim>& b);
  // T2; nullopt after reporting.
  std::optional<int> Axis(int64_t axis, int rank);
  // Binds symbolic dims of an attribute shape with options->bindings.
  Dim BindDim(const Dim& d) const;
};

// Both operands tensors: matmul output type with checks (T1, T4, T7, T8, T3).
Type MatmulType(ShapeContext& ctx, const Type& a, const Type& b);
// Elementwise binary arithmetic: same dtype, numeric, broadcast.
Type ArithmeticType(ShapeContext& ctx, const Type& a, const Type& b);
// "a and b" when they are fixed and differ (used in ShapeMismatch messages).
bool DimsDiffer(const Dim& a, const Dim& b);
// The more precise of two dims believed equal (fixed > symbolic > dynamic).
Dim MergeDim(const Dim& a, const Dim& b);

using ShapeRule = Type (*)(ShapeContext&);

#define SHREW_OP(kind, name, arity, flags, rule) Type rule(ShapeContext& ctx);
#include "ir/ops.def"
#undef SHREW_OP

}  // namespace shrew::ir::shapes_internal
