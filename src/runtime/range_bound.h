// A float operand of `range` as both executors read it (OPS.md: a bound is
// truncated toward zero): its int64, or invalid_argument when it is no
// finite int64, the value written as its dtype prints it (`1e+19` for an
// f32, not the double `9.999999980506448e+18`).
#pragma once

#include <cstdint>

#include "base/status.h"

namespace shrew::runtime {

Result<int64_t> RangeBoundOfFloat(double v, bool f32);

}  // namespace shrew::runtime
