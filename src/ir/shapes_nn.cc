// Shape rules: embedding, linear, normalisations, attention, transformer
// block, dropout, repeat, graph calls and custom ops.
#include <map>

#include "ir/shapes_internal.h"

namespace shrew::ir::shapes_internal {

namespace {

// Checks a weight operand against an expected shape (entries < 0: any size).
// Only fixed sizes are compared; the rest is checked at run time.
bool CheckWeight(ShapeContext& ctx, int index, const Type& x, const std::vector<Dim>& expected,
                 const char* role) {
  const Type& w = ctx.operand(index);
  if (w.is_unknown()) return true;
  if (!ctx.SameDType(x, w)) return false;
  bool ok = w.rank() == static_cast<int>(expected.size());
  for (int i = 0; ok && i < w.rank(); ++i) {
    if (DimsDiffer(w.dim(i), expected[static_cast<size_t>(i)])) ok = false;
  }
  if (!ok) {
    ctx.Error(diag::Kind::ShapeMismatch, std::string(ctx.op_name()) + " " + role + " has shape " +
                                             DimsToString(w.dims()) + ", expected " +
                                             DimsToString(expected));
  }
  return ok;
}

// Shared by the attention kinds: x rank 3, float, D divisible by n_heads.
bool CheckAttentionInput(ShapeContext& ctx, const Type& x) {
  std::optional<int64_t> heads = ctx.IntAttr("n_heads");
  std::optional<bool> causal = ctx.BoolAttr("causal");
  if (!heads || !causal) return false;
  if (*heads < 1) {
    ctx.Error(diag::Kind::BadAttribute,
              std::string("attribute 'n_heads' of ") + ctx.op_name() + " must be >= 1");
    return false;
  }
  if (x.is_unknown()) return false;
  ctx.RequireFloat(x);
  if (!ctx.RequireRank(x, 3)) return false;
  const Dim& d = x.dim(2);
  if (d.is_fixed() && d.size() % *heads != 0) {
    ctx.Error(diag::Kind::HeadsNotDivisible, "model dimension " + std::to_string(d.size()) +
                                                 " is not divisible by n_heads " +
                                                 std::to_string(*heads));
    return false;
  }
  return true;
}

}  // namespace

Type InferEmbedding(ShapeContext& ctx) {
  // The driver has already swapped (table, ids) into (ids, table).
  if (ctx.num_operands() != 2) return Type::Unknown();
  const Type& ids = ctx.operand(0);
  const Type& table = ctx.operand(1);
  if (ids.is_tensor() && !IsNumeric(ids.dtype())) {
    ctx.Error(diag::Kind::DtypeClass,
              std::string("embedding requires integer indices, got ") + DTypeName(ids.dtype()));
  }
  if (table.is_unknown()) return Type::Unknown();
  ctx.RequireFloat(table);
  if (!ctx.RequireRank(table, 2, "a table of")) return Type::Unknown();
  if (ids.is_unknown()) return Type::Unknown();
  std::vector<Dim> out = ids.dims();
  out.push_back(table.dim(1));
  return Type::Tensor(std::move(out), table.dtype());
}

Type InferLinear(ShapeContext& ctx) {
  std::optional<bool> bias = ctx.BoolAttr("bias");
  if (!bias) return Type::Unknown();
  int n = ctx.num_operands();
  if (n != 2 && n != 3) return Type::Unknown();
  if (n == 3 && !*bias) {
    ctx.Error(diag::Kind::BadAttribute, "linear has a bias operand but bias: false");
    return Type::Unknown();
  }
  const Type& x = ctx.operand(0);
  const Type& w = ctx.operand(1);
  const Type* b = n == 3 && ctx.operand(2).is_tensor() ? &ctx.operand(2) : nullptr;
  // `linear(x, 3)`, PyTorch's Linear(in, out) written as an operation: the
  // weight is a number; say what it is instead of a dtype mismatch.
  if (w.is_tensor() && w.rank() == 0) {
    ctx.Error(diag::Kind::RankMismatch,
              "linear expects a weight of rank 2 ([out, in]), got a scalar; declare the weight as a param, as in "
              "param w: Tensor<[OUT, IN], f32> { init: \"kaiming_uniform\"; };");
    return Type::Unknown();
  }
  // The bias against a rank-2 weight [out, in] (dtype already checked).
  auto bias_fits = [&] {
    bool ok = (b->rank() == 1 || (b->rank() == 2 && !DimsDiffer(b->dim(0), Dim::Fixed(1)))) &&
              !DimsDiffer(b->dim(b->rank() - 1), w.dim(0));
    if (!ok) {
      // Both forms, as the executors say it (OPS.md §3.11.2: [out] or [1, out]).
      ctx.Error(diag::Kind::ShapeMismatch, "linear bias has shape " + DimsToString(b->dims()) + ", expected [" +
                                               w.dim(0).ToString() + "] or [1, " + w.dim(0).ToString() + "]");
    }
    return ok;
  };
  if (x.is_unknown() || w.is_unknown()) {
    // The result needs both, but the known operands must still agree among
    // themselves: an unknown x cannot reconcile a weight and a bias of
    // different dtypes or sizes (OPS.md §1.3: validation errors whenever
    // the types are known).
    const Type& known = x.is_tensor() ? x : w;
    if (known.is_tensor() && b && ctx.SameDType(known, *b) && w.is_tensor() &&
        ctx.RequireRank(w, 2, "a weight of")) {
      bias_fits();
    }
    return Type::Unknown();
  }
  ctx.RequireFloat(x);
  if (!ctx.SameDType(x, w)) return Type::Unknown();
  if (!ctx.RequireRankAtLeast(x, 1) || !ctx.RequireRank(w, 2, "a weight of")) return Type::Unknown();
  const Dim& in = x.dim(x.rank() - 1);
  if (DimsDiffer(in, w.dim(1))) {
    // A weight stored [in, out] (matmul's layout, Keras's, JAX's) fits the
    // other way round: say which two ways of writing it work.
    const bool transposed = in.is_fixed() && w.dim(0).is_fixed() && in.size() == w.dim(0).size();
    ctx.Error(diag::Kind::ShapeMismatch,
              "linear input has " + in.ToString() + " features but the weight has shape " + DimsToString(w.dims()) +
                  " ([out, in])" +
                  (transposed ? "; for a weight stored [in, out] write matmul(x, w) (+ b), or declare it " +
                                    DimsToString({w.dim(1), w.dim(0)})
                              : std::string()));
    return Type::Unknown();
  }
  if (b && (!ctx.SameDType(x, *b) || !bias_fits())) return Type::Unknown();
  std::vector<Dim> out(x.dims().begin(), x.dims().end() - 1);
  out.push_back(w.dim(0));
  return Type::Tensor(std::move(out), x.dtype());
}

Type InferLayerNorm(ShapeContext& ctx) {
  std::optional<double> eps = ctx.FloatAttr("eps");
  if (!eps || ctx.num_operands() < 1 || ctx.num_operands() > 3) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) {
    // Weight and bias both scale x elementwise: whatever x is, they must
    // share its dtype and broadcast to its shape, so two known ones that
    // differ in dtype or cannot broadcast together are an error now.
    if (ctx.num_operands() == 3 && ctx.operand(1).is_tensor() && ctx.operand(2).is_tensor() &&
        ctx.SameDType(ctx.operand(1), ctx.operand(2))) {
      ctx.Broadcast(ctx.operand(1).dims(), ctx.operand(2).dims());
    }
    return x;
  }
  ctx.RequireFloat(x);
  // It normalises over the last axis: a rank-0 x has none.
  if (!ctx.RequireRankAtLeast(x, 1)) return Type::Unknown();
  for (int i = 1; i < ctx.num_operands(); ++i) {
    const Type& p = ctx.operand(i);
    if (p.is_unknown()) continue;
    if (!ctx.SameDType(x, p)) return x;
    // w and b scale and shift x elementwise: broadcasting may not grow x (a
    // higher rank, or a size-1 axis of x against a larger one), and either
    // failure names the operand, as the interpreter does (it read "shapes
    // [2, 3] and [4] cannot be broadcast", for the weight and the bias alike).
    std::optional<std::vector<Dim>> b = BroadcastDims(x.dims(), p.dims());
    bool grows = !b || b->size() != x.dims().size();
    for (size_t k = 0; !grows && k < b->size(); ++k) grows = DimsDiffer((*b)[k], x.dim(static_cast<int>(k)));
    if (grows) {
      ctx.Error(!b ? diag::Kind::BroadcastMismatch : diag::Kind::ShapeMismatch,
                std::string("layer_norm ") + (i == 1 ? "weight" : "bias") + " of shape " + DimsToString(p.dims()) +
                    " does not broadcast to the input shape " + DimsToString(x.dims()));
    }
  }
  return x;
}

