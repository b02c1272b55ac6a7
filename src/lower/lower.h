// Lowering: AST -> IR program (PIPELINE.md §2).
//
//   diag::DiagnosticBag diags;
//   ast::Program tree = front::Parse(source, diags);
//   if (!diags.has_errors()) {
//     lower::LowerResult r = lower::Lower(tree, source, diags);
//     if (r.ok) … r.program …
//   }
//
// Order of work (§2.1): every @config block (source order) -> @model
// metadata -> @types aliases -> the signature of every graph (so a graph may
// call one defined later) and the @custom_op names -> each graph body ->
// @training / @inference (the last block of each wins). @import, @metrics,
// @logging and @visualizations are ignored.
//
// Contract:
// - `tree` must come from a parse without errors (holes are not lowered).
// - On an error (codes E040-E079, at the span of the offending construct)
//   the pipeline stops after lowering (PIPELINE.md §1) and ok is false; the
//   program is then incomplete and must not be used. Lowering goes on after
//   an error: every operand of an expression is lowered (a call's
//   attributes are checked once its operands are good), then the next
//   statement and graph; a name whose declaration failed, and an undefined
//   name once reported, stay quiet in that graph (no follow-up errors).
//   @config and @types errors still end lowering at once (what follows
//   depends on them).
// - On success, every graph follows §2.3/§2.4: inputs (header parameters
//   first), params, named and anonymous (`__anon_ID`) nodes in creation
//   order, so node ids are a topological order; node types are unknown
//   except for inputs and params (shape inference fills them); constants are
//   weak. Attributes of built-in operations are complete: every schema
//   attribute is present, in schema order, defaults filled in.
// - Structural problems that validation reports (duplicate names, operand
//   counts, recursion, unknown @training model) are left in place for it.
// - Time and memory are linear in the size of the tree; recursion depth is
//   bounded by the expression height (config_eval.h: kMaxEvalHeight).
#pragma once

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/ast.h"
#include "ir/graph.h"

namespace shrew::lower {

struct LowerResult {
  bool ok = false;
  ir::Program program;
};

LowerResult Lower(const ast::Program& tree, const diag::SourceFile& source,
                  diag::DiagnosticBag& diags);

}  // namespace shrew::lower
