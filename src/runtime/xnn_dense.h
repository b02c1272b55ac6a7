// A one-shot dense layer on XNNPACK: y[b, o] = sum_i x[b, i] * w[o, i] + bias[o].
// The thin vertical slice that proves the native and wasm chains end to end
// (create -> reshape -> setup -> run of a fully-connected operator). The JIT
// keeps its operators alive across runs instead; this helper creates and
// deletes one per call.
#pragma once

#include <cstddef>
#include <vector>

#include "base/status.h"

namespace shrew::runtime {

struct DenseShape {
  size_t batch = 0;
  size_t in = 0;
  size_t out = 0;
};

// x: batch*in, w: out*in (row-major, one row per output), bias: out or empty.
// Returns y: batch*out. Sizes are checked; an XNNPACK failure is a Status.
Result<std::vector<float>> DenseXnn(const DenseShape& shape, const std::vector<float>& x,
                                    const std::vector<float>& w, const std::vector<float>& bias);

}  // namespace shrew::runtime
