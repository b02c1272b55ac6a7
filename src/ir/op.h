// Operation kinds and their static facts, all generated from ir/ops.def.
//
//   OpKind k = *LookupFunction("mm");           // OpKind::kMatmul
//   const OpInfo& info = GetOpInfo(k);          // name "matmul", arity 2
//   if (HasFlag(k, kFlagElementwiseBinary)) …
//   for (const OpAttrSpec& a : OpAttrSpecs(k)) … // schema, dump order
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <string_view>

#include "ir/attr.h"

namespace shrew::ir {

enum class OpKind : uint8_t {
#define SHREW_OP(kind, name, arity, flags, rule) k##kind,
#include "ir/ops.def"
#undef SHREW_OP
};
inline constexpr int kNumOpKinds = 0
#define SHREW_OP(kind, name, arity, flags, rule) +1
#include "ir/ops.def"
#undef SHREW_OP
    ;

// Accepted operand counts (OPS.md §4).
struct Arity {
  enum class Form : uint8_t { kRange, kEither, kCallee };
  Form form = Form::kRange;
  int min = 0;
  int max = 0;  // kRange: -1 = unbounded. kEither: the two accepted counts are min and max.

  static constexpr Arity Exactly(int n) { return {Form::kRange, n, n}; }
  static constexpr Arity Range(int lo, int hi) { return {Form::kRange, lo, hi}; }
  static constexpr Arity AtLeast(int n) { return {Form::kRange, n, -1}; }
  static constexpr Arity Any() { return {Form::kRange, 0, -1}; }
  static constexpr Arity Either(int a, int b) { return {Form::kEither, a, b}; }
  // `call`: the callee's input count, known only with the program.
  static constexpr Arity Callee() { return {Form::kCallee, 0, -1}; }

  // For kCallee this accepts anything (validation checks the callee).
  bool Accepts(int n) const;
  // The N of "OP expects N operands, got M": "2", "2 to 3", "1 or 5", "at least 1".
  std::string ToString() const;
};

// "N operand(s)" for a count as Arity::ToString spells it ("1" and
// "at least 1" take the singular).
std::string OperandsText(const std::string& count);

// Category bits. Several passes branch on these instead of listing kinds.
enum OpFlag : uint32_t {
  kFlagNone = 0,
  kFlagElementwiseUnary = 1u << 0,   // one operand, same shape (neg … sqrt, not)
  kFlagElementwiseBinary = 1u << 1,  // two operands, broadcast (arithmetic, comparisons, and, or)
  kFlagArithmetic = 1u << 2,         // add sub mul div mod pow
  kFlagComparison = 1u << 3,         // -> bool
  kFlagLogical = 1u << 4,            // and or not -> bool
  kFlagReduction = 1u << 5,          // sum mean max min variance (attrs dims, keepdim)
  kFlagShapeOp = 1u << 6,            // transpose permute reshape view expand concat split
  kFlagView = 1u << 7,               // reshape/view: may alias the operand's storage
  kFlagFloatOnly = 1u << 8,          // T7: requires a float operand
  kFlagImplicitParams = 1u << 9,     // one-operand form gets parameters at materialisation
  kFlagFused = 1u << 10,             // fused_* kinds
  kFlagNoCse = 1u << 11,             // never merged by CSE (dropout, call, custom, fused, repeat)
  kFlagAdoptsWeak = 1u << 12,        // weak constant operands adopt the other dtype (§1.3)
  kFlagCommutative = 1u << 13,       // op(a, b) == op(b, a) (CSE still keys by order, §6.5)
  kFlagStochastic = 1u << 14,        // dropout
  kFlagLoss = 1u << 15,              // rank-0 result
};

struct OpInfo {
  OpKind kind;
  const char* name;  // canonical lower-case name (OPS.md §1.5)
  Arity arity;
  uint32_t flags;
};

const OpInfo& GetOpInfo(OpKind kind);
const char* OpName(OpKind kind);
inline bool HasFlag(OpKind kind, uint32_t flag) { return (GetOpInfo(kind).flags & flag) != 0; }
// Canonical name -> kind ("matmul", "fused_add_relu"; not aliases like "mm").
std::optional<OpKind> OpKindFromName(std::string_view name);

// ---- attribute schema (OPS.md §3, IR names)

// What kind of value an attribute takes. Matches AttrKind where they
// overlap; the last three are schema-only unions.
enum class AttrType : uint8_t {
  kInt,
  kFloat,     // an int is accepted
  kBool,
  kString,
  kIntList,
  kShape,     // shape list: ints >= 1, -1 (once), symbolic names
  kAxes,      // int list or `all` (reductions' `dims`)
  kScalar,    // int, float or bool (a constant's `value`)
  kDType,     // a string naming a dtype ("f32")
};
const char* AttrTypeName(AttrType t);  // "int", "float", "bool", "string", "int list", …
// Whether `v` is an acceptable value for an attribute of type `t`.
bool AttrMatches(AttrType t, const AttrValue& v);

struct OpAttrSpec {
  const char* name;
  AttrType type;
  bool required;
  bool has_default;
  AttrValue default_value;  // valid when has_default
};

// The schema of `kind` in dump order; empty for ops without attributes.
// `custom` has none: its attributes are kept as written.
std::span<const OpAttrSpec> OpAttrSpecs(OpKind kind);
const OpAttrSpec* FindOpAttrSpec(OpKind kind, std::string_view attr_name);
// The attributes `kind` takes as source spells them, for messages: {"dim",
// "keepdim"} for a reduction (its `dims` is written dim).
std::vector<std::string> SourceAttrList(OpKind kind);
// The value of `attr_name` in `attrs`, else the schema default, else nullptr.
const AttrValue* AttrOrDefault(OpKind kind, const Attrs& attrs, std::string_view attr_name);
// A canonical form for comparisons (CSE keys): the schema attributes in
// schema order with defaults filled in, then any other attributes sorted by
// name. `softmax(x)` and `softmax(x, dim: -1)` get equal canonical attrs.
Attrs CanonicalAttrs(OpKind kind, const Attrs& attrs);

// ---- surface syntax (OPS.md §2)

// Built-in call name (case-sensitive, aliases included) -> kind.
std::optional<OpKind> LookupFunction(std::string_view call_name);
// Every built-in call name, aliases included (for "did you mean" hints).
std::vector<std::string_view> FunctionNames();
// True when `name` is a built-in call name (V9: graph names must differ).
inline bool IsBuiltinFunction(std::string_view name) { return LookupFunction(name).has_value(); }
// Binary operator token text -> kind: "+" add … "**" pow, "==" equal …,
// "&&" and, "||" or. Nullopt for unsupported ones (`&`, `|`, `^`, `<<`, …).
std::optional<OpKind> BinaryOperatorOp(std::string_view op);
// Unary operator: "-" neg, "!" not.
std::optional<OpKind> UnaryOperatorOp(std::string_view op);

}  // namespace shrew::ir
