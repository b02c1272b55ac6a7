#include "front/lexer.h"

#include <gtest/gtest.h>

#include <ctime>
#include <cmath>
#include <random>
#include <string>
#include <vector>
#include "support/sanitizer.h"

namespace shrew::front {
namespace {

using diag::Kind;
using K = TokenKind;

// Time bounds measure CPU time (std::clock), so a busy machine does not make
// them flaky; support/sanitizer.h scales them for slow builds.
using shrew::testing::kTimeScale;

struct Lexed {
  explicit Lexed(std::string text) : source("t.sw", std::move(text)) {
    tokens = Lex(source, diags);
  }
  std::vector<TokenKind> kinds() const {
    std::vector<TokenKind> out;
    for (const Token& t : tokens) out.push_back(t.kind);
    return out;
  }
  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const Token& t : tokens) out.emplace_back(TokenText(source, t));
    return out;
  }
  std::string messages() const {
    std::string out;
    for (const diag::Diagnostic& d : diags.all()) out += std::string(d.code()) + " " + d.message + "\n";
    return out;
  }
  diag::SourceFile source;
  diag::DiagnosticBag diags;
  std::vector<Token> tokens;
};

void ExpectOneError(const Lexed& l, Kind kind, const std::string& message, uint32_t line,
                    uint32_t column) {
  ASSERT_EQ(l.diags.all().size(), 1u) << l.messages();
  const diag::Diagnostic& d = l.diags.all()[0];
  EXPECT_EQ(d.kind, kind);
  EXPECT_EQ(d.message, message);
  EXPECT_EQ(d.span.line, line);
  EXPECT_EQ(d.span.column, column);
}

TEST(LexerTest, EmptyInputIsJustEndOfInput) {
  Lexed l("");
  ASSERT_EQ(l.tokens.size(), 1u);
  EXPECT_EQ(l.tokens[0].kind, K::EndOfInput);
  EXPECT_EQ(l.tokens[0].span.offset, 0u);
  EXPECT_EQ(l.tokens[0].span.length, 0u);
  EXPECT_EQ(l.tokens[0].span.line, 1u);
  EXPECT_EQ(l.tokens[0].span.column, 1u);
  EXPECT_FALSE(l.diags.has_errors());
}

TEST(LexerTest, PunctuationIsMaximalMunch) {
  Lexed l("{ } ( ) [ ] ; , . : :: + - -> * ** / % ^ ~ = == ! != < <= << > >= >> & && | || ? ??");
  std::vector<TokenKind> expected = {
      K::LBrace, K::RBrace, K::LParen, K::RParen, K::LBracket, K::RBracket, K::Semicolon,
      K::Comma, K::Dot, K::Colon, K::ColonColon, K::Plus, K::Minus, K::Arrow, K::Star,
      K::StarStar, K::Slash, K::Percent, K::Caret, K::Tilde, K::Assign, K::EqualEqual, K::Bang,
      K::BangEqual, K::Less, K::LessEqual, K::LessLess, K::Greater, K::GreaterEqual,
      K::GreaterGreater, K::Amp, K::AmpAmp, K::Pipe, K::PipePipe, K::Question,
      K::QuestionQuestion, K::EndOfInput};
  EXPECT_EQ(l.kinds(), expected);
  EXPECT_FALSE(l.diags.has_errors());
  // Without spaces: `->` then `-`, `***` is `**` `*`, `>>=` is `>>` `=`, `:::` is `::` `:`.
  Lexed packed("->-***>>=:::");
  EXPECT_EQ(packed.kinds(), (std::vector<TokenKind>{K::Arrow, K::Minus, K::StarStar, K::Star,
                                                    K::GreaterGreater, K::Assign, K::ColonColon,
                                                    K::Colon, K::EndOfInput}));
}

TEST(LexerTest, SpellingsComeFromTheDefFile) {
  EXPECT_EQ(TokenSpelling(K::StarStar), "**");
  EXPECT_EQ(TokenSpelling(K::KwLrSchedule), "lr_schedule");
  EXPECT_EQ(TokenSpelling(K::AtCustomOp), "@custom_op");
  EXPECT_EQ(TokenSpelling(K::Identifier), "");
  EXPECT_STREQ(TokenKindName(K::KwInput), "KwInput");
  EXPECT_STREQ(TokenKindName(K::EndOfInput), "EndOfInput");
}