Type InferBatchNorm(ShapeContext& ctx) {
  std::optional<double> eps = ctx.FloatAttr("eps");
  if (!eps || (ctx.num_operands() != 1 && ctx.num_operands() != 3)) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) {
    // Weight and bias are both [C] of x's dtype whatever x is: the known
    // ones are checked against each other (the first known one against
    // rank 1, the other against it).
    if (ctx.num_operands() == 3) {
      const Type& w = ctx.operand(1);
      const Type& b = ctx.operand(2);
      if (w.is_tensor()) {
        if (CheckWeight(ctx, 1, w, {Dim::Dynamic()}, "weight")) CheckWeight(ctx, 2, w, {w.dim(0)}, "bias");
      } else if (b.is_tensor()) {
        CheckWeight(ctx, 2, b, {Dim::Dynamic()}, "bias");
      }
    }
    return x;
  }
  ctx.RequireFloat(x);
  if (!ctx.RequireRankAtLeast(x, 2)) return Type::Unknown();
  if (ctx.num_operands() == 3) {
    CheckWeight(ctx, 1, x, {x.dim(1)}, "weight");
    CheckWeight(ctx, 2, x, {x.dim(1)}, "bias");
  }
  return x;
}

namespace {

// The weights of multi_head_attention against a rank-3 x.
void CheckAttentionWeights(ShapeContext& ctx, const Type& x) {
  const Dim& d = x.dim(2);
  static const char* kRoles[] = {"w_q", "w_k", "w_v", "w_o"};
  for (int i = 1; i < 5; ++i) CheckWeight(ctx, i, x, {d, d}, kRoles[i - 1]);
}

// The weights of transformer_block against a rank-3 x.
void CheckBlockWeights(ShapeContext& ctx, const Type& x) {
  Dim d = x.dim(2);
  Dim d4 = Dim::Dynamic();
  int64_t four_d = 0;
  if (d.is_fixed() && CheckedMul(d.size(), 4, &four_d)) d4 = Dim::Fixed(four_d);
  struct Expect {
    std::vector<Dim> shape;
    const char* role;
  };
  const Expect kExpect[12] = {
      {{d}, "ln1_w"},     {{d}, "ln1_b"},     {{d, d}, "w_q"},   {{d, d}, "w_k"},
      {{d, d}, "w_v"},    {{d, d}, "w_o"},    {{d}, "ln2_w"},    {{d}, "ln2_b"},
      {{d, d4}, "ff1_w"}, {{d4}, "ff1_b"},    {{d4, d}, "ff2_w"}, {{d}, "ff2_b"},
  };
  for (int i = 1; i < 13; ++i) CheckWeight(ctx, i, x, kExpect[i - 1].shape, kExpect[i - 1].role);
}

// For an x of unknown type: what the known weights say x must be, so they
// can be checked against each other (OPS.md §1.3: dtype conflicts among
// known operands are validation errors). Rank 3, the dtype of the first known
// weight, and the model dim d of the first known weight whose rank is its
// role's; `roles` gives per weight operand (1, 2, …) that rank and where d
// sits in it (-1: nowhere). Nullopt when no weight is known.
std::optional<Type> InputFromWeights(const ShapeContext& ctx, const std::vector<std::pair<int, int>>& roles) {
  std::optional<DType> dtype;
  std::optional<Dim> d;
  for (size_t i = 0; i < roles.size() && i + 1 < ctx.in.size(); ++i) {
    const Type& w = ctx.in[i + 1];
    if (w.is_unknown()) continue;
    if (!dtype) dtype = w.dtype();
    if (!d && roles[i].second >= 0 && w.rank() == roles[i].first) d = w.dim(roles[i].second);
  }
  if (!dtype) return std::nullopt;
  return Type::Tensor({Dim::Dynamic(), Dim::Dynamic(), d.value_or(Dim::Dynamic())}, *dtype);
}

}  // namespace

