// Names in messages: "did you mean …?" for a misspelt name (the closest
// candidate by edit distance, when it is close enough to be a likely typo),
// and lists of the names there are.
//
//   ClosestName("rleu", {"relu", "gelu", "tanh"})  // "relu"
//   ClosestName("foo", {"relu"})                    // nullopt: too far
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace shrew {

// Levenshtein distance (insert, delete, substitute; a swap of neighbours
// counts 1, as in "rleu" → "relu").
size_t EditDistance(std::string_view a, std::string_view b);

// Names longer than this get no suggestion, nor are they suggested (the
// distance is quadratic in their length).
inline constexpr size_t kMaxSuggestedNameBytes = 256;

// The candidate equal to `name` but for ASCII case, else the one nearest to
// `name` whose distance is at most a third of the longer name (so none for
// names of one or two letters), ties to the alphabetically first (so the
// candidates' order does not matter); nullopt when none is, or when `name`
// itself is a candidate.
std::optional<std::string> ClosestName(std::string_view name, std::span<const std::string_view> candidates);

// "a, b, c" for a message listing names; past 20 "a, b, …, t, … (N in all)",
// so a message about a graph with thousands of inputs stays readable;
// "(none)" for no names.
std::string JoinNames(std::span<const std::string> names);

// "; did you mean 'relu'?" when ClosestName finds one, else "".
std::string DidYouMean(std::string_view name, std::span<const std::string_view> candidates);
// The same over owned names (graph, input and parameter names).
std::string DidYouMean(std::string_view name, std::span<const std::string> candidates);
// The hint before a list of the names there are: "; did you mean 'x'? " or
// "; " ("no input named 'image'; did you mean 'images'? its inputs are: …").
std::string HintBeforeList(const std::string& hint);

}  // namespace shrew
