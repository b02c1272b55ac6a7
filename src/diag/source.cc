#include "diag/source.h"

#include <algorithm>

namespace shrew::diag {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(name.empty() ? "<input>" : std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

void SourceFile::LineColumn(uint32_t offset, uint32_t* line, uint32_t* column) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t index = static_cast<uint32_t>(it - line_starts_.begin()) - 1;
  *line = index + 1;
  *column = offset - line_starts_[index] + 1;
}

Span SourceFile::MakeSpan(uint32_t offset, uint32_t length) const {
  Span s;
  s.offset = offset;
  s.length = length;
  LineColumn(offset, &s.line, &s.column);
  return s;
}

std::string_view SourceFile::LineText(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] - 1 : static_cast<uint32_t>(text_.size());
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace shrew::diag
