#include "base/spelling.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace shrew {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("relu", "relu"), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("softmx", "softmax"), 1u);   // insertion
  EXPECT_EQ(EditDistance("matmull", "matmul"), 1u);   // deletion
  EXPECT_EQ(EditDistance("gelu", "relu"), 1u);        // substitution
  EXPECT_EQ(EditDistance("rleu", "relu"), 1u);        // neighbours swapped
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("abc", "cba"), 2u);
}

TEST(ClosestNameTest, PicksALikelyTypoOrNothing) {
  const std::vector<std::string_view> ops = {"gelu", "matmul", "relu", "softmax", "tanh"};
  EXPECT_EQ(ClosestName("rleu", ops), "relu");
  EXPECT_EQ(ClosestName("Relu", ops), "relu");  // case before the equally near gelu
  EXPECT_EQ(ClosestName("softmx", ops), "softmax");
  EXPECT_EQ(ClosestName("matmlu", ops), "matmul");
  EXPECT_EQ(ClosestName("frobnicate", ops), std::nullopt);
  EXPECT_EQ(ClosestName("relu", ops), std::nullopt);  // not a typo at all
  EXPECT_EQ(ClosestName("xelu", ops), "gelu");        // ties: alphabetically first
  const std::vector<std::string_view> reversed = {"tanh", "softmax", "relu", "matmul", "gelu"};
  EXPECT_EQ(ClosestName("xelu", reversed), "gelu");   // whatever the order given
  // At one edit each, a swap before a substitution, in any order given.
  const std::vector<std::string_view> dtypes = {"i16", "i64", "u16", "u64"};
  EXPECT_EQ(ClosestName("i46", dtypes), "i64");
  const std::vector<std::string_view> dtypes_reversed = {"u64", "u16", "i64", "i16"};
  EXPECT_EQ(ClosestName("u46", dtypes_reversed), "u64");
  EXPECT_EQ(ClosestName("i26", dtypes), "i16");  // no anagram: alphabetical among the nearest
  const std::vector<std::string_view> short_names = {"x", "y", "w1"};
  EXPECT_EQ(ClosestName("z", short_names), std::nullopt);
  EXPECT_EQ(ClosestName("w2", short_names), std::nullopt);
  EXPECT_EQ(ClosestName("W1", short_names), "w1");
}

// The distance is quadratic in the names' lengths: a source of two 100,000-
// byte names one letter apart took about two minutes to say so. Names past
// kMaxSuggestedNameBytes are neither given a suggestion nor suggested; case
// alone still matches.
TEST(ClosestNameTest, LongNamesAreNotSearched) {
  const std::string near(kMaxSuggestedNameBytes, 'w');
  const std::string typo = near.substr(1) + "x";
  EXPECT_EQ(ClosestName(typo, std::vector<std::string_view>{near}), near);
  const std::string huge(100000, 'W');
  const std::string huge_typo = huge.substr(1) + "x";
  EXPECT_EQ(ClosestName(huge_typo, std::vector<std::string_view>{huge}), std::nullopt);
  EXPECT_EQ(ClosestName(typo + "y", std::vector<std::string_view>{near + "y"}), std::nullopt);  // over the cap
  std::string lower = huge;
  for (char& c : lower) c = 'w';
  EXPECT_EQ(ClosestName(lower, std::vector<std::string_view>{huge}), huge);
}

}  // namespace
}  // namespace shrew
