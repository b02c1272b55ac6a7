#include "lower/types.h"

#include <cmath>

#include "base/spelling.h"
#include "diag/utf8.h"
#include "front/token.h"

namespace shrew::lower {

std::string NotAPositiveDimension(const std::string& name, const ir::ConfigValue& value) {
  const bool text = value.kind == ir::ConfigValue::Kind::kString || value.kind == ir::ConfigValue::Kind::kOpaque;
  const std::string shown = diag::EscapeForMessage(text ? value.s : value.ToString(), 40);
  // A float is shown as one: "config value 2, which is not a positive integer" contradicted itself for 2.0.
  const bool whole_float = value.kind == ir::ConfigValue::Kind::kFloat && std::isfinite(value.f) &&
                           shown.find_first_of(".eE") == std::string::npos;
  return "'" + name + "' refers to config value " + (text ? "'" + shown + "'" : shown) +
         (whole_float ? ".0 (a float)" : "") + ", which is not a positive integer";
}

ir::DType ToIrDType(ast::Dtype dtype) {
  std::optional<ir::DType> d = ir::DTypeFromName(ast::DtypeName(dtype));
  return d ? *d : ir::DType::kF32;  // every written dtype has an IR name
}

std::string TypeResolver::TypeHint(const std::string& name) const {
  // LANGUAGE.md §4.4: an alias refers to those defined earlier.
  if (defining_ != nullptr && *defining_ == name && !aliases_.count(name)) {
    return "; an alias cannot be defined by itself";
  }
  if (auto it = later_.find(name); it != later_.end()) {
    return "; it is defined later, on line " + std::to_string(it->second) + ": an alias may use only those defined before it";
  }
  std::vector<std::string_view> known;
  for (const auto& [alias, a] : aliases_) known.push_back(alias);
  return DidYouMean(name, known);
}

std::optional<ir::Dim> TypeResolver::ResolveDim(const ast::Dim& dim,
                                                diag::DiagnosticBag& diags) const {
  switch (dim.kind) {
    case ast::Dim::Kind::Fixed:
      if (dim.value <= 0) {
        diags.Add(diag::Kind::ZeroDimension, dim.span,
                  "dimension size " + std::to_string(dim.value) + " is not allowed (sizes start at 1)");
        return std::nullopt;
      }
      return ir::Dim::Fixed(dim.value);
    case ast::Dim::Kind::Named: {
      auto it = config_.find(dim.name);
      if (it == config_.end()) return ir::Dim::Symbolic(dim.name);
      const ir::ConfigValue& v = it->second;
      if (v.kind != ir::ConfigValue::Kind::kInt || v.i < 1) {
        diags.Add(diag::Kind::BadDimension, dim.span,
                  "dimension " + NotAPositiveDimension(dim.name, v));
        return std::nullopt;
      }
      return ir::Dim::Fixed(v.i);
    }
    case ast::Dim::Kind::Dynamic:
    case ast::Dim::Kind::Inferred:
      return ir::Dim::Dynamic();
  }
  return ir::Dim::Dynamic();
}

std::optional<ir::Type> TypeResolver::ResolveImpl(const ast::Type& type, bool* unsupported,
                                                  diag::DiagnosticBag& diags) const {
  *unsupported = false;
  switch (type.kind) {
    case ast::Type::Kind::Tensor: {
      std::vector<ir::Dim> dims;
      dims.reserve(type.dims.size());
      for (const ast::Dim& d : type.dims) {
        std::optional<ir::Dim> r = ResolveDim(d, diags);
        if (!r) return std::nullopt;
        dims.push_back(std::move(*r));
      }
      ir::Type t = ir::Type::Tensor(std::move(dims), ToIrDType(type.dtype));
      if (t.NumElements().overflow()) {
        diags.Add(diag::Kind::TypeTooLarge, type.span,
                  "type " + t.ToString() + " has more than 2^63 - 1 elements");
        return std::nullopt;
      }
      return t;
    }
    case ast::Type::Kind::Scalar:
      return ir::Type::Scalar(ToIrDType(type.dtype));
    case ast::Type::Kind::Dynamic:
      return ir::Type::Unknown();
    case ast::Type::Kind::Alias: {
      auto it = aliases_.find(type.name);
      if (it == aliases_.end()) {
        const std::string_view dtype = front::DtypeMeantBy(type.name);
        diags.Add(diag::Kind::UndefinedType, type.span,
                  "undefined type '" + type.name + "'" +
                      (dtype.empty() ? TypeHint(type.name) : "; write " + std::string(dtype)));
        return std::nullopt;
      }
      if (!it->second.type) {
        *unsupported = true;
        return std::nullopt;
      }
      return *it->second.type;
    }
    case ast::Type::Kind::Tuple:
    case ast::Type::Kind::List:
    case ast::Type::Kind::Int:
    case ast::Type::Kind::Error:
      *unsupported = true;
      return std::nullopt;
  }
  *unsupported = true;
  return std::nullopt;
}

std::optional<ir::Type> TypeResolver::Resolve(const ast::Type& type,
                                              diag::DiagnosticBag& diags) const {
  bool unsupported = false;
  std::optional<ir::Type> t = ResolveImpl(type, &unsupported, diags);
  if (unsupported) {
    // What was written, and what a value's type can be (it said only "unsupported type").
    std::string what;
    switch (type.kind) {
      case ast::Type::Kind::Tuple: what = ": a tuple type is"; break;
      case ast::Type::Kind::List: what = ": a list type is"; break;
      case ast::Type::Kind::Int: what = ": a number is"; break;
      case ast::Type::Kind::Alias: what = ": '" + type.name + "' names a type that is"; break;
      default: break;
    }
    diags.Add(diag::Kind::UnsupportedType, type.span,
              "unsupported type" + (what.empty() ? std::string() : what + " no value's type") +
                  "; write Tensor<[dims], dtype>, a dtype (f32) for a scalar, or ? (typed by each run)");
  }
  return t;
}

bool TypeResolver::ResolveAliases(const ast::Program& program, diag::DiagnosticBag& diags) {
  later_.clear();
  for (const ast::TypesBlock* block : program.All<ast::TypesBlock>()) {
    for (const ast::TypeAlias& alias : block->aliases) later_.emplace(alias.name.name, alias.name.span.line);
  }
  for (const ast::TypesBlock* block : program.All<ast::TypesBlock>()) {
    for (const ast::TypeAlias& alias : block->aliases) {
      bool unsupported = false;
      defining_ = &alias.name.name;
      std::optional<ir::Type> t = ResolveImpl(alias.type, &unsupported, diags);
      defining_ = nullptr;
      if (!t && !unsupported) {
        later_.clear();
        return false;
      }
      later_.erase(alias.name.name);
      Alias& entry = aliases_[alias.name.name];
      entry.type = t;
      // One entry per name in `ordered_`, at the place of its first definition
      // (a redefinition updates it in place: linear in the alias count).
      if (entry.index < 0) {
        entry.index = static_cast<int>(ordered_.size());
        ordered_.emplace_back(alias.name.name, ir::Type());
      }
      ordered_[static_cast<size_t>(entry.index)].second = t ? *t : ir::Type();
    }
  }
  later_.clear();
  return true;
}

}  // namespace shrew::lower
