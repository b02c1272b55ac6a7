// Host tensor values: what the interpreter computes, what the JIT executor and
// the public C++ API take as inputs and return as outputs.
//
// A Tensor has a *declared* ir::DType (f16, i32, …: what the IR says), a shape
// (row-major, rank 0 allowed, sizes >= 0) and owned contiguous storage in the
// dtype's *storage* type (OPS.md §1.3: f32, f64, i64, u8 or bool). Complex
// dtypes cannot be held. Element access is typed by the storage C++ type:
//
//   Result<Tensor> t = Tensor::FromVector<float>(ir::DType::kF32, {2, 2}, {1, 2, 3, 4});
//   std::span<const float> v = t->values<float>();     // checked: storage must be f32
//   Tensor s = Tensor::Scalar<int64_t>(ir::DType::kI32, 7);  // declared i32, stored i64
//
// Storage contract (relied on by the JIT when it hands a tensor to XNNPACK):
// the buffer is 64-byte aligned, zero-initialised, and followed by
// kTailPaddingBytes readable bytes (XNN_EXTRA_BYTES is 16). Bool elements are
// single bytes holding exactly 0 or 1.
//
// Moving is cheap (pointer steal); copying is a deep copy. Factories that
// take sizes from users return Result (negative sizes, element-count or byte
// overflow and allocation failure are errors, never crashes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/check.h"
#include "base/status.h"
#include "ir/dtype.h"

namespace shrew::runtime {

using Shape = std::vector<int64_t>;

// Bytes readable past the end of every tensor buffer (>= XNN_EXTRA_BYTES).
inline constexpr size_t kTailPaddingBytes = 16;
inline constexpr size_t kTensorAlignment = 64;

// ---- storage type <-> C++ type

template <typename T>
struct StorageOfCpp;  // only the five storage types below are valid
template <> struct StorageOfCpp<float> { static constexpr ir::StorageType kValue = ir::StorageType::kF32; };
template <> struct StorageOfCpp<double> { static constexpr ir::StorageType kValue = ir::StorageType::kF64; };
template <> struct StorageOfCpp<int64_t> { static constexpr ir::StorageType kValue = ir::StorageType::kI64; };
template <> struct StorageOfCpp<uint8_t> { static constexpr ir::StorageType kValue = ir::StorageType::kU8; };
template <> struct StorageOfCpp<bool> { static constexpr ir::StorageType kValue = ir::StorageType::kBool; };
static_assert(sizeof(bool) == 1, "bool tensors are stored one byte per element");

template <typename T>
inline constexpr ir::StorageType kStorageOf = StorageOfCpp<T>::kValue;

// The canonical declared dtype of a storage C++ type (float -> f32, int64_t -> i64 …).
template <typename T>
constexpr ir::DType DefaultDTypeOf() {
  if constexpr (std::is_same_v<T, float>) return ir::DType::kF32;
  if constexpr (std::is_same_v<T, double>) return ir::DType::kF64;
  if constexpr (std::is_same_v<T, int64_t>) return ir::DType::kI64;
  if constexpr (std::is_same_v<T, uint8_t>) return ir::DType::kU8;
  if constexpr (std::is_same_v<T, bool>) return ir::DType::kBool;
}

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with T the C++ type of `s`. The one place that maps
// storage types to C++ types; kernels use it instead of their own switches.
// `s` must not be kUnsupported (checked).
template <typename Fn>
decltype(auto) VisitStorage(ir::StorageType s, Fn&& fn) {
  switch (s) {
    case ir::StorageType::kF32: return fn(TypeTag<float>{});
    case ir::StorageType::kF64: return fn(TypeTag<double>{});
    case ir::StorageType::kI64: return fn(TypeTag<int64_t>{});
    case ir::StorageType::kU8: return fn(TypeTag<uint8_t>{});
    case ir::StorageType::kBool: return fn(TypeTag<bool>{});
    case ir::StorageType::kUnsupported: break;
  }
  SHREW_CHECK(false && "VisitStorage on an unsupported storage type");
  return fn(TypeTag<float>{});
}

// Product of the sizes; error for a negative size or an int64 overflow.
Result<int64_t> CountElements(std::span<const int64_t> shape);
// "[2, 3]", "[]".
std::string ShapeToString(std::span<const int64_t> shape);

class Tensor {
 public:
  // An empty f32 tensor of shape [0] (no allocation). Moved-from tensors
  // are left in this state.
  Tensor();
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor() = default;

  // ---- factories

  // All elements zero (false). Errors: complex dtype, negative size, too many
  // elements or bytes, allocation failure.
  static Result<Tensor> Zeros(ir::DType dtype, Shape shape);
  // Like Zeros, but only the tail padding is zeroed: the caller must write
  // every element before the tensor is read (it saves a pass over large
  // buffers that are filled right away, such as seeded parameters).
  static Result<Tensor> Uninitialized(ir::DType dtype, Shape shape);
  // Every element `value` converted to the storage type (see SetDouble).
  static Result<Tensor> Full(ir::DType dtype, Shape shape, double value);
  // `values` (row-major) must have the storage type of `dtype` and exactly
  // the shape's element count; bool values must be 0/1 (any C++ bool is).
  template <typename T>
  static Result<Tensor> FromVector(ir::DType dtype, Shape shape, std::span<const T> values);
  template <typename T>
  static Result<Tensor> FromVector(ir::DType dtype, Shape shape, const std::vector<T>& values) {
    return FromVector<T>(dtype, std::move(shape), std::span<const T>(values.data(), values.size()));
  }
  template <typename T>
  static Result<Tensor> FromVector(ir::DType dtype, Shape shape, std::initializer_list<T> values) {
    return FromVector<T>(dtype, std::move(shape), std::span<const T>(values.begin(), values.size()));
  }
  static Result<Tensor> FromVector(ir::DType dtype, Shape shape, const std::vector<bool>& values);
  // Raw little-endian storage bytes (e.g. from JS). Byte count must equal
  // num_elements * storage size; bool bytes must be 0 or 1.
  static Result<Tensor> FromBytes(ir::DType dtype, Shape shape, std::span<const std::byte> bytes);
  // A rank-0 tensor. T must be the storage type of `dtype` (checked).
  template <typename T>
  static Tensor Scalar(ir::DType dtype, T value);
  template <typename T>
  static Tensor Scalar(T value) {
    return Scalar<T>(DefaultDTypeOf<T>(), value);
  }

