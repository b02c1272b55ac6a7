// Shape rules: transpose, permute, reshape/view, expand, concat, split, range.
#include <algorithm>
#include <limits>
#include <unordered_map>

#include "ir/shapes_internal.h"

namespace shrew::ir::shapes_internal {

namespace {

// "[a, b, -1]": an attribute shape as written.
std::string ShapeText(const std::vector<Dim>& dims) { return AttrValue::Shape(dims).ToString(); }

// The attribute `shape` with symbolic names bound; nullopt after reporting.
std::optional<std::vector<Dim>> ShapeAttr(ShapeContext& ctx, bool allow_infer_once) {
  const AttrValue* v = ctx.Attr("shape");
  if (!v) {
    ctx.Error(diag::Kind::MissingAttribute, std::string("missing attribute 'shape' for ") + ctx.op_name());
    return std::nullopt;
  }
  if (!v->is_shape() && !v->is_int_list()) {
    ctx.Error(diag::Kind::BadAttribute, std::string("attribute 'shape' of ") + ctx.op_name() +
                                            " must be a shape list");
    return std::nullopt;
  }
  std::vector<Dim> dims;
  if (v->is_int_list()) {
    for (int64_t s : v->as_int_list()) dims.push_back(s == -1 ? Dim::Dynamic() : Dim::Fixed(s));
  } else {
    dims = v->as_shape();
  }
  int infer = 0;
  for (Dim& d : dims) {
    // A written size starts at 1, but a name bound at run time may be 0 (an
    // empty batch, legal for inputs too): the interpreter accepts it.
    const int64_t min_size = d.is_fixed() ? 1 : 0;
    d = ctx.BindDim(d);
    if (d.is_dynamic()) ++infer;
    if (d.is_fixed() && d.size() < min_size) {
      ctx.Error(diag::Kind::BadAttribute, std::string("attribute 'shape' of ") + ctx.op_name() +
                                              " has invalid entry " + std::to_string(d.size()));
      return std::nullopt;
    }
  }
  if (allow_infer_once && infer > 1) {
    ctx.Error(diag::Kind::BadAttribute, std::string("attribute 'shape' of ") + ctx.op_name() +
                                            " has more than one -1");
    return std::nullopt;
  }
  return dims;
}

// Constant scalar value behind an operand (through identities and negations:
// `range(-1, 2)` is as static as `range(S, 2)` with `S: -1;`), if any.
std::optional<int64_t> ConstantOperandValue(const Graph& g, NodeId id) {
  bool negated = false;
  for (int hops = 0; hops < 64 && g.HasNode(id); ++hops) {
    const Node& n = g.node(id);
    if ((n.op == OpKind::kIdentity || n.op == OpKind::kNeg) && n.operands.size() == 1 && n.operands[0] < id) {
      negated = negated != (n.op == OpKind::kNeg);
      id = n.operands[0];
      continue;
    }
    if (n.op != OpKind::kConstant) return std::nullopt;
    const AttrValue* v = n.attr("value");
    if (!v) return std::nullopt;
    std::optional<int64_t> value;
    if (v->is_int()) {
      value = v->as_int();
    } else if (v->is_bool()) {
      value = v->as_bool() ? 1 : 0;
    } else if (v->is_float()) {
      double f = v->as_float();
      // The value the run sees: a float literal held as f32 (f16 and bf16
      // included) is rounded there first (`range(2.9999999)` is 3 elements).
      if (n.type.is_tensor() && StorageOf(n.type.dtype()) == StorageType::kF32) f = static_cast<float>(f);
      // Truncation toward zero; values outside int64 are not static.
      if (!(f > -9.2e18 && f < 9.2e18)) return std::nullopt;
      value = static_cast<int64_t>(f);
    }
    // -INT64_MIN wraps at run time: not a static length.
    if (!value || !negated) return value;
    if (*value == std::numeric_limits<int64_t>::min()) return std::nullopt;
    return -*value;
  }
  return std::nullopt;
}

// A product of dims as a coefficient times symbolic names (sorted, with
// repeats); nullopt when a dim is `?` or the coefficient overflows.
struct SymbolicCount {
  int64_t coefficient = 1;
  std::vector<std::string> names;
};
std::optional<SymbolicCount> CountSymbolically(const std::vector<Dim>& dims, const DimBindings* bindings) {
  SymbolicCount count;
  for (const Dim& raw : dims) {
    const Dim d = bindings ? raw.Bind(*bindings) : raw;
    if (d.is_symbolic()) {
      count.names.push_back(d.name());
    } else if (!d.is_fixed() || !CheckedMul(count.coefficient, d.size(), &count.coefficient)) {
      return std::nullopt;
    }
  }
  std::sort(count.names.begin(), count.names.end());
  return count;
}

// "3*N*S": the coefficient, then each name.
std::string ProductText(const SymbolicCount& c) {
  std::string out = std::to_string(c.coefficient);
  for (const std::string& n : c.names) out += "*" + n;
  return out;
}

// "N", "B and S", "B, S and T": the distinct names.
std::string NamesText(std::vector<std::string> names) {
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

}  // namespace

Type InferTranspose(ShapeContext& ctx) {
  std::optional<int64_t> d0 = ctx.IntAttr("dim0");
  std::optional<int64_t> d1 = ctx.IntAttr("dim1");
  if (!d0 || !d1 || ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) return x;
  if (!ctx.RequireRankAtLeast(x, 2)) return Type::Unknown();
  auto a = ctx.Axis(*d0, x.rank());
  auto b = ctx.Axis(*d1, x.rank());
  if (!a || !b) return Type::Unknown();
  Type out = x;
  std::swap(out.mutable_dims()[static_cast<size_t>(*a)], out.mutable_dims()[static_cast<size_t>(*b)]);
  return out;
}

Type InferPermute(ShapeContext& ctx) {
  const AttrValue* v = ctx.Attr("dims");
  if (!v || !v->is_int_list()) {
    ctx.Error(v ? diag::Kind::BadAttribute : diag::Kind::MissingAttribute,
              v ? "attribute 'dims' of permute must be a list of ints"
                : "missing attribute 'dims' for permute");
    return Type::Unknown();
  }
  if (ctx.num_operands() != 1 || ctx.operand(0).is_unknown()) return Type::Unknown();
  const Type& x = ctx.operand(0);
  const auto& perm = v->as_int_list();
  auto bad = [&] {
    ctx.Error(diag::Kind::BadPermutation, "dims " + v->ToString() +
                                              " is not a permutation of the axes of a rank-" +
                                              std::to_string(x.rank()) + " tensor");
  };
  if (static_cast<int>(perm.size()) != x.rank()) {
    bad();
    return Type::Unknown();
  }
  std::vector<bool> seen(perm.size(), false);
  std::vector<Dim> out;
  for (int64_t p : perm) {
    auto a = ctx.Axis(p, x.rank());
    if (!a) return Type::Unknown();
    if (seen[static_cast<size_t>(*a)]) {
      bad();
      return Type::Unknown();
    }
    seen[static_cast<size_t>(*a)] = true;
    out.push_back(x.dim(*a));
  }
  return Type::Tensor(std::move(out), x.dtype());
}

Type InferReshape(ShapeContext& ctx) {
  auto target = ShapeAttr(ctx, /*allow_infer_once=*/true);
  if (!target || ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) return Type::Unknown();
  const DimBindings* b = ctx.options->bindings;
  ElementCount in = x.NumElements(b);
  // Product of the target's entries other than -1.
  std::vector<Dim> known_part;
  int infer_at = -1;
  for (size_t i = 0; i < target->size(); ++i) {
    if ((*target)[i].is_dynamic()) {
      infer_at = static_cast<int>(i);
    } else {
      known_part.push_back((*target)[i]);
    }
  }
  ElementCount out = CountElements(known_part, b);
  // An overflowing input was reported where it was produced.
  if (in.overflow()) return Type::Unknown();
  if (out.overflow()) {
    ctx.Error(diag::Kind::ShapeOverflow,
              "element count of " + ShapeText(*target) + " is over 2^63 - 1 elements");
    return Type::Unknown();
  }
  auto mismatch = [&] {
    ctx.Error(diag::Kind::ReshapeMismatch, "cannot reshape " + DimsToString(x.dims()) + " (" +
                                               std::to_string(in.value) + " elements) to " +
                                               ShapeText(*target) + " (" +
                                               std::to_string(out.value) + " elements)");
  };
  std::vector<Dim> dims = *target;
  if (infer_at >= 0) {
    if (in.known() && out.known()) {
      // -1 beside a size bound to 0 is ambiguous (the interpreter's error).
      if (out.value == 0) {
        ctx.Error(diag::Kind::ReshapeMismatch, "cannot reshape " + DimsToString(x.dims()) + " to " +
                                                   ShapeText(*target) + ": -1 cannot be inferred when the other " +
                                                   "sizes multiply to 0");
        return Type::Unknown();
      }
      if (in.value % out.value != 0) {
        // The target has no element count of its own: say what -1 needs.
        ctx.Error(diag::Kind::ReshapeMismatch, "cannot reshape " + DimsToString(x.dims()) + " (" +
                                                   std::to_string(in.value) + " elements) to " + ShapeText(*target) +
                                                   ": " + std::to_string(in.value) + " is not a multiple of " +
                                                   std::to_string(out.value) + ", the other sizes' product");
        return Type::Unknown();
      }
      dims[static_cast<size_t>(infer_at)] = Dim::Fixed(in.value / out.value);
    } else {
      // The same names on both sides cancel: [B, S, 256] to [B, S, 4, -1]
      // makes -1 = 64 for every B and S (a name bound to 0 leaves -1
      // ambiguous, a run-time error), and [N, 3] to [N, 2, -1] fits none.
      // Otherwise -1 stays `?` until run time.
      const std::optional<SymbolicCount> si = CountSymbolically(x.dims(), b);
      const std::optional<SymbolicCount> so = CountSymbolically(known_part, b);
      if (si && so && si->names == so->names && so->coefficient != 0) {
        if (si->coefficient % so->coefficient != 0) {
          ctx.Error(diag::Kind::ReshapeMismatch,
                    "cannot reshape " + DimsToString(x.dims()) + " (" + ProductText(*si) + " elements) to " +
                        ShapeText(*target) + ": -1 would be " + std::to_string(si->coefficient) + "/" +
                        std::to_string(so->coefficient) + ", whatever " + NamesText(si->names) +
                        (si->names.size() > 1 ? " are" : " is"));
          return Type::Unknown();
        }
        dims[static_cast<size_t>(infer_at)] = Dim::Fixed(si->coefficient / so->coefficient);
      }
    }
  } else if (in.known() && out.known() && in.value != out.value) {
    mismatch();
    return Type::Unknown();
  }
  return Type::Tensor(std::move(dims), x.dtype());
}

Type InferExpand(ShapeContext& ctx) {
  auto target = ShapeAttr(ctx, /*allow_infer_once=*/false);
  if (!target || ctx.num_operands() != 1) return Type::Unknown();
  const Type& x = ctx.operand(0);
  if (x.is_unknown()) return Type::Unknown();
  int tr = static_cast<int>(target->size());
  auto bad = [&] {
    ctx.Error(diag::Kind::ShapeMismatch,
              "cannot expand " + DimsToString(x.dims()) + " to " + ShapeText(*target));
  };
  if (tr < x.rank()) {
    bad();
    return Type::Unknown();
  }
  std::vector<Dim> out(static_cast<size_t>(tr));
  int offset = tr - x.rank();
  for (int i = 0; i < tr; ++i) {
    const Dim& t = (*target)[static_cast<size_t>(i)];
    if (i < offset) {
      if (t.is_dynamic()) {  // -1 has no input size to keep on a new axis
        bad();
        return Type::Unknown();
      }
      out[static_cast<size_t>(i)] = t;
      continue;
    }
    const Dim& s = x.dim(i - offset);
    if (t.is_dynamic()) {
      out[static_cast<size_t>(i)] = s;
    } else if (s.is_one() || !DimsDiffer(s, t)) {
      out[static_cast<size_t>(i)] = t;
    } else {
      bad();
      return Type::Unknown();
    }
  }
  return Type::Tensor(std::move(out), x.dtype());
}

Type InferConcat(ShapeContext& ctx) {
  std::optional<int64_t> dim = ctx.IntAttr("dim");
  if (!dim || ctx.num_operands() < 1) return Type::Unknown();
  // An operand of unknown type leaves the result unknown, but the known ones
  // must still agree among themselves (dtype, rank, sizes off the axis) and
  // with the axis whatever the unknown one is: they are checked against the
  // first known operand, as all of them are against the first when all are
  // known.
  int first_known = -1;
  bool any_unknown = false;
  for (int k = 0; k < ctx.num_operands(); ++k) {
    if (ctx.operand(k).is_unknown()) {
      any_unknown = true;
    } else if (first_known < 0) {
      first_known = k;
    }
  }
  if (first_known < 0) return Type::Unknown();
  const Type& first = ctx.operand(first_known);
  auto axis = ctx.Axis(*dim, first.rank());
  if (!axis) return Type::Unknown();
  std::vector<Dim> out = first.dims();
  // Which operand each size of `out` came from, for the message: a size an
  // unknown one (N) left open is the next operand's.
  std::vector<int> from(out.size(), first_known);
  bool all_fixed = first.dim(*axis).is_fixed();
  int64_t total = all_fixed ? first.dim(*axis).size() : 0;
  for (int k = first_known + 1; k < ctx.num_operands(); ++k) {
    const Type& t = ctx.operand(k);
    if (t.is_unknown()) continue;
    if (!ctx.SameDType(first, t)) return Type::Unknown();
    if (!ctx.RequireRank(t, first.rank())) return Type::Unknown();
    for (int i = 0; i < first.rank(); ++i) {
      if (i == *axis) continue;
      if (DimsDiffer(out[static_cast<size_t>(i)], t.dim(i))) {
        // The interpreter's words: both shapes, and which axis may differ.
        const int j = from[static_cast<size_t>(i)];
        ctx.Error(diag::Kind::ShapeMismatch, "concat operand " + std::to_string(k) + " has shape " +
                                                 DimsToString(t.dims()) + ", operand " + std::to_string(j) + " " +
                                                 DimsToString(ctx.operand(j).dims()) + ": sizes " +
                                                 out[static_cast<size_t>(i)].ToString() + " and " + t.dim(i).ToString() +
                                                 " on axis " + std::to_string(i) + " (only axis " +
                                                 std::to_string(*axis) + ", the one joined, may differ)");
        return Type::Unknown();
      }
      if (!out[static_cast<size_t>(i)].is_fixed() && t.dim(i).is_fixed()) from[static_cast<size_t>(i)] = k;
      out[static_cast<size_t>(i)] = MergeDim(out[static_cast<size_t>(i)], t.dim(i));
    }
    const Dim& d = t.dim(*axis);
    if (all_fixed && d.is_fixed()) {
      if (!CheckedAdd(total, d.size(), &total)) {
        ctx.Error(diag::Kind::ShapeOverflow, "concat size along axis " + std::to_string(*axis) +
                                                 " is over 2^63 - 1");
        return Type::Unknown();
      }
    } else {
      all_fixed = false;
    }
  }
  if (any_unknown) return Type::Unknown();
  if (ctx.num_operands() > 1) {
    out[static_cast<size_t>(*axis)] = all_fixed ? Dim::Fixed(total) : Dim::Dynamic();
  }
  return Type::Tensor(std::move(out), first.dtype());
}

Type InferSplit(ShapeContext& ctx) {
  std::optional<int64_t> chunks = ctx.IntAttr("chunks");
  std::optional<int64_t> dim = ctx.IntAttr("dim");
  std::optional<int64_t> index = ctx.IntAttr("index");
  if (!chunks || !dim || !index) return Type::Unknown();
  if (*chunks < 1 || *index < 0) {
    ctx.Error(diag::Kind::BadAttribute, *chunks < 1 ? "attribute 'chunks' of split must be >= 1"
                                                    : "attribute 'index' of split must be >= 0");
    return Type::Unknown();
  }
  if (ctx.num_operands() != 1 || ctx.operand(0).is_unknown()) return Type::Unknown();
  const Type& x = ctx.operand(0);
  auto axis = ctx.Axis(*dim, x.rank());
  if (!axis) return Type::Unknown();
  Type out = x;
  const Dim& len = x.dim(*axis);
  Dim& slot = out.mutable_dims()[static_cast<size_t>(*axis)];
  if (!len.is_fixed()) {
    slot = Dim::Dynamic();
    return out;
  }
  auto size = SplitChunkSize(len.size(), *chunks, *index);
  if (!size) {
    ctx.Error(diag::Kind::BadSplit, "split index " + std::to_string(*index) +
                                        " does not exist: an axis of size " +
                                        std::to_string(len.size()) + " in " +
                                        std::to_string(*chunks) + " chunks gives " +
                                        std::to_string(SplitChunksOf(len.size(), *chunks).produced) + " chunks");
    return Type::Unknown();
  }
  slot = Dim::Fixed(*size);
  return out;
}

Type InferRange(ShapeContext& ctx) {
  int n = ctx.num_operands();
  if (n > 2) return Type::Unknown();
  if (n == 0) {
    // The length is the declared rank-1 type's dimension.
    const auto& declared = ctx.node->declared_type;
    if (!declared || !declared->is_tensor() || declared->rank() != 1) {
      ctx.Error(diag::Kind::RankMismatch, "range() without operands needs a declared rank-1 type");
      return Type::Unknown();
    }
    // A `?` names no length a run could bind (OPS.md §3.14: fixed or symbolic).
    if (declared->dim(0).is_dynamic()) {
      ctx.Error(diag::Kind::RankMismatch, "range() without operands needs a declared length (a size or a name), got " +
                                              declared->ToString());
      return Type::Unknown();
    }
    return Type::Tensor({ctx.BindDim(declared->dim(0))}, DType::kI64);
  }
  std::optional<int64_t> vals[2];
  bool all_const = true;
  for (int i = 0; i < n; ++i) {
    const Type& t = ctx.operand(i);
    if (t.is_tensor()) {
      ElementCount c = t.NumElements(ctx.options->bindings);
      if (c.known() && c.value != 1) {
        ctx.Error(diag::Kind::ShapeMismatch, "range operands must be scalars, got " + t.ToString());
        return Type::Unknown();
      }
      // Known now: a bool operand failed only when a run reached it.
      if (!IsNumeric(t.dtype())) {
        ctx.Error(diag::Kind::DtypeClass, std::string("range operands must be numbers, got ") + DTypeName(t.dtype()));
        return Type::Unknown();
      }
    }
    vals[i] = ConstantOperandValue(*ctx.graph, ctx.node->operands[static_cast<size_t>(i)]);
    if (!vals[i]) all_const = false;
  }
  if (!all_const) return Type::Tensor({Dim::Dynamic()}, DType::kI64);
  int64_t start = n == 2 ? *vals[0] : 0;
  int64_t end = n == 2 ? *vals[1] : *vals[0];
  if (end <= start) {
    ctx.Error(diag::Kind::ShapeMismatch,
              "range is empty (start " + std::to_string(start) + ", end " + std::to_string(end) + ")");
    return Type::Unknown();
  }
  int64_t len = 0;
  if (__builtin_sub_overflow(end, start, &len)) {
    ctx.Error(diag::Kind::ShapeOverflow, "range length is over 2^63 - 1");
    return Type::Unknown();
  }
  return Type::Tensor({Dim::Fixed(len)}, DType::kI64);
}

}  // namespace shrew::ir::shapes_internal

namespace shrew::ir {
namespace {

bool ShapesDependOnValues(const Graph& graph, const Program* program,
                          std::unordered_map<const Graph*, bool>* memo) {
  if (auto it = memo->find(&graph); it != memo->end()) return it->second;
  (*memo)[&graph] = false;  // also ends a (rejected) recursive call
  bool depends = false;
  for (const Node& n : graph.nodes()) {
    if (n.op == OpKind::kRange) {
      for (NodeId op : n.operands) depends = depends || !shapes_internal::ConstantOperandValue(graph, op);
    } else if (n.op == OpKind::kCall && program != nullptr) {
      const Graph* callee = program->FindGraph(n.callee);
      depends = depends || (callee != nullptr && ShapesDependOnValues(*callee, program, memo));
    }
    if (depends) break;
  }
  (*memo)[&graph] = depends;
  return depends;
}

}  // namespace

bool ShapesDependOnValues(const Graph& graph, const Program* program) {
  std::unordered_map<const Graph*, bool> memo;
  return ShapesDependOnValues(graph, program, &memo);
}

}  // namespace shrew::ir
