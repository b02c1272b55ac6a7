// Attribute values of IR nodes (OPS.md §1.1): compile-time constants keyed by
// name. Operation attributes use the IR names of the op's schema
// (op.h: OpAttrSpecs), e.g. reductions hold `dims` (a list or `all`), not
// the source spelling `dim`. Constants hold their literal in `value`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/type.h"

namespace shrew::ir {

enum class AttrKind : uint8_t {
  kInt,
  kFloat,
  kBool,
  kString,
  kIntList,
  kFloatList,
  // A shape list (OPS.md §3.10.3): each entry a fixed size, a symbolic name,
  // or Dim::Dynamic() standing for the written `-1` ("infer this entry").
  kShape,
  // The `all` marker of reduction axes (`sum[dims=all, …]`).
  kAll,
  // Any other list of constants: strings, bools, lists, mixed (a node's
  // `tags: ["a", "b"];` line, LANGUAGE.md §6). No operation takes one.
  kList,
};

// Tag type for AttrKind::kAll.
struct AllAxes {
  friend bool operator==(AllAxes, AllAxes) { return true; }
};

class AttrValue {
 public:
  AttrValue() : v_(int64_t{0}) {}
  static AttrValue Int(int64_t v) { return AttrValue(Storage(v)); }
  static AttrValue Float(double v) { return AttrValue(Storage(v)); }
  static AttrValue Bool(bool v) { return AttrValue(Storage(v)); }
  static AttrValue String(std::string v) { return AttrValue(Storage(std::move(v))); }
  static AttrValue IntList(std::vector<int64_t> v) { return AttrValue(Storage(std::move(v))); }
  static AttrValue FloatList(std::vector<double> v) { return AttrValue(Storage(std::move(v))); }
  static AttrValue Shape(std::vector<Dim> v) { return AttrValue(Storage(std::move(v))); }
  static AttrValue All() { return AttrValue(Storage(AllAxes{})); }
  static AttrValue List(std::vector<AttrValue> v) { return AttrValue(Storage(std::move(v))); }

  AttrKind kind() const { return static_cast<AttrKind>(v_.index()); }
  bool is_int() const { return kind() == AttrKind::kInt; }
  bool is_float() const { return kind() == AttrKind::kFloat; }
  bool is_bool() const { return kind() == AttrKind::kBool; }
  bool is_string() const { return kind() == AttrKind::kString; }
  bool is_int_list() const { return kind() == AttrKind::kIntList; }
  bool is_float_list() const { return kind() == AttrKind::kFloatList; }
  bool is_shape() const { return kind() == AttrKind::kShape; }
  bool is_all() const { return kind() == AttrKind::kAll; }
  bool is_list() const { return kind() == AttrKind::kList; }
  bool is_number() const { return is_int() || is_float(); }

  // Accessors require the matching kind (checked).
  int64_t as_int() const;
  double as_float() const;  // also accepts an int (OPS.md §1.1: "an int is accepted")
  bool as_bool() const;
  const std::string& as_string() const;
  const std::vector<int64_t>& as_int_list() const;
  const std::vector<double>& as_float_list() const;
  const std::vector<Dim>& as_shape() const;
  const std::vector<AttrValue>& as_list() const;

  // Dump form (OPS.md §1.5): ints in decimal, floats in shortest round-trip
  // form (`1e-05`, `0.5`, `12`), bools `true`/`false`, strings as written
  // (no quotes), lists `[a, b]`, shapes `[Batch, -1, 4]`, all `all`; in a
  // generic list strings are quoted (`["a", true, [1, 2]]`).
  std::string ToString() const;

  // Kind and value equal (Int(1) != Float(1.0): CSE must not merge them).
  // Floats compare bitwise-equal values (NaN == NaN, 0.0 != -0.0).
  friend bool operator==(const AttrValue& a, const AttrValue& b);
  friend bool operator!=(const AttrValue& a, const AttrValue& b) { return !(a == b); }

 private:
  // Index order must match AttrKind.
  using Storage = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<Dim>, AllAxes, std::vector<AttrValue>>;
  explicit AttrValue(Storage v) : v_(std::move(v)) {}
  Storage v_;
};

// Shortest round-trip text of a double, as std::to_chars writes it
// (`1e-05`, `0.5`, `12`, `inf`, `-inf`, `nan`).
std::string FormatDouble(double v);
// The same for an f32 value: the shortest text that reads back as that
// float (0.1f is `0.1`, not `0.10000000149011612`).
std::string FormatFloat(float v);

// Name -> value, in insertion order (dumps of unknown attributes, e.g. on
// custom ops, print in that order). Set replaces an existing entry in place.
class Attrs {
 public:
  using Entry = std::pair<std::string, AttrValue>;

  void Set(std::string_view name, AttrValue value);
  // nullptr when absent.
  const AttrValue* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  bool Remove(std::string_view name);
  const std::vector<Entry>& entries() const { return entries_; }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  friend bool operator==(const Attrs& a, const Attrs& b) { return a.entries_ == b.entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace shrew::ir
