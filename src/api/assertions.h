// `@assert` / `@check` conditions (LANGUAGE.md §6), evaluated at the start of
// every run, once the run's dimensions are bound. A condition whose every
// name is a config value or a dimension the run binds is evaluated —
// arithmetic as in @config (§5.1), comparisons of numbers (and == / != of
// strings and bools), `!`, `&&`, `||` — and a false one fails the run with
// its message, as does one its bound values leave without a value (a
// division by zero, an overflow, a string compared with a number: "assertion
// cannot be evaluated"). A condition that names anything else (a tensor, a
// dimension the run leaves unbound), that is a number, or that uses a form no
// run evaluates (an if-expression, a list, a call: warned of by W006) is not
// evaluated: the spec asks for evaluation only in the first case (a SHOULD). A graph
// reached through a call is checked on the dims that call binds
// (Program::CalleeCheck: by the call kernel once per binding, by the
// interpreter at each call).
//
//   GraphAssertions checks(graph, program.config);  // parses each condition once
//   SHREW_RETURN_IF_ERROR(checks.Check(dims));      // before anything runs
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "diag/source.h"
#include "front/ast.h"
#include "ir/graph.h"

namespace shrew {

class GraphAssertions {
 public:
  GraphAssertions(const ir::Graph& graph, const std::map<std::string, ir::ConfigValue>& config);
  GraphAssertions(GraphAssertions&&) = default;
  GraphAssertions& operator=(GraphAssertions&&) = default;

  // Ok, or FailedPrecondition "graph 'G': assertion failed: MESSAGE (N > 2,
  // with N = 1)" for the first false condition ("assertion cannot be
  // evaluated: MESSAGE (…): division by zero in '1 / (N - 2)'" for one
  // without a value), pointing at it (Status::span: its position is there,
  // as a run's other errors' is).
  Status Check(const ir::DimBindings& dims) const;

 private:
  struct Condition {
    std::unique_ptr<diag::SourceFile> source;  // the condition's text, re-parsed
    ast::ExprPtr expr;
    std::vector<std::string> names;            // the names it reads, sorted, once each
    std::string message;
    diag::Span span;                           // of the statement in the program's source
  };
  std::string graph_;
  std::map<std::string, ir::ConfigValue> config_;
  std::vector<Condition> conditions_;
};

// Why `condition`, whose every name is a key of `config`, fails every run:
// "it is false", or why it has no value ("division by zero in '1 / Z'");
// "" when it holds, reads another name, or is no bool (W006, compile.cc).
std::string FailsEveryRun(std::string_view condition, const std::map<std::string, ir::ConfigValue>& config);

}  // namespace shrew
