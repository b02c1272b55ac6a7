// A source text with its file name, and spans into it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/source_span.h"

namespace shrew::diag {

// A byte range of the source (base/source_span.h).
using Span = SourceSpan;

class SourceFile {
 public:
  // `name` is shown in diagnostics; empty means "<input>".
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // Line (1-based) and column (1-based, bytes) of a byte offset; an offset
  // past the end maps to the end.
  void LineColumn(uint32_t offset, uint32_t* line, uint32_t* column) const;
  Span MakeSpan(uint32_t offset, uint32_t length) const;
  // The text of line `line` (1-based) without its newline; empty if none.
  std::string_view LineText(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<uint32_t> line_starts_;
};

}  // namespace shrew::diag
