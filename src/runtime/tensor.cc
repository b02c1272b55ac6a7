#include "runtime/tensor.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>

#include "ir/attr.h"

namespace shrew::runtime {
namespace {

// Truncates toward zero, saturating at the int64 range; NaN gives 0. Plain
// static_cast is undefined behaviour out of range.
int64_t SaturatingToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (v < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

std::string FormatElement(const Tensor& t, int64_t i) {
  switch (t.storage()) {
    case ir::StorageType::kF32: return ir::FormatFloat(static_cast<float>(t.GetDouble(i)));
    case ir::StorageType::kF64: return ir::FormatDouble(t.GetDouble(i));
    case ir::StorageType::kBool: return t.GetInt64(i) != 0 ? "true" : "false";
    default: return std::to_string(t.GetInt64(i));
  }
}

}  // namespace

Result<int64_t> CountElements(std::span<const int64_t> shape) {
  bool empty = false;  // a 0 anywhere: no elements, though a product from the left may overflow first
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("negative dimension " + std::to_string(d) + " in shape " + ShapeToString(shape));
    empty = empty || d == 0;
  }
  if (empty) return int64_t{0};
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument("shape " + ShapeToString(shape) + " has too many elements");
    }
    n *= d;
  }
  return n;
}

std::string ShapeToString(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void Tensor::AlignedDelete::operator()(std::byte* p) const {
  ::operator delete[](p, std::align_val_t(kTensorAlignment));
}

Tensor::Tensor() = default;

Tensor::Tensor(const Tensor& other) {
  Result<Tensor> copy = other.Clone();
  // Copying a tensor that already exists only fails when memory is gone;
  // callers that must survive that use Clone().
  SHREW_CHECK(copy.ok());
  *this = std::move(copy).value();
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    Tensor copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      num_elements_(other.num_elements_),
      byte_size_(other.byte_size_),
      data_(std::move(other.data_)) {
  other.dtype_ = ir::DType::kF32;
  other.shape_ = {0};
  other.num_elements_ = 0;
  other.byte_size_ = 0;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    num_elements_ = other.num_elements_;
    byte_size_ = other.byte_size_;
    data_ = std::move(other.data_);
    other.dtype_ = ir::DType::kF32;
    other.shape_ = {0};
    other.num_elements_ = 0;
    other.byte_size_ = 0;
  }
  return *this;
}

Result<Tensor> Tensor::Allocate(ir::DType dtype, Shape shape, bool zero) {
  if (!ir::IsExecutable(dtype)) {
    return InvalidArgument(std::string("dtype ") + ir::DTypeName(dtype) + " is not supported for execution");
  }
  Result<int64_t> count = CountElements(shape);
  if (!count.ok()) return count.status();
  const size_t elem = ir::StorageByteSize(ir::StorageOf(dtype));
  // The byte count plus padding and alignment slack must fit in size_t
  // (32 bits in wasm).
  const uint64_t max_bytes =
      static_cast<uint64_t>(std::numeric_limits<size_t>::max()) - kTailPaddingBytes - kTensorAlignment;
  if (static_cast<uint64_t>(*count) > max_bytes / elem) {
    return ResourceExhausted("tensor of shape " + ShapeToString(shape) + " (" + ir::DTypeName(dtype) +
                             ") is too large");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.num_elements_ = *count;
  t.byte_size_ = static_cast<size_t>(*count) * elem;
  const size_t alloc = t.byte_size_ + kTailPaddingBytes;
  void* p = ::operator new[](alloc, std::align_val_t(kTensorAlignment), std::nothrow);
  if (p == nullptr) {
    return ResourceExhausted("out of memory allocating " + std::to_string(t.byte_size_) + " bytes for a tensor of shape " +
                             ShapeToString(t.shape_));
  }
  if (zero) {
    std::memset(p, 0, alloc);
  } else {
    std::memset(static_cast<std::byte*>(p) + t.byte_size_, 0, kTailPaddingBytes);
  }
  t.data_ = Buffer(static_cast<std::byte*>(p));
  return t;
}

Result<Tensor> Tensor::Zeros(ir::DType dtype, Shape shape) { return Allocate(dtype, std::move(shape)); }

Result<Tensor> Tensor::Uninitialized(ir::DType dtype, Shape shape) {
  return Allocate(dtype, std::move(shape), /*zero=*/false);
}

Result<Tensor> Tensor::Full(ir::DType dtype, Shape shape, double value) {
  Result<Tensor> t = Allocate(dtype, std::move(shape));
  if (!t.ok()) return t;
  for (int64_t i = 0; i < t->num_elements(); ++i) t->SetDouble(i, value);
  return t;
}

Result<Tensor> Tensor::FromVector(ir::DType dtype, Shape shape, const std::vector<bool>& values) {
  std::vector<uint8_t> bytes(values.begin(), values.end());
  if (ir::StorageOf(dtype) != ir::StorageType::kBool) {
    return InvalidArgument(std::string("tensor of dtype ") + ir::DTypeName(dtype) + " is stored as " +
                           ir::StorageTypeName(ir::StorageOf(dtype)) + ", got bool values");
  }
  return FromBytes(dtype, std::move(shape),
                   std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
}

Result<Tensor> Tensor::FromBytes(ir::DType dtype, Shape shape, std::span<const std::byte> bytes) {
  // The byte count is checked before anything is allocated: 2 bytes for a
  // shape of 2^28 floats allocated (and zeroed) 1 GiB first.
  Result<int64_t> count = CountElements(shape);
  if (count.ok() && ir::IsExecutable(dtype)) {
    const uint64_t elem = ir::StorageByteSize(ir::StorageOf(dtype));
    const uint64_t n = static_cast<uint64_t>(*count);
    const bool past_2_64 = n > std::numeric_limits<uint64_t>::max() / elem;
    if (past_2_64 || n * elem != bytes.size()) {
      const std::string needs = past_2_64 ? "more than 2^64" : std::to_string(n * elem);
      return InvalidArgument("tensor " + std::string(ir::DTypeName(dtype)) + ShapeToString(shape) + " needs " + needs +
                             " bytes, got " + std::to_string(bytes.size()));
    }
  }
  Result<Tensor> t = Allocate(dtype, std::move(shape), /*zero=*/false);  // every byte is written below
  if (!t.ok()) return t;
  if (t->storage() == ir::StorageType::kBool) {
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] != std::byte{0} && bytes[i] != std::byte{1}) {
        return InvalidArgument("bool tensor byte " + std::to_string(i) + " is " +
                               std::to_string(static_cast<int>(bytes[i])) + ", expected 0 or 1");
      }
    }
  }
  if (!bytes.empty()) std::memcpy(t->mutable_raw_data(), bytes.data(), bytes.size());
  return t;
}

