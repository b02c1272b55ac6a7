// libFuzzer entry point: the bytes are a .npy file (io/npy.h). Parsing must
// never read out of bounds or allocate past what the header can justify; a
// parsed tensor must serialise and parse back to the same dtype, shape and
// bytes. Seeds: fuzz/seeds/npy_fuzzer/.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = shrew::io::ParseNpy(std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size));
  if (!parsed.ok()) {
    if (parsed.status().message().empty()) __builtin_trap();
    return 0;
  }
  const shrew::runtime::Tensor& t = *parsed;
  auto text = shrew::io::SerializeNpy(t);
  if (!text.ok()) return 0;  // e.g. a dtype .npy can carry but Shrew writes differently
  auto again = shrew::io::ParseNpy(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(text->data()), text->size()));
  if (!again.ok() || again->dtype() != t.dtype() || again->shape() != t.shape() ||
      again->byte_size() != t.byte_size() ||
      (t.byte_size() > 0 && std::memcmp(again->raw_data(), t.raw_data(), t.byte_size()) != 0)) {
    __builtin_trap();
  }
  return 0;
}
