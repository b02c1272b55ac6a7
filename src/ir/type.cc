#include "ir/type.h"

#include <limits>

namespace shrew::ir {

Dim Dim::Fixed(int64_t size) {
  Dim d;
  d.kind_ = Kind::kFixed;
  d.size_ = size;
  return d;
}

Dim Dim::Symbolic(std::string name) {
  Dim d;
  d.kind_ = Kind::kSymbolic;
  d.name_ = std::move(name);
  return d;
}

std::string Dim::ToString() const {
  switch (kind_) {
    case Kind::kFixed: return std::to_string(size_);
    case Kind::kSymbolic: return name_;
    case Kind::kDynamic: return "?";
  }
  return "?";
}

Dim Dim::Bind(const DimBindings& bindings) const {
  if (kind_ != Kind::kSymbolic) return *this;
  auto it = bindings.find(name_);
  if (it == bindings.end()) return *this;
  return Fixed(it->second);
}

std::string DimsToString(const std::vector<Dim>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += dims[i].ToString();
  }
  return out + "]";
}

bool CheckedMul(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool CheckedAdd(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

ElementCount CountElements(const std::vector<Dim>& dims, const DimBindings* bindings) {
  ElementCount result;
  // A zero size makes the product 0 whatever the other sizes are: [2^32, 0,
  // 2^32] has no elements, though a product from the left overflows first.
  for (const Dim& raw : dims) {
    const Dim d = bindings ? raw.Bind(*bindings) : raw;
    if (d.is_fixed() && d.size() == 0) {
      result.state = ElementCount::State::kKnown;
      return result;
    }
  }
  int64_t product = 1;
  bool unknown = false, overflow = false;
  for (const Dim& raw : dims) {
    Dim d = bindings ? raw.Bind(*bindings) : raw;
    if (!d.is_fixed()) {
      unknown = true;
      continue;
    }
    if (!overflow && !CheckedMul(product, d.size(), &product)) overflow = true;
  }
  // An unbound dim may still be 0 ([2^32, 2^32, N] with N = 0 is empty):
  // the count is unknown, not too large.
  if (unknown) return result;
  if (overflow) {
    result.state = ElementCount::State::kOverflow;
    return result;
  }
  result.state = ElementCount::State::kKnown;
  result.value = product;
  return result;
}

Type Type::Tensor(std::vector<Dim> dims, DType dtype) {
  Type t;
  t.known_ = true;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  return t;
}

bool Type::IsStatic() const {
  if (!known_) return false;
  for (const Dim& d : dims_) {
    if (!d.is_fixed()) return false;
  }
  return true;
}

bool Type::HasDynamicDim() const {
  for (const Dim& d : dims_) {
    if (d.is_dynamic()) return true;
  }
  return false;
}

bool Type::HasSymbolicDim() const {
  for (const Dim& d : dims_) {
    if (d.is_symbolic()) return true;
  }
  return false;
}

ElementCount Type::NumElements(const DimBindings* bindings) const {
  if (!known_) return ElementCount{};
  return CountElements(dims_, bindings);
}

Type Type::Bind(const DimBindings& bindings) const {
  if (!known_) return *this;
  Type t = *this;
  for (Dim& d : t.dims_) d = d.Bind(bindings);
  return t;
}

std::string Type::ToString() const {
  if (!known_) return "?";
  return "Tensor<" + DimsToString(dims_) + ", " + DTypeName(dtype_) + ">";
}

bool operator==(const Type& a, const Type& b) {
  if (a.known_ != b.known_) return false;
  if (!a.known_) return true;
  return a.dtype_ == b.dtype_ && a.dims_ == b.dims_;
}

bool TypesCompatible(const Type& declared, const Type& actual) {
  if (declared.is_unknown() || actual.is_unknown()) return true;
  if (declared.dtype() != actual.dtype() || declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    const Dim& a = declared.dim(i);
    const Dim& b = actual.dim(i);
    if (a.is_fixed() && b.is_fixed() && a.size() != b.size()) return false;
  }
  return true;
}

bool TypesEqualWhereKnown(const Type& a, const Type& b) {
  if (a.is_unknown() || b.is_unknown()) return true;
  if (a.dtype() != b.dtype() || a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!a.dim(i).is_dynamic() && !b.dim(i).is_dynamic() && a.dim(i) != b.dim(i)) return false;
  }
  return true;
}

Type FixedType(std::span<const int64_t> shape, DType dtype) {
  std::vector<Dim> dims;
  dims.reserve(shape.size());
  for (int64_t d : shape) dims.push_back(Dim::Fixed(d));
  return Type::Tensor(std::move(dims), dtype);
}

std::string RepeatChangesTypeMessage(const Type& carried, const Type& given) {
  return "repeat body must preserve shape and dtype: it carries " + carried.ToString() + " and the body gives " +
         given.ToString();
}

bool DeclaredTypeAddsFacts(const Type& declared, const Type& actual) {
  if (declared.is_unknown()) return false;
  if (actual.is_unknown()) return true;
  if (declared.dtype() != actual.dtype() || declared.rank() != actual.rank()) return true;
  for (int i = 0; i < declared.rank(); ++i) {
    const Dim& d = declared.dim(i);
    if (!d.is_dynamic() && d != actual.dim(i)) return true;
  }
  return false;
}

}  // namespace shrew::ir
