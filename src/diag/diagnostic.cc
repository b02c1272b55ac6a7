#include "diag/diagnostic.h"

#include <algorithm>

#include "diag/utf8.h"

namespace shrew::diag {
namespace {

struct KindInfo {
  const char* code;
  Severity severity;
};

constexpr KindInfo kKinds[] = {
#define SHREW_DIAG(name, code, severity) {code, Severity::severity},
#include "diag/diagnostic_kinds.def"
#undef SHREW_DIAG
};

// Lines up to kWholeLineBytes are shown whole; of a longer one only a window
// of kWindowBytes around the column, so the caret is under the offending
// text wherever it is (with the indent and two "…", 80 cells when ASCII).
constexpr size_t kWholeLineBytes = 400;
constexpr size_t kWindowBytes = 76;
constexpr char kEllipsis[] = "\xE2\x80\xA6";     // U+2026, marks a cut side
constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD, one broken byte

struct Window {
  size_t begin, end;  // byte range of the line
};

bool IsContinuationByte(std::string_view s, size_t i) {
  return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
}

// A cut moves by up to 3 bytes off continuation bytes, so it never splits a
// well-formed character (a longer run of them is broken UTF-8 anyway).
Window ChooseWindow(std::string_view line, size_t at) {
  if (line.size() <= kWholeLineBytes) return {0, line.size()};
  size_t centred = at > kWindowBytes / 2 ? at - kWindowBytes / 2 : 0;
  size_t begin = std::min(centred, line.size() - kWindowBytes);
  Window w{begin, begin + kWindowBytes};
  for (int i = 0; i < 3 && w.begin > 0 && IsContinuationByte(line, w.begin); ++i) --w.begin;
  for (int i = 0; i < 3 && IsContinuationByte(line, w.end); ++i) ++w.end;
  return w;
}

// Appends how the character at line[pos] is shown; returns its length in
// bytes and in *cells the terminal cells it takes (DisplayWidth; a tab stays
// a tab, one cell here) so the caret line can match them: control and
// invisible characters become a space (raw, they would shift or reorder what
// the terminal draws), a broken byte U+FFFD.
size_t AppendShown(std::string_view line, size_t pos, std::string* out, int* cells) {
  uint32_t cp = 0;
  size_t n = DecodeUtf8(line, pos, &cp);
  *cells = 1;
  if (n == 0) {
    *out += kReplacement;
    return 1;
  }
  if (cp == '\t') {
    *out += '\t';
  } else if (cp < 0x20 || cp == 0x7F || IsInvisible(cp)) {
    *out += ' ';
  } else {
    out->append(line.substr(pos, n));
    *cells = DisplayWidth(cp);
  }
  return n;
}

// The source line (or a window of it) and a caret line under it: ^ under the
// character at the span's column, ~ under the rest of the span on this line.
std::string Excerpt(std::string_view line, const Span& span) {
  size_t at = std::min<size_t>(span.column - 1, line.size());
  size_t span_end = at + std::max<uint32_t>(span.length, 1);
  Window w = ChooseWindow(line, at);
  std::string text = "  ", marks = "  ";
  if (w.begin > 0) {
    text += kEllipsis;
    marks += ' ';
  }
  for (size_t pos = w.begin; pos < w.end;) {
    int cells = 0;
    size_t n = AppendShown(line, pos, &text, &cells);
    if (pos + n <= at) {
      marks.append(static_cast<size_t>(cells), line[pos] == '\t' ? '\t' : ' ');
    } else if (pos <= at) {
      // A combining mark drawn on the character before: mark that one.
      if (cells == 0 && marks.size() > 2) marks.pop_back();
      marks += '^';
      marks.append(static_cast<size_t>(std::max(cells, 1) - 1), '~');
    } else if (pos < span_end) {
      marks.append(static_cast<size_t>(cells), '~');
    }
    pos += n;
  }
  if (at == line.size()) marks += '^';  // the end of the line itself
  if (w.end < line.size()) text += kEllipsis;
  return text + "\n" + marks + "\n";
}

}  // namespace

const char* KindCode(Kind kind) { return kKinds[static_cast<int>(kind)].code; }
Severity KindSeverity(Kind kind) { return kKinds[static_cast<int>(kind)].severity; }

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

void DiagnosticBag::Add(Kind kind, Span span, std::string message) {
  Severity severity = KindSeverity(kind);
  if (severity == Severity::Error) {
    if (capped_) return;
    if (error_count_ >= max_errors_) {
      capped_ = true;
      ++error_count_;
      diagnostics_.push_back({Kind::TooManyDiagnostics, Severity::Error, span,
                              "too many errors; stopping after " + std::to_string(max_errors_)});
      return;
    }
    ++error_count_;
  } else if (diagnostics_.size() >= 4 * max_errors_) {
    return;
  }
  diagnostics_.push_back({kind, severity, span, std::move(message)});
}

void DiagnosticBag::AddAboutNode(Kind kind, Span span, int32_t node, const std::string& prefix,
                                 const std::string& message) {
  const size_t before = diagnostics_.size();
  Add(kind, span, prefix + message);
  // Dropped, or the cap's own diagnostic in its place: about no node.
  if (diagnostics_.size() == before || diagnostics_.back().kind != kind) return;
  diagnostics_.back().node = node;
  diagnostics_.back().node_prefix = static_cast<uint32_t>(prefix.size());
}

std::string Render(const Diagnostic& d, const SourceFile& source) {
  std::string out = source.name();
  if (d.span.valid()) {
    out += ":" + std::to_string(d.span.line) + ":" + std::to_string(d.span.column);
  }
  out += std::string(": ") + SeverityName(d.severity) + "[" + d.code() + "]: " + d.message + "\n";
  return out + RenderExcerpt(d.span, source);
}

std::string RenderExcerpt(const Span& span, const SourceFile& source) {
  if (!span.valid()) return "";
  // A line with several NULs is UTF-16 or binary, not text: its excerpt
  // would be every other character blank, or noise.
  const std::string_view line = source.LineText(span.line);
  if (std::count(line.begin(), line.end(), '\0') > 1) return "";
  return Excerpt(line, span);
}

std::string RenderAll(const std::vector<Diagnostic>& ds, const SourceFile& source) {
  std::string out;
  for (const Diagnostic& d : ds) out += Render(d, source);
  return out;
}

}  // namespace shrew::diag
