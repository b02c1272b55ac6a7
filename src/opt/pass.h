// The optimiser's pass interface (PIPELINE.md §6).
//
// A pass is a plain function that rewrites one graph in place and returns the
// number of rewrites it made (the unit each pass counts is in its header).
// Contract shared by every pass:
//   - it never fails and never aborts on a graph that passed validation;
//   - afterwards node ids are still a topological order (0..n-1), the name
//     map is rebuilt, and outputs keep their names (they are redirected to
//     the surviving node, never renamed);
//   - it returns 0 exactly when it left the graph unchanged, which is what
//     lets the driver (pipeline.h) stop at a fixpoint.
#pragma once

#include <string_view>

#include "ir/graph.h"

namespace shrew::opt {

using PassFn = int (*)(ir::Graph& graph);

struct Pass {
  std::string_view name;  // the OptStats display key ("dce", "identity", …)
  PassFn run;
};

}  // namespace shrew::opt
