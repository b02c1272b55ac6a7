#include "diag/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace shrew::diag {
namespace {

// The code point `s` holds (one whole character), or -1 if it does not start
// with well-formed UTF-8.
int64_t Decoded(const std::string& s) {
  uint32_t cp = 0;
  size_t n = DecodeUtf8(s, 0, &cp);
  if (n == 0) return -1;
  EXPECT_EQ(n, s.size()) << s;
  return cp;
}

TEST(Utf8, DecodesWellFormedCharacters) {
  EXPECT_EQ(Decoded("a"), 'a');
  EXPECT_EQ(Decoded("\xC3\xA9"), 0xE9);
  EXPECT_EQ(Decoded("\xEF\xBB\xBF"), 0xFEFF);
  EXPECT_EQ(Decoded("\xF0\x9F\x98\x80"), 0x1F600);
  EXPECT_EQ(Decoded("\xF4\x8F\xBF\xBF"), 0x10FFFF);
}

TEST(Utf8, RejectsMalformedSequences) {
  EXPECT_EQ(Decoded("\x80"), -1);              // stray continuation byte
  EXPECT_EQ(Decoded("\xFF"), -1);
  EXPECT_EQ(Decoded("\xE2\x80"), -1);          // truncated
  EXPECT_EQ(Decoded("\xC3" "a"), -1);          // continuation missing
  EXPECT_EQ(Decoded("\xC0\xAF"), -1);          // overlong '/'
  EXPECT_EQ(Decoded("\xE0\x80\xAF"), -1);      // overlong '/'
  EXPECT_EQ(Decoded("\xED\xA0\x80"), -1);      // surrogate U+D800
  EXPECT_EQ(Decoded("\xF4\x90\x80\x80"), -1);  // past U+10FFFF
  EXPECT_EQ(Decoded("\xFC\x80\x80\x80"), -1);  // 6-byte lead
  uint32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("a", 1, &cp), 0u);      // past the end
}

TEST(Utf8, InvisibleCharacters) {
  for (uint32_t cp : {0x85u, 0xA0u, 0xADu, 0x200Bu, 0x202Eu, 0x2066u, 0x3000u, 0xFE0Fu, 0xFEFFu,
                      0xFFFBu, 0xE0041u}) {
    EXPECT_TRUE(IsInvisible(cp)) << std::hex << cp;
  }
  for (uint32_t cp : {0x20u, 0x41u, 0xE9u, 0x2026u, 0x4E2Du, 0xFFFDu, 0x1F600u}) {
    EXPECT_FALSE(IsInvisible(cp)) << std::hex << cp;
  }
}

TEST(Utf8, LabelsAndNames) {
  EXPECT_EQ(CodePointLabel(0xFEFF), "U+FEFF");
  EXPECT_EQ(CodePointLabel(0xA0), "U+00A0");
  EXPECT_EQ(CodePointLabel(0xE0041), "U+E0041");
  EXPECT_STREQ(CodePointName(0xFEFF), "byte order mark");
  EXPECT_STREQ(CodePointName(0x202E), "right-to-left override");
  EXPECT_EQ(CodePointName(0x2061), nullptr);
}


TEST(Utf8, DisplayWidthOfWideCombiningAndOtherCharacters) {
  EXPECT_EQ(DisplayWidth('a'), 1);
  EXPECT_EQ(DisplayWidth(0x00E9), 1);   // é
  EXPECT_EQ(DisplayWidth(0x0301), 0);   // combining acute accent
  EXPECT_EQ(DisplayWidth(0x20D7), 0);   // combining right arrow above
  EXPECT_EQ(DisplayWidth(0x6807), 2);   // 标 (CJK unified ideograph)
  EXPECT_EQ(DisplayWidth(0xAC00), 2);   // 가 (Hangul syllable)
  EXPECT_EQ(DisplayWidth(0xFF21), 2);   // Ａ (fullwidth A)
  EXPECT_EQ(DisplayWidth(0x1F600), 2);  // 😀
  EXPECT_EQ(DisplayWidth(0x20B9F), 2);  // CJK extension B
  EXPECT_EQ(DisplayWidth(0x0416), 1);   // Ж
  EXPECT_EQ(DisplayWidth(0x2192), 1);   // →
  EXPECT_EQ(DisplayWidth(0xFF61), 1);   // halfwidth ideographic full stop
}

// Text quoted in messages stays valid UTF-8 that draws as it reads.
TEST(Utf8, EscapeForMessage) {
  EXPECT_EQ(EscapeForMessage("relu", 40), "relu");
  EXPECT_EQ(EscapeForMessage("a\nb\tc", 40), "a\\nb\\tc");
  EXPECT_EQ(EscapeForMessage(std::string("\0\x7f", 2), 40), "\\x00\\x7f");
  EXPECT_EQ(EscapeForMessage("caf\xC3\xA9 \xE6\x97\xA5", 40), "caf\xC3\xA9 \xE6\x97\xA5");  // café 日
  EXPECT_EQ(EscapeForMessage("\xE2\x80\xAE" "abc", 40), "\\u{202E}abc");  // right-to-left override
  EXPECT_EQ(EscapeForMessage("a\xE2\x80\x8B" "b", 40), "a\\u{200B}b");    // zero-width space
  EXPECT_EQ(EscapeForMessage("\xFF\xC3", 40), "\\xff\\xc3");              // broken UTF-8
  // The cut keeps whole characters: 3 bytes fit, the 2-byte 'é' at 3 does not.
  EXPECT_EQ(EscapeForMessage("abc\xC3\xA9xyz", 4), "abc...");
  EXPECT_EQ(EscapeForMessage("abcdef", 4), "abcd...");
  EXPECT_EQ(EscapeForMessage("abcd", 4), "abcd");
}

}  // namespace
}  // namespace shrew::diag
