// Element types of the Shrew IR (LANGUAGE.md §4.2, OPS.md §1.3).
//
// The IR, dumps and type checks always use the *declared* dtype (15 of them);
// execution holds values in fewer *storage* types (StorageOf). Complex dtypes
// can be declared but not executed.
//
// Weak literals (OPS.md §1.3): constants made from a literal or config key
// have a provisional dtype until an elementwise operation adopts them into
// its other operand's dtype. WeakKind and the helpers below capture that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shrew::ir {

// Declared dtypes, in the order of LANGUAGE.md §4.2's classes. The numeric
// values are stable only within one build; serialise by name.
enum class DType : uint8_t {
  kF16,
  kBF16,
  kF32,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kBool,
  kComplex64,
  kComplex128,
};
inline constexpr int kNumDTypes = 15;

enum class DTypeClass : uint8_t { kFloat, kSignedInt, kUnsignedInt, kBool, kComplex };

// How values of a dtype are held and computed (OPS.md §1.3 table).
enum class StorageType : uint8_t { kF32, kF64, kI64, kU8, kBool, kUnsupported };

// Canonical lower-case name as written in source: "f32", "bool", "complex64".
const char* DTypeName(DType dtype);
// Exact canonical names only ("f32"); nullopt for anything else.
std::optional<DType> DTypeFromName(std::string_view name);
// Also accepts the long CLI spellings (PIPELINE.md §12.1): float32, float64,
// float16, bfloat16, int8..int64, uint8..uint64, boolean.
std::optional<DType> DTypeFromLongName(std::string_view name);

DTypeClass ClassOf(DType dtype);
bool IsFloat(DType dtype);        // f16 bf16 f32 f64
bool IsSignedInt(DType dtype);    // i8 .. i64
bool IsUnsignedInt(DType dtype);  // u8 .. u64
bool IsInteger(DType dtype);      // signed or unsigned
bool IsNumeric(DType dtype);      // float or integer (not bool, not complex)
bool IsBool(DType dtype);
bool IsComplex(DType dtype);

// Bytes of one element as declared (f16: 2, bool: 1, complex128: 16).
size_t DeclaredByteSize(DType dtype);

StorageType StorageOf(DType dtype);
const char* StorageTypeName(StorageType s);  // "f32", "f64", "i64", "u8", "bool", "unsupported"
// Bytes of one stored element (f32: 4, f64: 8, i64: 8, u8: 1, bool: 1, unsupported: 0).
size_t StorageByteSize(StorageType s);
// The declared dtype naming the storage type (f16 -> f32, i8 -> i64, u32 -> i64).
// Complex dtypes map to themselves (they are never executed).
DType StorageDType(DType dtype);
// False only for complex dtypes ("dtype complex64 is not supported for execution").
bool IsExecutable(DType dtype);

// ---- weak literals (OPS.md §1.3)

// The kind of a provisional (weak) value, ordered so that Join picks the
// wider one: an expression mixing an int literal and a float literal is float.
enum class WeakKind : uint8_t { kBool = 0, kInt = 1, kFloat = 2 };
WeakKind JoinWeak(WeakKind a, WeakKind b);
// The dtype a weak value gets when nothing adopts it: bool -> bool,
// int -> i64, float -> `default_float` (the runtime default, f32 unless set).
DType DefaultDTypeFor(WeakKind kind, DType default_float = DType::kF32);

// Whether a weak literal of `kind` with the given value can take dtype
// `target`. Only a float literal with a non-integral value, or one outside
// the i64 range, into an integer dtype fails (message: "float literal V
// cannot be used with an integer operand"); `float_value` is ignored for
// other kinds. Complex targets fail. (The u8 range is checked separately.)
bool WeakLiteralFits(WeakKind kind, double float_value, DType target);

}  // namespace shrew::ir
