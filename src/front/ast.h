// The syntax tree of a .sw program (LANGUAGE.md §3), as built by
// front::Parse. It keeps everything the grammar can say, in source order, with
// a diag::Span on every node, so lowering, dumps and the playground can work
// from it alone. Plain structs owning their children (std::vector,
// std::unique_ptr); variants are read with Is<T>() / As<T>().
//
// Structs with a `kind` use only the fields listed for that kind; the others
// stay default-constructed (null ExprPtr, empty vectors, Type::Kind::Error).
//
// Guarantees when Parse reported no errors:
// - every ExprPtr that the grammar requires is non-null (optional parts such
//   as IfExpr::else_branch are null when absent); no ErrorExpr appears, and
//   no Type that a node's kind uses is Type::Kind::Error;
// - every Expr has height <= front::kMaxExprHeight and types/literals nest at
//   most front::kMaxNestingDepth deep, so recursive walks are bounded (the
//   wasm stack is 1 MB); long operator chains are one ChainExpr, walked in a
//   loop.
// After errors the tree is partial: statements and list items that failed
// to parse are dropped, a top-level block is kept from the point its
// directive was read, and holes are ErrorExpr / Type::Kind::Error. Show it
// (playground, dumps) but do not lower it.
//
// Source text of any node: source.text().substr(span.offset, span.length).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "diag/source.h"

namespace shrew::ast {

// A name as written: an identifier or a soft keyword used as a key.
struct Identifier {
  std::string name;
  diag::Span span;
};

// A string literal's decoded value (escapes applied) and the span of the
// literal including its quotes.
struct StringValue {
  std::string value;
  diag::Span span;
};

// ---------------------------------------------------------------- expressions

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class UnaryOp : uint8_t { Neg, Not, BitNot };  // - ! ~

// Binary operators, lowest precedence first (LANGUAGE.md §3.14 table).
enum class BinaryOp : uint8_t {
  Coalesce,                               // ??   level 1
  Or,                                     // ||   2
  And,                                    // &&   3
  BitOr,                                  // |    4
  BitXor,                                 // ^    5
  BitAnd,                                 // &    6
  Equal, NotEqual,                        // == != 7
  Less, Greater, LessEqual, GreaterEqual, // < > <= >= 8
  ShiftLeft, ShiftRight,                  // << >> 9
  Add, Sub,                               // + -  10
  Mul, Div, Mod,                          // * / % 11
  Pow,                                    // **   12, right-associative
};

const char* UnaryOpSpelling(UnaryOp op);    // "-", "!", "~"
const char* BinaryOpSpelling(BinaryOp op);  // "+", "**", "??", ...

struct ErrorExpr {};  // where an expression failed to parse (only after errors)

// Literals keep their source text (`007`, `1e-5`, `"a\n"` with quotes).
struct IntLiteral {
  int64_t value = 0;  // 0 if the text does not fit in int64 (reported as E004)
  std::string text;
};
struct FloatLiteral {
  double value = 0;  // IEEE round to nearest; `1e999` is +inf; 0 if malformed (E004)
  std::string text;
};
struct StringLiteral {
  std::string value;  // escapes decoded, other bytes verbatim (§2.7)
  std::string text;   // raw, including the quotes
};
struct BoolLiteral {
  bool value = false;
};
struct NullLiteral {};

// A bare key: `x`, `Batch`, `input`, `range` (no call).
struct NameExpr {
  std::string name;
};
// A qualified name without call: `a::b::c` (two or more segments).
struct PathExpr {
  std::vector<Identifier> segments;
};

struct UnaryExpr {
  UnaryOp op;
  diag::Span op_span;
  ExprPtr operand;
};
struct BinaryExpr {
  BinaryOp op;
  diag::Span op_span;
  ExprPtr lhs;
  ExprPtr rhs;
};
// One operator of a ChainExpr with its right operand. `span` runs from the
// chain's first operand through `rhs`: the span of the BinaryExpr it stands for.
struct ChainLink {
  BinaryOp op;
  diag::Span op_span;
  ExprPtr rhs;
  diag::Span span;
};
// A long left-associative run of binary operators, `a + b - c * d + …` read
// as `((a + b) - c * d) + …`: the parser builds nested BinaryExprs for up to
// front::kMaxNestedLinks operators and this for longer runs, so that a flat
// chain of any length keeps the height of its operands and every walk over
// it is a loop (semantics exactly those of the nested BinaryExprs).
struct ChainExpr {
  ExprPtr first;
  std::vector<ChainLink> links;
};
// `( inner )`: kept so lowering can see grouping (PIPELINE.md §2.4).
struct ParenExpr {
  ExprPtr inner;
};

// One call argument. `name` is set for a named argument `key: value`
// (an attribute of an op, or an input name of a graph call).
struct Argument {
  std::optional<Identifier> name;
  ExprPtr value;
  diag::Span span;  // the whole argument
};

// `f(args)` (callee has one segment) or `a::b::f(args)` (several).
struct CallExpr {
  std::vector<Identifier> callee;
  std::vector<Argument> args;
  // "f" or "a::b::f".
  std::string CalleeName() const;
};
// `receiver.method(args)`.
struct MethodCallExpr {
  ExprPtr receiver;
  Identifier method;
  std::vector<Argument> args;
};
// `object.member` (no call).
struct MemberExpr {
  ExprPtr object;
  Identifier member;
};
// `object[index]`.
struct IndexExpr {
  ExprPtr object;
  ExprPtr index;
};
// `object[begin:end]` (both bounds are required by the grammar).
struct SliceExpr {
  ExprPtr object;
  ExprPtr begin;
  ExprPtr end;
};
// `[a, b, c]` (trailing comma allowed).
struct ListExpr {
  std::vector<ExprPtr> elements;
};
struct DictEntry {
  Identifier key;
  ExprPtr value;
  diag::Span span;  // key through value
};
// `{ k: v, k2: v2 }` (entries separated by commas; duplicates kept in order).
struct DictExpr {
  std::vector<DictEntry> entries;
};
// `if cond { then } else { else }`; else_branch is null when absent.
struct IfExpr {
  ExprPtr condition;
  ExprPtr then_branch;
  ExprPtr else_branch;
};
// `repeat(count) { body }`.
struct RepeatExpr {
  ExprPtr count;
  ExprPtr body;
};
// `|a, b| { body }` (plain identifiers; `| | { 0 }` has none, `||` is the
// or-operator so `|| { 0 }` is no closure).
struct ClosureExpr {
  std::vector<Identifier> params;
  ExprPtr body;
};

struct Expr {
  using Node = std::variant<ErrorExpr, IntLiteral, FloatLiteral, StringLiteral, BoolLiteral,
                            NullLiteral, NameExpr, PathExpr, UnaryExpr, BinaryExpr, ChainExpr, ParenExpr,
                            CallExpr, MethodCallExpr, MemberExpr, IndexExpr, SliceExpr, ListExpr,
                            DictExpr, IfExpr, RepeatExpr, ClosureExpr>;

