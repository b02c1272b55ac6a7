// The parameter blob: every parameter of a program in one versioned,
// little-endian binary buffer (Program::SaveParams / LoadParams).
//
// Format, version 1 (all integers little-endian, no padding):
//   magic      8 bytes  "SHRWPRM1"
//   version    u32      1
//   count      u32      number of records
//   count × record:
//     key_len  u32      then key_len bytes: the key "GRAPH/PARAM" (UTF-8)
//     dtype    u8       length, then that many bytes: the declared dtype name ("f32", "i64", …)
//     rank     u32      then rank × i64: the shape
//     nbytes   u64      then nbytes bytes: the values in storage layout
//                       (OPS.md §1.3: f32, f64, i64, u8, bool as one byte),
//                       row-major, little-endian
// Records are in key order. Nothing may follow the last record.
//
// DecodeParamBlob never trusts a length: every field is bounds-checked
// against the bytes that remain, sizes are checked for overflow and against
// the shape and dtype, and any violation is an InvalidArgument naming the
// record and the field ("parameter blob: record 2 ('G/w'): values are 12
// bytes, expected 16 for f32[2, 2]"). The records returned view the blob.
//
//   std::vector<uint8_t> blob = EncodeParamBlob(program.Params());
//   Result<std::vector<ParamRecord>> recs = DecodeParamBlob(blob);
//   uint64_t sum = Fnv1a64(blob);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "ir/dtype.h"
#include "runtime/tensor.h"

namespace shrew {

class ByteWriter;  // base/byte_io.h

inline constexpr char kParamBlobMagic[8] = {'S', 'H', 'R', 'W', 'P', 'R', 'M', '1'};
inline constexpr uint32_t kParamBlobVersion = 1;

struct ParamRecord {
  std::string key;
  ir::DType dtype = ir::DType::kF32;
  runtime::Shape shape;
  std::span<const uint8_t> data;  // views the decoded blob
};

using ParamList = std::span<const std::pair<std::string, const runtime::Tensor*>>;

// Encodes (key, tensor) pairs in the order given (callers pass them sorted).
std::vector<uint8_t> EncodeParamBlob(ParamList params);
// The same bytes appended to `out`, and their count: a bundle writes the
// blob in place, not a copy of a copy (2x the weights aborted a nearly full
// wasm memory).
size_t ParamBlobSize(ParamList params);
void AppendParamBlob(ParamList params, ByteWriter& out);
// Fnv1a64(EncodeParamBlob(params)) without making the blob.
uint64_t ParamBlobChecksum(ParamList params);

// Parses and validates a blob (see the header comment for the checks).
Result<std::vector<ParamRecord>> DecodeParamBlob(std::span<const uint8_t> blob);

// FNV-1a, 64-bit, over `bytes`.
uint64_t Fnv1a64(std::span<const uint8_t> bytes);

// The checksum as 16 lower-case hex digits (the form the expectations file
// and the JavaScript API use: a u64 does not fit a JS number).
std::string ChecksumHex(uint64_t checksum);

}  // namespace shrew