Type InferAttention(ShapeContext& ctx) {
  int n = ctx.num_operands();
  if (n != 1 && n != 5) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (!CheckAttentionInput(ctx, x)) {
    // x unknown (and the attributes fine): the known weights still agree.
    if (x.is_unknown() && n == 5 && !ctx.had_error) {
      if (auto like_x = InputFromWeights(ctx, {{2, 0}, {2, 0}, {2, 0}, {2, 0}})) CheckAttentionWeights(ctx, *like_x);
    }
    return x.is_tensor() && x.rank() == 3 ? x : Type::Unknown();
  }
  if (n == 5) CheckAttentionWeights(ctx, x);
  return x;
}

Type InferTransformerBlock(ShapeContext& ctx) {
  int n = ctx.num_operands();
  if (n != 1 && n != 13) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (!CheckAttentionInput(ctx, x)) {
    if (x.is_unknown() && n == 13 && !ctx.had_error) {
      // Roles as in CheckBlockWeights: ff1_b ([4d]) alone does not give d.
      auto like_x = InputFromWeights(ctx, {{1, 0}, {1, 0}, {2, 0}, {2, 0}, {2, 0}, {2, 0},
                                           {1, 0}, {1, 0}, {2, 0}, {1, -1}, {2, 1}, {1, 0}});
      if (like_x) CheckBlockWeights(ctx, *like_x);
    }
    return x.is_tensor() && x.rank() == 3 ? x : Type::Unknown();
  }
  if (n == 13) CheckBlockWeights(ctx, x);
  return x;
}