TEST(LexerTest, KeywordTablesHaveTheSpecifiedSizes) {
  int soft = 0, reserved = 0, dtypes = 0, directives = 0, top = 0;
  for (int i = 0; i < kTokenKindCount; ++i) {
    auto k = static_cast<TokenKind>(i);
    soft += IsSoftKeyword(k);
    reserved += IsReservedWord(k);
    dtypes += IsDtype(k);
    directives += IsDirective(k);
    top += IsTopLevelDirective(k);
    // Every word with a spelling classifies back to its own kind.
    if (IsSoftKeyword(k) || IsReservedWord(k)) EXPECT_EQ(ClassifyWord(TokenSpelling(k)), k);
    if (IsDirective(k)) EXPECT_EQ(ClassifyDirective(TokenSpelling(k)), k);
  }
  EXPECT_EQ(soft, 46);  // LANGUAGE.md §2.5 table A
  EXPECT_EQ(reserved, 19);  // table B
  EXPECT_EQ(dtypes, 15);
  EXPECT_EQ(directives, 14);  // §2.4
  EXPECT_EQ(top, 11);
}

TEST(LexerTest, WordsKeywordsAndDirectives) {
  Lexed l("inputs input Tensor tensor _ _x x_1 range @model @graph @hint f32 bool null");
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Identifier, K::KwInput, K::KwTensor,
                                               K::Identifier, K::Underscore, K::Identifier,
                                               K::Identifier, K::KwRange, K::AtModel, K::AtGraph,
                                               K::AtHint, K::KwF32, K::KwBool, K::KwNull,
                                               K::EndOfInput}));
  EXPECT_EQ(l.texts()[0], "inputs");
  EXPECT_EQ(l.texts()[8], "@model");
  EXPECT_FALSE(l.diags.has_errors());
}

TEST(LexerTest, UnknownDirective) {
  Lexed l("\n  @Model {");
  ExpectOneError(l, Kind::UnknownDirective, "unknown directive '@Model'; did you mean '@model'?", 2, 3);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Error, K::LBrace, K::EndOfInput}));
  EXPECT_EQ(l.tokens[0].span.length, 6u);
}

TEST(LexerTest, MisspeltDirectiveIsToldTheOneMeant) {
  ExpectOneError(Lexed("@grpah G {"), Kind::UnknownDirective, "unknown directive '@grpah'; did you mean '@graph'?", 1, 1);
  ExpectOneError(Lexed("@custom G {"), Kind::UnknownDirective, "unknown directive '@custom'; did you mean '@custom_op'?", 1, 1);
  ExpectOneError(Lexed("@layer G {"), Kind::UnknownDirective, "unknown directive '@layer'", 1, 1);
}

TEST(LexerTest, LoneAtIsAnUnknownDirectiveNotMatmul) {
  Lexed l("x @ W");
  ExpectOneError(l, Kind::UnknownDirective, "unknown directive '@'; a matrix product is written matmul(a, b)", 1, 3);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Identifier, K::Error, K::Identifier,
                                               K::EndOfInput}));
}

TEST(LexerTest, Comments) {
  Lexed l("a//b\nc/*x*/d /* a /* b */ e */");
  EXPECT_EQ(l.texts(), (std::vector<std::string>{"a", "c", "d", "e", "*", "/", ""}));
  EXPECT_FALSE(l.diags.has_errors());
  Lexed eof_comment("a // no newline at the end");
  EXPECT_EQ(eof_comment.kinds(), (std::vector<TokenKind>{K::Identifier, K::EndOfInput}));
}

TEST(LexerTest, UnterminatedBlockComment) {
  Lexed l("x\n  /* never closed *");
  ExpectOneError(l, Kind::UnterminatedBlockComment, "unterminated block comment", 2, 3);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Identifier, K::Error, K::EndOfInput}));
}

