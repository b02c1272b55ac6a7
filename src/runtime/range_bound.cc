#include "runtime/range_bound.h"

#include <cmath>
#include <string>

#include "ir/attr.h"

namespace shrew::runtime {

Result<int64_t> RangeBoundOfFloat(double v, bool f32) {
  const auto shown = [&] { return f32 ? ir::FormatFloat(static_cast<float>(v)) : ir::FormatDouble(v); };
  if (!std::isfinite(v)) return InvalidArgument("range operand " + shown() + " is not a finite number");
  if (v >= 9223372036854775808.0 || v < -9223372036854775808.0) {
    return InvalidArgument("range operand " + shown() + " is outside the i64 range");
  }
  return static_cast<int64_t>(v);  // truncates toward zero
}

}  // namespace shrew::runtime
