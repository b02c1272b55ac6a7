#include "io/npy.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace shrew::io {
namespace {

using runtime::Tensor;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kMaxHeaderBytes = 1 << 20;  // numpy itself caps headers far lower
constexpr size_t kMaxRank = 32;              // NPY_MAXDIMS

struct Descr {
  std::string_view text;
  ir::DType dtype;
  size_t file_elem;  // bytes per element in the file
};

constexpr Descr kDescrs[] = {
    {"<f4", ir::DType::kF32, 4}, {"<f8", ir::DType::kF64, 8}, {"<i4", ir::DType::kI32, 4},
    {"<i8", ir::DType::kI64, 8}, {"|u1", ir::DType::kU8, 1},  {"|b1", ir::DType::kBool, 1},
};

uint32_t ReadLe(std::span<const std::byte> b, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(b[at + i]) << (8 * i);
  return v;
}

// The header's Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view s) : s_(s) {}

  Status Parse(std::string* descr, bool* fortran, runtime::Shape* shape) {
    bool seen_descr = false, seen_order = false, seen_shape = false;
    SkipSpace();
    if (!Eat('{')) return Bad("the header is not a dict");
    for (;;) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      SHREW_RETURN_IF_ERROR(String(&key));
      SkipSpace();
      if (!Eat(':')) return Bad("expected ':' after key '" + key + "'");
      SkipSpace();
      if (key == "descr") {
        if (seen_descr) return Bad("duplicate key 'descr'");
        seen_descr = true;
        if (Peek() != '\'' && Peek() != '"') return Unimplemented("npy: structured dtypes are not supported");
        SHREW_RETURN_IF_ERROR(String(descr));
      } else if (key == "fortran_order") {
        if (seen_order) return Bad("duplicate key 'fortran_order'");
        seen_order = true;
        SHREW_RETURN_IF_ERROR(Bool(fortran));
      } else if (key == "shape") {
        if (seen_shape) return Bad("duplicate key 'shape'");
        seen_shape = true;
        SHREW_RETURN_IF_ERROR(Tuple(shape));
      } else {
        return Bad("unknown key '" + key + "'");
      }
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat('}')) break;
      return Bad("expected ',' or '}' in the header");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Bad("trailing characters after the header dict");
    if (!seen_descr || !seen_order || !seen_shape) return Bad("the header needs 'descr', 'fortran_order' and 'shape'");
    return Status::Ok();
  }

 private:
  static Status Bad(const std::string& what) { return InvalidArgument("npy: " + what); }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || pos_ >= s_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  Status String(std::string* out) {
    const char q = Peek();
    if (q != '\'' && q != '"') return Bad("expected a quoted string in the header");
    ++pos_;
    const size_t end = s_.find(q, pos_);
    if (end == std::string_view::npos) return Bad("unterminated string in the header");
    *out = std::string(s_.substr(pos_, end - pos_));
    if (out->find('\\') != std::string::npos) return Bad("escapes in header strings are not supported");
    pos_ = end + 1;
    return Status::Ok();
  }
  Status Bool(bool* out) {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      *out = true;
    } else if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      *out = false;
    } else {
      return Bad("'fortran_order' must be True or False");
    }
    return Status::Ok();
  }
  Status Tuple(runtime::Shape* out) {
    out->clear();
    if (!Eat('(')) return Bad("'shape' must be a tuple");
    for (;;) {
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      if (out->size() == kMaxRank) return Bad("'shape' has more than " + std::to_string(kMaxRank) + " dimensions");
      int64_t v = 0;
      size_t digits = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        const int d = s_[pos_] - '0';
        if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return Bad("a dimension in 'shape' is too large");
        v = v * 10 + d;
        ++pos_;
        ++digits;
      }
      if (digits == 0) return Bad("'shape' must hold non-negative integers");
      // Python 2 era files write long integers as 3L.
      if (Peek() == 'L') ++pos_;
      out->push_back(v);
      SkipSpace();
      if (Eat(',')) continue;
      SkipSpace();
      if (Eat(')')) return Status::Ok();
      return Bad("expected ',' or ')' in 'shape'");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::optional<Descr> DescrFor(ir::DType dtype) {
  for (const Descr& d : kDescrs) {
    if (d.dtype == dtype) return d;
  }
  return std::nullopt;
}

}  // namespace

