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

// Sorted. Combining marks of the common scripts (Unicode categories Mn/Me):
// drawn on the character before them.
constexpr Range kCombining[] = {
    {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF},
    {0x05C1, 0x05C2}, {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A},
    {0x064B, 0x065F}, {0x0670, 0x0670}, {0x06D6, 0x06DC}, {0x06DF, 0x06E4},
    {0x06E7, 0x06E8}, {0x06EA, 0x06ED}, {0x0900, 0x0902}, {0x093A, 0x093A},
    {0x093C, 0x093C}, {0x0941, 0x0948}, {0x094D, 0x094D}, {0x0951, 0x0957},
    {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1160, 0x11FF},
    {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x20D0, 0x20FF}, {0x302A, 0x302D},
    {0x3099, 0x309A}, {0xFE20, 0xFE2F},
};

// Sorted. East Asian Wide and Fullwidth blocks, and the emoji blocks.
constexpr Range kWide[] = {
    {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
    {0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615},
    {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
    {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
    {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
    {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
    {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
    {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
    {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x3029},
    {0x302E, 0x303E}, {0x3041, 0x3098}, {0x309B, 0x33FF}, {0x3400, 0x4DBF},
    {0x4E00, 0xA4CF}, {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF},
    {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6},
    {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004},
    {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251},
    {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F900, 0x1F9FF}, {0x1FA70, 0x1FAFF},
    {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

template <size_t N>
bool InRanges(const Range (&ranges)[N], uint32_t code_point) {
  size_t lo = 0, hi = N;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (code_point < ranges[mid].first) {
      hi = mid;
    } else if (code_point > ranges[mid].last) {
      lo = mid + 1;
    } else {
      return true;
    }
  }
  return false;
}

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

int DisplayWidth(uint32_t code_point) {
  if (code_point < 0x300) return 1;
  if (InRanges(kCombining, code_point)) return 0;
  return InRanges(kWide, code_point) ? 2 : 1;
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

std::string EscapeForMessage(std::string_view text, size_t max_bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    uint32_t cp = 0;
    size_t n = DecodeUtf8(text, i, &cp);
    if (n > 1 && i + n > max_bytes) break;  // never split a character
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (n == 0 || c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      n = 1;
    } else if (n > 1 && IsInvisible(cp)) {
      // Raw, U+202E would reorder the terminal line, U+200B look like nothing.
      out += "\\u{" + CodePointLabel(cp).substr(2) + "}";
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace shrew::diag