TEST(LexerTest, Numbers) {
  Lexed l("0 007 42 1.5 1e5 1E-3 2e+4 3.25e2");
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::IntLiteral, K::IntLiteral, K::IntLiteral,
                                               K::FloatLiteral, K::FloatLiteral, K::FloatLiteral,
                                               K::FloatLiteral, K::FloatLiteral, K::EndOfInput}));
  EXPECT_EQ(l.texts()[1], "007");
  EXPECT_EQ(l.texts()[5], "1E-3");
  EXPECT_FALSE(l.diags.has_errors());
}

TEST(LexerTest, DotBelongsToANumberOnlyBeforeADigit) {
  EXPECT_EQ(Lexed("1.").kinds(), (std::vector<TokenKind>{K::IntLiteral, K::Dot, K::EndOfInput}));
  EXPECT_EQ(Lexed(".5").kinds(), (std::vector<TokenKind>{K::Dot, K::IntLiteral, K::EndOfInput}));
  Lexed l("1.e5");
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::IntLiteral, K::Dot, K::Identifier,
                                               K::EndOfInput}));
  EXPECT_EQ(l.texts()[2], "e5");
  EXPECT_EQ(Lexed("-3").kinds(), (std::vector<TokenKind>{K::Minus, K::IntLiteral, K::EndOfInput}));
}

TEST(LexerTest, InvalidNumbers) {
  ExpectOneError(Lexed("x: 1e;"), Kind::InvalidNumber, "invalid number '1e'", 1, 4);
  ExpectOneError(Lexed("\n\n 2e+ "), Kind::InvalidNumber, "invalid number '2e+'", 3, 2);
  ExpectOneError(Lexed("1.5E-x"), Kind::InvalidNumber, "invalid number '1.5E-'", 1, 1);
  // The malformed text stays one literal token so parsing continues normally.
  Lexed l("1e;");
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::FloatLiteral, K::Semicolon, K::EndOfInput}));
}

// Other languages' radix prefixes: one token, and the decimal to write.
TEST(LexerTest, RadixPrefixesAreToldToBeWrittenInDecimal) {
  Lexed hex("x + 0x1F;");
  ExpectOneError(hex, Kind::InvalidNumber, "'0x1F' is not a number: numbers are written in decimal; write 31", 1, 5);
  EXPECT_EQ(hex.kinds(), (std::vector<TokenKind>{K::Identifier, K::Plus, K::IntLiteral, K::Semicolon, K::EndOfInput}));
  EXPECT_EQ(hex.texts()[2], "0x1F");
  ExpectOneError(Lexed("0b101"), Kind::InvalidNumber, "'0b101' is not a number: numbers are written in decimal; write 5",
                 1, 1);
  ExpectOneError(Lexed("0O17"), Kind::InvalidNumber, "'0O17' is not a number: numbers are written in decimal; write 15",
                 1, 1);
  // Not a value of its base, or past i64: no value to write.
  ExpectOneError(Lexed("0b102"), Kind::InvalidNumber, "'0b102' is not a number: numbers are written in decimal", 1, 1);
  ExpectOneError(Lexed("0x8000000000000000"), Kind::InvalidNumber,
                 "'0x8000000000000000' is not a number: numbers are written in decimal", 1, 1);
  ExpectOneError(Lexed("0x7fffffffffffffff"), Kind::InvalidNumber,
                 "'0x7fffffffffffffff' is not a number: numbers are written in decimal; write 9223372036854775807", 1,
                 1);
  // `0` then a word that is no radix's digits stays as it was lexed.
  Lexed zero("0xyz");
  EXPECT_EQ(zero.diags.all().size(), 1u);
  Lexed plain("0 x");
  EXPECT_FALSE(plain.diags.has_errors());
}

TEST(LexerTest, IntegerOverflowIsReportedAndKeepsTheText) {
  Lexed ok("9223372036854775807");
  EXPECT_FALSE(ok.diags.has_errors());
  Lexed l("  9223372036854775808");
  ExpectOneError(l, Kind::InvalidNumber, "invalid number '9223372036854775808'", 1, 3);
  EXPECT_EQ(l.tokens[0].kind, K::IntLiteral);
  EXPECT_EQ(l.texts()[0], "9223372036854775808");
  // A 100k-digit literal: reported once, message shortened.
  Lexed huge(std::string(100000, '9'));
  ASSERT_EQ(huge.diags.all().size(), 1u);
  EXPECT_EQ(huge.diags.all()[0].message, "invalid number '" + std::string(64, '9') + "...'");
  EXPECT_EQ(huge.tokens[0].span.length, 100000u);
}

