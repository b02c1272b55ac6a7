// NumPy .npy files (format versions 1.0, 2.0 and 3.0) to and from host
// tensors. The reader is a bounds-checked parser of untrusted bytes: every
// malformed file is an InvalidArgument/Unimplemented status naming the
// problem, never a crash, an over-read or an allocation larger than the
// file promises (the data size must equal the bytes actually present).
//
//   Result<runtime::Tensor> t = io::ParseNpy(bytes);        // bytes: the whole file
//   Result<std::string> file = io::SerializeNpy(tensor);    // version 1.0, C order
//
// Supported element types (little-endian or byte-order-free only):
//   '<f4' f32, '<f8' f64, '<i4' i32 (held as i64, OPS.md §1.3), '<i8' i64,
//   '|u1' u8, '|b1' bool (bytes must be 0 or 1).
// Fortran order is accepted only where it equals C order (rank <= 1).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "base/status.h"
#include "runtime/tensor.h"

namespace shrew::io {

Result<runtime::Tensor> ParseNpy(std::span<const std::byte> bytes);
// Errors: a dtype the format above cannot express (f16, bf16, complex, …).
// An i32 tensor (held as i64) is written modulo 2^32: i32 arithmetic runs
// in i64 and its result is the low 32 bits, as a run's i32 outputs are.
Result<std::string> SerializeNpy(const runtime::Tensor& tensor);

// File helpers (errors name the path).
Result<runtime::Tensor> ReadNpyFile(const std::string& path);
Status WriteNpyFile(const std::string& path, const runtime::Tensor& tensor);

}  // namespace shrew::io
