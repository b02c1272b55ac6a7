// The IR data model (PIPELINE.md §2.2): Program -> Graph -> Node.
//
// Invariant: node ids are a topological order (every operand id is smaller
// than the node's id) and nodes_[i].id == i. Builders append nodes after
// their operands; passes that delete or insert nodes call Compact() or
// TopologicalRenumber() to restore it. Validation (validate.h) reports
// graphs that break it (bad operand ids, cycles) instead of crashing.
//
// Inputs and parameters are `identity` nodes with no operands and the role
// kInput / kParam; everything else is kCompute.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "diag/source.h"
#include "ir/attr.h"
#include "ir/op.h"
#include "ir/type.h"

namespace shrew::ir {

using NodeId = int32_t;
inline constexpr NodeId kNoNode = -1;

enum class NodeRole : uint8_t { kCompute, kInput, kParam };

// Body of a `repeat` node (OPS.md §3.15): the operation applied each
// iteration, with the node's operands (carried value first).
struct RepeatBody {
  OpKind op = OpKind::kIdentity;
  Attrs attrs;
  std::string callee;  // for a `call` / `custom` body
};

// Whether `name` is one the compiler gave (`__anon_3`, `__output_0`): a
// source should not use such names (LANGUAGE.md §9).
bool IsGeneratedName(std::string_view name);

// The annotation lowering puts on a constant that is a config key's value
// (`x * Scale`), so a message can name the key the source wrote rather than
// "float literal 0.5".
inline constexpr std::string_view kConfigKeyAnnotation = "__config";

struct Node {
  NodeId id = kNoNode;
  std::string name;
  OpKind op = OpKind::kIdentity;
  NodeRole role = NodeRole::kCompute;
  std::vector<NodeId> operands;
  // Current type: declared for inputs/params, inferred (or declared, when
  // more precise) after shape inference; unknown before.
  Type type;
  // The type written in source (`node h: T { … }`), if any; checked by T6.
  std::optional<Type> declared_type;
  // Set by shape inference: declared_type states something inference did
  // not find (ir::DeclaredTypeAddsFacts), or it chose the dtype of a weak
  // sub-expression that a run re-types (a graph whose types depend on its
  // inputs). Such a node carries a check or a dtype of its own, so the
  // optimiser neither bypasses, merges nor fuses it away.
  bool declared_adds_facts = false;
  // Operation attributes (schema in op.h; constants hold `value`).
  Attrs attrs;
  // Other `key: value;` lines of the node body (recorded, no effect).
  Attrs annotations;
  std::vector<std::string> hints;  // `@hint NAME;` in order
  // `call`: the callee graph; `custom`: the @custom_op name.
  std::string callee;
  // Only for `repeat` nodes.
  std::optional<RepeatBody> repeat_body;
  // One iteration of an unrolled `repeat` (lower/materialize.cc): its type
  // must equal its carried operand's, operand 0 (OPS.md §3.15). Inference
  // checks it whenever it runs, so also on a run's concrete shapes, where
  // symbolic dims decide it ([N, M] -> [M, N] holds only when N == M).
  // Not set where the compile decided it (static types, no call).
  bool repeat_iteration = false;
  diag::Span span;
  // Set by fusion (opt/fusion.cc) when this node absorbed its operand's
  // producer and only that producer's part can fail (`relu(matmul(x, w))`
  // with no declared type: a relu cannot): the producer's name and span,
  // which failures blame (blame_span, Graph::NodeLabel). A fused matmul's
  // inner-dimension error was marked on the relu's statement.
  struct FusedProducer {
    std::string name;
    diag::Span span;
  };
  std::optional<FusedProducer> fused_producer;