  // ---- metadata

  ir::DType dtype() const { return dtype_; }
  ir::StorageType storage() const { return ir::StorageOf(dtype_); }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  // Size of axis `axis` (0 <= axis < rank, checked).
  int64_t dim(int axis) const;
  int64_t num_elements() const { return num_elements_; }
  // Bytes of element data (excluding padding).
  size_t byte_size() const { return byte_size_; }

  // ---- element access (T must be the storage type; checked)

  template <typename T>
  std::span<const T> values() const {
    CheckStorage(kStorageOf<T>);
    return {reinterpret_cast<const T*>(data_.get()), static_cast<size_t>(num_elements_)};
  }
  template <typename T>
  std::span<T> mutable_values() {
    CheckStorage(kStorageOf<T>);
    return {reinterpret_cast<T*>(data_.get()), static_cast<size_t>(num_elements_)};
  }
  template <typename T>
  const T* data() const { return values<T>().data(); }
  template <typename T>
  T* mutable_data() { return mutable_values<T>().data(); }
  const std::byte* raw_data() const { return data_.get(); }
  std::byte* mutable_raw_data() { return data_.get(); }

  // Untyped element access for tests and cold paths (index < num_elements,
  // checked). GetDouble of an i64 may round; GetInt64 of a float truncates
  // toward zero (NaN and out-of-range give 0 / saturate).
  double GetDouble(int64_t index) const;
  int64_t GetInt64(int64_t index) const;
  // Stores `value` converted to the storage type: floats round to nearest,
  // integers truncate (saturating), u8 wraps modulo 256, bool is value != 0.
  void SetDouble(int64_t index, double value);

  // ---- in-place metadata changes (no data movement)

  // New shape with the same element count.
  Status Reshape(Shape new_shape);
  // New declared dtype with the same storage type (i32 <-> i64, f16 <-> f32).
  Status Retag(ir::DType dtype);

  // A deep copy that reports allocation failure instead of aborting.
  Result<Tensor> Clone() const;

  // "f32[2, 3]".
  std::string TypeString() const;
  // "f32[2, 2] {1, 2, 3, 4}" with at most `max_elements` values, then "…".
  std::string ToString(int64_t max_elements = 16) const;

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const;
  };
  using Buffer = std::unique_ptr<std::byte[], AlignedDelete>;

  // Allocates storage for dtype/shape (validated): zeroed, or with only the
  // tail padding zeroed.
  static Result<Tensor> Allocate(ir::DType dtype, Shape shape, bool zero = true);
  void CheckStorage(ir::StorageType want) const;

  ir::DType dtype_ = ir::DType::kF32;
  Shape shape_ = {0};
  int64_t num_elements_ = 0;
  size_t byte_size_ = 0;
  Buffer data_;
};

// Named tensors (inputs, outputs, parameters), ordered by name.
using TensorMap = std::map<std::string, Tensor, std::less<>>;

// Whether `actual` matches `expected`: same dtype and shape, and per element
// |a − e| <= atol + rtol·|e| (computed in double). NaN matches NaN; infinities
// must be equal. Integer and bool tensors compare exactly. On mismatch `why`
// (when given) names the first differing element and its values.
bool AllClose(const Tensor& actual, const Tensor& expected, double rtol, double atol,
              std::string* why = nullptr);
// Same dtype, shape and storage bytes.
bool BitwiseEqual(const Tensor& a, const Tensor& b, std::string* why = nullptr);

// ---- template definitions

template <typename T>
Result<Tensor> Tensor::FromVector(ir::DType dtype, Shape shape, std::span<const T> values) {
  if (ir::StorageOf(dtype) != kStorageOf<T>) {
    return InvalidArgument(std::string("tensor of dtype ") + ir::DTypeName(dtype) + " is stored as " +
                           ir::StorageTypeName(ir::StorageOf(dtype)) + ", got " +
                           ir::StorageTypeName(kStorageOf<T>) + " values");
  }
  // The count first, as FromBytes: 3 values for a shape of 2^28 floats
  // allocated and zeroed 1 GiB before they were refused.
  Result<int64_t> count = CountElements(shape);
  if (count.ok() && static_cast<uint64_t>(*count) != values.size()) {
    return InvalidArgument("tensor of shape " + ShapeToString(shape) + " needs " + std::to_string(*count) +
                           " values, got " + std::to_string(values.size()));
  }
  Result<Tensor> t = Allocate(dtype, std::move(shape), /*zero=*/false);  // every value is written below
  if (!t.ok()) return t;
  std::span<T> out = t->mutable_values<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

template <typename T>
Tensor Tensor::Scalar(ir::DType dtype, T value) {
  SHREW_CHECK(ir::StorageOf(dtype) == kStorageOf<T>);
  Result<Tensor> t = Allocate(dtype, {});
  SHREW_CHECK(t.ok());
  t->mutable_values<T>()[0] = value;
  return std::move(t).value();
}

}  // namespace shrew::runtime
