// UTF-8 helpers for showing source text to users: diagnostics count
// characters (not bytes) to place a caret, and keep broken UTF-8, invisible
// and text-reordering characters from reaching a terminal raw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shrew::diag {

// Byte length (1-4) of the well-formed UTF-8 character at text[pos], with its
// code point in *code_point; 0 if none starts there (a stray continuation
// byte, a truncated sequence, an overlong form, a surrogate, or past U+10FFFF).
size_t DecodeUtf8(std::string_view text, size_t pos, uint32_t* code_point);

// True for characters that draw nothing visible or change how the text around
// them is drawn: C1 controls, space-like and zero-width characters other than
// U+0020, format and bidi controls, fillers, variation selectors, tags.
bool IsInvisible(uint32_t code_point);

// Terminal cells the character takes (what wcwidth gives in a UTF-8 locale,
// from a compact table): 2 for East Asian wide and fullwidth characters and
// emoji, 0 for combining marks, 1 otherwise.
int DisplayWidth(uint32_t code_point);

// A short name for a common invisible character ("byte order mark"), or
// nullptr.
const char* CodePointName(uint32_t code_point);

// "U+FEFF": at least four upper-case hex digits.
std::string CodePointLabel(uint32_t code_point);

// Source text to quote in a message, as valid UTF-8 that draws as it reads:
// line feed and tab as \n and \t, other control bytes and broken UTF-8 as
// \xNN, invisible and bidi characters as \u{NNNN}; at most `max_bytes` of
// `text` (never half a character), then "..." if some is left out.
std::string EscapeForMessage(std::string_view text, size_t max_bytes);

}  // namespace shrew::diag