  bool is_input() const { return role == NodeRole::kInput; }
  bool is_param() const { return role == NodeRole::kParam; }
  bool is_source() const { return role != NodeRole::kCompute; }
  // Where a failure of this node is shown: its producer's span when fusion
  // recorded one, else its own.
  const diag::Span& blame_span() const { return fused_producer ? fused_producer->span : span; }
  const AttrValue* attr(std::string_view key) const { return attrs.Find(key); }
  // The config key this constant is the value of (kConfigKeyAnnotation), else null.
  const std::string* config_key() const {
    const AttrValue* k = annotations.Find(kConfigKeyAnnotation);
    return k != nullptr && k->is_string() ? &k->as_string() : nullptr;
  }
};

// Parameter initialisation (OPS.md §5).
struct InitSpec {
  enum class Kind : uint8_t {
    kZeros,
    kOnes,
    kNormal,   // a = mean, b = std
    kUniform,  // a = low, b = high
    kXavierUniform,
    kXavierNormal,
    kKaimingUniform,
    kKaimingNormal,
  };
  Kind kind = Kind::kZeros;
  double a = 0.0;
  double b = 0.0;
  // The string as written (dumps print it); "zeros" when absent.
  std::string text = "zeros";
};
// Parses an `init:` string with the exact rules of OPS.md §5; nullopt means
// the lowering error "invalid init 'TEXT'".
std::optional<InitSpec> ParseInit(std::string_view text);
// What to write instead of an init string ParseInit refuses: "; did you mean
// \"normal(0, 1)\"?" for another library's name (randn, glorot_uniform, he)
// or a typo, what normal(…) / uniform(…) take, else the list of inits.
std::string InitHint(std::string_view text);

struct GraphInput {
  NodeId node = kNoNode;
  bool optional = false;
};

struct GraphOutput {
  std::string name;
  NodeId node = kNoNode;
  diag::Span span;
};

struct Param {
  NodeId node = kNoNode;
  std::string name;
  Type type;
  InitSpec init;
  bool frozen = false;
  // Set for parameters created by materialisation (OPS.md §3.12).
  bool implicit = false;
};

struct Assertion {
  std::string message;
  std::string source_text;  // the condition as written
  diag::Span span;
  // The condition names a value the graph declares (lowering decides, on the
  // graph as written: optimisation may remove or rename that value, and the
  // name would then read a config key it shadows). Such a condition is about
  // tensors and never evaluated (LANGUAGE.md §6).
  bool reads_values = false;
  // The names the condition reads, once each, in order (lowering sets them;
  // the compile warns of one that nothing can bind, W006).
  std::vector<std::string> names;
};

class Graph {
 public:
  Graph() = default;
  explicit Graph(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  diag::Span span() const { return span_; }
  void set_span(diag::Span s) { span_ = s; }
  // Set on a graph of `?` inputs compiled for one input signature: constant
  // folding leaves a node whose type is unresolved alone rather than fold it
  // as a weak literal (typed nodes fold in their own dtype in every graph,
  // as a run of the unfolded graph computes; opt/const_fold.h).
  bool folds_in_node_dtypes() const { return folds_in_node_dtypes_; }
  void set_folds_in_node_dtypes(bool on) { folds_in_node_dtypes_ = on; }

  // ---- nodes
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  bool HasNode(NodeId id) const { return id >= 0 && id < num_nodes(); }
  Node& node(NodeId id) { return nodes_[static_cast<size_t>(id)]; }
  const Node& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // Direct access for passes; call RebuildNameMap() after renaming nodes.
  std::vector<Node>& mutable_nodes() { return nodes_; }

  // Appends a compute node (role kCompute, unknown type) and returns its id.
  // The name map keeps the *first* node of a name (duplicates are reported by
  // validation V2). An empty name gets `__anon_ID`.
  NodeId AddNode(std::string name, OpKind op, std::vector<NodeId> operands,
                 diag::Span span = {});
  // A constant node holding `value` (int, float or bool); type unknown (weak)
  // until shape inference.
  NodeId AddConstant(std::string name, AttrValue value, diag::Span span = {});
  // An input node (identity, no operands, role kInput) appended to inputs().
  NodeId AddInput(std::string name, Type type, bool optional = false, diag::Span span = {});
  // A parameter node plus its record in params().
  NodeId AddParam(std::string name, Type type, InitSpec init = {}, bool frozen = false,
                  diag::Span span = {});
  void AddOutput(std::string name, NodeId node, diag::Span span = {});

  // kNoNode when absent.
  NodeId FindNode(std::string_view name) const;
  // `base`, or `base_2`, `base_3`, … : the first that names no node.
  std::string UniqueName(std::string_view base) const;
  // "[G::h] ", the prefix of a diagnostic about node `n` (PIPELINE.md §3).
  // A node the compiler named (`__anon_3`, `__output_0`) is shown as the
  // declared node whose statement holds its expression, else as "[G] ": the
  // user never wrote those names (the span still points at the expression).
  std::string DiagnosticPrefix(const Node& n) const;
  // How run-time and compile messages name node `n`: "node 'h' (matmul)",
  // or for a node the compiler named, "matmul in node 'z'" (the declared node
  // whose statement holds it), else just "matmul". Calls show their callee:
  // "call[Dense]", "custom[my_op]".
  std::string NodeLabel(const Node& n) const;
  // How a message names the value of node `n` used as an operand: "'t'", or
  // for a node the compiler named, "computed in node 'y'" (else "computed").
  std::string ValueLabel(const Node& n) const;

  // ---- inputs, outputs, params, assertions
  const std::vector<GraphInput>& inputs() const { return inputs_; }
  std::vector<GraphInput>& mutable_inputs() { return inputs_; }
  const std::vector<GraphOutput>& outputs() const { return outputs_; }
  std::vector<GraphOutput>& mutable_outputs() { return outputs_; }
  const std::vector<Param>& params() const { return params_; }
  std::vector<Param>& mutable_params() { return params_; }
  const std::vector<Assertion>& assertions() const { return assertions_; }
  std::vector<Assertion>& mutable_assertions() { return assertions_; }
  // Index into outputs() or -1.
  int FindOutput(std::string_view name) const;
  // Index into params() or -1.
  int FindParam(std::string_view name) const;

  // The `->` type of the graph header (checked against the first output, T6).
  const std::optional<Type>& return_type() const { return return_type_; }
  void set_return_type(std::optional<Type> t) { return_type_ = std::move(t); }

  // ---- helpers for passes

  // Number of operand references to each node (a node used twice by one
  // consumer counts twice). Out-of-range operands are ignored.
  std::vector<int> ConsumerCounts() const;
  // Every operand reference and output pointing at `from` now points at `to`.
  void ReplaceAllUsesWith(NodeId from, NodeId to);
  // Keeps the nodes with keep[id] true, in their relative order, renumbered
  // 0..m-1; remaps operands, inputs, outputs, params and the name map.
  // References to removed nodes become kNoNode (inputs/params of removed
  // nodes are dropped). Returns old id -> new id (kNoNode when removed).
  std::vector<NodeId> Compact(const std::vector<bool>& keep);
  // Reorders nodes into a topological order that keeps the current order
  // wherever possible (stable Kahn: smallest ready id first) and renumbers
  // as Compact does. Returns false (and changes nothing) on a cycle or an
  // out-of-range operand.
  bool TopologicalRenumber();
  // Recomputes the name -> id map (first occurrence wins).
  void RebuildNameMap();

 private:
  // The name the user gave `n` (`own`; for a node the optimiser fused, its
  // name before fusion; for an unrolled repeat's iteration `h.iter0`, `h`) or
  // the node whose statement holds it (see DiagnosticPrefix); nullopt when
  // there is none. `iteration`: 1 for `h.iter0`, … (the last is `h`), else 0.
  // `failure`: naming a failure of `n` (NodeLabel, DiagnosticPrefix), where a
  // fused node whose producer alone can fail (Node::fused_producer) is that
  // producer's; its value (ValueLabel) is still the consumer's.
  struct DeclaredName {
    std::string_view name;
    bool own;
    int64_t iteration = 0;
  };
  std::optional<DeclaredName> DeclaredNameOf(const Node& n, bool failure = false) const;
  NodeId Append(Node node);
  void Remap(const std::vector<NodeId>& old_to_new);

  std::string name_;
  diag::Span span_;
  std::vector<Node> nodes_;
  std::vector<GraphInput> inputs_;
  std::vector<GraphOutput> outputs_;
  std::vector<Param> params_;
  std::vector<Assertion> assertions_;
  std::optional<Type> return_type_;
  bool folds_in_node_dtypes_ = false;
  std::unordered_map<std::string, NodeId> name_to_id_;
};

// The callee input each operand of call node `call` binds, in operand order
// (OPS.md §3.16): operand k binds input k, unless optional inputs were left
// out before a bound one; then the node's "inputs" attribute (set by
// lowering) lists the inputs' indices, ascending.
std::vector<int> CallInputIndices(const Node& call);

// True when operands binding `indices` fit `g`: each index names an input
// and is larger than the one before, and every non-optional input is bound.
bool AcceptsCallBinding(const Graph& g, std::span<const int> indices);

// The error for input `i` of `g` left out of a run or a call. A required
// input is "missing"; a left-out optional one (OPS.md §3.16) is only an error
// because something reads it, so the message names that reader: `reader` if
// given, else the first node (or output) of `g` that reads the input.
std::string MissingInputMessage(const Graph& g, size_t i, const Type& expected, const Node* reader = nullptr);
// The first node of `g` (in id order) with `id` among its operands, or null.
const Node* FirstReaderOf(const Graph& g, NodeId id);
// Whether some node of `g` reads node `id`, or an output is it (an optional
// input left out is then missing).
bool IsRead(const Graph& g, NodeId id);

// The indices of the non-null entries of a call's inputs (a null entry is a
// left-out optional input).
template <typename T>
std::vector<int> PresentInputs(std::span<const T* const> inputs) {
  std::vector<int> present;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] != nullptr) present.push_back(static_cast<int>(i));
  }
  return present;
}

