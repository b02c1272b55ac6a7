// NumPy broadcasting of two shapes, shared by the interpreter and the tape
// kernels (shape inference has its own symbolic version in ir/shapes).
#pragma once

#include "base/status.h"
#include "runtime/tensor.h"

namespace shrew::runtime {

// Aligned on the right, missing leading axes count as 1; error:
// "shapes [A] and [B] cannot be broadcast".
Result<Shape> BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace shrew::runtime
