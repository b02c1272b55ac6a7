// How many operations one run of each graph performs once its calls and
// repeats are unrolled: a node counts 1, a call 1 + the callee's steps, a
// repeat of count c 1 + c × (1 + the callee's steps when its body is a
// call, else 1). Saturates at UINT64_MAX (so does a call cycle, which
// validation rejects anyway).
//
// A few lines of source can ask for 2^64 operations (each graph calling the
// next twice, repeats nested through graphs); shrew::Program refuses a run
// over its step limit before starting it, on either executor, instead of
// running for ever.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace shrew::ir {

struct RunSteps {
  uint64_t steps = 0;
  // The call (or repeat of a call) that contributes the most steps: the
  // callee's index in Program::graphs (-1: none) and how many times one run
  // enters it.
  int heaviest_callee = -1;
  uint64_t heaviest_times = 0;
};

// One entry per graph of `program`, in its order.
std::vector<RunSteps> StepsPerRun(const Program& program);

// "G0 calls G1 2 times, G1 calls G2 2 times, …" along the heaviest calls
// from graph `index` (at most `hops` of them; "" when it calls nothing).
std::string HeaviestCallChain(const Program& program, const std::vector<RunSteps>& steps, int index, int hops = 4);

}  // namespace shrew::ir