Result<Tensor> ParseNpy(std::span<const std::byte> bytes) {
  if (bytes.size() < kMagic.size() + 2 || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return InvalidArgument("npy: not a .npy file (bad magic)");
  }
  const auto major = static_cast<unsigned>(bytes[6]);
  const auto minor = static_cast<unsigned>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return Unimplemented("npy: format version " + std::to_string(major) + "." + std::to_string(minor) +
                         " is not supported (1.0, 2.0, 3.0)");
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  const size_t header_at = 8 + len_bytes;
  if (bytes.size() < header_at) return InvalidArgument("npy: truncated before the header length");
  const size_t header_len = ReadLe(bytes, 8, len_bytes);
  if (header_len > kMaxHeaderBytes) return InvalidArgument("npy: header of " + std::to_string(header_len) + " bytes is too long");
  if (bytes.size() - header_at < header_len) return InvalidArgument("npy: truncated header");
  std::string_view header(reinterpret_cast<const char*>(bytes.data() + header_at), header_len);
  // Versions 1 and 2 are latin-1, 3 is UTF-8; the keys and values we accept are ASCII either way.
  std::string descr;
  bool fortran = false;
  runtime::Shape shape;
  SHREW_RETURN_IF_ERROR(HeaderParser(header).Parse(&descr, &fortran, &shape));

  const Descr* d = nullptr;
  for (const Descr& k : kDescrs) {
    if (k.text == descr) d = &k;
  }
  // Byte-order-free spellings numpy also writes.
  if (d == nullptr && (descr == "<u1" || descr == "u1" || descr == "=u1")) d = &kDescrs[4];
  if (d == nullptr && (descr == "<b1" || descr == "b1" || descr == "=b1")) d = &kDescrs[5];
  if (d == nullptr) {
    return Unimplemented("npy: dtype '" + descr + "' is not supported (<f4, <f8, <i4, <i8, |u1, |b1)");
  }
  if (fortran && shape.size() > 1) return Unimplemented("npy: Fortran-order arrays of rank > 1 are not supported");

  Result<int64_t> count = runtime::CountElements(shape);
  if (!count.ok()) return InvalidArgument("npy: " + count.status().message());
  const size_t data_at = header_at + header_len;
  const uint64_t have = bytes.size() - data_at;
  const uint64_t n = static_cast<uint64_t>(*count);
  if (n > have / d->file_elem || n * d->file_elem != have) {
    return InvalidArgument("npy: shape " + runtime::ShapeToString(shape) + " of " + descr + " needs " +
                           (n <= std::numeric_limits<uint64_t>::max() / d->file_elem ? std::to_string(n * d->file_elem)
                                                                                     : std::string("too many")) +
                           " data bytes, the file has " + std::to_string(have));
  }
  std::span<const std::byte> data = bytes.subspan(data_at);
  if (d->dtype == ir::DType::kI32) {
    Result<Tensor> t = Tensor::Zeros(ir::DType::kI32, shape);
    if (!t.ok()) return t;
    std::span<int64_t> out = t->mutable_values<int64_t>();
    for (size_t i = 0; i < out.size(); ++i) {
      int32_t v;
      std::memcpy(&v, data.data() + 4 * i, 4);
      out[i] = v;
    }
    return t;
  }
  // FromBytes checks bool bytes are 0/1 and the byte count.
  Result<Tensor> t = Tensor::FromBytes(d->dtype, shape, data);
  if (!t.ok()) return InvalidArgument("npy: " + t.status().message());
  return t;
}

Result<std::string> SerializeNpy(const Tensor& tensor) {
  std::optional<Descr> d = DescrFor(tensor.dtype());
  if (!d) return Unimplemented("npy: cannot write dtype " + std::string(ir::DTypeName(tensor.dtype())));
  std::string dict = "{'descr': '" + std::string(d->text) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    dict += std::to_string(tensor.shape()[i]) + (tensor.shape().size() == 1 ? "," : i + 1 < tensor.shape().size() ? ", " : "");
  }
  dict += "), }";
  // Pad with spaces so the data starts 64-byte aligned; the header ends in '\n'.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 0xffff) return Unimplemented("npy: header too long for format 1.0");
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  if (tensor.dtype() == ir::DType::kI32) {
    for (int64_t v : tensor.values<int64_t>()) {
      const auto w = static_cast<int32_t>(v);
      out.append(reinterpret_cast<const char*>(&w), 4);
    }
  } else {
    out.append(reinterpret_cast<const char*>(tensor.raw_data()), tensor.byte_size());
  }
  return out;
}

Result<Tensor> ReadNpyFile(const std::string& path) {
  // stdio, not an ifstream: libstdc++'s filebuf throws on a read error (a
  // directory opens, then fails to read: "Is a directory"), which aborted
  // the process (nothing here catches).
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return NotFound("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<char> buf;
  char chunk[4096];  // small: wasm's stack is 64 KiB
  size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  const int error = std::ferror(f) != 0 ? errno : 0;
  std::fclose(f);
  if (error != 0) return InvalidArgument("cannot read '" + path + "': " + std::strerror(error));
  Result<Tensor> t = ParseNpy(std::as_bytes(std::span<const char>(buf.data(), buf.size())));
  if (!t.ok()) return t.status().Prefixed(path + ": ");
  return t;
}

Status WriteNpyFile(const std::string& path, const Tensor& tensor) {
  Result<std::string> bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return bytes.status();
  // A bad path is the caller's, with the system's reason, as ReadNpyFile
  // says it (this was "internal: cannot create" with no reason).
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    const int error = errno;
    const std::string why = "cannot create '" + path + "': " + std::strerror(error);
    return error == ENOENT ? NotFound(why) : InvalidArgument(why);
  }
  const bool written = std::fwrite(bytes->data(), 1, bytes->size(), f) == bytes->size();
  const int error = written ? 0 : errno;
  if (std::fclose(f) != 0 || !written) {
    return InvalidArgument("cannot write '" + path + "': " + std::strerror(error != 0 ? error : errno));
  }
  return Status::Ok();
}

}  // namespace shrew::io
