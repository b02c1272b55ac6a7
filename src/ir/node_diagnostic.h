// A diagnostic about one node of a graph, as shape inference and
// materialisation report them.
#pragma once

#include <string>

#include "diag/diagnostic.h"
#include "ir/graph.h"

namespace shrew::ir {

// Adds `message` about node `n` to `diags`: at the node's span, prefixed as
// Graph::DiagnosticPrefix names it, with Diagnostic::node set, so a run-time
// error can name the node its own way. Callers check diags.capped() first
// where building the message costs (an error past the cap is dropped).
void AddNodeDiagnostic(diag::DiagnosticBag& diags, const Graph& graph, const Node& n, diag::Kind kind,
                       const std::string& message);

}  // namespace shrew::ir
