#include "ir/graph.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <queue>

#include "base/spelling.h"

namespace shrew::ir {

// ---- InitSpec

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// A decimal float, the whole (trimmed) text: [-+]digits[.digits][e[-+]digits]
// or starting with '.'. Validated by hand, then converted with strtod
// (Emscripten 3.1.6's libc++ has no floating-point from_chars); hex, inf and
// nan are rejected.
bool ParseDecimal(std::string_view s, double* out) {
  s = Trim(s);
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t mantissa_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++mantissa_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++mantissa_digits;
  }
  if (mantissa_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != s.size()) return false;
  std::string text(s);
  *out = std::strtod(text.c_str(), nullptr);
  // 1e400 reads as inf: uniform(1e400, 2) drew NaNs, normal(0, 1e400) infs.
  return std::isfinite(*out);
}

bool ParseTwoArgs(std::string_view text, std::string_view prefix, double* a, double* b) {
  if (text.size() < prefix.size() + 1 || text.substr(0, prefix.size()) != prefix ||
      text.back() != ')') {
    return false;
  }
  std::string_view inner = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  size_t comma = inner.find(',');
  if (comma == std::string_view::npos) return false;
  if (inner.find(',', comma + 1) != std::string_view::npos) return false;
  return ParseDecimal(inner.substr(0, comma), a) && ParseDecimal(inner.substr(comma + 1), b);
}

// The inits without arguments (OPS.md §5); ParseInit and InitHint read it.
struct NamedInit {
  std::string_view name;
  InitSpec::Kind kind;
};
constexpr NamedInit kNamedInits[] = {
    {"zeros", InitSpec::Kind::kZeros},
    {"ones", InitSpec::Kind::kOnes},
    {"xavier_uniform", InitSpec::Kind::kXavierUniform},
    {"xavier_normal", InitSpec::Kind::kXavierNormal},
    {"kaiming_uniform", InitSpec::Kind::kKaimingUniform},
    {"kaiming_normal", InitSpec::Kind::kKaimingNormal},
};

}  // namespace

std::optional<InitSpec> ParseInit(std::string_view text) {
  InitSpec spec;
  spec.text = std::string(text);
  for (const NamedInit& n : kNamedInits) {
    if (text == n.name) {
      spec.kind = n.kind;
      return spec;
    }
  }
  if (ParseTwoArgs(text, "normal(", &spec.a, &spec.b)) {
    spec.kind = InitSpec::Kind::kNormal;
    return spec;
  }
  if (ParseTwoArgs(text, "uniform(", &spec.a, &spec.b)) {
    spec.kind = InitSpec::Kind::kUniform;
    return spec;
  }
  return std::nullopt;
}

std::string InitHint(std::string_view text) {
  // Other libraries' names for the same distributions (PyTorch, Keras, NumPy).
  static constexpr std::pair<std::string_view, std::string_view> kForeign[] = {
      {"randn", "normal(0, 1)"},          {"normal", "normal(0, 1)"},
      {"gaussian", "normal(0, 1)"},       {"random_normal", "normal(0, 1)"},
      {"rand", "uniform(0, 1)"},          {"uniform", "uniform(0, 1)"},
      {"random_uniform", "uniform(0, 1)"}, {"zero", "zeros"},
      {"one", "ones"},                    {"xavier", "xavier_uniform"},
      {"glorot", "xavier_uniform"},       {"glorot_uniform", "xavier_uniform"},
      {"glorot_normal", "xavier_normal"}, {"kaiming", "kaiming_uniform"},
      {"he", "kaiming_normal"},           {"he_uniform", "kaiming_uniform"},
      {"he_normal", "kaiming_normal"},
  };
  for (const auto& [name, init] : kForeign) {
    if (text == name) return "; did you mean \"" + std::string(init) + "\"?";
  }
  std::vector<std::string_view> names;
  for (const NamedInit& n : kNamedInits) names.push_back(n.name);
  if (std::optional<std::string> near = ClosestName(text, names)) return "; did you mean \"" + *near + "\"?";
  if (text.starts_with("normal(")) return "; write normal(MEAN, STD) with two finite decimal numbers, as in normal(0, 0.02)";
  if (text.starts_with("uniform(")) return "; write uniform(LOW, HIGH) with two finite decimal numbers, as in uniform(-0.1, 0.1)";
  // The list in OPS.md §5's order: the two with arguments after ones.
  std::string list;
  for (const NamedInit& n : kNamedInits) {
    list += (list.empty() ? "" : ", ") + std::string(n.name);
    if (n.kind == InitSpec::Kind::kOnes) list += ", normal(MEAN, STD), uniform(LOW, HIGH)";
  }
  return "; an init is one of " + list;
}

