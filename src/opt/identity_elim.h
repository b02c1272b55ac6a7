// Identity elimination (PIPELINE.md §6.3).
//
// Every `identity` node with exactly one operand is bypassed: operand
// references and outputs pointing at it are redirected to its source, with
// chains a -> b -> c resolved to the final source in one pass. Inputs and
// parameters (identities without operands) are never bypassed, though they
// may be the source. The bypassed nodes are then swept (OrphanSweep).
//
//   before                         after
//     %0 x = input                   %0 x = input
//     %1 pass = identity(%0)         %1 y = relu(%0)
//     %2 y = relu(%1)                outputs: y=%1, alias=%0
//     outputs: y=%2, alias=%1
//
// Returns the number of identities bypassed.
#pragma once

#include "ir/graph.h"

namespace shrew::opt {

int RunIdentityElim(ir::Graph& graph);

}  // namespace shrew::opt
