// Parser core: token access, error reporting, recovery, entry points.
// Grammar pieces live in parser_blocks.cc, parser_graph.cc, parser_types.cc
// and parser_expr.cc.
#include "front/parser.h"

#include <algorithm>

#include "base/check.h"
#include "diag/utf8.h"
#include "front/lexer.h"
#include "front/parser_internal.h"

namespace shrew::front {
namespace internal {
namespace {

// The token as shown in "got TOKEN": its source text in quotes, shortened and
// escaped (diag::EscapeForMessage), so a 10 MB string, a NUL or a U+202E
// never lands raw in a message.
std::string DescribeToken(std::string_view text, TokenKind kind) {
  if (kind == TokenKind::EndOfInput) return "end of input";
  return "'" + diag::EscapeForMessage(text, 40) + "'";
}

}  // namespace

Parser::Parser(const diag::SourceFile& source, const std::vector<Token>& tokens,
               diag::DiagnosticBag& diags, const diag::DiagnosticBag* lexed)
    : source_(source), tokens_(tokens), diags_(diags) {
  SHREW_CHECK(!tokens_.empty() && tokens_.back().kind == TokenKind::EndOfInput);
  // What the lexer reported already (a malformed number stays one literal
  // token): the parser stays quiet at those places.
  for (const diag::Diagnostic& d : (lexed != nullptr ? *lexed : diags).all()) {
    if (d.span.valid()) reported_.push_back(d.span.offset);
  }
  std::sort(reported_.begin(), reported_.end());
  brace_depth_.resize(tokens_.size() + 1);
  int32_t depth = 0;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    brace_depth_[i] = depth;
    if (tokens_[i].kind == TokenKind::LBrace) ++depth;
    if (tokens_[i].kind == TokenKind::RBrace) --depth;
  }
  brace_depth_[tokens_.size()] = depth;
}

Parser::DepthGuard::DepthGuard(Parser* p) : parser_(p), ok_(++p->depth_ <= kMaxNestingDepth) {
  if (!ok_) {
    p->Error(diag::Kind::NestingTooDeep, p->Cur().span,
             "nesting is too deep (more than " + std::to_string(kMaxNestingDepth) + " levels)");
  }
}

const Token& Parser::Peek(size_t ahead) const {
  size_t i = std::min(pos_ + ahead, tokens_.size() - 1);
  return tokens_[i];
}

bool Parser::AtListEnd() const {
  TokenKind k = Kind();
  return k == TokenKind::RBrace || k == TokenKind::EndOfInput || IsTopLevelDirective(k);
}

bool Parser::AtGraphStatementOnNewLine() const {
  TokenKind k = Kind();
  return pos_ > 0 && tokens_[pos_ - 1].span.line < Cur().span.line &&
         (k == TokenKind::KwInput || k == TokenKind::KwParam || k == TokenKind::KwNode ||
          k == TokenKind::KwOutput || k == TokenKind::AtAssert || k == TokenKind::AtCheck);
}

const Token& Parser::Advance() {
  const Token& t = tokens_[pos_];
  if (t.kind != TokenKind::EndOfInput) ++pos_;
  return t;
}

bool Parser::Match(TokenKind kind) {
  if (!At(kind)) return false;
  Advance();
  return true;
}

diag::Span Parser::SpanSince(size_t start) const {
  if (pos_ <= start) {
    diag::Span s = tokens_[start].span;
    s.length = 0;
    return s;
  }
  return diag::Span::Cover(tokens_[start].span, tokens_[pos_ - 1].span);
}

void Parser::Error(diag::Kind kind, diag::Span span, std::string message) {
  if (panic_) return;
  panic_ = true;
  // A second error at the very same place (an item and then its enclosing
  // list both stopped at the same '@graph' or end of input) adds nothing.
  if (span.offset == last_error_offset_) return;
  last_error_offset_ = span.offset;
  diags_.Add(kind, span, std::move(message));
}

void Parser::ErrorExpected(std::string_view what, std::string_view hint) {
  if (panic_) return;
  if (At(TokenKind::Error) || std::binary_search(reported_.begin(), reported_.end(), Cur().span.offset)) {
    panic_ = true;  // already reported by the lexer
    return;
  }
  std::string message = "expected ";
  message.append(what);
  message += ", got ";
  message += DescribeToken(Text(Cur()), Kind());
  if (!hint.empty()) message.append("; ").append(hint);
  Error(diag::Kind::ExpectedToken, Cur().span, std::move(message));
}

bool Parser::Expect(TokenKind kind) {
  if (Match(kind)) return true;
  std::string what = "'";
  what.append(TokenSpelling(kind));
  what += '\'';
  if (kind == TokenKind::Semicolon && pos_ > 0 && tokens_[pos_ - 1].span.line < Cur().span.line &&
      !At(TokenKind::Error)) {
    // A ';' forgotten at the end of a line: point where it belongs, not at
    // the next line's first word (which is fine as it is).
    const Token& prev = tokens_[pos_ - 1];
    std::string message = "expected " + what + " after " + DescribeToken(Text(prev), prev.kind) +
                          ", got " + DescribeToken(Text(Cur()), Kind());
    if (Kind() != TokenKind::EndOfInput) message += " on line " + std::to_string(Cur().span.line);
    Error(diag::Kind::ExpectedToken, source_.MakeSpan(prev.span.offset + prev.span.length, 0),
          std::move(message));
    last_error_offset_ = Cur().span.offset;  // a follow-up error at that word adds nothing
    return false;
  }
  // `a = 1;`, `op = relu(x);`: the usual spelling from other languages.
  std::string_view hint;
  if (kind == TokenKind::Colon && At(TokenKind::Assign)) hint = "keys and values are separated by ':'";
  // `{ D: 8 }`, `input x: f32, output …`: ';' ends every statement and
  // field, the last one before '}' too.
  if (kind == TokenKind::Semicolon && At(TokenKind::RBrace)) hint = "the last statement or field before '}' ends with ';' too";
  if (kind == TokenKind::Semicolon && At(TokenKind::Comma)) hint = "statements and fields end with ';', not ','";
  ErrorExpected(what, hint);
  return false;
}

std::string Parser::MissingAtHint(bool top_level) const {
  if (!AtKey()) return {};
  const TokenKind directive = ClassifyDirective("@" + std::string(Text(Cur())));
  const bool fits = top_level ? IsTopLevelDirective(directive)
                              : directive == TokenKind::AtAssert || directive == TokenKind::AtCheck;
  return fits ? "directives start with '@': write @" + std::string(Text(Cur())) : std::string();
}

bool Parser::ExpectListEnd(TokenKind closer, std::string_view hint) {
  if (Match(closer)) return true;
  // `sum(x, axis=1)`: a named argument from Python.
  const bool keyword_argument = closer == TokenKind::RParen && At(TokenKind::Assign) && hint.empty();
  ErrorExpected("',' or '" + std::string(TokenSpelling(closer)) + "'",
                keyword_argument ? "named arguments are written name: value" : hint);
  return false;
}

bool Parser::ExpectClosingBrace(std::string_view what, diag::Span open) {
  if (Match(TokenKind::RBrace)) return true;
  std::string expected = "'}' closing ";
  expected.append(what);
  expected += " (opened at line " + std::to_string(open.line) + ")";
  ErrorExpected(expected);
  return false;
}

ast::Identifier Parser::TakeIdentifier() {
  const Token& t = Advance();
  return ast::Identifier{std::string(Text(t)), t.span};
}

bool Parser::ExpectKey(ast::Identifier* out) {
  if (!AtKey()) {
    // `node f32 {`, `param true: ...`: the word looks like a name but is not one.
    ErrorExpected("name", IsReservedWord(Kind()) ? "'" + std::string(Text(Cur())) +
                                                       "' is a reserved word and cannot be a name"
                                                 : std::string());
    return false;
  }
  *out = TakeIdentifier();
  return true;
}

bool Parser::ExpectIdentifier(ast::Identifier* out) {
  if (!At(TokenKind::Identifier)) {
    ErrorExpected("identifier");
    return false;
  }
  *out = TakeIdentifier();
  return true;
}

bool Parser::ExpectString(ast::StringValue* out) {
  if (!At(TokenKind::StringLiteral)) {
    ErrorExpected("string");
    return false;
  }
  const Token& t = Advance();
  *out = ast::StringValue{UnescapeString(Text(t)), t.span};
  return true;
}

void Parser::Recover(size_t start, Level level) {
  // Braces opened by the failed construct itself (a dict, a node body) are
  // still open: count them so their '}' is skipped, not taken as ours.
  int32_t depth = std::max<int32_t>(0, brace_depth_[pos_] - brace_depth_[std::min(start, pos_)]);
  while (!AtEnd()) {
    TokenKind k = Kind();
    if (IsTopLevelDirective(k)) break;
    if (depth == 0) {
      if (k == TokenKind::Semicolon) {
        Advance();
        break;
      }
      if (k == TokenKind::RBrace) break;
      if (level == Level::Graph && pos_ > start && AtGraphStatementOnNewLine()) break;
    }
    if (k == TokenKind::LBrace) ++depth;
    if (k == TokenKind::RBrace) --depth;
    Advance();
  }
  // Past the end every enclosing construct is unterminated too; one error
  // about that is enough, so stay quiet.
  if (!AtEnd()) panic_ = false;
}

void Parser::RecoverTopLevel() {
  while (!AtEnd() && !IsTopLevelDirective(Kind())) Advance();
  if (!AtEnd()) panic_ = false;
}

ast::Program Parser::ParseProgram() {
  ast::Program program;
  while (!AtEnd()) {
    size_t start = pos_;
    if (IsTopLevelDirective(Kind())) {
      ParseBlock(&program);
    } else {
      ErrorExpected("a top-level block such as @graph", MissingAtHint(true));
    }
    if (Failed()) RecoverTopLevel();
    if (pos_ == start) Advance();
  }
  return program;
}

ast::ExprPtr Parser::ParseStandaloneExpression() {
  ast::ExprPtr e = ParseExpr();
  if (!AtEnd()) ErrorExpected("end of input");
  return e;
}

}  // namespace internal