// ---- Graph

NodeId Graph::Append(Node node) {
  NodeId id = num_nodes();
  node.id = id;
  if (node.name.empty()) node.name = "__anon_" + std::to_string(id);
  name_to_id_.emplace(node.name, id);  // keeps the first occurrence
  nodes_.push_back(std::move(node));
  return id;
}

NodeId Graph::AddNode(std::string name, OpKind op, std::vector<NodeId> operands,
                      diag::Span span) {
  Node n;
  n.name = std::move(name);
  n.op = op;
  n.operands = std::move(operands);
  n.span = span;
  return Append(std::move(n));
}

NodeId Graph::AddConstant(std::string name, AttrValue value, diag::Span span) {
  Node n;
  n.name = std::move(name);
  n.op = OpKind::kConstant;
  n.attrs.Set("value", std::move(value));
  n.span = span;
  return Append(std::move(n));
}

NodeId Graph::AddInput(std::string name, Type type, bool optional, diag::Span span) {
  Node n;
  n.name = std::move(name);
  n.op = OpKind::kIdentity;
  n.role = NodeRole::kInput;
  n.type = type;
  n.declared_type = std::move(type);
  n.span = span;
  NodeId id = Append(std::move(n));
  inputs_.push_back(GraphInput{id, optional});
  return id;
}

NodeId Graph::AddParam(std::string name, Type type, InitSpec init, bool frozen,
                       diag::Span span) {
  Node n;
  n.name = name;
  n.op = OpKind::kIdentity;
  n.role = NodeRole::kParam;
  n.type = type;
  n.declared_type = type;
  n.span = span;
  NodeId id = Append(std::move(n));
  params_.push_back(Param{id, std::move(name), std::move(type), std::move(init), frozen, false});
  return id;
}

void Graph::AddOutput(std::string name, NodeId node, diag::Span span) {
  outputs_.push_back(GraphOutput{std::move(name), node, span});
}

NodeId Graph::FindNode(std::string_view name) const {
  auto it = name_to_id_.find(std::string(name));
  return it == name_to_id_.end() ? kNoNode : it->second;
}

bool IsGeneratedName(std::string_view name) { return name.size() >= 2 && name[0] == '_' && name[1] == '_'; }

namespace {

// A node the optimiser fused took the name of the node it replaced plus a
// suffix (`y_fused_matmul_add`, `h_fused`, then `_2`, … if taken: opt/fusion.cc):
// the length of that name, else npos. A fused op the source wrote itself
// may have such a name too; a name another node has is never taken off it.
size_t NameBeforeFusion(const Graph& g, const Node& n) {
  if (!HasFlag(n.op, kFlagFused)) return std::string_view::npos;
  const std::string_view name = n.name;
  const size_t at = name.rfind("_fused");
  if (at == std::string_view::npos || at == 0) return std::string_view::npos;
  std::string_view rest = name.substr(at + 6);
  if (rest.starts_with("_matmul_add")) rest.remove_prefix(11);
  if (rest.starts_with("_") && rest.size() > 1 &&
      rest.find_first_not_of("0123456789", 1) == std::string_view::npos) {
    rest = {};
  }
  if (!rest.empty() || g.FindNode(name.substr(0, at)) != kNoNode) return std::string_view::npos;
  return at;
}

// An unrolled repeat's iteration but the last is named `h.iter<i>`
// (lower/materialize.cc; no source name holds a '.'): its 1-based iteration
// and the length of `h`, else {0, npos}.
std::pair<int64_t, size_t> IterationOf(std::string_view name) {
  const size_t at = name.rfind(".iter");
  if (at == std::string_view::npos || at == 0) return {0, std::string_view::npos};
  const std::string_view digits = name.substr(at + 5);
  if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return {0, std::string_view::npos};
  }
  return {std::stoll(std::string(digits)) + 1, at};
}

// How a message names `n`'s operation: "matmul", "call[Dense]", or for a
// node the optimiser fused, the operations the source wrote ("matmul + add").
std::string OpLabel(const Graph& g, const Node& n) {
  std::string op = OpName(n.op);
  if (n.op == OpKind::kCall || n.op == OpKind::kCustom) op += "[" + n.callee + "]";
  if (NameBeforeFusion(g, n) != std::string_view::npos && op.starts_with("fused_")) {
    op.erase(0, 6);
    for (size_t k = op.find('_'); k != std::string::npos; k = op.find('_', k + 3)) op.replace(k, 1, " + ");
  }
  return op;
}
}  // namespace

