#include "ir/op.h"

#include <algorithm>
#include <vector>

#include "base/check.h"

namespace shrew::ir {
namespace {

constexpr OpInfo kOpInfos[] = {
#define SHREW_OP(kind, name, arity, flags, rule) {OpKind::k##kind, name, arity, flags},
#include "ir/ops.def"
#undef SHREW_OP
};
static_assert(sizeof(kOpInfos) / sizeof(kOpInfos[0]) == kNumOpKinds);

struct FunctionRow {
  const char* name;
  OpKind kind;
};
constexpr FunctionRow kFunctions[] = {
#define SHREW_OP_FUNCTION(call_name, kind) {call_name, OpKind::k##kind},
#include "ir/ops.def"
#undef SHREW_OP_FUNCTION
};

// Default-value helpers named in ops.def's SHREW_OP_ATTR rows.
struct DefaultSpec {
  bool required;
  bool has_default;
  AttrValue value;
};
DefaultSpec Required() { return {true, false, AttrValue()}; }
[[maybe_unused]] DefaultSpec NoDefault() { return {false, false, AttrValue()}; }
DefaultSpec Int(int64_t v) { return {false, true, AttrValue::Int(v)}; }
DefaultSpec Float(double v) { return {false, true, AttrValue::Float(v)}; }
DefaultSpec Bool(bool v) { return {false, true, AttrValue::Bool(v)}; }
[[maybe_unused]] DefaultSpec Str(const char* v) { return {false, true, AttrValue::String(v)}; }
DefaultSpec All() { return {false, true, AttrValue::All()}; }

// Per-kind attribute lists, built once from the SHREW_OP_ATTR rows.
const std::vector<std::vector<OpAttrSpec>>& AttrTable() {
  static const std::vector<std::vector<OpAttrSpec>>* table = [] {
    auto* t = new std::vector<std::vector<OpAttrSpec>>(kNumOpKinds);
    auto add = [t](OpKind kind, const char* name, AttrType type, DefaultSpec d) {
      (*t)[static_cast<size_t>(kind)].push_back(
          OpAttrSpec{name, type, d.required, d.has_default, std::move(d.value)});
    };
#define SHREW_OP_ATTR(kind, name, type, def) add(OpKind::k##kind, name, type, def);
#include "ir/ops.def"
#undef SHREW_OP_ATTR
    return t;
  }();
  return *table;
}

}  // namespace

bool Arity::Accepts(int n) const {
  switch (form) {
    case Form::kRange: return n >= min && (max < 0 || n <= max);
    case Form::kEither: return n == min || n == max;
    case Form::kCallee: return true;
  }
  return false;
}

std::string Arity::ToString() const {
  switch (form) {
    case Form::kRange:
      if (max < 0) return "at least " + std::to_string(min);
      if (min == max) return std::to_string(min);
      return std::to_string(min) + " to " + std::to_string(max);
    case Form::kEither: return std::to_string(min) + " or " + std::to_string(max);
    case Form::kCallee: return "the callee's input count";
  }
  return "";
}

std::string OperandsText(const std::string& count) {
  return count + (count == "1" || count == "at least 1" ? " operand" : " operands");
}

const OpInfo& GetOpInfo(OpKind kind) {
  int i = static_cast<int>(kind);
  SHREW_CHECK(i >= 0 && i < kNumOpKinds);
  return kOpInfos[i];
}

const char* OpName(OpKind kind) { return GetOpInfo(kind).name; }

std::optional<OpKind> OpKindFromName(std::string_view name) {
  for (const OpInfo& info : kOpInfos) {
    if (name == info.name) return info.kind;
  }
  return std::nullopt;
}

const char* AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kBool: return "bool";
    case AttrType::kString: return "string";
    case AttrType::kIntList: return "int list";
    case AttrType::kShape: return "shape list";
    case AttrType::kAxes: return "int or int list";
    case AttrType::kScalar: return "number or bool";
    case AttrType::kDType: return "dtype name";
  }
  return "";
}

