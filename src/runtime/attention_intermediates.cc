#include "runtime/attention_intermediates.h"

#include <cstdint>
#include <string>

namespace shrew::runtime {

Status CheckAttentionIntermediates(const Shape& x, int64_t heads, bool block, uint64_t element_bytes,
                                   uint64_t cap) {
  if (x.size() != 3 || heads < 1 || element_bytes == 0) return Status::Ok();
  const int64_t b = x[0], s = x[1], d = x[2];
  // 4D past int64 counts as overflowing (-1 is no size CountElements takes).
  const int64_t hidden = !block ? 0 : d > INT64_MAX / 4 ? -1 : 4 * d;
  struct Candidate {
    Shape shape;
    const char* what;
  };
  const Candidate candidates[] = {
      {{b, heads, s, s}, "the attention scores"},
      {{b, s, d}, "a projection"},
      {{b, s, hidden}, "the feed-forward hidden layer"},
  };
  for (const Candidate& c : candidates) {
    Result<int64_t> count = CountElements(c.shape);
    // An overflowing count is over any cap.
    if (count.ok() && static_cast<uint64_t>(*count) <= cap / element_bytes) continue;
    const std::string bytes = count.ok() ? std::to_string(static_cast<uint64_t>(*count) * element_bytes) + " bytes"
                                         : "more bytes than 64 bits count";
    return ResourceExhausted("its intermediate " + ShapeToString(c.shape) + " (" + c.what + ", " + bytes +
                             ") is over the limit of " + std::to_string(cap) + " bytes per tensor");
  }
  return Status::Ok();
}

}  // namespace shrew::runtime
