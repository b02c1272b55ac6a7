#include "diag/diagnostic.h"

#include <gtest/gtest.h>

#include <string>

namespace shrew::diag {
namespace {

TEST(SourceFile, LineColumnAndLineText) {
  SourceFile src("m.sw", "ab\ncd\r\n\nxyz");
  uint32_t line = 0, col = 0;
  src.LineColumn(0, &line, &col);
  EXPECT_EQ(line, 1u); EXPECT_EQ(col, 1u);
  src.LineColumn(4, &line, &col);
  EXPECT_EQ(line, 2u); EXPECT_EQ(col, 2u);
  src.LineColumn(8, &line, &col);  // the x of "xyz"
  EXPECT_EQ(line, 4u); EXPECT_EQ(col, 1u);
  src.LineColumn(1000, &line, &col);  // clamps to the end
  EXPECT_EQ(line, 4u); EXPECT_EQ(col, 4u);
  EXPECT_EQ(src.LineText(2), "cd");
  EXPECT_EQ(src.LineText(3), "");
  EXPECT_EQ(src.LineText(9), "");
}

TEST(Render, FileLineColumnCodeAndCaret) {
  SourceFile src("net.sw", "graph G {\n  node h { op: relu(x) }\n}\n");
  DiagnosticBag bag;
  bag.Add(Kind::ExpectedToken, src.MakeSpan(23, 4), "expected ';', got 'relu'");
  ASSERT_TRUE(bag.has_errors());
  EXPECT_EQ(Render(bag.all()[0], src),
            "net.sw:2:14: error[E020]: expected ';', got 'relu'\n"
            "    node h { op: relu(x) }\n"
            "               ^~~~\n");
}

// One E040 diagnostic on `text` at a byte offset, rendered.
std::string RenderAt(const std::string& text, uint32_t offset, uint32_t length) {
  SourceFile src("t.sw", text);
  DiagnosticBag bag;
  bag.Add(Kind::UndefinedName, src.MakeSpan(offset, length), "m");
  return Render(bag.all()[0], src);
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(Render, CaretCountsCharactersButColumnCountsBytes) {
  // Three two-byte characters before `y`: column 46, but 42 cells of indent.
  std::string text = "@graph G { /* \xC3\xA9\xC3\xA9\xC3\xA9 */ input x: f32; output y; }";
  EXPECT_EQ(RenderAt(text, text.find(" y;") + 1, 1),
            "t.sw:1:46: error[E040]: m\n"
            "  @graph G { /* \xC3\xA9\xC3\xA9\xC3\xA9 */ input x: f32; output y; }\n"
            "  " + std::string(42, ' ') + "^\n");
}

TEST(Render, CaretCountsTerminalCellsOfWideAndCombiningCharacters) {
  // Two CJK characters (two cells each), an "e" with a combining acute accent
  // (one cell) and an emoji (two cells) before `y`.
  std::string text = "x: \"\xE6\xA0\x87\xE7\xAD\xBE e\xCC\x81 \xF0\x9F\x98\x80\" + y;";
  EXPECT_EQ(RenderAt(text, text.find('y'), 1),
            "t.sw:1:" + std::to_string(text.find('y') + 1) + ": error[E040]: m\n"
            "  " + text + "\n"
            "  " + std::string(17, ' ') + "^\n");
  // A span over wide characters underlines every cell they take.
  EXPECT_EQ(RenderAt(text, text.find('\xE6'), 6),
            "t.sw:1:5: error[E040]: m\n"
            "  " + text + "\n"
            "      ^~~~\n");
}

TEST(Render, TabsStayTabsInTheCaretLine) {
  std::string text = "\t\tnode h { op: r\xC3\xA9lu(x) }";
  EXPECT_EQ(RenderAt(text, text.find("(x)"), 3),
            "t.sw:1:21: error[E040]: m\n"
            "  \t\tnode h { op: r\xC3\xA9lu(x) }\n"
            "  \t\t" + std::string(17, ' ') + "^~~\n");
}

TEST(Render, LongLineShowsAWindowAroundTheColumn) {
  std::string text = "@graph G { input x: f32; output y: " + Repeat("x + ", 150) + "zz; }";
  EXPECT_EQ(RenderAt(text, text.find("zz"), 2),
            "t.sw:1:636: error[E040]: m\n"
            "  \xE2\x80\xA6" + Repeat(" + x", 17) + " + zz; }\n"
            "   " + std::string(71, ' ') + "^~\n");
}

TEST(Render, WindowCutsNeverSplitACharacter) {
  // Both edges of the 76-byte window fall on the second byte of an "é".
  std::string e = "\xC3\xA9";
  std::string text = "ab" + Repeat(e, 200) + " zz " + Repeat(e, 200);
  EXPECT_EQ(RenderAt(text, text.find("zz"), 2),
            "t.sw:1:404: error[E040]: m\n"
            "  \xE2\x80\xA6" + Repeat(e, 19) + " zz " + Repeat(e, 18) + "\xE2\x80\xA6\n"
            "   " + std::string(20, ' ') + "^~\n");
}

TEST(Render, InvisibleAndBrokenCharactersShowAsOneCell) {
  // A byte order mark, a right-to-left override and a stray 0xFF would look
  // empty, reverse the line or be drawn unpredictably if printed raw.
  std::string text = "\xEF\xBB\xBF" "a \xE2\x80\xAE\xFF $";
  EXPECT_EQ(RenderAt(text, text.find('$'), 1),
            "t.sw:1:11: error[E040]: m\n"
            "   a  \xEF\xBF\xBD $\n"
            "        ^\n");
}

TEST(Render, CaretAfterTheLastCharacter) {
  EXPECT_EQ(RenderAt("x = \xC3\xA9", 6, 0),
            "t.sw:1:7: error[E040]: m\n"
            "  x = \xC3\xA9\n"
            "       ^\n");
}

// A UTF-16 line (a NUL after every ASCII character) or a binary one shows
// no excerpt: it was "  @ g r a p h ..."; one NUL is still shown, as a blank.
TEST(Render, LinesWithSeveralNulsShowNoExcerpt) {
  const std::string wide("\xFF\xFE@\0g\0r\0", 8);
  EXPECT_EQ(RenderAt(wide, 0, 0), "t.sw:1:1: error[E040]: m\n");
  const std::string one_nul("a\0b $", 5);
  EXPECT_EQ(RenderAt(one_nul, 4, 1),
            "t.sw:1:5: error[E040]: m\n"
            "  a b $\n"
            "      ^\n");
}

TEST(Render, NoNameMeansInputAndNoSpanMeansNoExcerpt) {
  SourceFile src("", "x");
  Diagnostic d{Kind::NoOutput, Severity::Error, Span{}, "graph declares no output"};
  EXPECT_EQ(Render(d, src), "<input>: error[E080]: graph declares no output\n");
}

TEST(DiagnosticBag, CapsErrorCount) {
  DiagnosticBag bag(3);
  SourceFile src("", "x");
  for (int i = 0; i < 100; ++i) bag.Add(Kind::UnexpectedCharacter, src.MakeSpan(0, 1), "unexpected character 'x'");
  EXPECT_EQ(bag.all().size(), 4u);
  EXPECT_EQ(bag.all().back().kind, Kind::TooManyDiagnostics);
  EXPECT_STREQ(bag.all()[0].code(), "E001");
}

TEST(Span, CoverJoinsTwoSpans) {
  SourceFile src("", "abcdefgh");
  Span s = Span::Cover(src.MakeSpan(5, 2), src.MakeSpan(1, 1));
  EXPECT_EQ(s.offset, 1u);
  EXPECT_EQ(s.length, 6u);
  EXPECT_EQ(s.column, 2u);
}

}  // namespace
}  // namespace shrew::diag