bool AttrMatches(AttrType t, const AttrValue& v) {
  switch (t) {
    case AttrType::kInt: return v.is_int();
    case AttrType::kFloat: return v.is_number();
    case AttrType::kBool: return v.is_bool();
    case AttrType::kString: return v.is_string();
    case AttrType::kIntList: return v.is_int_list();
    case AttrType::kShape: return v.is_shape();
    case AttrType::kAxes: return v.is_int_list() || v.is_all();
    case AttrType::kScalar: return v.is_number() || v.is_bool();
    case AttrType::kDType: return v.is_string() && DTypeFromName(v.as_string()).has_value();
  }
  return false;
}

std::span<const OpAttrSpec> OpAttrSpecs(OpKind kind) {
  const auto& list = AttrTable()[static_cast<size_t>(kind)];
  return std::span<const OpAttrSpec>(list.data(), list.size());
}

std::vector<std::string> SourceAttrList(OpKind kind) {
  std::vector<std::string> names;
  for (const OpAttrSpec& a : OpAttrSpecs(kind)) {
    if (a.type == AttrType::kScalar) continue;
    names.emplace_back(HasFlag(kind, kFlagReduction) && std::string_view(a.name) == "dims" ? "dim" : a.name);
  }
  return names;
}

const OpAttrSpec* FindOpAttrSpec(OpKind kind, std::string_view attr_name) {
  for (const OpAttrSpec& s : OpAttrSpecs(kind)) {
    if (attr_name == s.name) return &s;
  }
  return nullptr;
}

const AttrValue* AttrOrDefault(OpKind kind, const Attrs& attrs, std::string_view attr_name) {
  if (const AttrValue* v = attrs.Find(attr_name)) return v;
  const OpAttrSpec* spec = FindOpAttrSpec(kind, attr_name);
  return spec && spec->has_default ? &spec->default_value : nullptr;
}

Attrs CanonicalAttrs(OpKind kind, const Attrs& attrs) {
  Attrs out;
  for (const OpAttrSpec& spec : OpAttrSpecs(kind)) {
    if (const AttrValue* v = AttrOrDefault(kind, attrs, spec.name)) out.Set(spec.name, *v);
  }
  std::vector<const Attrs::Entry*> extra;
  for (const Attrs::Entry& e : attrs.entries()) {
    if (!FindOpAttrSpec(kind, e.first)) extra.push_back(&e);
  }
  std::sort(extra.begin(), extra.end(),
            [](const Attrs::Entry* a, const Attrs::Entry* b) { return a->first < b->first; });
  for (const Attrs::Entry* e : extra) out.Set(e->first, e->second);
  return out;
}

std::optional<OpKind> LookupFunction(std::string_view call_name) {
  for (const FunctionRow& f : kFunctions) {
    if (call_name == f.name) return f.kind;
  }
  return std::nullopt;
}

std::vector<std::string_view> FunctionNames() {
  std::vector<std::string_view> names;
  for (const FunctionRow& f : kFunctions) names.emplace_back(f.name);
  return names;
}

std::optional<OpKind> BinaryOperatorOp(std::string_view op) {
  struct Row {
    const char* text;
    OpKind kind;
  };
  static constexpr Row kRows[] = {
      {"+", OpKind::kAdd},       {"-", OpKind::kSub},        {"*", OpKind::kMul},
      {"/", OpKind::kDiv},       {"%", OpKind::kMod},        {"**", OpKind::kPow},
      {"==", OpKind::kEqual},    {"!=", OpKind::kNotEqual},  {"<", OpKind::kLess},
      {">", OpKind::kGreater},   {"<=", OpKind::kLessEqual}, {">=", OpKind::kGreaterEqual},
      {"&&", OpKind::kAnd},      {"||", OpKind::kOr},
  };
  for (const Row& r : kRows) {
    if (op == r.text) return r.kind;
  }
  return std::nullopt;
}

std::optional<OpKind> UnaryOperatorOp(std::string_view op) {
  if (op == "-") return OpKind::kNeg;
  if (op == "!") return OpKind::kNot;
  return std::nullopt;
}

}  // namespace shrew::ir
