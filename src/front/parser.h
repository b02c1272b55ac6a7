// The parser: tokens -> ast::Program (LANGUAGE.md §3).
//
// Contract:
// - Parse never fails and never aborts, whatever the input. Errors go to
//   `diags` (lexer codes E001-E019, parser codes E020-E039) with the span of
//   the offending token; messages follow LANGUAGE.md §10 (`expected ';', got
//   'relu'`, `expected expression, got end of input`).
// - After an error the parser skips to the end of the statement (`;`), the
//   closing `}` of the enclosing block, or the next top-level directive, and
//   keeps going, so one run reports several independent errors; follow-on
//   errors inside the skipped region are suppressed. Every loop consumes input,
//   so it always terminates; time and memory are linear in the input size.
// - Recursion is bounded: constructs nested deeper than kMaxNestingDepth
//   (parentheses, brackets, braces, prefix operators, `**` operands, nested
//   types and literals) and expressions taller than kMaxExprHeight (long
//   postfix chains `a.b.c…`, operands nested that tall) are reported as
//   NestingTooDeep (E021), not parsed. A run of left-associative binary
//   operators longer than kMaxNestedLinks is one ast::ChainExpr: no limit.
//   Worst case measured: under 512 KB of stack (x86-64 release) at the
//   limits, inside the wasm build's 1 MB (tests run it on a 1 MB thread).
// - Returns the (possibly partial) tree; see ast.h for what holds when
//   `diags` has no errors.
#pragma once

#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/ast.h"
#include "front/token.h"

namespace shrew::front {

// Deepest nesting of brackets/braces/parentheses/prefix operators (see above).
inline constexpr int kMaxNestingDepth = 200;
// Tallest expression tree (ast::Expr::height) the parser builds.
inline constexpr uint32_t kMaxExprHeight = 512;
// Longest run of binary operators built as nested BinaryExprs; longer runs
// become one ChainExpr (short ones keep the familiar tree in dumps).
inline constexpr int kMaxNestedLinks = 64;

// Lexes and parses a whole program.
ast::Program Parse(const diag::SourceFile& source, diag::DiagnosticBag& diags);

// Parses already-lexed tokens (must end with EndOfInput, as Lex guarantees).
ast::Program ParseTokens(const diag::SourceFile& source, const std::vector<Token>& tokens,
                         diag::DiagnosticBag& diags);

// Parses `source` as one expression followed by the end of input (for tests,
// tools and the playground). Never null: an ErrorExpr after errors.
ast::ExprPtr ParseExpression(const diag::SourceFile& source, diag::DiagnosticBag& diags);

}  // namespace shrew::front
