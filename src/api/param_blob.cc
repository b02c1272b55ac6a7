#include "api/param_blob.h"

#include <cstring>
#include <optional>

#include "base/byte_io.h"

namespace shrew {
namespace {

// Bound on a shape's rank in a blob: far above any real tensor, small enough
// that a corrupt rank cannot make the reader allocate much.
constexpr uint32_t kMaxRank = 64;

Status Corrupt(const std::string& what) { return InvalidArgument("parameter blob: " + what); }

// The blob in order, as pieces: each header, then each tensor's bytes as
// they are held (`emit(const void*, size_t)`).
template <class Emit>
void EmitParamBlob(ParamList params, Emit emit) {
  ByteWriter head;
  head.Bytes(kParamBlobMagic, sizeof kParamBlobMagic);
  head.U32(kParamBlobVersion);
  head.U32(static_cast<uint32_t>(params.size()));
  emit(head.bytes().data(), head.size());
  for (const auto& [key, t] : params) {
    head.bytes().clear();
    head.String(key);
    const char* dtype = ir::DTypeName(t->dtype());
    const size_t dl = std::strlen(dtype);
    head.U8(static_cast<uint8_t>(dl));
    head.Bytes(dtype, dl);
    head.U32(static_cast<uint32_t>(t->rank()));
    for (int64_t d : t->shape()) head.I64(d);
    head.U64(t->byte_size());
    emit(head.bytes().data(), head.size());
    emit(t->raw_data(), t->byte_size());
  }
}

uint64_t Fnv1a64From(uint64_t h, const uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;

}  // namespace

size_t ParamBlobSize(ParamList params) {
  size_t size = sizeof kParamBlobMagic + 8;
  for (const auto& [key, t] : params) {
    size += 4 + key.size() + 1 + std::strlen(ir::DTypeName(t->dtype())) + 4 + 8 * t->shape().size() + 8 + t->byte_size();
  }
  return size;
}

void AppendParamBlob(ParamList params, ByteWriter& out) {
  out.Reserve(ParamBlobSize(params));
  EmitParamBlob(params, [&](const void* p, size_t n) { out.Bytes(p, n); });
}

uint64_t ParamBlobChecksum(ParamList params) {
  uint64_t h = kFnvOffsetBasis;
  EmitParamBlob(params, [&](const void* p, size_t n) { h = Fnv1a64From(h, static_cast<const uint8_t*>(p), n); });
  return h;
}

std::vector<uint8_t> EncodeParamBlob(ParamList params) {
  ByteWriter out;
  AppendParamBlob(params, out);
  return out.Take();
}

Result<std::vector<ParamRecord>> DecodeParamBlob(std::span<const uint8_t> blob) {
  ByteReader r(blob);
  std::span<const uint8_t> magic;
  if (!r.Bytes(sizeof kParamBlobMagic, &magic) || std::memcmp(magic.data(), kParamBlobMagic, sizeof kParamBlobMagic) != 0) {
    return Corrupt("not a Shrew parameter blob (bad magic; " + std::to_string(blob.size()) + " bytes)");
  }
  uint32_t version = 0, count = 0;
  if (!r.U32(&version)) return Corrupt("truncated header");
  if (version != kParamBlobVersion) {
    return Corrupt("unsupported version " + std::to_string(version) + " (this build reads version " +
                   std::to_string(kParamBlobVersion) + ")");
  }
  if (!r.U32(&count)) return Corrupt("truncated header");
  // Every record takes at least 4 + 1 + 4 + 8 bytes: a huge count in a
  // small blob is rejected before anything is reserved.
  if (static_cast<uint64_t>(count) * 17 > r.remaining()) {
    return Corrupt("header says " + std::to_string(count) + " records but only " + std::to_string(r.remaining()) +
                   " bytes follow");
  }
  std::vector<ParamRecord> records;
  records.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    const std::string at = "record " + std::to_string(i);
    ParamRecord rec;
    uint32_t key_len = 0;
    std::span<const uint8_t> key;
    if (!r.U32(&key_len) || !r.Bytes(key_len, &key)) return Corrupt(at + ": truncated key");
    rec.key.assign(reinterpret_cast<const char*>(key.data()), key.size());
    const std::string where = at + " ('" + rec.key + "')";
    uint8_t dtype_len = 0;
    std::span<const uint8_t> dtype_name;
    if (!r.U8(&dtype_len) || !r.Bytes(dtype_len, &dtype_name)) return Corrupt(where + ": truncated dtype");
    std::optional<ir::DType> dtype =
        ir::DTypeFromName(std::string_view(reinterpret_cast<const char*>(dtype_name.data()), dtype_name.size()));
    if (!dtype || !ir::IsExecutable(*dtype)) {
      return Corrupt(where + ": unknown dtype '" +
                     std::string(reinterpret_cast<const char*>(dtype_name.data()), dtype_name.size()) + "'");
    }
    rec.dtype = *dtype;
    uint32_t rank = 0;
    if (!r.U32(&rank)) return Corrupt(where + ": truncated rank");
    if (rank > kMaxRank) return Corrupt(where + ": rank " + std::to_string(rank) + " is over " + std::to_string(kMaxRank));
    for (uint32_t d = 0; d < rank; ++d) {
      uint64_t size = 0;
      if (!r.U64(&size)) return Corrupt(where + ": truncated shape");
      if (size > static_cast<uint64_t>(INT64_MAX)) return Corrupt(where + ": negative dimension");
      rec.shape.push_back(static_cast<int64_t>(size));
    }
    Result<int64_t> n = runtime::CountElements(rec.shape);
    if (!n.ok()) return Corrupt(where + ": " + n.status().message());
    const uint64_t elem = ir::StorageByteSize(ir::StorageOf(rec.dtype));
    if (static_cast<uint64_t>(*n) > (uint64_t{1} << 50) / elem) return Corrupt(where + ": shape is too large");
    const uint64_t expected = static_cast<uint64_t>(*n) * elem;
    uint64_t nbytes = 0;
    if (!r.U64(&nbytes)) return Corrupt(where + ": truncated value size");
    if (nbytes != expected) {
      return Corrupt(where + ": values are " + std::to_string(nbytes) + " bytes, expected " + std::to_string(expected) +
                     " for " + ir::DTypeName(rec.dtype) + runtime::ShapeToString(rec.shape));
    }
    if (!r.Bytes(nbytes, &rec.data)) {
      return Corrupt(where + ": values truncated (" + std::to_string(r.remaining()) + " of " + std::to_string(nbytes) +
                     " bytes present)");
    }
    if (rec.dtype == ir::DType::kBool) {
      for (uint8_t b : rec.data) {
        if (b > 1) return Corrupt(where + ": a bool value is " + std::to_string(b) + ", not 0 or 1");
      }
    }
    records.push_back(std::move(rec));
  }
  if (r.remaining() != 0) {
    return Corrupt(std::to_string(r.remaining()) + " unexpected bytes after the last record");
  }
  return records;
}

uint64_t Fnv1a64(std::span<const uint8_t> bytes) { return Fnv1a64From(kFnvOffsetBasis, bytes.data(), bytes.size()); }

std::string ChecksumHex(uint64_t checksum) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kDigits[checksum & 0xf];
    checksum >>= 4;
  }
  return s;
}

}  // namespace shrew