  diag::Span span;      // the whole expression
  uint32_t height = 1;  // 1 for leaves, else 1 + the tallest child
  Node node;

  template <typename T> bool Is() const { return std::holds_alternative<T>(node); }
  template <typename T> const T* As() const { return std::get_if<T>(&node); }
  template <typename T> T* As() { return std::get_if<T>(&node); }
};

// Calls `fn(child)` for each direct child expression, in source order.
template <typename Fn> void ForEachChild(const Expr& e, Fn&& fn);
// Calls `fn(name)` for each NameExpr in `e`, children included, in source order.
template <typename Fn> void ForEachName(const Expr& e, Fn&& fn);

// `e` with any enclosing ParenExpr removed (never null for a non-null e).
const Expr* StripParens(const Expr* e);

// ---------------------------------------------------------------------- types

enum class Dtype : uint8_t {
#define SHREW_DTYPE(Name, DtypeName, spelling) DtypeName,
#include "front/token_kinds.def"
};
// Dtype::F32 -> "f32", Dtype::Bf16 -> "bf16", Dtype::Complex64 -> "complex64".
const char* DtypeName(Dtype dtype);

// One dimension inside `Tensor<[...], dtype>`.
struct Dim {
  enum class Kind : uint8_t {
    Fixed,     // `768`: value (0 if it overflowed; 0 itself is rejected by lowering)
    Named,     // `Batch` (any key): name
    Dynamic,   // `?`
    Inferred,  // `_` (treated like `?`)
  };
  Kind kind = Kind::Dynamic;
  int64_t value = 0;
  std::string name;  // Named: the key; Fixed: the digits as written
  diag::Span span;
};

struct Type {
  enum class Kind : uint8_t {
    Error,    // failed to parse (only after errors)
    Tensor,   // `Tensor<[dims], dtype>`: dims, dtype
    Scalar,   // a bare dtype `f32` (rank 0): dtype
    Alias,    // a key naming a @types alias: name
    Dynamic,  // `?`: fully unknown
    Tuple,    // `(A, B)`: elements (possibly empty)
    List,     // `[A]`: elements has exactly one type
    Int,      // a bare integer `5` (§4.5, rejected by lowering): int_value
  };
  Kind kind = Kind::Error;
  diag::Span span;
  std::vector<Dim> dims;
  Dtype dtype = Dtype::F32;
  std::string name;
  int64_t int_value = 0;
  std::vector<Type> elements;
};

// ---------------------------------------------------------- shared structures

// `key: value;` as used by @config, @logging, param attribute blocks, impl
// bodies, brace_fields, track/plot bodies, and @model (where value is a
// literal tree: Int/Float/String/Bool/Null literals, ListExpr, DictExpr).
struct Field {
  Identifier key;
  ExprPtr value;
  diag::Span span;  // key through ';'
};

// `name: Type` or `name: Type?` in a graph header or custom op signature.
struct GraphParam {
  Identifier name;
  Type type;
  bool optional = false;  // trailing `?`
  diag::Span span;
};

// ----------------------------------------------------------- graph statements

// `input name: Type;` / `input name: Type?;`
struct InputDecl {
  Identifier name;
  Type type;
  bool optional = false;
};

// `param name: Type { key: expr; ... };` (the attribute block is optional).
struct ParamDecl {
  Identifier name;
  Type type;
  bool has_attribute_block = false;
  std::vector<Field> attributes;  // init, frozen, device, ... in order
};

// One line of a node body (§3.8), in source order.
struct NodeItem {
  enum class Kind : uint8_t {
    Op,          // `op: expr;`         key, value
    Input,       // `input: expr;`      key, value (accepted, ignored by lowering)
    OutputType,  // `output: Type;`     key, type
    Attribute,   // `other_key: expr;`  key, value
    Hint,        // `@hint name;`       key = the hint name
  };
  Kind kind = Kind::Attribute;
  Identifier key;
  ExprPtr value;
  Type type;
  diag::Span span;
};

// `node name [: [Type]] [{ items }];`
struct NodeDecl {
  Identifier name;
  std::optional<Type> type;  // from `node h: T ...`; absent for `node h {` and `node h: {`
  bool has_body = false;     // false for `node h;` and `node h: T;`
  std::vector<NodeItem> body;
};

// `output expr;` or `output name: expr;`
struct OutputDecl {
  std::optional<Identifier> name;
  ExprPtr value;
};

// `@assert cond [, "message"];` or one `assert cond [, "message"];` line of @check.
struct AssertStmt {
  ExprPtr condition;
  std::optional<StringValue> message;
  diag::Span span;  // from `@assert`/`assert` through ';'
};

// `@check name { assert ...; ... }`
struct CheckBlock {
  Identifier name;
  std::vector<AssertStmt> asserts;
};

struct GraphStmt {
  using Node = std::variant<InputDecl, ParamDecl, NodeDecl, OutputDecl, AssertStmt, CheckBlock>;
  diag::Span span;  // first token through ';' or '}'
  Node node;

