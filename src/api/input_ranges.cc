#include "api/input_ranges.h"

#include <string>

namespace shrew {

Status CheckIntRange(std::string_view input, ir::DType declared, IntRange range, std::span<const int64_t> values,
                     jit::InputIssue* issue, std::string_view kind) {
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = values[i];
    if (v >= range.lo && v <= range.hi) continue;
    const std::string name(ir::DTypeName(declared));
    if (issue != nullptr) *issue = {std::string(input), name + " values", std::to_string(v) + " at index " + std::to_string(i)};
    return InvalidArgument(std::string(kind) + " '" + std::string(input) + "': value " + std::to_string(v) + " (at index " +
                           std::to_string(i) + ") does not fit " + name + ", its declared dtype (" +
                           std::to_string(range.lo) + " to " + std::to_string(range.hi) + ")");
  }
  return Status::Ok();
}

}  // namespace shrew
