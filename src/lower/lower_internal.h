// Shared state of the lowering files (lower*.cc). Not a public header.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/ast.h"
#include "ir/graph.h"
#include "lower/config_eval.h"
#include "lower/types.h"

namespace shrew::lower::internal {

// What a call site needs to know about a graph (PIPELINE.md §2.1 step 4).
struct GraphSignature {
  std::string name;
  // Header parameters first, then `input` statements; one entry per name.
  std::vector<std::string> inputs;
  std::vector<bool> optional;
  std::unordered_map<std::string, int> input_index;
};

// The result of lower-op (§2.4): an operation and its operands, not yet a node.
struct LoweredOp {
  ir::OpKind op = ir::OpKind::kIdentity;
  std::vector<ir::NodeId> operands;
  ir::Attrs attrs;
  std::string callee;                         // call / custom
  std::optional<ir::RepeatBody> repeat_body;  // repeat
  ir::Attrs annotations;                      // a config key's constant: ir::kConfigKeyAnnotation
};

class Lowerer {
 public:
  Lowerer(const diag::SourceFile& source, diag::DiagnosticBag& diags)
      : source_(source), diags_(diags), types_(config_), start_errors_(diags.error_count()) {}

  bool Run(const ast::Program& tree, ir::Program* out);

 private:
  bool failed() const { return diags_.error_count() > start_errors_; }
  void Error(diag::Kind kind, diag::Span span, std::string message) {
    diags_.Add(kind, span, std::move(message));
  }
  std::string_view Text(diag::Span span) const { return SpanText(source_, span); }
  ConfigEvalContext EvalContext() const { return ConfigEvalContext{&config_, &source_, {}, nullptr}; }

  // ---- lower.cc: program-level steps
  void CollectSignatures(const ast::Program& tree);

  // ---- lower_settings.cc: @model, @training, @inference
  void LowerMetadata(const ast::Program& tree, ir::Program* out);
  bool LowerTraining(const ast::TrainingBlock& block, diag::Span span, ir::Program* out);
  bool LowerInference(const ast::InferenceBlock& block, diag::Span span, ir::Program* out);
  bool LowerSettingsMap(const std::vector<ast::Field>& fields, ir::SettingsMap* out);

  // ---- lower_graph.cc: one graph body (§2.3)
  bool LowerGraph(const ast::GraphBlock& block, diag::Span span, ir::Graph* graph);
  bool DeclareInput(const ast::Identifier& name, const ast::Type& type, bool optional,
                    diag::Span span);
  bool LowerParam(const ast::ParamDecl& decl, diag::Span span);
  bool LowerNode(const ast::NodeDecl& decl, diag::Span span);
  bool LowerOutput(const ast::OutputDecl& decl, diag::Span span);
  void AddAssertion(const ast::AssertStmt& stmt);
  void MarkAssertionsReadingValues(const ast::GraphBlock& block);
  // Creates a node named `name` ("" for `__anon_ID`) from `op`.
  ir::NodeId MakeNode(std::string name, LoweredOp op, diag::Span span);

  // ---- lower_expr.cc: lower-op / lower-value (§2.4)
  // Entry points check the expression height first.
  std::optional<LoweredOp> LowerOpChecked(const ast::Expr& e);
  std::optional<LoweredOp> LowerOp(const ast::Expr& e);
  std::optional<LoweredOp> LowerChain(const ast::ChainExpr& chain);
  // The op of binary operator `op` on tensors; reports E045 at `op_span` if none.
  std::optional<ir::OpKind> TensorOperator(ast::BinaryOp op, diag::Span op_span);
  std::optional<ir::NodeId> LowerValue(const ast::Expr& e);
  std::optional<LoweredOp> LowerName(const ast::NameExpr& n, diag::Span span);
  // E040 / E041 with "did you mean …?" when a name in scope or a config key
  // (an operation: a built-in, graph or custom op) is a likely typo. Out of
  // line: error paths stay out of the lowering code V8 compiles at start-up.
  [[gnu::noinline, gnu::cold]] void ErrorUndefinedName(const std::string& name, diag::Span span);
  // Where `name` is first declared in the graph being lowered (a header
  // parameter or a statement), if anywhere.
  std::optional<diag::Span> DeclarationOf(const std::string& name) const;
  [[gnu::noinline, gnu::cold]] void ErrorUnknownOperation(const std::string& name, diag::Span span);
  std::optional<LoweredOp> LowerCall(const ast::CallExpr& call, diag::Span span);
  std::optional<LoweredOp> LowerGraphCall(const GraphSignature& sig, const ast::CallExpr& call,
                                          diag::Span span);
  std::optional<LoweredOp> LowerRepeat(const ast::RepeatExpr& rep, diag::Span span);
  // Lowers the positional arguments, left to right, as operands.
  // The positional arguments as operands; `kind` (a built-in op) gives a list
  // argument its attribute's name in the error.
  bool LowerPositional(const ast::CallExpr& call, std::optional<ir::OpKind> kind,
                       std::vector<ir::NodeId>* operands);

  // ---- lower_attrs.cc: compile-time constants
  // Named arguments of a built-in call -> complete attributes of `kind`.
  bool LowerOpAttrs(ir::OpKind kind, const ast::CallExpr& call, diag::Span span,
                    ir::Attrs* attrs);
  // Named arguments of a @custom_op call, kept as given.
  bool LowerCustomAttrs(const ast::CallExpr& call, ir::Attrs* attrs);
  std::optional<ir::AttrValue> LowerShapeList(ir::OpKind kind, const std::string& attr,
                                              const ast::Expr& value);
  // Reports (and returns false) when an attribute value names a tensor in
  // scope instead of a constant; `where` is "attribute 'A' of OP".
  bool CheckNotTensor(const ast::Expr& value, const std::string& where);
  // A constant of any kind that an IR attribute can hold; nullopt (no
  // diagnostic) when `v` has none (opaque, nested or mixed lists).
  static std::optional<ir::AttrValue> GenericAttr(const ir::ConfigValue& v);

  const diag::SourceFile& source_;
  diag::DiagnosticBag& diags_;
  ConfigMap config_;
  TypeResolver types_;
  size_t start_errors_;
  std::unordered_map<std::string, GraphSignature> signatures_;
  std::unordered_set<std::string> custom_ops_;

  // Per graph.
  ir::Graph* graph_ = nullptr;
  std::unordered_map<std::string, ir::NodeId> scope_;
  std::unordered_map<std::string, ir::NodeId> inputs_by_name_;
  // Names whose declaration failed (already reported): using them fails
  // quietly, so lowering goes on with the next statement without a cascade.
  std::unordered_set<std::string> failed_names_;
  // The graph being lowered: an undefined name is looked up in it (error
  // path only) to tell a use before the declaration from a misspelling.
  const ast::GraphBlock* block_ = nullptr;
};

}  // namespace shrew::lower::internal
