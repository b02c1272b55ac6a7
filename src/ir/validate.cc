// Structural validation V1-V11 (PIPELINE.md §3.1).
#include "ir/validate.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/spelling.h"

namespace shrew::ir {
namespace {

std::string GraphPrefix(const Graph& g) { return "[" + g.name() + "] "; }

// "; the first is at 3:5": where a duplicate's first declaration is, when
// it has a source position.
std::string FirstAt(const diag::Span& first) {
  if (!first.valid()) return "";
  return "; the first is at " + std::to_string(first.line) + ":" + std::to_string(first.column);
}

// Accepted operand counts of a call to `callee`: every non-optional input
// must be bound; optional ones may be left out (OPS.md §3.16).
void CalleeArity(const Graph& callee, int* min_count, int* max_count) {
  *max_count = static_cast<int>(callee.inputs().size());
  *min_count = 0;
  for (const GraphInput& in : callee.inputs()) *min_count += in.optional ? 0 : 1;
}

void CheckOperandCount(const Graph& g, const Node& n, const Program* program,
                       diag::DiagnosticBag* diags) {
  int count = static_cast<int>(n.operands.size());
  auto report = [&](const std::string& expected, const std::string& hint = "") {
    if (!diags->capped()) diags->Add(diag::Kind::OperandCount, n.span,
               g.DiagnosticPrefix(n) + OpName(n.op) + " expects " + OperandsText(expected) + ", got " +
                   std::to_string(count) + hint);
  };
  if (n.is_source()) {
    if (count != 0) report("0");
    return;
  }
  if (n.op == OpKind::kIdentity) {
    if (count != 1) report("1");
    return;
  }
  if (n.op == OpKind::kCall) {
    if (!program) return;
    const Graph* callee = program->FindGraph(n.callee);
    if (!callee) {
      diags->Add(diag::Kind::UndefinedName, n.span,
                 g.DiagnosticPrefix(n) + "call to unknown graph '" + n.callee + "'");
      return;
    }
    int lo = 0, hi = 0;
    CalleeArity(*callee, &lo, &hi);
    if (count < lo || count > hi) {
      report(lo == hi ? std::to_string(hi) : std::to_string(lo) + " to " + std::to_string(hi));
    } else if (!AcceptsCallBinding(*callee, CallInputIndices(n))) {
      diags->Add(diag::Kind::OperandCount, n.span,
                 g.DiagnosticPrefix(n) + "call's operands do not bind the inputs of graph '" + callee->name() +
                     "' (every non-optional input once, in order)");
    }
    return;
  }
  const Arity& arity = GetOpInfo(n.op).arity;
  // `concat(x, y, 1)`: concat takes any number of tensors, so the number
  // past them is an operand of rank 0, which then failed as a dtype
  // mismatch (f32 and i64); it is meant as the attribute dim.
  if (n.op == OpKind::kConcat && count >= 2) {
    const NodeId last = n.operands.back();
    const AttrValue* v = last >= 0 && last < g.num_nodes() && g.node(last).op == OpKind::kConstant
                             ? g.node(last).attr("value")
                             : nullptr;
    if (v != nullptr && v->is_int()) {
      if (!diags->capped()) {
        diags->Add(diag::Kind::BadOperand, n.span,
                   g.DiagnosticPrefix(n) + "concat joins tensors: the number " + std::to_string(v->as_int()) +
                       " after them is its attribute dim, written by name, as in concat(a, b, dim: " +
                       std::to_string(v->as_int()) + ")");
      }
      return;
    }
  }
  if (arity.Accepts(count)) return;
  // `transpose(x, 0, 1)`, `sum(x, 1)`: numbers past the operands are meant
  // as attributes, which are written by name.
  const int max = arity.form == Arity::Form::kRange && arity.max >= 0 ? arity.max : -1;
  bool numbers = max >= 0 && count > max;
  for (int i = std::max(max, 0); numbers && i < count; ++i) {
    // Operand ids are not checked yet (V3 reports bad ones; a bundle's IR
    // may hold any).
    const NodeId op = n.operands[static_cast<size_t>(i)];
    numbers = op >= 0 && op < g.num_nodes() && g.node(op).op == OpKind::kConstant;
  }
  const std::vector<std::string> attrs = numbers ? SourceAttrList(n.op) : std::vector<std::string>();
  if (!attrs.empty()) {
    report(arity.ToString(), "; attributes are written by name: it takes " + JoinNames(attrs));
  } else if ((n.op == OpKind::kMin || n.op == OpKind::kMax) && count == 2) {
    // NumPy's minimum / torch.min(a, b): elementwise, which these reductions are not.
    const char* cmp = n.op == OpKind::kMin ? "<" : ">";
    report(arity.ToString(), std::string("; it reduces one tensor: for the elementwise ") +
                                 (n.op == OpKind::kMin ? "minimum" : "maximum") + " write where(a " + cmp +
                                 " b, a, b)");
  } else {
    report(arity.ToString());
  }
}

// V7: Kahn's algorithm; what cannot be ordered is on or behind a cycle.
void CheckCycles(const Graph& g, diag::DiagnosticBag* diags) {
  const int n = g.num_nodes();
  std::vector<int> pending(static_cast<size_t>(n), 0);
  std::vector<std::vector<NodeId>> consumers(static_cast<size_t>(n));
  for (const Node& node : g.nodes()) {
    for (NodeId op : node.operands) {
      ++pending[static_cast<size_t>(node.id)];
      consumers[static_cast<size_t>(op)].push_back(node.id);
    }
  }
  std::vector<NodeId> ready;
  for (NodeId i = 0; i < n; ++i) {
    if (pending[static_cast<size_t>(i)] == 0) ready.push_back(i);
  }
  int done = 0;
  while (!ready.empty()) {
    NodeId id = ready.back();
    ready.pop_back();
    ++done;
    for (NodeId c : consumers[static_cast<size_t>(id)]) {
      if (--pending[static_cast<size_t>(c)] == 0) ready.push_back(c);
    }
  }
  if (done == n) return;
  // Point at the first node that could not be ordered.
  diag::Span span = g.span();
  for (NodeId i = 0; i < n; ++i) {
    if (pending[static_cast<size_t>(i)] > 0) {
      span = g.node(i).span;
      break;
    }
  }
  diags->Add(diag::Kind::Cycle, span, GraphPrefix(g) + "graph contains a cycle");
}

// V10: iterative DFS; each back edge is one recursion, reported with the
// path around the cycle.
void CheckRecursion(const Program& p, diag::DiagnosticBag* diags) {
  const int n = static_cast<int>(p.graphs.size());
  std::vector<std::vector<std::pair<int, diag::Span>>> calls(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) calls[static_cast<size_t>(i)] = p.CallsIn(p.graphs[static_cast<size_t>(i)]);
  std::vector<int8_t> state(static_cast<size_t>(n), 0);  // 0 new, 1 on path, 2 done
  // Nested calls below each finished graph (its callees finish first).
  std::vector<int> depth(static_cast<size_t>(n), 0);
  bool recursive = false;
  for (int root = 0; root < n; ++root) {
    if (state[static_cast<size_t>(root)] != 0) continue;
    std::vector<std::pair<int, size_t>> stack{{root, 0}};
    state[static_cast<size_t>(root)] = 1;
    while (!stack.empty()) {
      int g = stack.back().first;
      size_t& next = stack.back().second;
      const auto& cs = calls[static_cast<size_t>(g)];
      if (next == cs.size()) {
        state[static_cast<size_t>(g)] = 2;
        for (const auto& [c, span] : cs) {
          depth[static_cast<size_t>(g)] = std::max(depth[static_cast<size_t>(g)], depth[static_cast<size_t>(c)] + 1);
        }
        stack.pop_back();
        continue;
      }
      auto [c, span] = cs[next++];
      if (state[static_cast<size_t>(c)] == 0) {
        state[static_cast<size_t>(c)] = 1;
        stack.push_back({c, 0});
      } else if (state[static_cast<size_t>(c)] == 1) {
        std::string path;
        bool on = false;
        for (const auto& frame : stack) {
          if (frame.first == c) on = true;
          if (on) path += p.graphs[static_cast<size_t>(frame.first)].name() + " -> ";
        }
        path += p.graphs[static_cast<size_t>(c)].name();
        diags->Add(diag::Kind::RecursiveCall, span, "[program] recursive graph call: " + path);
        recursive = true;
      }
    }
  }
  if (recursive) return;
  // One report, at the call that takes the chain past the limit.
  for (int g = 0; g < n; ++g) {
    if (depth[static_cast<size_t>(g)] != kMaxCallDepth + 1) continue;
    for (const auto& [c, span] : calls[static_cast<size_t>(g)]) {
      if (depth[static_cast<size_t>(c)] != kMaxCallDepth) continue;
      diags->Add(diag::Kind::CallsTooDeep, span,
                 "[program] graph calls nest " + std::to_string(kMaxCallDepth + 1) + " deep from graph '" +
                     p.graphs[static_cast<size_t>(g)].name() + "'; at most " + std::to_string(kMaxCallDepth) +
                     " calls may nest");
      return;
    }
  }
}

}  // namespace

bool ValidateGraph(const Graph& g, const Program* program, diag::DiagnosticBag* diags) {
  size_t before = diags->error_count();
  // V1
  if (g.outputs().empty()) {
    diags->Add(diag::Kind::NoOutput, g.span(), GraphPrefix(g) + "graph declares no output");
  }
  // V2: once per name, at its second occurrence.
  std::unordered_map<std::string, std::pair<int, NodeId>> seen;  // count, first node
  for (const Node& n : g.nodes()) {
    auto& [count, first] = seen.try_emplace(n.name, 0, n.id).first->second;
    if (++count != 2) continue;
    // A source's `__anon_1` meeting the name the compiler gave a node of its
    // own: said at the source's node (it read "declared twice; the first is
    // at" a literal the source never named).
    const Node& earlier = g.node(first);
    const auto compiler_named = [](const Node& m) { return m.name == "__anon_" + std::to_string(m.id); };
    if (IsGeneratedName(n.name) && compiler_named(earlier) != compiler_named(n)) {
      const Node& written = compiler_named(n) ? earlier : n;
      diags->Add(diag::Kind::DuplicateName, written.span,
                 GraphPrefix(g) + "name '" + n.name + "' is one the compiler gives its own nodes: names " +
                     "starting with two underscores are reserved (LANGUAGE.md §9); rename it");
      continue;
    }
    diags->Add(diag::Kind::DuplicateName, n.span,
               g.DiagnosticPrefix(n) + "name '" + n.name + "' is declared twice" + FirstAt(earlier.span));
  }
  // V3
  bool operands_ok = true;
  for (const Node& n : g.nodes()) {
    for (NodeId op : n.operands) {
      if (!g.HasNode(op)) {
        operands_ok = false;
        diags->Add(diag::Kind::BadOperand, n.span,
                   g.DiagnosticPrefix(n) + "operand n" + std::to_string(op) + " of node n" +
                       std::to_string(n.id) + " does not name a node");
      }
    }
  }
  // V4
  for (const GraphInput& in : g.inputs()) {
    if (!g.HasNode(in.node)) {
      diags->Add(diag::Kind::BadInputOrOutputId, g.span(),
                 GraphPrefix(g) + "input id n" + std::to_string(in.node) + " is out of range");
    }
  }
  for (const GraphOutput& out : g.outputs()) {
    if (!g.HasNode(out.node)) {
      diags->Add(diag::Kind::BadInputOrOutputId, out.span.valid() ? out.span : g.span(),
                 GraphPrefix(g) + "output id n" + std::to_string(out.node) + " is out of range");
    }
  }
  // V5
  for (const Param& p : g.params()) {
    if (!g.HasNode(p.node)) {
      diags->Add(diag::Kind::BadParameter, g.span(),
                 GraphPrefix(g) + "parameter '" + p.name + "' has no node");
      continue;
    }
    const Node& n = g.node(p.node);
    const Type& t = n.declared_type ? *n.declared_type : p.type;
    if (t.is_unknown() || t.HasDynamicDim()) {
      diags->Add(diag::Kind::BadParameter, n.span,
                 g.DiagnosticPrefix(n) + "parameter '" + p.name +
                     "' needs a tensor type without dynamic dimensions");
    }
  }
  // V6
  for (const Node& n : g.nodes()) CheckOperandCount(g, n, program, diags);
  // V7 (needs valid operand ids)
  if (operands_ok) CheckCycles(g, diags);
  // V11
  std::unordered_map<std::string, diag::Span> outputs;  // name → first output's span
  for (const GraphOutput& out : g.outputs()) {
    auto [it, first] = outputs.try_emplace(out.name, out.span);
    if (!first) {
      diags->Add(diag::Kind::DuplicateOutput, out.span.valid() ? out.span : g.span(),
                 GraphPrefix(g) + "duplicate output name '" + out.name + "'" + FirstAt(it->second));
    }
  }
  return diags->error_count() == before;
}

bool ValidateProgram(const Program& program, diag::DiagnosticBag* diags) {
  size_t before = diags->error_count();
  for (const Graph& g : program.graphs) ValidateGraph(g, &program, diags);
  // V8
  if (program.training && program.training->model &&
      !program.FindGraph(*program.training->model)) {
    diags->Add(diag::Kind::UnknownModelGraph, program.training->model_span,
               "[program] @training names unknown graph '" + *program.training->model + "'");
  }
  if (program.inference && program.inference->model &&
      !program.FindGraph(*program.inference->model)) {
    diags->Add(diag::Kind::UnknownModelGraph, program.inference->model_span,
               "[program] @inference names unknown graph '" + *program.inference->model + "'");
  }
  // V9
  std::unordered_map<std::string, diag::Span> names;  // name → first graph's span
  for (const Graph& g : program.graphs) {
    auto [it, first] = names.try_emplace(g.name(), g.span());
    if (!first) {
      diags->Add(diag::Kind::DuplicateGraph, g.span(),
                 "[program] duplicate graph '" + g.name() + "'" + FirstAt(it->second));
    }
    if (IsBuiltinFunction(g.name())) {
      diags->Add(diag::Kind::DuplicateGraph, g.span(),
                 "[program] graph name '" + g.name() + "' collides with a built-in operation");
    }
  }
  // V10
  CheckRecursion(program, diags);
  return diags->error_count() == before;
}

}  // namespace shrew::ir
