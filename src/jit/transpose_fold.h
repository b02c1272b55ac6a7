// JIT-level fold of a transpose into the product that reads it.
//
// matmul(a, transpose(w)) — attention's q·kᵀ, a weight stored [out, in] —
// copied all of w into a transposed buffer on every run for a product that
// then read it once: [1, 1024] × transpose([1024, 1024]) took 4-7x the time
// of the same product with w laid out [K, N]. The dense kernels take a b
// stored [.., N, K] (KernelSpec::b_transposed: XNNPACK's transposed-b and
// [N, K]-weight operators, which pack it as they would a [K, N] one, our
// row dot products, which read it as it is; the f64 reference product of 4
// rows or more transposes it into its workspace, as the instruction did,
// one copy fewer), so the compiler drops the transpose's instruction and hands its source to the
// product as b, like the activation fusion that drops a fused producer
// (tape.h). The product then reads the source slot, whose lifetime extends
// to it; the transpose's slot is never produced ("fused away" in dumps).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace shrew::jit {

// Whether `node` is a transpose or permute that exchanges exactly the last
// two axes of its operand (rank >= 2, from its inferred type).
bool SwapsLastTwoAxes(const ir::Node& node);

// Per node id: for a matmul, fused_matmul_add or fused_matmul_relu whose
// operand b is such a node, read by nothing else (one consumer reference)
// and not a graph output, that node; else kNoNode. Candidates: the
// compiler folds one when the kernel factory makes the product with a
// transposed b. `consumers`, `is_output`: per node id, as
// ir::Graph::ConsumerCounts and the graph's outputs give them.
std::vector<ir::NodeId> FindTransposedOperands(const ir::Graph& graph, const std::vector<int>& consumers,
                                               const std::vector<uint8_t>& is_output);

}  // namespace shrew::jit