TEST(LexerTest, ParseIntLiteral) {
  int64_t v = -1;
  EXPECT_TRUE(ParseIntLiteral("007", &v));
  EXPECT_EQ(v, 7);
  EXPECT_TRUE(ParseIntLiteral("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_FALSE(ParseIntLiteral("9223372036854775808", &v));
  EXPECT_EQ(v, 0);
  EXPECT_FALSE(ParseIntLiteral("", &v));
}

TEST(LexerTest, ParseFloatLiteral) {
  double v = -1;
  EXPECT_TRUE(ParseFloatLiteral("0.1", &v));
  EXPECT_EQ(v, 0.1);
  EXPECT_TRUE(ParseFloatLiteral("3e-4", &v));
  EXPECT_EQ(v, 3e-4);
  EXPECT_TRUE(ParseFloatLiteral("1e999", &v));  // overflow is +inf, not an error (§2.6)
  EXPECT_TRUE(std::isinf(v) && v > 0);
  EXPECT_TRUE(ParseFloatLiteral("1e-999", &v));
  EXPECT_EQ(v, 0.0);
  EXPECT_TRUE(ParseFloatLiteral("5e-324", &v));  // smallest subnormal survives
  EXPECT_GT(v, 0.0);
  EXPECT_FALSE(ParseFloatLiteral("1e", &v));
  EXPECT_EQ(v, 0.0);
  EXPECT_FALSE(Lexed("1e999").diags.has_errors());
}

TEST(LexerTest, StringsAndEscapes) {
  Lexed l(R"("a\nb\t\\\"\d" "")");
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::StringLiteral, K::StringLiteral, K::EndOfInput}));
  EXPECT_EQ(l.texts()[0], R"("a\nb\t\\\"\d")");
  EXPECT_EQ(UnescapeString(l.texts()[0]), "a\nb\t\\\"\\d");
  EXPECT_EQ(UnescapeString(l.texts()[1]), "");
  EXPECT_FALSE(l.diags.has_errors());
}

TEST(LexerTest, StringsSpanLinesAndKeepBytesVerbatim) {
  Lexed l("\"line1\nl\xC3\xA9\xFF\" x");
  ASSERT_EQ(l.tokens.size(), 3u);
  EXPECT_EQ(UnescapeString(l.texts()[0]), "line1\nl\xC3\xA9\xFF");
  // Positions after a multi-line string count lines and bytes.
  EXPECT_EQ(l.tokens[1].span.line, 2u);
  EXPECT_EQ(l.tokens[1].span.column, 7u);
  EXPECT_FALSE(l.diags.has_errors());
}

TEST(LexerTest, UnterminatedString) {
  Lexed l("name: \"abc");
  ExpectOneError(l, Kind::UnterminatedString, "unterminated string literal", 1, 7);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Identifier, K::Colon, K::Error, K::EndOfInput}));
  // A backslash right before the end of input, and an escaped closing quote.
  ExpectOneError(Lexed("\n\"abc\\"), Kind::UnterminatedString, "unterminated string literal", 2, 1);
  ExpectOneError(Lexed("\"abc\\\""), Kind::UnterminatedString, "unterminated string literal", 1, 1);
}

