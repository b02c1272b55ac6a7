#include "diag/diagnostic.h"

#include <gtest/gtest.h>

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
