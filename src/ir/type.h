// IR types (PIPELINE.md §2.2): a tensor type (dims + declared dtype, rank 0
// allowed) or *unknown*. A Dim is fixed(n), symbolic(name) or dynamic.
// Printing: `Tensor<[Batch, 8], f32>`, `Tensor<[], f32>`, unknown `?`,
// dynamic dims `?`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace shrew::ir {

// Values bound to symbolic dimension names (LANGUAGE.md §5.3), e.g. Batch=8.
using DimBindings = std::map<std::string, int64_t, std::less<>>;

class Dim {
 public:
  enum class Kind : uint8_t { kFixed, kSymbolic, kDynamic };

  Dim() = default;  // dynamic
  static Dim Fixed(int64_t size);
  static Dim Symbolic(std::string name);
  static Dim Dynamic() { return Dim(); }

  Kind kind() const { return kind_; }
  bool is_fixed() const { return kind_ == Kind::kFixed; }
  bool is_symbolic() const { return kind_ == Kind::kSymbolic; }
  bool is_dynamic() const { return kind_ == Kind::kDynamic; }
  // Only meaningful for fixed dims (0 otherwise).
  int64_t size() const { return size_; }
  // Only meaningful for symbolic dims (empty otherwise).
  const std::string& name() const { return name_; }
  // fixed(n) with n == 1.
  bool is_one() const { return kind_ == Kind::kFixed && size_ == 1; }

  // "8", "Batch" or "?".
  std::string ToString() const;
  // A symbolic dim with a binding becomes fixed; everything else unchanged.
  Dim Bind(const DimBindings& bindings) const;

  friend bool operator==(const Dim& a, const Dim& b) {
    return a.kind_ == b.kind_ && a.size_ == b.size_ && a.name_ == b.name_;
  }
  friend bool operator!=(const Dim& a, const Dim& b) { return !(a == b); }

 private:
  Kind kind_ = Kind::kDynamic;
  int64_t size_ = 0;
  std::string name_;
};

// "[2, Batch, ?]".
std::string DimsToString(const std::vector<Dim>& dims);

// Result of counting elements: known, unknown (a non-fixed dim), or a
// product that does not fit in int64 (a diagnostic, never UB).
struct ElementCount {
  enum class State : uint8_t { kKnown, kUnknown, kOverflow };
  State state = State::kUnknown;
  int64_t value = 0;  // valid when state == kKnown
  bool known() const { return state == State::kKnown; }
  bool overflow() const { return state == State::kOverflow; }
};
// Product of fixed dims; overflow past INT64_MAX is reported, not wrapped.
// Symbolic dims count as unknown unless `bindings` gives them a value; the
// count is unknown (not an overflow) while one is unbound, since it may be 0.
ElementCount CountElements(const std::vector<Dim>& dims, const DimBindings* bindings = nullptr);
// *out = a * b for a, b >= 0; false when it overflows int64.
bool CheckedMul(int64_t a, int64_t b, int64_t* out);
bool CheckedAdd(int64_t a, int64_t b, int64_t* out);

class Type {
 public:
  Type() = default;  // unknown
  static Type Unknown() { return Type(); }
  static Type Tensor(std::vector<Dim> dims, DType dtype);
  static Type Scalar(DType dtype) { return Tensor({}, dtype); }

  bool is_unknown() const { return !known_; }
  bool is_tensor() const { return known_; }
  // The accessors below require is_tensor().
  DType dtype() const { return dtype_; }
  const std::vector<Dim>& dims() const { return dims_; }
  std::vector<Dim>& mutable_dims() { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  const Dim& dim(int i) const { return dims_[static_cast<size_t>(i)]; }
  void set_dtype(DType d) { dtype_ = d; }

  // Every dim fixed (rank 0 included). False for unknown types.
  bool IsStatic() const;
  bool HasDynamicDim() const;
  bool HasSymbolicDim() const;
  ElementCount NumElements(const DimBindings* bindings = nullptr) const;
  // Symbolic dims with a binding become fixed. Unknown stays unknown.
  Type Bind(const DimBindings& bindings) const;

  // `Tensor<[Batch, 8], f32>` or `?`.
  std::string ToString() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  bool known_ = false;
  DType dtype_ = DType::kF32;
  std::vector<Dim> dims_;
};

// Whether an inferred type `actual` agrees with a `declared` one (T6).
// Unknown on either side agrees. Otherwise rank and dtype must be equal and,
// per position, two fixed sizes must be equal; a dynamic dim agrees with
// anything, and a symbolic name agrees with a fixed size or with another
// name: only a run-time binding can tell (two names may bind to one size, as
// in OPS.md §1.4's broadcast table), and the executors check it then.
bool TypesCompatible(const Type& declared, const Type& actual);

// Whether two types are the same as far as both are known: unknown on
// either side, or a dynamic dim, agrees; otherwise dtype, rank and every
// size or name must be equal (`N` is not `M`, nor `4`). A repeat body must
// give its carried type (OPS.md §3.15): [N, M] -> [M, N] is an error, not
// a check left for a run.
bool TypesEqualWhereKnown(const Type& a, const Type& b);

// A run's concrete shape as a type (for messages that compare it with one).
Type FixedType(std::span<const int64_t> shape, DType dtype);

// E110's message, wherever the check is made (the repeat's rule, inference
// of an unrolled iteration, the interpreter, a call kernel).
std::string RepeatChangesTypeMessage(const Type& carried, const Type& given);

// Whether a `declared` type states a fact that the inferred type `actual`
// does not: a dtype, rank, fixed size or dimension name that `actual`
// lacks (a declared `?` states nothing). Such a declaration can still fail
// at run time (T6 on the specialised graph), so it must not be optimised
// away (PIPELINE.md §4.1, §6). A declared name is not implied by a fixed
// size: a run-time binding of the name may differ from it.
bool DeclaredTypeAddsFacts(const Type& declared, const Type& actual);

}  // namespace shrew::ir
