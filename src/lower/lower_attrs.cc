// Attribute values (OPS.md §1.1): named arguments of built-in calls, of
// @custom_op calls, and `key: value;` lines of node bodies. Values are
// compile-time constants read with the @config evaluator.
#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "base/spelling.h"
#include "lower/lower_internal.h"

namespace shrew::lower::internal {
namespace {

bool IsReduction(ir::OpKind kind) { return ir::HasFlag(kind, ir::kFlagReduction); }

// "must be …" phrase of an attribute type.
std::string Expectation(ir::AttrType t) {
  switch (t) {
    case ir::AttrType::kInt: return "an int";
    case ir::AttrType::kFloat: return "a number";
    case ir::AttrType::kBool: return "true or false";
    case ir::AttrType::kString: return "a string";
    case ir::AttrType::kIntList: return "a list of ints";
    case ir::AttrType::kShape: return "a shape list";
    case ir::AttrType::kAxes: return "an int or a list of ints";
    case ir::AttrType::kScalar: return "a number or a bool";
    case ir::AttrType::kDType: return "a dtype name such as \"f32\"";
  }
  return "a constant";
}

std::optional<std::vector<int64_t>> IntList(const ir::ConfigValue& v) {
  if (v.kind != ir::ConfigValue::Kind::kList) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(v.list.size());
  for (const ir::ConfigValue& x : v.list) {
    if (x.kind != ir::ConfigValue::Kind::kInt) return std::nullopt;
    out.push_back(x.i);
  }
  return out;
}

// Converts an evaluated value to attribute type `t`; nullopt on a kind
// mismatch. `list_axes`: whether a reduction accepts a list of axes.
std::optional<ir::AttrValue> Convert(ir::AttrType t, const ir::ConfigValue& v, bool list_axes) {
  using K = ir::ConfigValue::Kind;
  switch (t) {
    case ir::AttrType::kInt:
      if (v.kind == K::kInt) return ir::AttrValue::Int(v.i);
      return std::nullopt;
    case ir::AttrType::kFloat:
      if (v.kind == K::kInt) return ir::AttrValue::Float(static_cast<double>(v.i));
      if (v.kind == K::kFloat) return ir::AttrValue::Float(v.f);
      return std::nullopt;
    case ir::AttrType::kBool:
      if (v.kind == K::kBool) return ir::AttrValue::Bool(v.b);
      return std::nullopt;
    case ir::AttrType::kString:
      if (v.kind == K::kString) return ir::AttrValue::String(v.s);
      return std::nullopt;
    case ir::AttrType::kIntList:
      if (auto l = IntList(v)) return ir::AttrValue::IntList(std::move(*l));
      return std::nullopt;
    case ir::AttrType::kAxes:
      if (v.kind == K::kInt) return ir::AttrValue::IntList({v.i});
      if (list_axes) {
        if (auto l = IntList(v)) return ir::AttrValue::IntList(std::move(*l));
      }
      return std::nullopt;
    case ir::AttrType::kDType:
      if (v.kind == K::kString && ir::DTypeFromName(v.s)) return ir::AttrValue::String(v.s);
      return std::nullopt;
    case ir::AttrType::kShape:
    case ir::AttrType::kScalar:
      return std::nullopt;
  }
  return std::nullopt;
}

// Range rules of OPS.md §3 that need no operand type. Returns the "must …"
// text of a violated rule, or "" when the value is fine.
std::string RangeProblem(ir::OpKind kind, std::string_view attr, const ir::AttrValue& v) {
  using ir::OpKind;
  if ((kind == OpKind::kMultiHeadAttention || kind == OpKind::kTransformerBlock) &&
      attr == "n_heads" && v.as_int() < 1) {
    return "must be at least 1";
  }
  if (kind == OpKind::kSplit && attr == "chunks" && v.as_int() < 1) return "must be at least 1";
  if (kind == OpKind::kSplit && attr == "index" && v.as_int() < 0) return "must not be negative";
  if (kind == OpKind::kDropout && attr == "p" && !(v.as_float() >= 0.0 && v.as_float() < 1.0)) {
    return "must be in [0, 1)";
  }
  if ((kind == OpKind::kLayerNorm || kind == OpKind::kBatchNorm) && attr == "eps" &&
      !(v.as_float() > 0.0 && std::isfinite(v.as_float()))) {
    return std::isfinite(v.as_float()) ? "must be positive" : "must be a finite positive number";
  }
  if (attr == "dims" && ir::HasFlag(kind, ir::kFlagReduction) && v.is_int_list()) {
    std::unordered_set<int64_t> seen;
    for (int64_t axis : v.as_int_list()) {
      if (!seen.insert(axis).second) return "must not list axis " + std::to_string(axis) + " twice";
    }
  }
  return "";
}

}  // namespace

bool Lowerer::CheckNotTensor(const ast::Expr& value, const std::string& where) {
  const ast::Expr* e = ast::StripParens(&value);
  const auto* n = e->As<ast::NameExpr>();
  if (n == nullptr || config_.count(n->name) > 0) return true;
  if (scope_.count(n->name) > 0) {
    Error(diag::Kind::BadAttribute, e->span,
          where + " must be a constant, but '" + n->name + "' is a tensor of the graph");
    return false;
  }
  // The node itself or a later one is not in scope yet, but no bare word
  // either: it read as the string "y".
  if (std::optional<diag::Span> at = DeclarationOf(n->name)) {
    Error(diag::Kind::BadAttribute, e->span,
          where + " must be a constant, but '" + n->name + "' is a tensor of the graph (declared at " +
              std::to_string(at->line) + ":" + std::to_string(at->column) + ")");
    return false;
  }
  return true;
}

std::optional<ir::AttrValue> Lowerer::GenericAttr(const ir::ConfigValue& v) {
  using K = ir::ConfigValue::Kind;
  switch (v.kind) {
    case K::kInt: return ir::AttrValue::Int(v.i);
    case K::kFloat: return ir::AttrValue::Float(v.f);
    case K::kBool: return ir::AttrValue::Bool(v.b);
    case K::kString: return ir::AttrValue::String(v.s);
    case K::kList: {
      if (auto l = IntList(v)) return ir::AttrValue::IntList(std::move(*l));
      std::vector<double> fl;
      bool numbers = true;
      for (const ir::ConfigValue& x : v.list) {
        if (x.kind == K::kInt) fl.push_back(static_cast<double>(x.i));
        else if (x.kind == K::kFloat) fl.push_back(x.f);
        else numbers = false;
      }
      if (numbers) return ir::AttrValue::FloatList(std::move(fl));
      // Strings, bools, lists (LANGUAGE.md §6: lists of constants): a
      // generic list, which no operation takes (its schema says so).
      std::vector<ir::AttrValue> items;
      for (const ir::ConfigValue& x : v.list) {
        std::optional<ir::AttrValue> item = GenericAttr(x);
        if (!item) return std::nullopt;
        items.push_back(std::move(*item));
      }
      return ir::AttrValue::List(std::move(items));
    }
    case K::kOpaque: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<ir::AttrValue> Lowerer::LowerShapeList(ir::OpKind kind, const std::string& attr,
                                                     const ast::Expr& value) {
  const std::string where = "attribute '" + attr + "' of " + ir::OpName(kind);
  const bool single_infer = kind == ir::OpKind::kReshape || kind == ir::OpKind::kView;
  std::vector<ir::Dim> dims;
  bool inferred = false;
  // One entry: a size >= 1, -1, or a dimension name (symbolic unless it is a
  // config key, whose integer value is used).
  auto add_int = [&](int64_t v, diag::Span span) -> bool {
    if (v >= 1) {
      dims.push_back(ir::Dim::Fixed(v));
      return true;
    }
    if (v == -1 && !(single_infer && inferred)) {
      inferred = true;
      dims.push_back(ir::Dim::Dynamic());
      return true;
    }
    Error(diag::Kind::BadAttribute, span,
          where + (v == -1 ? " may contain -1 only once"
                           : " must list sizes >= 1, -1 or dimension names, got " +
                                 std::to_string(v)));
    return false;
  };
  const ast::Expr* e = ast::StripParens(&value);
  if (const auto* list = e->As<ast::ListExpr>()) {
    for (const ast::ExprPtr& raw : list->elements) {
      if (raw == nullptr) return std::nullopt;
      const ast::Expr* el = ast::StripParens(raw.get());
      if (const auto* n = el->As<ast::NameExpr>()) {
        auto it = config_.find(n->name);
        if (it == config_.end()) {
          dims.push_back(ir::Dim::Symbolic(n->name));
          continue;
        }
        if (it->second.kind != ir::ConfigValue::Kind::kInt || it->second.i < 1) {
          Error(diag::Kind::BadAttribute, el->span,
                where + ": " + NotAPositiveDimension(n->name, it->second));
          return std::nullopt;
        }
        dims.push_back(ir::Dim::Fixed(it->second.i));
        continue;
      }
      std::optional<ir::ConfigValue> v = EvalConfigExpr(*el, EvalContext(), diags_);
      if (!v) return std::nullopt;
      if (v->kind != ir::ConfigValue::Kind::kInt) {
        Error(diag::Kind::BadAttribute, el->span,
              where + " must list sizes >= 1, -1 or dimension names");
        return std::nullopt;
      }
      if (!add_int(v->i, el->span)) return std::nullopt;
    }
  } else {
    // A config key holding a list of ints.
    std::optional<ir::ConfigValue> v = EvalConfigExpr(*e, EvalContext(), diags_);
    if (!v) return std::nullopt;
    std::optional<std::vector<int64_t>> l = IntList(*v);
    if (!l) {
      Error(diag::Kind::BadAttribute, e->span, where + " must be a shape list");
      return std::nullopt;
    }
    for (int64_t x : *l) {
      if (!add_int(x, e->span)) return std::nullopt;
    }
  }
  if (ir::CountElements(dims).overflow()) {
    Error(diag::Kind::TypeTooLarge, e->span,
          where + " has more than 2^63 - 1 elements");
    return std::nullopt;
  }
  return ir::AttrValue::Shape(std::move(dims));
}

namespace {

// The attributes `kind` takes as written in source, for the unknown-attribute
// message: "it takes dim, keepdim" or "it takes none".
[[gnu::noinline, gnu::cold]] std::string AttrNamesOf(ir::OpKind kind) {
  const std::vector<std::string> names = ir::SourceAttrList(kind);
  return "it takes " + (names.empty() ? std::string("none") : JoinNames(names));
}

// "; did you mean 'keepdim'? " for a typo of one of kind's attributes, or
// for NumPy's `axis`/`axes` where the op takes `dim` or `dims`; else "; ".
[[gnu::noinline, gnu::cold]] std::string AttrHint(ir::OpKind kind, const std::string& src) {
  const std::vector<std::string> names = ir::SourceAttrList(kind);
  std::string hint = DidYouMean(src, names);
  if (hint.empty() && (src == "axis" || src == "axes")) {
    for (const char* axes : {"dim", "dims"}) {
      if (std::find(names.begin(), names.end(), axes) != names.end()) hint = "; did you mean '" + std::string(axes) + "'?";
    }
  }
  return HintBeforeList(hint);
}

}  // namespace

bool Lowerer::LowerOpAttrs(ir::OpKind kind, const ast::CallExpr& call, diag::Span span,
                           ir::Attrs* attrs) {
  const char* op_name = ir::OpName(kind);
  ir::Attrs given;
  std::unordered_set<std::string> seen;  // a name given twice is so even when its first value was refused
  // One attribute into `given`; false after reporting its mistake.
  auto lower_one = [&](const ast::Argument& a) {
    const std::string& src = a.name->name;
    // Reductions spell their axes `dim` in source and hold them in `dims`.
    std::string ir_name = src;
    if (IsReduction(kind)) {
      if (src == "dim") ir_name = "dims";
      else if (src == "dims") ir_name = "";
    }
    const ir::OpAttrSpec* spec = ir_name.empty() ? nullptr : ir::FindOpAttrSpec(kind, ir_name);
    if (spec == nullptr || spec->type == ir::AttrType::kScalar) {
      Error(diag::Kind::UnknownAttribute, a.name->span,
            "unknown attribute '" + src + "' for " + op_name + AttrHint(kind, src) + AttrNamesOf(kind));
      return false;
    }
    if (!seen.insert(ir_name).second) {
      Error(diag::Kind::BadAttribute, a.span,
            "attribute '" + src + "' of " + op_name + " is given twice");
      return false;
    }
    if (!CheckNotTensor(*a.value, "attribute '" + src + "' of " + op_name)) return false;
    std::optional<ir::AttrValue> value;
    if (spec->type == ir::AttrType::kShape) {
      value = LowerShapeList(kind, src, *a.value);
      if (!value) return false;
    } else {
      std::optional<ir::ConfigValue> cv = EvalConfigExpr(*a.value, EvalContext(), diags_);
      if (!cv) return false;
      // `max`/`min` take one axis; the other reductions also a list.
      bool list_axes = kind != ir::OpKind::kMax && kind != ir::OpKind::kMin;
      value = Convert(spec->type, *cv, list_axes);
      if (!value) {
        ir::AttrType shown = spec->type == ir::AttrType::kAxes && !list_axes
                                 ? ir::AttrType::kInt : spec->type;
        // What a name gave, which the caret does not show; a bare name that
        // is no config key reads as its own text (LANGUAGE.md §5.1).
        const auto* name = a.value->As<ast::NameExpr>();
        const std::string got =
            name == nullptr ? ""
            : config_.count(name->name) != 0
                ? ", got '" + name->name + "', config value " +
                      (cv->kind == ir::ConfigValue::Kind::kString ? "\"" + cv->s + "\"" : cv->ToString())
                : ", got '" + name->name + "', which is no config key";
        Error(diag::Kind::BadAttribute, a.value->span,
              "attribute '" + src + "' of " + op_name + " must be " + Expectation(shown) + got);
        return false;
      }
    }
    std::string problem = RangeProblem(kind, ir_name, *value);
    if (!problem.empty()) {
      Error(diag::Kind::BadAttribute, a.value->span,
            "attribute '" + src + "' of " + op_name + " " + problem + ", got " + value->ToString());
      return false;
    }
    given.Set(ir_name, std::move(*value));
    return true;
  };
  // Every attribute is looked at, so each one's mistake is reported at once
  // (`sum(x, axis: 0, keepdims: true)` has two).
  bool ok = true;
  for (const ast::Argument& a : call.args) {
    if (a.name && a.value != nullptr && !lower_one(a)) ok = false;
  }
  // A misspelt required attribute is not also reported missing.
  if (!ok) return false;
  // Complete, in schema order: later stages and dumps read every attribute.
  for (const ir::OpAttrSpec& spec : ir::OpAttrSpecs(kind)) {
    if (const ir::AttrValue* v = given.Find(spec.name)) {
      attrs->Set(spec.name, *v);
    } else if (spec.has_default) {
      attrs->Set(spec.name, spec.default_value);
    } else if (spec.required) {
      std::string src = IsReduction(kind) && std::string_view(spec.name) == "dims" ? "dim" : spec.name;
      // `split(x, 2)`: a number past the first operand is meant as it.
      std::string hint;
      for (size_t k = 1; k < call.args.size() && hint.empty(); ++k) {
        const ast::Argument& a = call.args[k];
        if (a.name || a.value == nullptr) continue;
        const std::string* text = nullptr;
        if (const auto* i = a.value->As<ast::IntLiteral>()) text = &i->text;
        if (const auto* f = a.value->As<ast::FloatLiteral>()) text = &f->text;
        if (text != nullptr) {
          hint = std::string("; attributes are written by name, as in ") + op_name + "(x, " + src + ": " + *text + ")";
        }
      }
      Error(diag::Kind::MissingAttribute, span, "missing attribute '" + src + "' for " + op_name + hint);
      return false;
    }
  }
  return true;
}

bool Lowerer::LowerCustomAttrs(const ast::CallExpr& call, ir::Attrs* attrs) {
  const std::string op_name = call.CalleeName();
  // One attribute into `attrs`; false after reporting its mistake. Every
  // one is looked at, as for built-in ops; a name given twice is so even
  // when its first value was refused.
  std::unordered_set<std::string> seen;
  auto lower_one = [&](const ast::Argument& a) {
    if (!seen.insert(a.name->name).second) {
      Error(diag::Kind::BadAttribute, a.span,
            "attribute '" + a.name->name + "' of " + op_name + " is given twice");
      return false;
    }
    if (!CheckNotTensor(*a.value, "attribute '" + a.name->name + "' of " + op_name)) return false;
    std::optional<ir::ConfigValue> cv = EvalConfigExpr(*a.value, EvalContext(), diags_);
    if (!cv) return false;
    std::optional<ir::AttrValue> v = GenericAttr(*cv);
    if (!v) {
      Error(diag::Kind::BadAttribute, a.value->span,
            "attribute '" + a.name->name + "' of " + op_name + " must be a constant");
      return false;
    }
    attrs->Set(a.name->name, std::move(*v));
    return true;
  };
  bool ok = true;
  for (const ast::Argument& a : call.args) {
    if (a.name && a.value != nullptr && !lower_one(a)) ok = false;
  }
  return ok;
}

}  // namespace shrew::lower::internal