  template <typename T> bool Is() const { return std::holds_alternative<T>(node); }
  template <typename T> const T* As() const { return std::get_if<T>(&node); }
  template <typename T> T* As() { return std::get_if<T>(&node); }
};

// ------------------------------------------------------------ top-level blocks

// `@import "path" [as alias];`
struct ImportBlock {
  StringValue path;
  std::optional<Identifier> alias;
};

// `@model { key: literal; ... }`
struct ModelBlock {
  std::vector<Field> fields;
};

// `@config { key: expr; ... }`
struct ConfigBlock {
  std::vector<Field> fields;
};

// `type Name = Type;` inside @types.
struct TypeAlias {
  Identifier name;
  Type type;
  diag::Span span;
};
struct TypesBlock {
  std::vector<TypeAlias> aliases;
};

// `@graph Name [(params)] [-> Type] { statements }`
struct GraphBlock {
  Identifier name;
  bool has_param_list = false;  // `@graph G() {` has an empty list
  std::vector<GraphParam> params;
  std::optional<Type> return_type;
  std::vector<GraphStmt> body;
};

// One statement of a @custom_op (or of a nested `gradient` block).
struct CustomOpItem {
  enum class Kind : uint8_t {
    Signature,  // `signature: (params) -> Type;`  params, return_type
    Impl,       // `impl name { fields }`           name, fields
    Gradient,   // `gradient name { items }`        name, items
  };
  Kind kind = Kind::Signature;
  diag::Span span;
  std::vector<GraphParam> params;
  Type return_type;
  Identifier name;
  std::vector<Field> fields;
  std::vector<CustomOpItem> items;
};
struct CustomOpBlock {
  Identifier name;
  std::vector<CustomOpItem> items;
};

// One field of @training or @inference (§3.10, §3.11).
struct Setting {
  enum class Kind : uint8_t {
    Expr,    // `key: expr;` (also `optimizations: [ ... ];`): value
    Name,    // `model: Net;`, `loss: mse;` (a bare key): name
    Fields,  // `optimizer: { k: v; ... }` (no ';' after '}'): fields
  };
  Kind kind = Kind::Expr;
  Identifier key;
  ExprPtr value;
  Identifier name;
  std::vector<Field> fields;
  diag::Span span;
};
struct TrainingBlock {
  std::vector<Setting> settings;
};
struct InferenceBlock {
  std::vector<Setting> settings;
};

// `track name { fields }` in @metrics, `plot name { fields }` in @visualizations.
struct Section {
  Identifier name;
  std::vector<Field> fields;
  diag::Span span;
};
struct MetricsBlock {
  Identifier name;
  std::vector<Section> tracks;
};
struct LoggingBlock {
  std::vector<Field> fields;
};
struct VisualizationsBlock {
  std::vector<Section> plots;
};

struct Block {
  using Node = std::variant<ImportBlock, ModelBlock, ConfigBlock, TypesBlock, GraphBlock,
                            CustomOpBlock, TrainingBlock, InferenceBlock, MetricsBlock,
                            LoggingBlock, VisualizationsBlock>;
  diag::Span span;  // directive through the closing '}' or ';'
  Node node;