TEST(LexerTest, UnexpectedCharacters) {
  ExpectOneError(Lexed("a $ b"), Kind::UnexpectedCharacter, "unexpected character '$'", 1, 3);
  ExpectOneError(Lexed("# note"), Kind::UnexpectedCharacter, "unexpected character '#'; comments start with // or /*", 1,
                 1);
  ExpectOneError(Lexed("`"), Kind::UnexpectedCharacter, "unexpected character '`'", 1, 1);
  ExpectOneError(Lexed("'"), Kind::UnexpectedCharacter, "unexpected character '''", 1, 1);
  ExpectOneError(Lexed("\\"), Kind::UnexpectedCharacter, "unexpected character '\\'", 1, 1);
  // Vertical tab is not whitespace (§2.2); control bytes are shown escaped.
  ExpectOneError(Lexed("a\vb"), Kind::UnexpectedCharacter, "unexpected character '\\x0b'", 1, 2);
  ExpectOneError(Lexed(std::string("x\0y", 3)), Kind::UnexpectedCharacter,
                 "unexpected character '\\x00'", 1, 2);
  // A whole UTF-8 character is one error showing the character.
  Lexed utf8("x = caf\xC3\xA9;");
  ExpectOneError(utf8, Kind::UnexpectedCharacter, "unexpected character '\xC3\xA9'", 1, 8);
  EXPECT_EQ(utf8.kinds(), (std::vector<TokenKind>{K::Identifier, K::Assign, K::Identifier,
                                                  K::Error, K::Semicolon, K::EndOfInput}));
  ExpectOneError(Lexed("\xFF\xFF"), Kind::UnexpectedCharacter, "unexpected character '\\xff'", 1, 1);
  // The span is the named character's bytes: all four of an emoji, one of a broken sequence.
  EXPECT_EQ(utf8.diags.all()[0].span.length, 2u);
  Lexed emoji("node \xF0\x9F\x98\x80 {");
  ExpectOneError(emoji, Kind::UnexpectedCharacter, "unexpected character '\xF0\x9F\x98\x80'", 1, 6);
  EXPECT_EQ(emoji.diags.all()[0].span.length, 4u);
  Lexed broken("\xFF\xFF");
  EXPECT_EQ(broken.diags.all()[0].span.length, 1u);
}

// A file saved as UTF-16 was one error per stray NUL and byte (68 for a
// short program); now one error says what the file is and what to do.
TEST(LexerTest, Utf16AndUtf32FilesAreOneErrorNamingTheEncoding) {
  auto wide = [](std::string_view ascii, bool big_endian, bool bom) {
    std::string out = bom ? (big_endian ? "\xFE\xFF" : "\xFF\xFE") : "";
    for (char c : ascii) out += big_endian ? std::string{'\0', c} : std::string{c, '\0'};
    return out;
  };
  const std::string program = "@graph G {\n  input x: f32;\n  output x;\n}\n";
  const std::string tail = ", not UTF-8: save the file as UTF-8";
  struct Case { std::string text; std::string encoding; };
  const Case cases[] = {
      {wide(program, false, true), "UTF-16 (little-endian)"},
      {wide(program, true, true), "UTF-16 (big-endian)"},
      {wide(program, false, false), "UTF-16 (little-endian)"},
      {wide(program, true, false), "UTF-16 (big-endian)"},
      {std::string("\xFF\xFE\0\0@\0\0\0", 8), "UTF-32 (little-endian)"},
      {std::string("\0\0\xFE\xFF\0\0\0@", 8), "UTF-32 (big-endian)"},
  };
  for (const Case& c : cases) {
    Lexed l(c.text);
    ExpectOneError(l, Kind::UnexpectedCharacter, "source is " + c.encoding + tail, 1, 1);
    EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::EndOfInput})) << c.encoding;
  }
  // Without a byte order mark, a first character that is not ASCII (é).
  ExpectOneError(Lexed(std::string("\xE9\0/\0/\0 \0x\0\n\0", 12)), Kind::UnexpectedCharacter,
                 "source is UTF-16 (little-endian)" + tail, 1, 1);
  ExpectOneError(Lexed(std::string("\0\xE9\0/\0/\0 \0x\0\n", 12)), Kind::UnexpectedCharacter,
                 "source is UTF-16 (big-endian)" + tail, 1, 1);
  // UTF-8 text with a NUL somewhere else is still lexed as UTF-8.
  ExpectOneError(Lexed(std::string("ab\0c", 4)), Kind::UnexpectedCharacter, "unexpected character '\\x00'", 1, 3);
  ExpectOneError(Lexed(std::string("a\0", 2)), Kind::UnexpectedCharacter, "unexpected character '\\x00'", 1, 2);
  ExpectOneError(Lexed(std::string("x: 1;\0 y: 2;", 12)), Kind::UnexpectedCharacter, "unexpected character '\\x00'", 1, 6);
}