Type InferDropout(ShapeContext& ctx) {
  std::optional<double> p = ctx.FloatAttr("p");
  if (!p) return Type::Unknown();
  if (!(*p >= 0.0 && *p < 1.0)) {
    ctx.Error(diag::Kind::BadAttribute, "attribute 'p' of dropout must be in [0, 1)");
  }
  if (ctx.num_operands() != 1) return Type::Unknown();
  ctx.RequireFloat(ctx.operand(0));
  return ctx.operand(0);
}

Type InferRepeat(ShapeContext& ctx) {
  std::optional<int64_t> count = ctx.IntAttr("count");
  if (!count) return Type::Unknown();
  if (*count < 0) {
    ctx.Error(diag::Kind::BadAttribute, "attribute 'count' of repeat must be >= 0");
    return Type::Unknown();
  }
  if (ctx.num_operands() < 1) return Type::Unknown();
  const Type& carried = ctx.operand(0);
  const auto& body = ctx.node->repeat_body;
  if (!body || body->op == OpKind::kRepeat || body->op == OpKind::kConstant) {
    ctx.Error(diag::Kind::BadRepeat, "repeat has no valid body operation");
    return Type::Unknown();
  }
  // Run the body's rule once on a synthetic node with the same operands.
  Node synthetic;
  synthetic.id = ctx.node->id;
  synthetic.name = ctx.node->name;
  synthetic.op = body->op;
  synthetic.operands = ctx.node->operands;
  synthetic.attrs = body->attrs;
  synthetic.callee = body->callee;
  synthetic.span = ctx.node->span;
  ShapeContext sub = ctx;
  sub.node = &synthetic;
  sub.had_error = false;
  static constexpr ShapeRule kBodyRules[] = {
#define SHREW_OP(kind, name, arity, flags, rule) &rule,
#include "ir/ops.def"
#undef SHREW_OP
  };
  if (!GetOpInfo(body->op).arity.Accepts(ctx.num_operands())) {
    ctx.Error(diag::Kind::OperandCount, std::string(OpName(body->op)) + " expects " +
                                            OperandsText(GetOpInfo(body->op).arity.ToString()) +
                                            ", got " + std::to_string(ctx.num_operands()));
    return Type::Unknown();
  }
  Type out = kBodyRules[static_cast<int>(body->op)](sub);
  if (sub.had_error) ctx.had_error = true;
  if (carried.is_tensor() && out.is_tensor() && !TypesEqualWhereKnown(carried, out)) {
    ctx.Error(diag::Kind::RepeatTypeChange, RepeatChangesTypeMessage(carried, out));
    return Type::Unknown();
  }
  return carried;
}

