#include "api/input_ranges.h"

#include <limits>
#include <string>

namespace shrew {

std::optional<IntRange> NarrowIntRange(ir::DType declared) {
  switch (declared) {
    case ir::DType::kI8: return IntRange{-128, 127};
    case ir::DType::kI16: return IntRange{-32768, 32767};
    case ir::DType::kI32: return IntRange{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case ir::DType::kU16: return IntRange{0, 65535};
    case ir::DType::kU32: return IntRange{0, std::numeric_limits<uint32_t>::max()};
    // Held as i64 too: a negative i64 would be a u64 past 2^63 - 1, which
    // the runtime has no value for (it computed and compared it as -1).
    case ir::DType::kU64: return IntRange{0, std::numeric_limits<int64_t>::max()};
    default: return std::nullopt;
  }
}

Status CheckIntRange(std::string_view input, ir::DType declared, IntRange range, std::span<const int64_t> values,
                     jit::InputIssue* issue, std::string_view kind, std::string_view graph) {
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    if (v >= range.lo && v <= range.hi) continue;
    const std::string name(ir::DTypeName(declared));
    if (issue != nullptr) *issue = {std::string(input), name + " values", std::to_string(v) + " at index " + std::to_string(i)};
    const std::string of = graph.empty() ? "" : " of graph '" + std::string(graph) + "'";
    return InvalidArgument(std::string(kind) + " '" + std::string(input) + "'" + of + ": value " + std::to_string(v) + " (at index " +
                           std::to_string(i) + ") does not fit " + name + ", its declared dtype (" +
                           std::to_string(range.lo) + " to " + std::to_string(range.hi) + ")");
  }
  return Status::Ok();
}

}  // namespace shrew