std::optional<Graph::DeclaredName> Graph::DeclaredNameOf(const Node& n, bool failure) const {
  // A fused node whose producer alone can fail is that producer's, when the
  // user named it (`node m { op: matmul(x, w); }; output y: relu(m);`); one
  // written inside the consumer's statement is the consumer's, as before.
  if (failure && n.fused_producer && !IsGeneratedName(n.fused_producer->name)) {
    std::string_view producer = n.fused_producer->name;
    const auto [iteration, before] = IterationOf(producer);
    if (before != std::string_view::npos) producer = producer.substr(0, before);
    return DeclaredName{producer, true, iteration};
  }
  std::string_view own = n.name;
  if (const size_t before = NameBeforeFusion(*this, n); before != std::string_view::npos) own = own.substr(0, before);
  int64_t iteration = 0;
  if (const auto [i, before] = IterationOf(own); before != std::string_view::npos) {
    iteration = i;
    own = own.substr(0, before);  // `__anon_2.iter0` in `node h { op: repeat(3) { … } * 2; }` is h's
  }
  if (!IsGeneratedName(own)) return DeclaredName{own, true, iteration};
  // Sub-expressions are created before the node of their statement (lower.h),
  // so the owner is a later node whose span holds this one's.
  const uint64_t begin = n.span.offset, end = begin + n.span.length;
  if (!n.span.valid()) return std::nullopt;
  for (size_t i = n.id >= 0 ? static_cast<size_t>(n.id) + 1 : nodes_.size(); i < nodes_.size(); ++i) {
    const Node& owner = nodes_[i];
    if (!owner.span.valid() || owner.span.offset > begin || uint64_t{owner.span.offset} + owner.span.length < end) {
      continue;
    }
    std::string_view name = owner.name;
    if (const size_t before = NameBeforeFusion(*this, owner); before != std::string_view::npos) {
      name = name.substr(0, before);
    }
    if (const size_t before = IterationOf(name).second; before != std::string_view::npos) name = name.substr(0, before);
    if (!IsGeneratedName(name)) return DeclaredName{name, false, iteration};
  }
  return std::nullopt;
}

std::string Graph::DiagnosticPrefix(const Node& n) const {
  const std::optional<DeclaredName> declared = DeclaredNameOf(n, true);
  return declared ? "[" + name_ + "::" + std::string(declared->name) + "] " : "[" + name_ + "] ";
}

std::string Graph::NodeLabel(const Node& n) const {
  const std::string op = OpLabel(*this, n);
  const std::optional<DeclaredName> declared = DeclaredNameOf(n, true);
  // An iteration of an unnamed output's repeat (`__output_0.iter0`) has no
  // declared name but still its number.
  const int64_t number = declared ? declared->iteration : IterationOf(n.name).first;
  const std::string iteration = number > 0 ? "repeat iteration " + std::to_string(number) : std::string();
  if (!declared) return iteration.empty() ? op : op + " (" + iteration + ")";
  if (declared->own) return "node '" + std::string(declared->name) + "' (" + op + (iteration.empty() ? "" : ", " + iteration) + ")";
  return op + " in node '" + std::string(declared->name) + "'" + (iteration.empty() ? "" : " (" + iteration + ")");
}

std::string Graph::ValueLabel(const Node& n) const {
  const std::optional<DeclaredName> declared = DeclaredNameOf(n);
  if (!declared) return "computed";
  if (declared->own) return "'" + std::string(declared->name) + "'";
  return "computed in node '" + std::string(declared->name) + "'";
}

std::string Graph::UniqueName(std::string_view base) const {
  std::string name(base);
  for (int k = 2; FindNode(name) != kNoNode; ++k) {
    name = std::string(base) + "_" + std::to_string(k);
  }
  return name;
}

