// Little-endian binary encoding for Shrew's file formats (the parameter blob,
// the program bundle): an appending writer and a reader that never reads
// past the end. Readers return false when too few bytes remain; the format
// code turns that into an error naming the field.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shrew {

static_assert(std::endian::native == std::endian::little,
              "Shrew's binary formats store values in host layout, which must be little-endian");

class ByteWriter {
 public:
  void U8(uint8_t v) { out_.push_back(v); }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void U64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) {
    uint64_t u = 0;  // memcpy: Emscripten 3.1.6's libc++ has no std::bit_cast
    std::memcpy(&u, &v, sizeof u);
    U64(u);
  }
  // insert, not resize + memcpy: at -Os libc++'s resize zero-fills byte by byte.
  void Bytes(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    if (n > 0) out_.insert(out_.end(), b, b + n);
  }
  // u32 length, then the bytes.
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s.data(), s.size());
  }

  // Room for `n` more bytes: a writer that knows its size copies each byte
  // once. Grown by doubling, a 2.7 MB parameter blob was reallocated 21
  // times, each into fresh pages: saveParams took 9.6 ms in wasm, 2.4 sized.
  void Reserve(size_t n) { out_.reserve(out_.size() + n); }
  size_t size() const { return out_.size(); }
  std::vector<uint8_t>& bytes() { return out_; }
  std::vector<uint8_t> Take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }

  bool U8(uint8_t* v) {
    if (remaining() < 1) return false;
    *v = bytes_[pos_++];
    return true;
  }
  bool U32(uint32_t* v) {
    if (remaining() < 4) return false;
    *v = 0;
    for (int i = 0; i < 4; ++i) *v |= static_cast<uint32_t>(bytes_[pos_ + static_cast<size_t>(i)]) << (8 * i);
    pos_ += 4;
    return true;
  }
  bool U64(uint64_t* v) {
    if (remaining() < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(bytes_[pos_ + static_cast<size_t>(i)]) << (8 * i);
    pos_ += 8;
    return true;
  }
  bool I64(int64_t* v) {
    uint64_t u = 0;
    if (!U64(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  bool F64(double* v) {
    uint64_t u = 0;
    if (!U64(&u)) return false;
    std::memcpy(v, &u, sizeof u);
    return true;
  }
  bool Bytes(uint64_t n, std::span<const uint8_t>* out) {
    if (n > remaining()) return false;
    *out = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return true;
  }
  // A u32 length, then that many bytes (checked against what remains before
  // anything is allocated).
  bool String(std::string* s) {
    uint32_t n = 0;
    std::span<const uint8_t> b;
    if (!U32(&n) || !Bytes(n, &b)) return false;
    s->assign(reinterpret_cast<const char*>(b.data()), b.size());
    return true;
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace shrew
