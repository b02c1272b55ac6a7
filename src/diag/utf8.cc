#include "diag/utf8.h"

namespace shrew::diag {
namespace {

struct Range {
  uint32_t first, last;
};

// Sorted. Unicode's Default_Ignorable_Code_Point set (which holds the format
// and bidi controls), the C1 controls and the space separators.
constexpr Range kInvisible[] = {
    {0x0080, 0x00A0}, {0x00AD, 0x00AD}, {0x034F, 0x034F}, {0x061C, 0x061C},
    {0x115F, 0x1160}, {0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x2000, 0x200F},
    {0x2028, 0x202F}, {0x205F, 0x206F}, {0x3000, 0x3000}, {0x3164, 0x3164},
    {0xFE00, 0xFE0F}, {0xFEFF, 0xFEFF}, {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFFB},
    {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
};

struct Name {
  uint32_t code_point;
  const char* name;
};

constexpr Name kNames[] = {
    {0x00A0, "no-break space"},        {0x00AD, "soft hyphen"},
    {0x200B, "zero-width space"},      {0x200C, "zero-width non-joiner"},
    {0x200D, "zero-width joiner"},     {0x200E, "left-to-right mark"},
    {0x200F, "right-to-left mark"},    {0x202A, "left-to-right embedding"},
    {0x202B, "right-to-left embedding"}, {0x202C, "pop directional formatting"},
    {0x202D, "left-to-right override"}, {0x202E, "right-to-left override"},
    {0x2060, "word joiner"},           {0x2066, "left-to-right isolate"},
    {0x2067, "right-to-left isolate"}, {0x2068, "first strong isolate"},
    {0x2069, "pop directional isolate"}, {0x3000, "ideographic space"},
    {0xFEFF, "byte order mark"},
};

}  // namespace

size_t DecodeUtf8(std::string_view text, size_t pos, uint32_t* code_point) {
  if (pos >= text.size()) return 0;
  uint32_t c = static_cast<unsigned char>(text[pos]);
  size_t n = c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0;
  if (n == 0 || pos + n > text.size()) return 0;
  uint32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t i = 1; i < n; ++i) {
    uint32_t b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  // Each length has a smallest code point; anything below it is overlong.
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return n;
}

bool IsInvisible(uint32_t code_point) {
  for (const Range& r : kInvisible) {
    if (code_point < r.first) return false;
    if (code_point <= r.last) return true;
  }
  return false;
}

const char* CodePointName(uint32_t code_point) {
  for (const Name& n : kNames) {
    if (n.code_point == code_point) return n.name;
  }
  return nullptr;
}

std::string CodePointLabel(uint32_t code_point) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string digits;
  for (uint32_t v = code_point; v != 0 || digits.size() < 4; v >>= 4) {
    digits.insert(digits.begin(), kHex[v & 15]);
  }
  return "U+" + digits;
}

}  // namespace shrew::diag
