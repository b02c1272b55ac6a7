// A byte range of a source text: where a diagnostic, an IR node or a failed
// run points. Here, below diag/, so that a Status can carry one too.
#pragma once

#include <cstdint>

namespace shrew {

// Line and column are 1-based (column counts bytes, as LANGUAGE.md §2.1
// says); line 0 means "no position".
struct SourceSpan {
  uint32_t offset = 0;
  uint32_t length = 0;
  uint32_t line = 0;
  uint32_t column = 0;

  bool valid() const { return line != 0; }
  // The smallest span covering both (either may be invalid).
  static SourceSpan Cover(const SourceSpan& a, const SourceSpan& b);
};

}  // namespace shrew
