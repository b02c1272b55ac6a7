// Shape rules: identity, constant, elementwise unary/binary, comparisons,
// logical ops, cast, where and the fused add/sub + relu kinds.
#include "ir/shapes_internal.h"

namespace shrew::ir::shapes_internal {

namespace {

// Broadcast of two known tensor types into `dtype`; unknown on error.
Type BroadcastTo(ShapeContext& ctx, const Type& a, const Type& b, DType dtype) {
  auto dims = ctx.Broadcast(a.dims(), b.dims());
  if (!dims) return Type::Unknown();
  return Type::Tensor(std::move(*dims), dtype);
}

}  // namespace

Type InferIdentity(ShapeContext& ctx) {
  if (ctx.node->is_source()) return ctx.node->declared_type ? *ctx.node->declared_type : ctx.node->type;
  if (ctx.num_operands() != 1) return Type::Unknown();
  return ctx.operand(0);
}

Type InferConstant(ShapeContext& ctx) {
  // A resolved constant keeps its type; a weak one is rank 0 with the
  // provisional dtype of its literal kind (the driver adopts it later).
  if (ctx.node->type.is_tensor()) return ctx.node->type;
  const AttrValue* v = ctx.node->attr("value");
  if (!v || !(v->is_number() || v->is_bool())) {
    ctx.Error(diag::Kind::BadAttribute, "attribute 'value' of constant must be a number or bool");
    return Type::Unknown();
  }
  WeakKind kind = v->is_bool() ? WeakKind::kBool : v->is_int() ? WeakKind::kInt : WeakKind::kFloat;
  return Type::Scalar(DefaultDTypeFor(kind, ctx.options->default_float));
}

Type InferNeg(ShapeContext& ctx) {
  if (ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_tensor() && !IsFloat(x.dtype()) && !IsSignedInt(x.dtype())) {
    // `u > -1`: the user wrote a negative literal, not a neg of a u8 (the
    // literal adopted the other operand's dtype); say so, as for `u + 256`.
    const Node* lit = ctx.node->operands.size() == 1 && ctx.graph->HasNode(ctx.node->operands[0])
                          ? &ctx.graph->node(ctx.node->operands[0])
                          : nullptr;
    const AttrValue* v = lit != nullptr && lit->op == OpKind::kConstant && lit->operands.empty() &&
                                 lit->name.starts_with("__")
                             ? lit->attr("value")
                             : nullptr;
    if (v != nullptr && v->is_number() && IsUnsignedInt(x.dtype())) {
      // A positive value made negative (a config key may hold a negative one,
      // which neg on an unsigned dtype leaves an error of neg's own).
      const bool positive = v->is_int() ? v->as_int() > 0 : v->as_float() > 0.0;
      if (positive) {
        const std::string value = std::string(v->is_int() ? "integer" : "float") + " -" + v->ToString();
        const std::string* key = lit->config_key();
        ctx.Error(diag::Kind::DtypeMismatch, (key != nullptr ? "config key '" + *key + "' negated (" + value + ")"
                                                             : std::string(v->is_int() ? "integer" : "float") +
                                                                   " literal -" + v->ToString()) +
                                                 " does not fit " + DTypeName(x.dtype()) +
                                                 " (an unsigned dtype: no negative values)");
        return x;
      }
    }
    ctx.Error(diag::Kind::DtypeClass,
              std::string("neg requires a float or signed integer operand, got ") + DTypeName(x.dtype()));
  }
  return x;
}

Type InferUnaryFloat(ShapeContext& ctx) {
  if (ctx.num_operands() != 1) return Type::Unknown();
  ctx.RequireFloat(ctx.operand(0));
  return ctx.operand(0);
}

Type ArithmeticType(ShapeContext& ctx, const Type& a, const Type& b) {
  if (a.is_unknown() || b.is_unknown()) return Type::Unknown();
  bool ok = ctx.SameDType(a, b);
  if (ok) ctx.RequireNumeric(a);
  return BroadcastTo(ctx, a, b, a.dtype());
}

Type InferArithmetic(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  return ArithmeticType(ctx, ctx.operand(0), ctx.operand(1));
}

Type InferComparison(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  const Type& a = ctx.operand(0);
  const Type& b = ctx.operand(1);
  if (a.is_unknown() || b.is_unknown()) return Type::Unknown();
  if (ctx.SameDType(a, b) && IsComplex(a.dtype())) {
    ctx.Error(diag::Kind::DtypeClass, std::string(ctx.op_name()) +
                                          " requires a numeric or bool operand, got " +
                                          DTypeName(a.dtype()));
  }
  return BroadcastTo(ctx, a, b, DType::kBool);
}

Type InferLogicalBinary(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  const Type& a = ctx.operand(0);
  const Type& b = ctx.operand(1);
  if (a.is_unknown() || b.is_unknown()) return Type::Unknown();
  ctx.SameDType(a, b);
  return BroadcastTo(ctx, a, b, DType::kBool);
}

Type InferNot(ShapeContext& ctx) {
  if (ctx.num_operands() != 1 || ctx.operand(0).is_unknown()) return Type::Unknown();
  return Type::Tensor(ctx.operand(0).dims(), DType::kBool);
}

Type InferCast(ShapeContext& ctx) {
  const AttrValue* v = ctx.Attr("dtype");
  std::optional<DType> target;
  if (v && v->is_string()) target = DTypeFromName(v->as_string());
  if (!target) {
    ctx.Error(v ? diag::Kind::BadAttribute : diag::Kind::MissingAttribute,
              v ? "attribute 'dtype' of cast must be a dtype name"
                : "missing attribute 'dtype' for cast");
    return Type::Unknown();
  }
  if (ctx.num_operands() != 1 || ctx.operand(0).is_unknown()) return Type::Unknown();
  return Type::Tensor(ctx.operand(0).dims(), *target);
}

Type InferWhere(ShapeContext& ctx) {
  if (ctx.num_operands() != 3) return Type::Unknown();
  const Type& c = ctx.operand(0);
  const Type& a = ctx.operand(1);
  const Type& b = ctx.operand(2);
  // Whatever is known is checked, whatever is not (OPS.md §1.3, §1.4): the
  // branches' dtypes and shapes conflict or not whatever the condition is,
  // and two known shapes that cannot broadcast fail for any third one (each
  // aligned position needs all sizes other than 1 equal). Only the result
  // needs all three.
  if (a.is_tensor() && b.is_tensor()) {
    ctx.SameDType(a, b);
    auto ab = ctx.Broadcast(a.dims(), b.dims());
    if (!ab || c.is_unknown()) return Type::Unknown();
    auto all = ctx.Broadcast(c.dims(), *ab);
    if (!all) return Type::Unknown();
    return Type::Tensor(std::move(*all), a.dtype());
  }
  if (c.is_tensor() && (a.is_tensor() || b.is_tensor())) {
    ctx.Broadcast(c.dims(), a.is_tensor() ? a.dims() : b.dims());
  }
  return Type::Unknown();
}

Type InferFusedAddSubRelu(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  // Operands of one dtype that is not a float: relu's one error (the add's
  // "requires a numeric operand" came too, for bool, at the same place).
  const Type& a = ctx.operand(0);
  const Type& b = ctx.operand(1);
  if (a.is_tensor() && b.is_tensor() && a.dtype() == b.dtype() && !IsFloat(a.dtype())) {
    ctx.RequireFloat(a);
    return Type::Unknown();
  }
  Type t = ArithmeticType(ctx, a, b);
  ctx.RequireFloat(t);  // relu is float-only
  return t;
}

}  // namespace shrew::ir::shapes_internal
