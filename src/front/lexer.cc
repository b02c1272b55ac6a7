#include "front/lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "base/spelling.h"
#include "diag/utf8.h"

namespace shrew::front {
namespace {

using diag::Kind;

// SourceFile spans are 32-bit; leave room so offset + length never wraps.
constexpr size_t kMaxSourceBytes = std::numeric_limits<uint32_t>::max() - 1;

bool IsWordStart(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsWordByte(unsigned char c) { return IsWordStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(unsigned char c) { return c >= '0' && c <= '9'; }
// §2.2: vertical tab (0x0B) is deliberately missing.
bool IsWhitespace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// Bytes that can start some token; anything else is an unexpected character.
bool StartsToken(unsigned char c) {
  if (IsWordByte(c)) return true;
  switch (c) {
    case '"': case '@': case '{': case '}': case '(': case ')': case '[': case ']':
    case ';': case ',': case '.': case ':': case '+': case '-': case '*': case '/':
    case '%': case '^': case '~': case '=': case '!': case '<': case '>': case '&':
    case '|': case '?':
      return true;
    default:
      return false;
  }
}

// How an unexpected character is shown: printable ASCII and visible UTF-8
// characters quoted as they are; invisible and bidi characters as their code
// point and name (raw they would look empty or reorder the terminal line);
// control bytes and broken UTF-8 as '\xNN'.
std::string DescribeCharacter(std::string_view text, size_t pos) {
  uint32_t cp = 0;
  size_t n = diag::DecodeUtf8(text, pos, &cp);
  if (n > 1 && diag::IsInvisible(cp)) {
    const char* name = diag::CodePointName(cp);
    return diag::CodePointLabel(cp) + (name ? std::string(" (") + name + ")" : "");
  }
  // Quoted, a combining mark draws onto the quote and cannot be seen.
  if (n > 1 && diag::DisplayWidth(cp) == 0) return diag::CodePointLabel(cp) + " (a combining mark)";
  if (n > 1 || (n == 1 && cp >= 0x21 && cp <= 0x7E)) return "'" + std::string(text.substr(pos, n)) + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  unsigned char c = static_cast<unsigned char>(text[pos]);
  return std::string("'\\x") + kHex[c >> 4] + kHex[c & 15] + "'";
}

// A file saved as UTF-16 or UTF-32 (Windows editors, PowerShell's `>`) is a
// NUL between every character as UTF-8: named once here, where it would be
// dozens of unexpected-character errors. Detected by a byte order mark, or
// without one by the NULs of its first up to 32 characters: in most of
// them one byte is NUL (the high byte of a Latin character; `é` too), always
// the same one of the pair, where UTF-8 source has none.
const char* WideEncoding(std::string_view t) {
  auto starts = [&](std::string_view prefix) { return t.substr(0, prefix.size()) == prefix; };
  using namespace std::string_view_literals;
  if (starts("\xFF\xFE\0\0"sv)) return "UTF-32 (little-endian)";
  if (starts("\0\0\xFE\xFF"sv)) return "UTF-32 (big-endian)";
  if (starts("\xFF\xFE"sv)) return "UTF-16 (little-endian)";
  if (starts("\xFE\xFF"sv)) return "UTF-16 (big-endian)";
  const size_t pairs = std::min<size_t>(t.size(), 64) / 2;
  if (pairs < 2) return nullptr;
  size_t low_nul = 0, high_nul = 0;  // NULs at even / odd offsets
  for (size_t i = 0; i < pairs; ++i) {
    low_nul += t[2 * i] == 0;
    high_nul += t[2 * i + 1] == 0;
  }
  // Three in four characters with the NUL in its place, few the other way.
  if (4 * high_nul >= 3 * pairs && 4 * low_nul <= pairs) return "UTF-16 (little-endian)";
  if (4 * low_nul >= 3 * pairs && 4 * high_nul <= pairs) return "UTF-16 (big-endian)";
  return nullptr;
}

class Lexer {
 public:
  Lexer(const diag::SourceFile& source, diag::DiagnosticBag& diags)
      : source_(source), diags_(diags), text_(source.text()) {}

  std::vector<Token> Run();

 private:
  unsigned char At(size_t i) const {
    return i < text_.size() ? static_cast<unsigned char>(text_[i]) : 0;
  }
  // Same result as SourceFile::MakeSpan, but spans are requested in source
  // order, so the line is tracked incrementally instead of binary-searched.
  diag::Span MakeSpan(size_t begin, size_t length);
  void Emit(TokenKind kind, size_t begin, size_t end) {
    tokens_.push_back({kind, MakeSpan(begin, end - begin)});
  }
  void Report(Kind kind, size_t begin, size_t length, std::string message) {
    diags_.Add(kind, MakeSpan(begin, length), std::move(message));
  }

  // Each Lex* starts at pos_ (already known to start its class) and leaves
  // pos_ after the token; all of them consume at least one byte.
  void LexWord();
  void LexNumber();
  bool LexRadixLiteral(size_t begin);
  void LexString();
  void LexDirective();
  void LexPunctuation();
  void LexUnexpected();
  // Skips whitespace and comments; returns false at the end of input.
  bool SkipTrivia();

  const diag::SourceFile& source_;
  diag::DiagnosticBag& diags_;
  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Token> tokens_;
  // Line bookkeeping for MakeSpan: newlines before `line_scan_` are counted.
  size_t line_scan_ = 0;
  size_t line_start_ = 0;
  uint32_t line_ = 1;
};

diag::Span Lexer::MakeSpan(size_t begin, size_t length) {
  if (begin < line_scan_) {  // not expected, but stay correct
    return source_.MakeSpan(static_cast<uint32_t>(begin), static_cast<uint32_t>(length));
  }
  // Search only [line_scan_, begin): a search to the next newline could
  // rescan a long line once per token (quadratic on a one-line 10 MB file).
  while (line_scan_ < begin) {
    const void* nl = std::memchr(text_.data() + line_scan_, '\n', begin - line_scan_);
    if (nl == nullptr) break;
    line_start_ = static_cast<size_t>(static_cast<const char*>(nl) - text_.data()) + 1;
    line_scan_ = line_start_;
    ++line_;
  }
  line_scan_ = begin;
  diag::Span span;
  span.offset = static_cast<uint32_t>(begin);
  span.length = static_cast<uint32_t>(length);
  span.line = line_;
  span.column = static_cast<uint32_t>(begin - line_start_ + 1);
  return span;
}

std::vector<Token> Lexer::Run() {
  if (text_.size() > kMaxSourceBytes) {
    Report(Kind::SourceTooLarge, 0, 0, "source is too large (more than 4 GiB)");
    text_ = {};
  } else if (const char* encoding = WideEncoding(text_)) {
    Report(Kind::UnexpectedCharacter, 0, 0,
           std::string("source is ") + encoding + ", not UTF-8: save the file as UTF-8");
    text_ = {};
  }
  // Typical code has a token per 4-6 bytes; one reservation avoids most of
  // the regrowth copies on big inputs without overcommitting on odd ones.
  tokens_.reserve(text_.size() / 8 + 16);
  while (SkipTrivia()) {
    unsigned char c = At(pos_);
    if (IsWordStart(c)) {
      LexWord();
    } else if (IsDigit(c)) {
      LexNumber();
    } else if (c == '"') {
      LexString();
    } else if (c == '@') {
      LexDirective();
    } else if (StartsToken(c)) {
      LexPunctuation();
    } else {
      LexUnexpected();
    }
  }
  Emit(TokenKind::EndOfInput, text_.size(), text_.size());
  return std::move(tokens_);
}

bool Lexer::SkipTrivia() {
  while (pos_ < text_.size()) {
    unsigned char c = At(pos_);
    if (IsWhitespace(c)) {
      ++pos_;
    } else if (c == '/' && At(pos_ + 1) == '/') {
      size_t end = text_.find('\n', pos_ + 2);
      pos_ = end == std::string_view::npos ? text_.size() : end;
    } else if (c == '/' && At(pos_ + 1) == '*') {
      // Block comments do not nest (§2.2): the first `*/` closes.
      size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) {
        Report(Kind::UnterminatedBlockComment, pos_, 2, "unterminated block comment");
        // An error token, as for an unterminated string, so the parser does
        // not add "expected '}', got end of input" inside an open block.
        Emit(TokenKind::Error, pos_, text_.size());
        pos_ = text_.size();
      } else {
        pos_ = end + 2;
      }
    } else {
      return true;
    }
  }
  return false;
}

void Lexer::LexWord() {
  size_t begin = pos_;
  while (pos_ < text_.size() && IsWordByte(At(pos_))) ++pos_;
  Emit(ClassifyWord(text_.substr(begin, pos_ - begin)), begin, pos_);
}

void Lexer::LexNumber() {
  size_t begin = pos_;
  while (IsDigit(At(pos_))) ++pos_;
  if (pos_ == begin + 1 && At(begin) == '0' && LexRadixLiteral(begin)) return;
  bool is_float = false;
  // A '.' belongs to the number only when a digit follows (`1.` is 1 then '.').
  if (At(pos_) == '.' && IsDigit(At(pos_ + 1))) {
    is_float = true;
    pos_ += 1;
    while (IsDigit(At(pos_))) ++pos_;
  }
  bool malformed = false;
  if (At(pos_) == 'e' || At(pos_) == 'E') {
    // `e` right after the digits always starts an exponent (§2.6).
    is_float = true;
    ++pos_;
    if (At(pos_) == '+' || At(pos_) == '-') ++pos_;
    if (!IsDigit(At(pos_))) malformed = true;
    while (IsDigit(At(pos_))) ++pos_;
  }
  std::string_view text = text_.substr(begin, pos_ - begin);
  if (!is_float) {
    int64_t value;
    malformed = !ParseIntLiteral(text, &value);
  }
  if (malformed) {
    // Keep at most a readable prefix of a 10 MB digit string in the message.
    std::string shown(text.substr(0, 64));
    if (text.size() > 64) shown += "...";
    Report(Kind::InvalidNumber, begin, pos_ - begin, "invalid number '" + shown + "'");
  }
  Emit(is_float ? TokenKind::FloatLiteral : TokenKind::IntLiteral, begin, pos_);
}

// `0x1F`, `0b101`, `0o17`: other languages' radix prefixes. §2.6 has decimal
// numbers only, which the message says with the value to write; the whole
// word is one token, so no "expected ';', got 'x1F'" follows.
bool Lexer::LexRadixLiteral(size_t begin) {
  const char prefix = static_cast<char>(At(pos_) | 0x20);
  const int base = prefix == 'x' ? 16 : prefix == 'b' ? 2 : prefix == 'o' ? 8 : 0;
  if (base == 0 || !IsWordByte(At(pos_ + 1))) return false;
  pos_ += 1;
  const size_t digits = pos_;
  while (pos_ < text_.size() && IsWordByte(At(pos_))) ++pos_;
  uint64_t value = 0;
  bool valid = true;
  for (size_t k = digits; k < pos_ && valid; ++k) {
    const unsigned char c = At(k);
    const int d = IsDigit(c) ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 99;
    valid = d < base && value <= (uint64_t{1} << 63) / static_cast<uint64_t>(base);
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  valid = valid && value < (uint64_t{1} << 63);
  const std::string_view text = text_.substr(begin, std::min<size_t>(pos_ - begin, 64));
  Report(Kind::InvalidNumber, begin, pos_ - begin,
         "'" + std::string(text) + (pos_ - begin > 64 ? "..." : "") +
             "' is not a number: numbers are written in decimal" +
             (valid ? "; write " + std::to_string(value) : std::string()));
  Emit(TokenKind::IntLiteral, begin, pos_);
  return true;
}

void Lexer::LexString() {
  size_t begin = pos_++;
  while (pos_ < text_.size()) {
    unsigned char c = At(pos_);
    if (c == '"') {
      ++pos_;
      Emit(TokenKind::StringLiteral, begin, pos_);
      return;
    }
    // A backslash always takes the next byte with it (even a quote).
    pos_ += c == '\\' ? 2 : 1;
  }
  pos_ = text_.size();
  Report(Kind::UnterminatedString, begin, 1, "unterminated string literal");
  Emit(TokenKind::Error, begin, pos_);
}

void Lexer::LexDirective() {
  size_t begin = pos_++;
  while (pos_ < text_.size() && IsWordByte(At(pos_))) ++pos_;
  std::string_view text = text_.substr(begin, pos_ - begin);
  TokenKind kind = ClassifyDirective(text);
  if (kind == TokenKind::Error) {
    std::string shown(text.substr(0, 64));
    if (text.size() > 64) shown += "...";
    // A lone '@' is most likely `a @ b`, Python's matrix product.
    static constexpr std::string_view kDirectives[] = {
#define SHREW_DIRECTIVE(Name, spelling, top_level) spelling,
#include "front/token_kinds.def"
    };
    Report(Kind::UnknownDirective, begin, pos_ - begin,
           "unknown directive '" + shown + "'" +
               (text == "@" ? "; a matrix product is written matmul(a, b)" : DidYouMean(text, kDirectives)));
  }
  Emit(kind, begin, pos_);
}

void Lexer::LexPunctuation() {
  size_t begin = pos_;
  unsigned char c = At(pos_);
  unsigned char next = At(pos_ + 1);
  TokenKind kind = TokenKind::Error;
  size_t length = 1;
  // Maximal munch with one byte of look-ahead (§2.8).
  auto pair = [&](unsigned char second, TokenKind two, TokenKind one) {
    if (next == second) {
      length = 2;
      return two;
    }
    return one;
  };
  switch (c) {
    case '{': kind = TokenKind::LBrace; break;
    case '}': kind = TokenKind::RBrace; break;
    case '(': kind = TokenKind::LParen; break;
    case ')': kind = TokenKind::RParen; break;
    case '[': kind = TokenKind::LBracket; break;
    case ']': kind = TokenKind::RBracket; break;
    case ';': kind = TokenKind::Semicolon; break;
    case ',': kind = TokenKind::Comma; break;
    case '.': kind = TokenKind::Dot; break;
    case '%': kind = TokenKind::Percent; break;
    case '^': kind = TokenKind::Caret; break;
    case '~': kind = TokenKind::Tilde; break;
    case '+': kind = TokenKind::Plus; break;
    case '/': kind = TokenKind::Slash; break;  // comments were skipped already
    case ':': kind = pair(':', TokenKind::ColonColon, TokenKind::Colon); break;
    case '-': kind = pair('>', TokenKind::Arrow, TokenKind::Minus); break;
    case '*': kind = pair('*', TokenKind::StarStar, TokenKind::Star); break;
    case '=': kind = pair('=', TokenKind::EqualEqual, TokenKind::Assign); break;
    case '!': kind = pair('=', TokenKind::BangEqual, TokenKind::Bang); break;
    case '&': kind = pair('&', TokenKind::AmpAmp, TokenKind::Amp); break;
    case '|': kind = pair('|', TokenKind::PipePipe, TokenKind::Pipe); break;
    case '?': kind = pair('?', TokenKind::QuestionQuestion, TokenKind::Question); break;
    case '<':
      kind = next == '=' ? TokenKind::LessEqual : next == '<' ? TokenKind::LessLess : TokenKind::Less;
      length = kind == TokenKind::Less ? 1 : 2;
      break;
    case '>':
      kind = next == '=' ? TokenKind::GreaterEqual
             : next == '>' ? TokenKind::GreaterGreater
                           : TokenKind::Greater;
      length = kind == TokenKind::Greater ? 1 : 2;
      break;
    default:
      break;  // unreachable: StartsToken() listed exactly these bytes
  }
  pos_ += length;
  Emit(kind, begin, pos_);
}

void Lexer::LexUnexpected() {
  size_t begin = pos_;
  if (At(pos_) == '\'') {
    // `init: 'zeros';`: one error for the whole single-quoted text on this
    // line (not one per quote), saying how strings are written.
    size_t end = text_.find_first_of("'\n", pos_ + 1);
    if (end != std::string_view::npos && text_[end] == '\'') {
      Report(Kind::UnexpectedCharacter, begin, end + 1 - begin,
             "unexpected character '''; strings are written in double quotes: \"" +
                 diag::EscapeForMessage(text_.substr(begin + 1, end - begin - 1), 40) + "\"");
      pos_ = end + 1;
      Emit(TokenKind::Error, begin, pos_);
      return;
    }
  }
  // One diagnostic and one Error token for a whole run of bad bytes, so a
  // multi-byte UTF-8 character or a binary blob is not one error per byte.
  while (pos_ < text_.size() && !StartsToken(At(pos_)) && !IsWhitespace(At(pos_))) ++pos_;
  // `# note`: a comment in Python's or the shell's spelling.
  const char* hint = At(begin) == '#'                         ? "; comments start with // or /*"
                     : begin == 0 && text_.starts_with("\xEF\xBB\xBF") ? "; save the file as UTF-8 without one"
                                                                        : "";
  // The span covers the character the message names: all of its UTF-8
  // bytes (one byte of an emoji would underline half a UTF-16 pair in an editor).
  uint32_t cp = 0;
  const size_t length = std::max<size_t>(1, diag::DecodeUtf8(text_, begin, &cp));
  Report(Kind::UnexpectedCharacter, begin, length, "unexpected character " + DescribeCharacter(text_, begin) + hint);
  Emit(TokenKind::Error, begin, pos_);
}

}  // namespace

std::vector<Token> Lex(const diag::SourceFile& source, diag::DiagnosticBag& diags) {
  return Lexer(source, diags).Run();
}

TokenKind ClassifyWord(std::string_view word) {
  static const auto* const kWords = [] {
    auto* map = new std::unordered_map<std::string_view, TokenKind>();
#define SHREW_SOFT_KEYWORD(Name, spelling) map->emplace(spelling, TokenKind::Name);
#define SHREW_RESERVED_WORD(Name, spelling) map->emplace(spelling, TokenKind::Name);
#include "front/token_kinds.def"
    return map;
  }();
  if (word == "_") return TokenKind::Underscore;
  auto it = kWords->find(word);
  return it == kWords->end() ? TokenKind::Identifier : it->second;
}

TokenKind ClassifyDirective(std::string_view text) {
  static const auto* const kDirectives = [] {
    auto* map = new std::unordered_map<std::string_view, TokenKind>();
#define SHREW_DIRECTIVE(Name, spelling, top_level) map->emplace(spelling, TokenKind::Name);
#include "front/token_kinds.def"
    return map;
  }();
  auto it = kDirectives->find(text);
  return it == kDirectives->end() ? TokenKind::Error : it->second;
}

std::string UnescapeString(std::string_view raw) {
  if (!raw.empty() && raw.front() == '"') raw.remove_prefix(1);
  if (!raw.empty() && raw.back() == '"') {
    // Drop the closing quote unless it is escaped (`"a\"` is unterminated).
    size_t backslashes = 0;
    for (size_t i = raw.size() - 1; i > 0 && raw[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 0) raw.remove_suffix(1);
  }
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 == raw.size()) {
      out += c;
      continue;
    }
    char next = raw[++i];
    switch (next) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      default:  // unknown escapes keep both bytes (§2.7)
        out += '\\';
        out += next;
        break;
    }
  }
  return out;
}

bool ParseIntLiteral(std::string_view text, int64_t* value) {
  *value = 0;
  if (text.empty()) return false;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (ec != std::errc() || end != text.data() + text.size()) return false;
  *value = v;
  return true;
}

bool ParseFloatLiteral(std::string_view text, double* value) {
  *value = 0;
  if (text.empty() || !IsDigit(static_cast<unsigned char>(text.front()))) return false;
  // strtod, not std::from_chars: Emscripten 3.1.6's libc++ has no
  // floating-point from_chars. strtod rounds to nearest and gives +inf for
  // `1e999`; hex floats are not .sw literals, so reject them first. The text
  // is a validated literal, so the C locale's decimal point is all it needs.
  for (char c : text) {
    if (c == 'x' || c == 'X' || c == 'p' || c == 'P') return false;
  }
  std::string copy(text);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return false;
  *value = v;
  return true;
}

}  // namespace shrew::front