// `'zeros'` was two errors, one per quote; now one, over the quoted text,
// saying how strings are written. A lone quote (none later on its line) is
// still just an unexpected character.
TEST(LexerTest, SingleQuotedTextIsOneErrorThatShowsDoubleQuotes) {
  Lexed l("a: 'zeros';");
  ExpectOneError(l, Kind::UnexpectedCharacter,
                 "unexpected character '''; strings are written in double quotes: \"zeros\"", 1, 4);
  EXPECT_EQ(l.diags.all()[0].span.length, 7u);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Identifier, K::Colon, K::Error, K::Semicolon, K::EndOfInput}));
  ExpectOneError(Lexed("x * 'a\nb + 1"), Kind::UnexpectedCharacter, "unexpected character '''", 1, 5);
}

TEST(LexerTest, InvisibleCharactersAreNamedByCodePoint) {
  // Quoted raw, these would look empty ('') or reverse the terminal line.
  // The spec allows non-ASCII only in strings and comments (§2.1), so a byte
  // order mark opening a file is reported like any other.
  ExpectOneError(Lexed("\xEF\xBB\xBF@graph G {}"), Kind::UnexpectedCharacter,
                 "unexpected character U+FEFF (byte order mark); save the file as UTF-8 without one", 1, 1);
  // Elsewhere it is named without the advice about saving.
  ExpectOneError(Lexed("a \xEF\xBB\xBF"), Kind::UnexpectedCharacter,
                 "unexpected character U+FEFF (byte order mark)", 1, 3);
  ExpectOneError(Lexed("a \xE2\x80\xAE b"), Kind::UnexpectedCharacter,
                 "unexpected character U+202E (right-to-left override)", 1, 3);
  ExpectOneError(Lexed("x:\xC2\xA0" "f32"), Kind::UnexpectedCharacter,
                 "unexpected character U+00A0 (no-break space)", 1, 3);
  ExpectOneError(Lexed("a\xE2\x80\x8B"), Kind::UnexpectedCharacter,
                 "unexpected character U+200B (zero-width space)", 1, 2);
  ExpectOneError(Lexed("a \xE2\x81\xA1"), Kind::UnexpectedCharacter,
                 "unexpected character U+2061", 1, 3);
  ExpectOneError(Lexed("\xC2\x85"), Kind::UnexpectedCharacter, "unexpected character U+0085", 1, 1);
  // A combining mark, quoted, drew onto the quote: "unexpected character '\u0301'" showed no character.
  ExpectOneError(Lexed("a \xCC\x81"), Kind::UnexpectedCharacter, "unexpected character U+0301 (a combining mark)", 1, 3);
  // Visible non-ASCII stays quoted as itself.
  ExpectOneError(Lexed("\xF0\x9F\x98\x80"), Kind::UnexpectedCharacter,
                 "unexpected character '\xF0\x9F\x98\x80'", 1, 1);
}

TEST(LexerTest, BrokenUtf8IsEscapedByteByByte) {
  // Each of these starts like a multi-byte character but is not one.
  ExpectOneError(Lexed("\xED\xA0\x80"), Kind::UnexpectedCharacter,  // surrogate
                 "unexpected character '\\xed'", 1, 1);
  ExpectOneError(Lexed("\xE0\x80\xAF"), Kind::UnexpectedCharacter,  // overlong
                 "unexpected character '\\xe0'", 1, 1);
  ExpectOneError(Lexed("\xF4\x90\x80\x80"), Kind::UnexpectedCharacter,  // past U+10FFFF
                 "unexpected character '\\xf4'", 1, 1);
  ExpectOneError(Lexed("a \xE2\x80"), Kind::UnexpectedCharacter,  // truncated
                 "unexpected character '\\xe2'", 1, 3);
  ExpectOneError(Lexed("\x80"), Kind::UnexpectedCharacter, "unexpected character '\\x80'", 1, 1);
}

