// Written types -> IR types (LANGUAGE.md §4): tensor types, scalars, `?`,
// `@types` aliases, and named dimensions resolved against the evaluated
// config (§5.2).
//
//   TypeResolver types(config);
//   if (!types.ResolveAliases(program, diags)) …
//   std::optional<ir::Type> t = types.Resolve(decl.type, diags);
//
// Contract:
// - `Tensor<[d…], dt>` -> tensor type; a bare dtype -> rank 0; `?` -> unknown.
// - A dimension `N` naming a config key becomes fixed when the value is an
//   integer >= 1, is an error (E056) for any other config value, and stays
//   symbolic when there is no such key. `?` and `_` are dynamic. A written
//   size 0 is E055. A type whose fixed sizes multiply past int64 is E064.
// - Aliases are resolved once, in source order, after the whole config is
//   evaluated (PIPELINE.md §2.1); an alias may use earlier aliases only.
//   Using an unknown alias is E042. Tuples, lists and bare integers are E043
//   when used where a value type is needed (an alias to one is reported where
//   it is used, since @custom_op signatures may legitimately name it).
// - Never recurses: a type is resolved from its top level and its dims.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diag/diagnostic.h"
#include "front/ast.h"
#include "ir/type.h"
#include "lower/config_eval.h"

namespace shrew::lower {

// "'N' refers to config value -2, which is not a positive integer": why a
// dimension (or shape entry) naming config key `name` is refused; strings and
// opaque values are quoted (`N: M * 2;` with no key M is the text "M * 2").
std::string NotAPositiveDimension(const std::string& name, const ir::ConfigValue& value);

// The IR dtype of a written dtype.
ir::DType ToIrDType(ast::Dtype dtype);

class TypeResolver {
 public:
  explicit TypeResolver(const ConfigMap& config) : config_(config) {}

  // Resolves every alias of every @types block, in source order (a later
  // alias of the same name replaces the earlier one). False after the first
  // error.
  bool ResolveAliases(const ast::Program& program, diag::DiagnosticBag& diags);

  // Resolves a type written for an input, param, node or graph header.
  std::optional<ir::Type> Resolve(const ast::Type& type, diag::DiagnosticBag& diags) const;

  // The aliases in order of first definition (an unsupported form maps to
  // the unknown type `?`).
  const std::vector<std::pair<std::string, ir::Type>>& aliases() const { return ordered_; }

 private:
  struct Alias {
    std::optional<ir::Type> type;  // empty: an unsupported form (tuple, list, int)
    int index = -1;                // position in ordered_
  };
  std::optional<ir::Dim> ResolveDim(const ast::Dim& dim, diag::DiagnosticBag& diags) const;
  // "; did you mean 'Images'?" for an undefined type name near an alias.
  std::string TypeHint(const std::string& name) const;
  // Like Resolve, but an unsupported form yields `*unsupported = true`
  // instead of an error (for alias definitions).
  std::optional<ir::Type> ResolveImpl(const ast::Type& type, bool* unsupported,
                                      diag::DiagnosticBag& diags) const;

  const ConfigMap& config_;
  std::map<std::string, Alias, std::less<>> aliases_;
  std::vector<std::pair<std::string, ir::Type>> ordered_;
  // While ResolveAliases runs: each alias not defined yet, with the line of
  // its definition (a use before it names where it is).
  std::map<std::string, uint32_t, std::less<>> later_;
  // The alias ResolveAliases is resolving (`type A = A;` is no later definition).
  const std::string* defining_ = nullptr;
};

}  // namespace shrew::lower
