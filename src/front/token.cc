#include "front/token.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>

#include "base/spelling.h"

namespace shrew::front {
namespace {

// Per-kind facts generated from token_kinds.def, so no table has to be kept
// in step with the enum by hand.
enum Category : uint8_t { kOther, kPunct, kSoft, kReserved, kDtype, kDirective, kTopDirective };

struct KindInfo {
  const char* name;
  std::string_view spelling;
  Category category;
};

constexpr KindInfo kInfo[] = {
#define SHREW_TOKEN(Name) {#Name, {}, kOther},
#define SHREW_PUNCT(Name, spelling) {#Name, spelling, kPunct},
#define SHREW_SOFT_KEYWORD(Name, spelling) {#Name, spelling, kSoft},
#define SHREW_RESERVED_WORD(Name, spelling) {#Name, spelling, kReserved},
#define SHREW_DTYPE(Name, DtypeName, spelling) {#Name, spelling, kDtype},
#define SHREW_DIRECTIVE(Name, spelling, top_level) \
  {#Name, spelling, (top_level) ? kTopDirective : kDirective},
#include "front/token_kinds.def"
};
static_assert(std::size(kInfo) == static_cast<size_t>(kTokenKindCount));

const KindInfo& Info(TokenKind kind) { return kInfo[static_cast<int>(kind)]; }

}  // namespace

const char* TokenKindName(TokenKind kind) { return Info(kind).name; }
std::string_view TokenSpelling(TokenKind kind) { return Info(kind).spelling; }
bool IsSoftKeyword(TokenKind kind) { return Info(kind).category == kSoft; }
bool IsReservedWord(TokenKind kind) {
  return Info(kind).category == kReserved || Info(kind).category == kDtype;
}
bool IsDtype(TokenKind kind) { return Info(kind).category == kDtype; }
bool IsDirective(TokenKind kind) {
  return Info(kind).category == kDirective || Info(kind).category == kTopDirective;
}
bool IsTopLevelDirective(TokenKind kind) { return Info(kind).category == kTopDirective; }

std::string_view DtypeMeantBy(std::string_view word) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"float", "f32"},   {"float32", "f32"}, {"single", "f32"},  {"double", "f64"},  {"float64", "f64"},
      {"half", "f16"},    {"float16", "f16"}, {"bfloat16", "bf16"}, {"int8", "i8"},   {"int16", "i16"},
      {"short", "i16"},   {"int", "i32"},     {"int32", "i32"},   {"int64", "i64"},   {"long", "i64"},
      {"uint8", "u8"},    {"byte", "u8"},     {"uint16", "u16"},  {"uint32", "u32"},  {"uint64", "u64"},
      {"boolean", "bool"}};
  if (word.size() > 8) return {};
  std::string lower(word);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [name, dtype] : kNames) {
    if (lower == name) return dtype;
  }
  static constexpr std::string_view kDtypes[] = {
#define SHREW_DTYPE(Name, DtypeName, spelling) spelling,
#include "front/token_kinds.def"
  };
  if (std::optional<std::string> near = ClosestName(word, kDtypes)) {
    return *std::find(std::begin(kDtypes), std::end(kDtypes), *near);
  }
  return {};
}

}  // namespace shrew::front