int Graph::FindOutput(std::string_view name) const {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    if (outputs_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int Graph::FindParam(std::string_view name) const {
  for (size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> Graph::ConsumerCounts() const {
  std::vector<int> counts(nodes_.size(), 0);
  for (const Node& n : nodes_) {
    for (NodeId op : n.operands) {
      if (HasNode(op)) ++counts[static_cast<size_t>(op)];
    }
  }
  return counts;
}

void Graph::ReplaceAllUsesWith(NodeId from, NodeId to) {
  for (Node& n : nodes_) {
    for (NodeId& op : n.operands) {
      if (op == from) op = to;
    }
  }
  for (GraphOutput& o : outputs_) {
    if (o.node == from) o.node = to;
  }
}

void Graph::RebuildNameMap() {
  name_to_id_.clear();
  for (const Node& n : nodes_) name_to_id_.emplace(n.name, n.id);
}

void Graph::Remap(const std::vector<NodeId>& old_to_new) {
  auto map = [&](NodeId id) {
    return (id >= 0 && static_cast<size_t>(id) < old_to_new.size()) ? old_to_new[id] : kNoNode;
  };
  for (Node& n : nodes_) {
    for (NodeId& op : n.operands) op = map(op);
  }
  std::vector<GraphInput> inputs;
  for (GraphInput in : inputs_) {
    in.node = map(in.node);
    if (in.node != kNoNode) inputs.push_back(in);
  }
  inputs_ = std::move(inputs);
  for (GraphOutput& o : outputs_) o.node = map(o.node);
  std::vector<Param> params;
  for (Param& p : params_) {
    p.node = map(p.node);
    if (p.node != kNoNode) params.push_back(std::move(p));
  }
  params_ = std::move(params);
}

std::vector<NodeId> Graph::Compact(const std::vector<bool>& keep) {
  std::vector<NodeId> old_to_new(nodes_.size(), kNoNode);
  std::vector<Node> kept;
  kept.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (i < keep.size() && keep[i]) {
      old_to_new[i] = static_cast<NodeId>(kept.size());
      kept.push_back(std::move(nodes_[i]));
      kept.back().id = old_to_new[i];
    }
  }
  nodes_ = std::move(kept);
  Remap(old_to_new);
  RebuildNameMap();
  return old_to_new;
}

bool Graph::TopologicalRenumber() {
  const int n = num_nodes();
  std::vector<int> pending(static_cast<size_t>(n), 0);
  std::vector<std::vector<NodeId>> consumers(static_cast<size_t>(n));
  for (const Node& node : nodes_) {
    for (NodeId op : node.operands) {
      if (!HasNode(op)) return false;
      ++pending[static_cast<size_t>(node.id)];
      consumers[static_cast<size_t>(op)].push_back(node.id);
    }
  }
  // Min-heap of ready ids: the result keeps the current order where it can.
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<NodeId>> ready;
  for (NodeId i = 0; i < n; ++i) {
    if (pending[static_cast<size_t>(i)] == 0) ready.push(i);
  }
  std::vector<NodeId> order;
  order.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (NodeId c : consumers[static_cast<size_t>(id)]) {
      if (--pending[static_cast<size_t>(c)] == 0) ready.push(c);
    }
  }
  if (static_cast<int>(order.size()) != n) return false;
  std::vector<NodeId> old_to_new(static_cast<size_t>(n));
  std::vector<Node> sorted;
  sorted.reserve(static_cast<size_t>(n));
  for (NodeId old : order) {
    old_to_new[static_cast<size_t>(old)] = static_cast<NodeId>(sorted.size());
    sorted.push_back(std::move(nodes_[static_cast<size_t>(old)]));
    sorted.back().id = old_to_new[static_cast<size_t>(old)];
  }
  nodes_ = std::move(sorted);
  Remap(old_to_new);
  RebuildNameMap();
  return true;
}

// ---- ConfigValue

ConfigValue ConfigValue::Int(int64_t v) {
  ConfigValue c;
  c.kind = Kind::kInt;
  c.i = v;
  return c;
}
ConfigValue ConfigValue::Float(double v) {
  ConfigValue c;
  c.kind = Kind::kFloat;
  c.f = v;
  return c;
}
ConfigValue ConfigValue::String(std::string v) {
  ConfigValue c;
  c.kind = Kind::kString;
  c.s = std::move(v);
  return c;
}
ConfigValue ConfigValue::Bool(bool v) {
  ConfigValue c;
  c.kind = Kind::kBool;
  c.b = v;
  return c;
}
ConfigValue ConfigValue::List(std::vector<ConfigValue> v) {
  ConfigValue c;
  c.kind = Kind::kList;
  c.list = std::move(v);
  return c;
}
ConfigValue ConfigValue::Opaque(std::string text) {
  ConfigValue c;
  c.kind = Kind::kOpaque;
  c.s = std::move(text);
  return c;
}

std::string ConfigValue::ToString() const {
  switch (kind) {
    case Kind::kInt: return std::to_string(i);
    case Kind::kFloat: return FormatDouble(f);
    case Kind::kString: return s;
    case Kind::kBool: return b ? "true" : "false";
    case Kind::kOpaque: return s;
    case Kind::kList: {
      std::string out = "[";
      for (size_t k = 0; k < list.size(); ++k) {
        if (k) out += ", ";
        out += list[k].ToString();
      }
      return out + "]";
    }
  }
  return "";
}

// ---- Program

int Program::FindGraphIndex(std::string_view name) const {
  for (size_t i = 0; i < graphs.size(); ++i) {
    if (graphs[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::pair<int, diag::Span>> Program::CallsIn(const Graph& g) const {
  std::vector<std::pair<int, diag::Span>> out;
  for (const Node& n : g.nodes()) {
    const std::string* callee = nullptr;
    if (n.op == OpKind::kCall) callee = &n.callee;
    if (n.op == OpKind::kRepeat && n.repeat_body && n.repeat_body->op == OpKind::kCall) {
      callee = &n.repeat_body->callee;
    }
    if (!callee) continue;
    int idx = FindGraphIndex(*callee);
    if (idx >= 0) out.emplace_back(idx, n.span);
  }
  return out;
}

Graph* Program::FindGraph(std::string_view name) {
  int i = FindGraphIndex(name);
  return i < 0 ? nullptr : &graphs[static_cast<size_t>(i)];
}

const Graph* Program::FindGraph(std::string_view name) const {
  int i = FindGraphIndex(name);
  return i < 0 ? nullptr : &graphs[static_cast<size_t>(i)];
}

std::vector<int> CallInputIndices(const Node& call) {
  std::vector<int> indices;
  if (const AttrValue* a = call.attrs.Find("inputs"); a != nullptr) {
    // Malformed (only lowering writes it): -1 entries, which no callee accepts.
    const bool fits = a->is_int_list() && a->as_int_list().size() == call.operands.size();
    for (size_t k = 0; k < call.operands.size(); ++k) {
      const int64_t v = fits ? a->as_int_list()[k] : -1;
      indices.push_back(v >= 0 && v <= INT32_MAX ? static_cast<int>(v) : -1);
    }
    return indices;
  }
  for (size_t k = 0; k < call.operands.size(); ++k) indices.push_back(static_cast<int>(k));
  return indices;
}

const Node* FirstReaderOf(const Graph& g, NodeId id) {
  for (const Node& n : g.nodes()) {
    if (std::find(n.operands.begin(), n.operands.end(), id) != n.operands.end()) return &n;
  }
  return nullptr;
}

bool IsRead(const Graph& g, NodeId id) {
  for (const GraphOutput& out : g.outputs()) {
    if (out.node == id) return true;
  }
  return FirstReaderOf(g, id) != nullptr;
}

std::string MissingInputMessage(const Graph& g, size_t i, const Type& expected, const Node* reader) {
  const GraphInput& in = g.inputs()[i];
  const std::string& name = g.node(in.node).name;
  const std::string type = " (expected " + expected.ToString() + ")";
  if (in.optional) {
    std::string why;
    if (reader == nullptr) reader = FirstReaderOf(g, in.node);
    if (reader != nullptr) {
      why = g.NodeLabel(*reader) + " reads it";
    } else {
      for (const GraphOutput& out : g.outputs()) {
        if (out.node == in.node) {
          why = "output '" + out.name + "' is it";
          break;
        }
      }
    }
    if (!why.empty()) {
      return "optional input '" + name + "' of graph '" + g.name() + "' was not supplied but " + why + type;
    }
  }
  return "missing input '" + name + "' for graph '" + g.name() + "'" + type;
}

bool AcceptsCallBinding(const Graph& g, std::span<const int> indices) {
  const int n = static_cast<int>(g.inputs().size());
  int next = 0;  // the first input not yet accounted for
  for (int index : indices) {
    if (index < next || index >= n) return false;  // also a negative (malformed) index
    for (; next < index; ++next) {
      if (!g.inputs()[static_cast<size_t>(next)].optional) return false;
    }
    next = index + 1;
  }
  for (; next < n; ++next) {
    if (!g.inputs()[static_cast<size_t>(next)].optional) return false;
  }
  return true;
}

}  // namespace shrew::ir