  template <typename T> bool Is() const { return std::holds_alternative<T>(node); }
  template <typename T> const T* As() const { return std::get_if<T>(&node); }
  template <typename T> T* As() { return std::get_if<T>(&node); }
};

// A whole program: its top-level blocks in source order.
struct Program {
  std::vector<Block> blocks;

  // Every block of kind T, in source order (e.g. All<ast::ConfigBlock>()).
  template <typename T> std::vector<const T*> All() const {
    std::vector<const T*> out;
    for (const Block& b : blocks) {
      if (const T* t = b.As<T>()) out.push_back(t);
    }
    return out;
  }
};

// ------------------------------------------------------------ implementation

template <typename Fn> void ForEachName(const Expr& e, Fn&& fn) {
  if (const auto* n = e.As<NameExpr>()) fn(n->name);
  ForEachChild(e, [&](const Expr& child) { ForEachName(child, fn); });
}

template <typename Fn> void ForEachChild(const Expr& e, Fn&& fn) {
  auto one = [&](const ExprPtr& p) {
    if (p) fn(*p);
  };
  auto args = [&](const std::vector<Argument>& as) {
    for (const Argument& a : as) one(a.value);
  };
  if (auto* u = e.As<UnaryExpr>()) {
    one(u->operand);
  } else if (auto* b = e.As<BinaryExpr>()) {
    one(b->lhs);
    one(b->rhs);
  } else if (auto* c = e.As<ChainExpr>()) {
    one(c->first);
    for (const ChainLink& link : c->links) one(link.rhs);
  } else if (auto* p = e.As<ParenExpr>()) {
    one(p->inner);
  } else if (auto* c = e.As<CallExpr>()) {
    args(c->args);
  } else if (auto* m = e.As<MethodCallExpr>()) {
    one(m->receiver);
    args(m->args);
  } else if (auto* m = e.As<MemberExpr>()) {
    one(m->object);
  } else if (auto* i = e.As<IndexExpr>()) {
    one(i->object);
    one(i->index);
  } else if (auto* s = e.As<SliceExpr>()) {
    one(s->object);
    one(s->begin);
    one(s->end);
  } else if (auto* l = e.As<ListExpr>()) {
    for (const ExprPtr& x : l->elements) one(x);
  } else if (auto* d = e.As<DictExpr>()) {
    for (const DictEntry& x : d->entries) one(x.value);
  } else if (auto* i = e.As<IfExpr>()) {
    one(i->condition);
    one(i->then_branch);
    one(i->else_branch);
  } else if (auto* r = e.As<RepeatExpr>()) {
    one(r->count);
    one(r->body);
  } else if (auto* c = e.As<ClosureExpr>()) {
    one(c->body);
  }
}

}  // namespace shrew::ast
