#include "ir/dtype.h"

#include <cmath>

namespace shrew::ir {
namespace {

struct DTypeRow {
  const char* name;
  DTypeClass cls;
  size_t bytes;
  StorageType storage;
};

// Indexed by DType.
constexpr DTypeRow kRows[kNumDTypes] = {
    {"f16", DTypeClass::kFloat, 2, StorageType::kF32},
    {"bf16", DTypeClass::kFloat, 2, StorageType::kF32},
    {"f32", DTypeClass::kFloat, 4, StorageType::kF32},
    {"f64", DTypeClass::kFloat, 8, StorageType::kF64},
    {"i8", DTypeClass::kSignedInt, 1, StorageType::kI64},
    {"i16", DTypeClass::kSignedInt, 2, StorageType::kI64},
    {"i32", DTypeClass::kSignedInt, 4, StorageType::kI64},
    {"i64", DTypeClass::kSignedInt, 8, StorageType::kI64},
    {"u8", DTypeClass::kUnsignedInt, 1, StorageType::kU8},
    {"u16", DTypeClass::kUnsignedInt, 2, StorageType::kI64},
    {"u32", DTypeClass::kUnsignedInt, 4, StorageType::kI64},
    {"u64", DTypeClass::kUnsignedInt, 8, StorageType::kI64},
    {"bool", DTypeClass::kBool, 1, StorageType::kBool},
    {"complex64", DTypeClass::kComplex, 8, StorageType::kUnsupported},
    {"complex128", DTypeClass::kComplex, 16, StorageType::kUnsupported},
};

const DTypeRow& Row(DType d) { return kRows[static_cast<int>(d)]; }

}  // namespace

const char* DTypeName(DType dtype) { return Row(dtype).name; }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kRows[i].name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromLongName(std::string_view name) {
  if (auto d = DTypeFromName(name)) return d;
  struct Long {
    const char* name;
    DType dtype;
  };
  static constexpr Long kLong[] = {
      {"float16", DType::kF16}, {"bfloat16", DType::kBF16}, {"float32", DType::kF32},
      {"float64", DType::kF64}, {"int8", DType::kI8},       {"int16", DType::kI16},
      {"int32", DType::kI32},   {"int64", DType::kI64},     {"uint8", DType::kU8},
      {"uint16", DType::kU16},  {"uint32", DType::kU32},    {"uint64", DType::kU64},
      {"boolean", DType::kBool},
  };
  for (const Long& l : kLong) {
    if (name == l.name) return l.dtype;
  }
  return std::nullopt;
}

DTypeClass ClassOf(DType dtype) { return Row(dtype).cls; }
bool IsFloat(DType d) { return ClassOf(d) == DTypeClass::kFloat; }
bool IsSignedInt(DType d) { return ClassOf(d) == DTypeClass::kSignedInt; }
bool IsUnsignedInt(DType d) { return ClassOf(d) == DTypeClass::kUnsignedInt; }
bool IsInteger(DType d) { return IsSignedInt(d) || IsUnsignedInt(d); }
bool IsNumeric(DType d) { return IsFloat(d) || IsInteger(d); }
bool IsBool(DType d) { return ClassOf(d) == DTypeClass::kBool; }
bool IsComplex(DType d) { return ClassOf(d) == DTypeClass::kComplex; }

size_t DeclaredByteSize(DType dtype) { return Row(dtype).bytes; }
StorageType StorageOf(DType dtype) { return Row(dtype).storage; }

const char* StorageTypeName(StorageType s) {
  switch (s) {
    case StorageType::kF32: return "f32";
    case StorageType::kF64: return "f64";
    case StorageType::kI64: return "i64";
    case StorageType::kU8: return "u8";
    case StorageType::kBool: return "bool";
    case StorageType::kUnsupported: return "unsupported";
  }
  return "unsupported";
}

size_t StorageByteSize(StorageType s) {
  switch (s) {
    case StorageType::kF32: return 4;
    case StorageType::kF64: return 8;
    case StorageType::kI64: return 8;
    case StorageType::kU8: return 1;
    case StorageType::kBool: return 1;
    case StorageType::kUnsupported: return 0;
  }
  return 0;
}

DType StorageDType(DType dtype) {
  switch (StorageOf(dtype)) {
    case StorageType::kF32: return DType::kF32;
    case StorageType::kF64: return DType::kF64;
    case StorageType::kI64: return DType::kI64;
    case StorageType::kU8: return DType::kU8;
    case StorageType::kBool: return DType::kBool;
    case StorageType::kUnsupported: return dtype;
  }
  return dtype;
}

bool IsExecutable(DType dtype) { return !IsComplex(dtype); }

WeakKind JoinWeak(WeakKind a, WeakKind b) { return a > b ? a : b; }

DType DefaultDTypeFor(WeakKind kind, DType default_float) {
  switch (kind) {
    case WeakKind::kBool: return DType::kBool;
    case WeakKind::kInt: return DType::kI64;
    case WeakKind::kFloat: return default_float;
  }
  return default_float;
}

bool WeakLiteralFits(WeakKind kind, double float_value, DType target) {
  if (IsComplex(target)) return false;
  if (kind == WeakKind::kFloat && IsInteger(target)) {
    // Integral and within the i64 storage (a wider value has no integer to
    // become; its conversion would be undefined behaviour).
    return std::isfinite(float_value) && std::trunc(float_value) == float_value &&
           float_value >= -9223372036854775808.0 && float_value < 9223372036854775808.0;
  }
  return true;
}

}  // namespace shrew::ir