namespace {

// What differs between a callee's declared input and its argument, first
// the dtype, then the rank, then the first fixed size: ": rank 3, expected 2".
std::string ArgumentMismatch(const Type& declared, const Type& actual) {
  if (declared.dtype() != actual.dtype()) {
    return std::string(": dtype ") + DTypeName(actual.dtype()) + ", expected " + DTypeName(declared.dtype());
  }
  if (declared.rank() != actual.rank()) {
    return ": rank " + std::to_string(actual.rank()) + ", expected " + std::to_string(declared.rank());
  }
  for (int k = 0; k < declared.rank(); ++k) {
    if (DimsDiffer(declared.dim(k), actual.dim(k))) {
      return ": dimension " + std::to_string(k) + " is " + actual.dim(k).ToString() + ", expected " +
             declared.dim(k).ToString();
    }
  }
  return "";
}

}  // namespace

Type InferCall(ShapeContext& ctx) {
  if (!ctx.program) return Type::Unknown();
  const Graph* callee = ctx.program->FindGraph(ctx.node->callee);
  if (!callee || callee == ctx.graph || callee->outputs().empty()) return Type::Unknown();
  // Unify the callee's symbolic names with the operand shapes.
  std::map<std::string, Dim, std::less<>> bound;
  std::map<std::string, std::string, std::less<>> bound_by;  // name -> the input that bound it
  const std::vector<int> indices = CallInputIndices(*ctx.node);
  if (!AcceptsCallBinding(*callee, indices)) return Type::Unknown();  // validation reports it
  for (size_t k = 0; k < indices.size() && k < ctx.in.size(); ++k) {
    NodeId in_id = callee->inputs()[static_cast<size_t>(indices[k])].node;
    if (!callee->HasNode(in_id)) continue;
    const Node& in = callee->node(in_id);
    Type declared = in.declared_type ? *in.declared_type : in.type;
    if (ctx.options->callee_bindings) declared = declared.Bind(*ctx.options->callee_bindings);
    const Type& actual = ctx.in[k];
    if (declared.is_unknown() || actual.is_unknown()) continue;
    // The callee's names are its own (LANGUAGE.md §4.1): `K` declared there
    // unifies with whatever the caller passes, `N` included; only the dtype,
    // the rank and fixed sizes must agree here.
    bool ok = declared.dtype() == actual.dtype() && declared.rank() == actual.rank();
    for (int k = 0; ok && k < declared.rank(); ++k) ok = !DimsDiffer(declared.dim(k), actual.dim(k));
    std::string why;  // a name bound to another size: which, and by what
    for (int k = 0; ok && k < declared.rank(); ++k) {
      const Dim& d = declared.dim(k);
      if (!d.is_symbolic()) continue;
      auto it = bound.find(d.name());
      if (it == bound.end()) {
        bound.emplace(d.name(), actual.dim(k));
        bound_by.emplace(d.name(), in.name);
      } else if (DimsDiffer(it->second, actual.dim(k))) {
        ok = false;
        why = ": dimension " + std::to_string(k) + " is " + actual.dim(k).ToString() + " but " + d.name() + " is " +
              it->second.ToString() + " (bound by input '" + bound_by[d.name()] + "')";
      } else {
        it->second = MergeDim(it->second, actual.dim(k));
      }
    }
    if (!ok) {
      if (why.empty()) why = ArgumentMismatch(declared, actual);
      const NodeId arg = k < ctx.node->operands.size() ? ctx.node->operands[k] : kNoNode;
      const std::string arg_label =
          ctx.graph->HasNode(arg) ? " " + ctx.graph->ValueLabel(ctx.graph->node(arg)) : "";
      ctx.Error(diag::Kind::DeclaredTypeMismatch,
                "call of graph '" + callee->name() + "': its input '" + in.name + "' is declared " +
                    declared.ToString() + " but the argument" + arg_label + " is " + actual.ToString() + why);
      return Type::Unknown();
    }
  }
  NodeId out_id = callee->outputs().front().node;
  if (!callee->HasNode(out_id)) return Type::Unknown();
  Type out = callee->node(out_id).type;
  if (out.is_unknown()) return out;
  // Names are local to the callee: unbound ones become `?`.
  for (Dim& d : out.mutable_dims()) {
    if (!d.is_symbolic()) continue;
    auto it = bound.find(d.name());
    d = it != bound.end() ? it->second : Dim::Dynamic();
  }
  return out;
}

Type InferCustom(ShapeContext& ctx) { return Type::Unknown(); }

}  // namespace shrew::ir::shapes_internal