int64_t Tensor::dim(int axis) const {
  SHREW_CHECK(axis >= 0 && axis < rank());
  return shape_[static_cast<size_t>(axis)];
}

void Tensor::CheckStorage(ir::StorageType want) const {
  if (storage() != want) {
    std::fprintf(stderr, "Tensor %s accessed as %s\n", TypeString().c_str(), ir::StorageTypeName(want));
    SHREW_CHECK(storage() == want);
  }
}

double Tensor::GetDouble(int64_t index) const {
  SHREW_CHECK(index >= 0 && index < num_elements_);
  return VisitStorage(storage(), [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(values<T>()[static_cast<size_t>(index)]);
  });
}

int64_t Tensor::GetInt64(int64_t index) const {
  SHREW_CHECK(index >= 0 && index < num_elements_);
  return VisitStorage(storage(), [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    T v = values<T>()[static_cast<size_t>(index)];
    if constexpr (std::is_floating_point_v<T>) {
      return SaturatingToInt64(static_cast<double>(v));
    } else {
      return static_cast<int64_t>(v);
    }
  });
}

void Tensor::SetDouble(int64_t index, double value) {
  SHREW_CHECK(index >= 0 && index < num_elements_);
  VisitStorage(storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T& slot = mutable_values<T>()[static_cast<size_t>(index)];
    if constexpr (std::is_same_v<T, bool>) {
      slot = value != 0.0;
    } else if constexpr (std::is_floating_point_v<T>) {
      slot = static_cast<T>(value);
    } else if constexpr (std::is_same_v<T, uint8_t>) {
      slot = static_cast<uint8_t>(static_cast<uint64_t>(SaturatingToInt64(value)) & 0xFF);
    } else {
      slot = SaturatingToInt64(value);
    }
  });
}

