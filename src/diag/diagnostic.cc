#include "diag/diagnostic.h"

#include <algorithm>

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

void DiagnosticBag::Append(const std::vector<Diagnostic>& other) {
  for (const Diagnostic& d : other) Add(d.kind, d.span, d.message);
}

std::string Render(const Diagnostic& d, const SourceFile& source) {
  std::string out = source.name();
  if (d.span.valid()) {
    out += ":" + std::to_string(d.span.line) + ":" + std::to_string(d.span.column);
  }
  out += std::string(": ") + SeverityName(d.severity) + "[" + d.code() + "]: " + d.message + "\n";
  if (!d.span.valid()) return out;
  std::string_view line = source.LineText(d.span.line);
  // Show control bytes (and the rest of a hostile line) safely.
  std::string shown;
  shown.reserve(std::min<size_t>(line.size(), 400));
  for (size_t i = 0; i < line.size() && i < 400; ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    shown += (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : static_cast<char>(c);
  }
  out += "  " + shown + "\n  ";
  uint32_t col = std::min<uint32_t>(d.span.column, static_cast<uint32_t>(shown.size()) + 1);
  for (uint32_t i = 1; i < col; ++i) out += shown[i - 1] == '\t' ? '\t' : ' ';
  out += '^';
  uint32_t rest = d.span.length > 1 ? d.span.length - 1 : 0;
  uint32_t room = static_cast<uint32_t>(shown.size()) >= col ? static_cast<uint32_t>(shown.size()) - col : 0;
  out += std::string(std::min(rest, room), '~');
  out += "\n";
  return out;
}

std::string RenderAll(const std::vector<Diagnostic>& ds, const SourceFile& source) {
  std::string out;
  for (const Diagnostic& d : ds) out += Render(d, source);
  return out;
}

}  // namespace shrew::diag
