// The key of PIPELINE.md §6.5 shared by CSE and the CSE-only rounds
// (cse_rounds.h): which nodes take part, a hash of the key and key equality.
//
// A key is everything but the node's identity: canonical operation, all
// attributes (kind-aware, in any order), the callee, for constants the
// resolved dtype (or "still weak"), for an operand-less `range` its type,
// the operand ids in order, and a declared type that states more than
// inference found (it is checked at run time on that node, so merging two
// nodes with different ones would drop a check). Equal keys give equal
// hashes.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace shrew::opt {

// `provisional`: ir::TypesDependOnInputs(graph). Then literals are re-typed
// per run, so two that share a provisional dtype now may not later; they
// are left out.
bool IsCseEligible(const ir::Node& node, bool provisional);

// 64-bit on every target (size_t is 32-bit in wasm32).
uint64_t CseHash(const ir::Node& node);

bool SameCseKey(const ir::Node& x, const ir::Node& y);

}  // namespace shrew::opt
