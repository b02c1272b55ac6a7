#include "lower/lower.h"

#include "lower/lower_internal.h"

namespace shrew::lower {
namespace internal {

void Lowerer::CollectSignatures(const ast::Program& tree) {
  for (const ast::GraphBlock* g : tree.All<ast::GraphBlock>()) {
    // A duplicate graph name keeps the first signature; validation (V9)
    // reports the duplicate.
    if (signatures_.count(g->name.name) > 0) continue;
    GraphSignature sig;
    sig.name = g->name.name;
    auto add = [&sig](const std::string& name, bool optional) {
      if (sig.input_index.count(name) > 0) return;  // one input per name (§6)
      sig.input_index.emplace(name, static_cast<int>(sig.inputs.size()));
      sig.inputs.push_back(name);
      sig.optional.push_back(optional);
    };
    for (const ast::GraphParam& p : g->params) add(p.name.name, p.optional);
    for (const ast::GraphStmt& s : g->body) {
      if (const auto* in = s.As<ast::InputDecl>()) add(in->name.name, in->optional);
    }
    signatures_.emplace(sig.name, std::move(sig));
  }
}

bool Lowerer::Run(const ast::Program& tree, ir::Program* out) {
  // 1. @config, in source order.
  if (!EvaluateConfig(tree, source_, &config_, diags_)) return false;
  out->config = config_;
  // 2. @model metadata.
  LowerMetadata(tree, out);
  // 3. @types, after the whole config (so aliases see every config value).
  if (!types_.ResolveAliases(tree, diags_)) return false;
  out->type_aliases = types_.aliases();
  // 4. Graph signatures and @custom_op names, so calls may refer forward.
  CollectSignatures(tree);
  for (const ast::CustomOpBlock* c : tree.All<ast::CustomOpBlock>()) {
    if (custom_ops_.insert(c->name.name).second) out->custom_ops.push_back(c->name.name);
  }
  // 5. Graph bodies, in source order.
  for (const ast::Block& b : tree.blocks) {
    const auto* g = b.As<ast::GraphBlock>();
    if (g == nullptr) continue;
    out->graphs.emplace_back(g->name.name);
    // On errors, go on with the next graph: its errors are independent.
    LowerGraph(*g, b.span, &out->graphs.back());
  }
  if (failed()) return false;
  // 6. @training / @inference: the last block of each wins.
  const ast::Block* training = nullptr;
  const ast::Block* inference = nullptr;
  for (const ast::Block& b : tree.blocks) {
    if (b.Is<ast::TrainingBlock>()) training = &b;
    if (b.Is<ast::InferenceBlock>()) inference = &b;
  }
  if (training != nullptr &&
      !LowerTraining(*training->As<ast::TrainingBlock>(), training->span, out)) {
    return false;
  }
  if (inference != nullptr &&
      !LowerInference(*inference->As<ast::InferenceBlock>(), inference->span, out)) {
    return false;
  }
  // 7. @import, @metrics, @logging, @visualizations: nothing to lower.
  return !failed();
}

}  // namespace internal

LowerResult Lower(const ast::Program& tree, const diag::SourceFile& source,
                  diag::DiagnosticBag& diags) {
  LowerResult result;
  internal::Lowerer lowerer(source, diags);
  result.ok = lowerer.Run(tree, &result.program);
  return result;
}

}  // namespace shrew::lower