// An evaluated @config value (LANGUAGE.md §5.1).
struct ConfigValue {
  enum class Kind : uint8_t { kInt, kFloat, kString, kBool, kList, kOpaque };
  Kind kind = Kind::kOpaque;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::string s;  // kString: the string; kOpaque: the source text
  std::vector<ConfigValue> list;

  static ConfigValue Int(int64_t v);
  static ConfigValue Float(double v);
  static ConfigValue String(std::string v);
  static ConfigValue Bool(bool v);
  static ConfigValue List(std::vector<ConfigValue> v);
  static ConfigValue Opaque(std::string text);
  bool is_number() const { return kind == Kind::kInt || kind == Kind::kFloat; }
  // Ints decimal, floats shortest round-trip, bools true/false, strings
  // as is, lists `[a, b]`, opaque its source text.
  std::string ToString() const;
};

// A `{ key: value; … }` settings map (optimizer, lr_schedule, …).
using SettingsMap = std::map<std::string, ConfigValue>;

// @training (LANGUAGE.md §7).
struct TrainingSettings {
  std::optional<std::string> model;
  diag::Span model_span;
  std::optional<std::string> loss;
  std::string optimizer_type = "SGD";
  double lr = 0.01;
  SettingsMap optimizer_extra;  // other optimizer keys
  std::optional<std::string> lr_schedule_kind;  // "constant" when the block has no type
  SettingsMap lr_schedule;
  std::optional<std::string> grad_clip_kind;    // "none" when the block has no type
  SettingsMap grad_clip;
  std::string precision = "fp32";
  int64_t epochs = 1;
  int64_t batch_size = 1;
  int64_t accumulation_steps = 1;
  diag::Span span;
};

// @inference (LANGUAGE.md §7).
struct InferenceSettings {
  std::optional<std::string> model;
  diag::Span model_span;
  SettingsMap quantization;
  SettingsMap generation;
  diag::Span span;
};

struct Program {
  std::map<std::string, std::string> metadata;     // @model
  std::map<std::string, ConfigValue> config;       // @config, evaluated
  std::vector<std::pair<std::string, Type>> type_aliases;  // @types, source order
  std::vector<Graph> graphs;                       // source order
  std::vector<std::string> custom_ops;             // @custom_op names
  std::optional<TrainingSettings> training;
  std::optional<InferenceSettings> inference;

  // nullptr when absent (first graph of that name).
  Graph* FindGraph(std::string_view name);
  const Graph* FindGraph(std::string_view name) const;
  int FindGraphIndex(std::string_view name) const;
  // The graph calls in `g` (a repeat's body included) that name a graph of
  // this program: the callee's index and the call's span, in node order.
  std::vector<std::pair<int, diag::Span>> CallsIn(const Graph& g) const;
};

}  // namespace shrew::ir