TEST(LexerTest, RunsOfBadBytesAreOneErrorButSeparateRunsAreNot) {
  Lexed l("$$$ x ## y");
  ASSERT_EQ(l.diags.all().size(), 2u) << l.messages();
  EXPECT_EQ(l.diags.all()[1].span.column, 7u);
  EXPECT_EQ(l.kinds(), (std::vector<TokenKind>{K::Error, K::Identifier, K::Error, K::Identifier,
                                               K::EndOfInput}));
}

TEST(LexerTest, PositionsCountBytesAndLineFeedsOnly) {
  Lexed l("a\r\nb\tc\n\n  d\r e");
  ASSERT_EQ(l.tokens.size(), 6u);
  auto at = [&](size_t i, uint32_t line, uint32_t col, uint32_t offset) {
    EXPECT_EQ(l.tokens[i].span.line, line) << i;
    EXPECT_EQ(l.tokens[i].span.column, col) << i;
    EXPECT_EQ(l.tokens[i].span.offset, offset) << i;
  };
  at(0, 1, 1, 0);
  at(1, 2, 1, 3);
  at(2, 2, 3, 5);
  at(3, 4, 3, 10);
  at(4, 4, 6, 13);  // CR advances the column like any byte
  at(5, 4, 7, 14);  // EndOfInput sits at the end
}

TEST(LexerTest, TrickyMixedInput) {
  Lexed l("node h: Tensor<[N,_,?],f32>{op:a**-b>>=c;};");
  EXPECT_EQ(l.texts(),
            (std::vector<std::string>{"node", "h", ":", "Tensor", "<", "[", "N", ",", "_", ",", "?",
                                      "]", ",", "f32", ">", "{", "op", ":", "a", "**", "-", "b",
                                      ">>", "=", "c", ";", "}", ";", ""}));
  EXPECT_EQ(l.tokens[8].kind, K::Underscore);
  EXPECT_EQ(l.tokens[16].kind, K::KwOp);
  EXPECT_EQ(l.tokens[19].span.column, 33u);
}

TEST(LexerTest, RandomBytesNeverCrashAndAlwaysEndWithOneEndOfInput) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 200; ++round) {
    std::string text(rng() % 2000, '\0');
    for (char& c : text) c = rng() % 8 == 0 ? '\n' : static_cast<char>(rng() & 0xFF);
    Lexed l(text);
    ASSERT_FALSE(l.tokens.empty());
    EXPECT_EQ(l.tokens.back().kind, K::EndOfInput);
    for (size_t i = 0; i + 1 < l.tokens.size(); ++i) {
      ASSERT_NE(l.tokens[i].kind, K::EndOfInput);
      ASSERT_LE(l.tokens[i].span.offset + l.tokens[i].span.length, text.size());
      if (i > 0) ASSERT_GE(l.tokens[i].span.offset, l.tokens[i - 1].span.offset + l.tokens[i - 1].span.length);
    }
    // The lexer's incremental line tracking agrees with SourceFile::MakeSpan.
    for (const Token& t : l.tokens) {
      diag::Span expected = l.source.MakeSpan(t.span.offset, t.span.length);
      ASSERT_EQ(t.span.line, expected.line);
      ASSERT_EQ(t.span.column, expected.column);
    }
  }
}

TEST(LexerTest, TenMegabytesLexInLinearTime) {
  std::string text;
  text.reserve(10 << 20);
  while (text.size() < (10u << 20)) text += "node h_1 { op: relu(x) * 2.5e-3; }; /* c */ $ \"s\\n\"\r\n";
  std::clock_t begin = std::clock();
  Lexed l(text);
  double seconds = static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC;
  EXPECT_EQ(l.tokens.back().kind, K::EndOfInput);
  EXPECT_GT(l.tokens.size(), 3000000u);
  // One error per `$`, but the bag caps the count (plus one "too many" entry).
  EXPECT_EQ(l.diags.all().size(), 201u);
  EXPECT_LT(seconds, 2.0 * kTimeScale);  // ~0.1 s in an idle release build
}

}  // namespace
}  // namespace shrew::front
