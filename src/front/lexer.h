// The lexer: source bytes -> tokens (LANGUAGE.md §2).
//
// Contract:
// - Lex never fails and never aborts, whatever the bytes (NUL, invalid UTF-8,
//   CR/LF mixes, unterminated strings or comments). Problems are reported to
//   `diags` (codes E001-E019) and lexing continues.
// - The result always ends with exactly one EndOfInput token whose span is
//   empty and sits at the end of the text.
// - Text the lexer rejected becomes an Error token (unknown directive, a run of
//   unexpected bytes, an unterminated string) so the parser can skip it
//   without reporting again. Malformed numbers (`1e`, an integer that does not
//   fit in 64 bits) stay IntLiteral/FloatLiteral tokens, reported once here;
//   ParseIntLiteral/ParseFloatLiteral then yield 0.
// - Time and memory are linear in the input size.
//
// Usage:
//   diag::SourceFile source("model.sw", text);
//   diag::DiagnosticBag diags;
//   std::vector<Token> tokens = Lex(source, diags);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/token.h"

namespace shrew::front {

std::vector<Token> Lex(const diag::SourceFile& source, diag::DiagnosticBag& diags);

// The kind of a word: a soft keyword, reserved word, `_`, or Identifier.
// `word` must match [A-Za-z_][A-Za-z0-9_]*.
TokenKind ClassifyWord(std::string_view word);
// The directive kind of "@name" text, or Error if it is no directive.
TokenKind ClassifyDirective(std::string_view text);

// The value of a StringLiteral token's text (quotes included): `\n \t \\ \"`
// are decoded, any other backslash pair is kept as both bytes (§2.7), every
// other byte is copied verbatim. Tolerates a missing closing quote.
std::string UnescapeString(std::string_view raw);

// Value of IntLiteral text; false (and *value = 0) if it does not fit in int64.
bool ParseIntLiteral(std::string_view text, int64_t* value);
// Value of FloatLiteral text, IEEE-754 round to nearest; overflow gives +inf
// (`1e999`), underflow 0 or a subnormal. False (and *value = 0) if malformed.
bool ParseFloatLiteral(std::string_view text, double* value);

}  // namespace shrew::front
