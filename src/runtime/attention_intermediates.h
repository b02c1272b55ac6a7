// The largest intermediate value of multi_head_attention and
// transformer_block (OPS.md §3.12), shared by the interpreter and the tape.
// The per-tensor byte cap (ProgramOptions::max_tensor_bytes) bounds it on
// both executors, as it bounds each op of the attention written out: the
// tape's workspace holds several of them at once and is not itself a tensor.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "runtime/tensor.h"

namespace shrew::runtime {

// `x`: [B, S, D]; `heads`: n_heads; `block`: transformer_block, whose
// feed-forward hidden layer is [B, S, 4D]. ResourceExhausted when the
// largest of the [B, h, S, S] scores, a [B, S, D] projection and that
// hidden layer is over `cap` bytes of `element_bytes` elements:
// "its intermediate [1, 4, 512, 512] (the attention scores, 4194304 bytes)
// is over the limit of 1048576 bytes per tensor". Shapes the op refuses
// anyway pass.
Status CheckAttentionIntermediates(const Shape& x, int64_t heads, bool block, uint64_t element_bytes,
                                   uint64_t cap);

}  // namespace shrew::runtime
