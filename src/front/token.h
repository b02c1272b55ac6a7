// Tokens of the .sw language (LANGUAGE.md §2). Kinds come from
// token_kinds.def; a token is just its kind and span. Its text is the span's
// bytes of the SourceFile (TokenText), so tokens stay small (20 bytes) even for
// a 10 MB input.
#pragma once

#include <cstdint>
#include <string_view>

#include "diag/source.h"

namespace shrew::front {

enum class TokenKind : uint8_t {
#define SHREW_TOKEN(Name) Name,
#include "front/token_kinds.def"
};

// Number of token kinds (for tables indexed by kind).
inline constexpr int kTokenKindCount = 0
#define SHREW_TOKEN(Name) +1
#include "front/token_kinds.def"
    ;

// "Identifier", "LBrace", "KwInput", "AtGraph" (the enum name, for dumps).
const char* TokenKindName(TokenKind kind);
// Fixed source text of punctuation, keywords and directives ("{", "input",
// "@graph"); empty for kinds whose text varies (identifiers, literals, ...).
std::string_view TokenSpelling(TokenKind kind);

bool IsSoftKeyword(TokenKind kind);   // table A: `input`, `model`, `range`, ...
bool IsReservedWord(TokenKind kind);  // table B: dtypes, `Tensor`, `true`, `false`, `null`
bool IsDtype(TokenKind kind);         // the 15 dtype words
bool IsDirective(TokenKind kind);     // the 14 `@word` kinds
bool IsTopLevelDirective(TokenKind kind);  // directives that start a top-level block
// The dtype word a word that is none likely means, for "write f32" hints:
// other libraries' names ("float32", "double", "int64", any case -> "f32",
// "f64", "i64") and typos of a dtype word ("f23", "F32" -> "f32"); empty
// when `word` is none of those.
std::string_view DtypeMeantBy(std::string_view word);
// A `key` (LANGUAGE.md §3.1): an identifier or a soft keyword.
inline bool IsKey(TokenKind kind) { return kind == TokenKind::Identifier || IsSoftKeyword(kind); }

struct Token {
  TokenKind kind = TokenKind::EndOfInput;
  diag::Span span;
};

// The source bytes of `token` (empty for EndOfInput).
inline std::string_view TokenText(const diag::SourceFile& source, const Token& token) {
  return std::string_view(source.text()).substr(token.span.offset, token.span.length);
}

}  // namespace shrew::front
