// Helpers for lowering tests: parse + lower a source string and look at the
// IR dump or the single diagnostic.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "diag/diagnostic.h"
#include "front/parser.h"
#include "ir/dump.h"
#include "lower/lower.h"

namespace shrew::lower::testing {

struct Lowered {
  bool ok = false;
  ir::Program program;
  std::vector<diag::Diagnostic> diagnostics;
  std::string rendered;
};

inline Lowered LowerText(const std::string& text) {
  diag::SourceFile source("t.sw", text);
  diag::DiagnosticBag diags;
  ast::Program tree = front::Parse(source, diags);
  Lowered out;
  if (diags.has_errors()) {
    ADD_FAILURE() << "parse failed:\n" << diag::RenderAll(diags.all(), source);
    return out;
  }
  LowerResult r = Lower(tree, source, diags);
  out.ok = r.ok;
  out.program = std::move(r.program);
  out.rendered = diag::RenderAll(diags.all(), source);
  out.diagnostics = diags.Take();
  return out;
}

// Lowering must succeed; returns the dump of graph `index` with types.
inline std::string LowerDump(const std::string& text, size_t index = 0) {
  Lowered l = LowerText(text);
  EXPECT_TRUE(l.ok) << l.rendered;
  if (!l.ok || index >= l.program.graphs.size()) return "";
  return ir::DumpGraph(l.program.graphs[index]);
}

// Lowering must fail with exactly one diagnostic; returns
// "CODE LINE:COL MESSAGE".
inline std::string LowerError(const std::string& text) {
  Lowered l = LowerText(text);
  EXPECT_FALSE(l.ok);
  EXPECT_EQ(l.diagnostics.size(), 1u) << l.rendered;
  if (l.diagnostics.empty()) return "";
  const diag::Diagnostic& d = l.diagnostics[0];
  return std::string(d.code()) + " " + std::to_string(d.span.line) + ":" +
         std::to_string(d.span.column) + " " + d.message;
}

}  // namespace shrew::lower::testing
