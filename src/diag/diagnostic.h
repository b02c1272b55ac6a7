// Diagnostics: every user error in a program, with a stable code, severity,
// span and message. Phases add to a DiagnosticBag and keep going where they
// can; nothing here prints or aborts. Render() turns one into the text users
// read:
//   file.sw:3:7: error[E020]: expected ';', got 'relu'
//     node h { op: relu(x) }
//         ^~~~
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "diag/source.h"

namespace shrew::diag {

enum class Severity { Error, Warning, Note };

enum class Kind {
#define SHREW_DIAG(name, code, severity) name,
#include "diag/diagnostic_kinds.def"
#undef SHREW_DIAG
};

const char* KindCode(Kind kind);      // "E020"
Severity KindSeverity(Kind kind);
const char* SeverityName(Severity s);  // "error", "warning", "note"

struct Diagnostic {
  Kind kind;
  Severity severity;
  Span span;  // may be invalid (no position)
  std::string message;
  // One about a graph's node (shape inference): its id, and the length of
  // the "[G::y] " prefix its message starts with, so a run-time error can
  // name the node its own way without reading the text back. -1 and 0 else.
  int32_t node = -1;
  uint32_t node_prefix = 0;
  const char* code() const { return KindCode(kind); }
};

// Collects diagnostics in order. Caps the count (a hostile input can produce
// one error per byte): past `max_errors` errors one TooManyDiagnostics error
// is added and further ones are dropped, so memory stays bounded. At least
// one error is kept: a cap of 0 reported only "stopping after 0".
class DiagnosticBag {
 public:
  explicit DiagnosticBag(size_t max_errors = 200) : max_errors_(std::max<size_t>(max_errors, 1)) {}

  void Add(Kind kind, Span span, std::string message);
  // Add, of `prefix` + `message` about node `node` (Diagnostic::node).
  void AddAboutNode(Kind kind, Span span, int32_t node, const std::string& prefix, const std::string& message);
  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  size_t max_errors() const { return max_errors_; }
  // True once the error cap is reached: a further error is dropped, so a
  // caller may skip building its message (naming a node can scan the
  // graph: 60,000 errors of one expression took a minute to build).
  bool capped() const { return capped_; }
  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  std::vector<Diagnostic> Take() { return std::move(diagnostics_); }

 private:
  size_t max_errors_;
  size_t error_count_ = 0;
  bool capped_ = false;
  std::vector<Diagnostic> diagnostics_;
};

// "FILE:LINE:COL: error[CODE]: MESSAGE" plus, when the span is valid, the
// source line and a caret line (^ then ~ for the rest of the span on that line).
// COL counts bytes (LANGUAGE.md §2.1) but the caret line counts characters, so
// it lines up after multi-byte UTF-8 too. A line over 400 bytes is shown as
// a 76-byte window around the column, "…" marking each cut side; control,
// invisible and bidi characters show as a space, broken UTF-8 as U+FFFD.
std::string Render(const Diagnostic& d, const SourceFile& source);
// What Render shows under a diagnostic's header: the source line `span`
// starts on (or its window) and the caret line, "  TEXT\n  ^~~\n". Empty when
// the span is invalid or the line is not text.
std::string RenderExcerpt(const Span& span, const SourceFile& source);
// Render every diagnostic, one after the other.
std::string RenderAll(const std::vector<Diagnostic>& ds, const SourceFile& source);

}  // namespace shrew::diag
