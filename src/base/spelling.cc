#include "base/spelling.h"

#include <algorithm>
#include <vector>

namespace shrew {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Optimal string alignment: three rows of the DP table.
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> ClosestName(std::string_view name, std::span<const std::string_view> candidates) {
  for (std::string_view c : candidates) {
    if (c == name) return std::nullopt;
  }
  // "Relu" is "relu", not the equally near "gelu".
  for (std::string_view c : candidates) {
    if (EqualIgnoringCase(c, name)) return std::string(c);
  }
  // The distance costs the product of the lengths per candidate: 16,000-byte
  // names of one length took seconds per error (a million bytes, minutes).
  if (name.size() > kMaxSuggestedNameBytes) return std::nullopt;
  // The same bytes in another order: a swap, the likelier slip of two
  // candidates at one edit ('i46' is i64, not i16).
  auto anagram = [&](std::string_view c) {
    std::string a(name), b(c);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    return a == b;
  };
  std::optional<std::string> best;
  size_t best_distance = 0;
  bool best_anagram = false;
  for (std::string_view c : candidates) {
    // One edit per three characters: a one- or two-letter name has no typo
    // neighbours worth naming ('y' is not a misspelt 'x').
    const size_t limit = std::max(name.size(), c.size()) / 3;
    if (limit == 0 || c.size() > kMaxSuggestedNameBytes) continue;
    // The distance is at least the difference in length: skip far ones cheaply.
    const size_t gap = name.size() > c.size() ? name.size() - c.size() : c.size() - name.size();
    if (gap > limit) continue;
    const size_t d = EditDistance(name, c);
    if (d > limit) continue;
    // Ties go to an anagram, then to the alphabetically first, whatever
    // order the caller's (often unordered) containers gave.
    const bool is_anagram = anagram(c);
    if (!best || d < best_distance ||
        (d == best_distance && (is_anagram != best_anagram ? is_anagram : c < *best))) {
      best = std::string(c);
      best_distance = d;
      best_anagram = is_anagram;
    }
  }
  return best;
}

std::string JoinNames(std::span<const std::string> names) {
  constexpr size_t kShown = 20;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) s += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > kShown) s += ", … (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "(none)" : s;
}

std::string DidYouMean(std::string_view name, std::span<const std::string_view> candidates) {
  std::optional<std::string> best = ClosestName(name, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

std::string HintBeforeList(const std::string& hint) { return hint.empty() ? "; " : hint + " "; }

std::string DidYouMean(std::string_view name, std::span<const std::string> candidates) {
  const std::vector<std::string_view> views(candidates.begin(), candidates.end());
  return DidYouMean(name, views);
}

}  // namespace shrew
