// Shape rules: matmul and its fused kinds, reductions, softmax, losses.
#include <algorithm>

#include "ir/shapes_internal.h"

namespace shrew::ir::shapes_internal {

Type MatmulType(ShapeContext& ctx, const Type& a, const Type& b) {
  if (a.is_unknown() || b.is_unknown()) return Type::Unknown();
  bool ok = ctx.SameDType(a, b);
  if (ok) ok = ctx.RequireNumeric(a);
  if (!ctx.RequireRankAtLeast(a, 1) || !ctx.RequireRankAtLeast(b, 1)) return Type::Unknown();
  // NumPy rules: a rank-1 left operand is [1, K] with M dropped, a rank-1
  // right operand [K, 1] with N dropped.
  std::vector<Dim> da = a.dims();
  std::vector<Dim> db = b.dims();
  bool drop_m = da.size() == 1;
  bool drop_n = db.size() == 1;
  if (drop_m) da.insert(da.begin(), Dim::Fixed(1));
  if (drop_n) db.push_back(Dim::Fixed(1));
  const Dim& k1 = da[da.size() - 1];
  const Dim& k2 = db[db.size() - 2];
  if (DimsDiffer(k1, k2)) {
    ctx.Error(diag::Kind::MatmulMismatch, "matmul inner dimensions " + k1.ToString() + " and " + k2.ToString() +
                                              " differ (operands " + DimsToString(a.dims()) + " and " +
                                              DimsToString(b.dims()) + ")");
    return Type::Unknown();
  }
  std::vector<Dim> batch_a(da.begin(), da.end() - 2);
  std::vector<Dim> batch_b(db.begin(), db.end() - 2);
  // Said with the operands (as the inner dimensions are): "shapes [2] and
  // [3] cannot be broadcast" named sizes the source holds nowhere.
  std::optional<std::vector<Dim>> batch = BroadcastDims(batch_a, batch_b);
  if (!batch) {
    ctx.Error(diag::Kind::BroadcastMismatch, "matmul batch dimensions " + DimsToString(batch_a) + " and " +
                                                 DimsToString(batch_b) + " cannot be broadcast (operands " +
                                                 DimsToString(a.dims()) + " and " + DimsToString(b.dims()) + ")");
    return Type::Unknown();
  }
  std::vector<Dim> out = std::move(*batch);
  if (!drop_m) out.push_back(da[da.size() - 2]);
  if (!drop_n) out.push_back(db[db.size() - 1]);
  return Type::Tensor(std::move(out), a.dtype());
}

Type InferMatmul(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  return MatmulType(ctx, ctx.operand(0), ctx.operand(1));
}

Type InferFusedMatmulAdd(ShapeContext& ctx) {
  if (ctx.num_operands() != 3) return Type::Unknown();
  const Type& a = ctx.operand(0);
  const Type& b = ctx.operand(1);
  const Type& c = ctx.operand(2);
  Type m = MatmulType(ctx, a, b);
  if (a.is_unknown() != b.is_unknown() && c.is_tensor()) {
    // One matmul operand unknown: the product has the other's dtype
    // (same-dtype rule), so a c of another dtype is an error already.
    ctx.SameDType(a.is_tensor() ? a : b, c);
    return Type::Unknown();
  }
  return ArithmeticType(ctx, m, c);
}

Type InferFusedMatmulRelu(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  Type m = MatmulType(ctx, ctx.operand(0), ctx.operand(1));
  ctx.RequireFloat(m);
  return m;
}

Type InferReduce(ShapeContext& ctx) {
  const AttrValue* dims = ctx.Attr("dims");
  if (!dims || !(dims->is_all() || dims->is_int_list())) {
    ctx.Error(diag::Kind::BadAttribute,
              std::string("attribute 'dims' of ") + ctx.op_name() + " must be a list of ints or all");
    return Type::Unknown();
  }
  std::optional<bool> keepdim = ctx.BoolAttr("keepdim");
  if (!keepdim || ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) return Type::Unknown();
  ctx.RequireFloat(x);
  int rank = x.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), dims->is_all());
  if (dims->is_int_list()) {
    for (int64_t axis : dims->as_int_list()) {
      auto a = ctx.Axis(axis, rank);
      if (!a) return Type::Unknown();
      if (reduced[static_cast<size_t>(*a)]) {
        ctx.Error(diag::Kind::BadAttribute, std::string("attribute 'dims' of ") + ctx.op_name() +
                                                " lists axis " + std::to_string(axis) + " twice");
        return Type::Unknown();
      }
      reduced[static_cast<size_t>(*a)] = true;
    }
  }
  std::vector<Dim> out;
  for (int i = 0; i < rank; ++i) {
    if (!reduced[static_cast<size_t>(i)]) {
      out.push_back(x.dim(i));
    } else if (*keepdim) {
      out.push_back(Dim::Fixed(1));
    }
  }
  return Type::Tensor(std::move(out), x.dtype());
}

Type InferSoftmax(ShapeContext& ctx) {
  std::optional<int64_t> dim = ctx.IntAttr("dim");
  if (!dim || ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) return x;
  ctx.RequireFloat(x);
  if (!ctx.Axis(*dim, x.rank())) return Type::Unknown();
  return x;
}

Type InferCrossEntropy(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  const Type& logits = ctx.operand(0);
  const Type& target = ctx.operand(1);
  if (logits.is_unknown()) return Type::Unknown();
  ctx.RequireFloat(logits);
  if (!ctx.RequireRankAtLeast(logits, 2)) return Type::Scalar(logits.dtype());
  Type result = Type::Scalar(logits.dtype());
  if (target.is_unknown()) return result;
  // Both forms, as the interpreter says it: a target of integer labels was
  // told only to match the logits' shape (OPS.md §3.13.1).
  auto mismatch = [&] {
    const std::vector<Dim> lead(logits.dims().begin(), logits.dims().end() - 1);
    ctx.Error(diag::Kind::ShapeMismatch, "cross_entropy target of shape " + DimsToString(target.dims()) +
                                             " matches neither the logits' shape " + DimsToString(logits.dims()) +
                                             " (distribution) nor " + DimsToString(lead) + " (class indices)");
  };
  if (target.rank() == logits.rank()) {
    // Distribution form: same shape and dtype.
    ctx.SameDType(logits, target);
    for (int i = 0; i < logits.rank(); ++i) {
      if (DimsDiffer(logits.dim(i), target.dim(i))) {
        mismatch();
        break;
      }
    }
  } else if (target.rank() == logits.rank() - 1) {
    // Class indices: integer (or float of integral values) without the class axis.
    if (!IsNumeric(target.dtype())) {
      ctx.Error(diag::Kind::DtypeClass,
                std::string("cross_entropy requires integer class indices, got ") + DTypeName(target.dtype()));
    }
    for (int i = 0; i < target.rank(); ++i) {
      if (DimsDiffer(logits.dim(i), target.dim(i))) {
        mismatch();
        break;
      }
    }
  } else {
    mismatch();
  }
  return result;
}

Type InferMseLoss(ShapeContext& ctx) {
  if (ctx.num_operands() != 2) return Type::Unknown();
  const Type& pred = ctx.operand(0);
  const Type& target = ctx.operand(1);
  if (pred.is_unknown()) return Type::Unknown();
  ctx.RequireFloat(pred);
  if (target.is_tensor()) {
    ctx.SameDType(pred, target);
    ctx.Broadcast(pred.dims(), target.dims());
  }
  return Type::Scalar(pred.dtype());
}

}  // namespace shrew::ir::shapes_internal
