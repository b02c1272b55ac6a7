// A source text with its file name, and spans into it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shrew::diag {

// A byte range of the source. Line and column are 1-based (column counts
// bytes, as LANGUAGE.md §2.1 says); line 0 means "no position".
struct Span {
  uint32_t offset = 0;
  uint32_t length = 0;
  uint32_t line = 0;
  uint32_t column = 0;

  bool valid() const { return line != 0; }
  // The smallest span covering both (either may be invalid).
  static Span Cover(const Span& a, const Span& b);
};

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
