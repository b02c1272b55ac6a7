#include "ir/node_diagnostic.h"

namespace shrew::ir {

void AddNodeDiagnostic(diag::DiagnosticBag& diags, const Graph& graph, const Node& n, diag::Kind kind,
                       const std::string& message) {
  if (diags.capped() && diag::KindSeverity(kind) == diag::Severity::Error) return;
  diags.AddAboutNode(kind, n.blame_span(), n.id, graph.DiagnosticPrefix(n), message);
}

}  // namespace shrew::ir