ast::Program ParseTokens(const diag::SourceFile& source, const std::vector<Token>& tokens,
                         diag::DiagnosticBag& diags) {
  internal::Parser parser(source, tokens, diags);
  return parser.ParseProgram();
}

namespace {

// The lexer reports all its errors before the parser runs: the two lists,
// each capped as `out` is, merged in source order, so the first diagnostic
// is the first error (`input x Tensor…` on line 2 was listed after a stray
// '#' on line 5); `out` adds its own note past its cap. An insertion sort of
// pointers, the lists being nearly in order (std::stable_sort of the
// diagnostics cost 3 KB of wasm).
void InSourceOrder(const diag::DiagnosticBag& lexed, const diag::DiagnosticBag& parsed, diag::DiagnosticBag& out) {
  std::vector<const diag::Diagnostic*> order;
  const diag::Diagnostic* capped = nullptr;  // a list's cap note: at the end, where `out` caps too
  auto key = [](const diag::Diagnostic* d) { return d->span.valid() ? d->span.offset : UINT32_MAX; };
  for (const diag::DiagnosticBag* bag : {&lexed, &parsed}) {
    for (const diag::Diagnostic& d : bag->all()) {
      if (d.kind == diag::Kind::TooManyDiagnostics) {
        capped = &d;
        continue;
      }
      size_t at = order.size();
      while (at > 0 && key(order[at - 1]) > key(&d)) --at;
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), &d);
    }
  }
  for (const diag::Diagnostic* d : order) out.Add(d->kind, d->span, d->message);
  if (capped != nullptr) out.Add(capped->kind, capped->span, capped->message);
}

}  // namespace

namespace {

// Lexes, parses with `parse`, and lists both steps' diagnostics in source order.
template <typename Result>
Result LexAndParse(const diag::SourceFile& source, diag::DiagnosticBag& diags, Result (internal::Parser::*parse)()) {
  diag::DiagnosticBag lexed(diags.max_errors()), parsed(diags.max_errors());
  std::vector<Token> tokens = Lex(source, lexed);
  internal::Parser parser(source, tokens, parsed, &lexed);
  Result result = (parser.*parse)();
  InSourceOrder(lexed, parsed, diags);
  return result;
}

}  // namespace

ast::Program Parse(const diag::SourceFile& source, diag::DiagnosticBag& diags) {
  return LexAndParse(source, diags, &internal::Parser::ParseProgram);
}

ast::ExprPtr ParseExpression(const diag::SourceFile& source, diag::DiagnosticBag& diags) {
  return LexAndParse(source, diags, &internal::Parser::ParseStandaloneExpression);
}

}  // namespace shrew::front