Status Tensor::Reshape(Shape new_shape) {
  Result<int64_t> count = CountElements(new_shape);
  if (!count.ok()) return count.status();
  if (*count != num_elements_) {
    return InvalidArgument("cannot reshape " + ShapeToString(shape_) + " (" + std::to_string(num_elements_) +
                           " elements) to " + ShapeToString(new_shape) + " (" + std::to_string(*count) +
                           " elements)");
  }
  shape_ = std::move(new_shape);
  return Status::Ok();
}

Status Tensor::Retag(ir::DType dtype) {
  if (ir::StorageOf(dtype) != storage()) {
    return InvalidArgument(std::string("cannot retag a ") + TypeString() + " tensor as " + ir::DTypeName(dtype) +
                           " (storage " + ir::StorageTypeName(ir::StorageOf(dtype)) + ")");
  }
  dtype_ = dtype;
  return Status::Ok();
}

Result<Tensor> Tensor::Clone() const {
  if (!data_) {
    Tensor t;
    t.dtype_ = dtype_;
    t.shape_ = shape_;
    if (num_elements_ == 0) return t;
  }
  Result<Tensor> t = Allocate(dtype_, shape_);
  if (!t.ok()) return t;
  if (byte_size_ > 0) std::memcpy(t->data_.get(), data_.get(), byte_size_);
  return t;
}

std::string Tensor::TypeString() const { return std::string(ir::DTypeName(dtype_)) + ShapeToString(shape_); }

std::string Tensor::ToString(int64_t max_elements) const {
  std::string s = TypeString() + " {";
  for (int64_t i = 0; i < num_elements_; ++i) {
    if (i == max_elements) {
      s += i > 0 ? ", …" : "…";
      break;
    }
    if (i) s += ", ";
    s += FormatElement(*this, i);
  }
  return s + "}";
}

bool AllClose(const Tensor& actual, const Tensor& expected, double rtol, double atol, std::string* why) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape()) {
    if (why) *why = "type " + actual.TypeString() + " differs from expected " + expected.TypeString();
    return false;
  }
  const bool is_float = ir::IsFloat(actual.dtype());
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    bool ok;
    if (is_float) {
      const double a = actual.GetDouble(i);
      const double e = expected.GetDouble(i);
      if (std::isnan(a) || std::isnan(e)) {
        ok = std::isnan(a) && std::isnan(e);
      } else if (std::isinf(a) || std::isinf(e)) {
        ok = a == e;
      } else {
        ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
      }
    } else {
      ok = actual.GetInt64(i) == expected.GetInt64(i);
    }
    if (!ok) {
      if (why) {
        *why = "element " + std::to_string(i) + ": got " + FormatElement(actual, i) + ", expected " +
               FormatElement(expected, i) + " (" + actual.ToString() + " vs " + expected.ToString() + ")";
      }
      return false;
    }
  }
  return true;
}

bool BitwiseEqual(const Tensor& a, const Tensor& b, std::string* why) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    if (why) *why = "type " + a.TypeString() + " differs from " + b.TypeString();
    return false;
  }
  const size_t elem = ir::StorageByteSize(a.storage());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (std::memcmp(a.raw_data() + i * elem, b.raw_data() + i * elem, elem) != 0) {
      if (why) {
        *why = "element " + std::to_string(i) + " differs: " + FormatElement(a, i) + " vs " + FormatElement(b, i);
      }
      return false;
    }
  }
  return true;
}

}  // namespace shrew::runtime
