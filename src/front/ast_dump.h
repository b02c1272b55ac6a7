// A stable, readable text form of the AST: one node per line, children
// indented by two spaces, `@LINE:COL` of each node's span at the end of its
// line (optional). Golden tests (tests/testdata/front/*.expected) and the
// playground's AST tab use it; changing the format means regenerating the
// goldens (SHREW_UPDATE_GOLDEN=1).
//
//   Graph Main @6:1
//     Input x: Tensor<[Batch, Width], f32> @7:5
//     Node y @9:5
//       Op @9:14
//         Call relu @9:18
//           Binary - @9:23
//             ...
//
// Expression lines: `Int 007`, `Float 1e-5`, `String "a\n"` (decoded value,
// re-escaped), `Bool true`, `Null`, `Name x`, `Path a::b`, `Unary -`,
// `Binary **`, `Paren`, `Call f`, `MethodCall f`, `Member f`, `Index`,
// `Slice`, `List`, `Dict`, `If`, `Repeat`, `Closure |a, b|`, `Error`.
// A child with a role is prefixed by it (`dim: Int 1` for a named argument,
// `cond:`/`then:`/`else:` of an if, `receiver:` of a method call, ...).
#pragma once

#include <string>

#include "front/ast.h"

namespace shrew::ast {

struct DumpOptions {
  bool spans = true;  // append " @LINE:COL" to every line
};

std::string DumpProgram(const Program& program, const DumpOptions& options = {});
std::string DumpExpr(const Expr& expr, const DumpOptions& options = {});

// One-line type text: `Tensor<[Batch, 8, ?, _], f32>`, `f32`, `Hidden`, `?`,
// `(A, B)`, `[A]`, `5`, `<error>`.
std::string FormatType(const Type& type);

// A string value as a double-quoted literal with `\\ \" \n \t` and `\xNN`
// escapes, so any bytes print on one line.
std::string QuoteString(const std::string& value);

}  // namespace shrew::ast
