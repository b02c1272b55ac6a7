#include "base/status.h"

#include <gtest/gtest.h>

namespace shrew {
namespace {

SourceSpan At(uint32_t line, uint32_t column) { return SourceSpan{.offset = 0, .length = 3, .line = line, .column = column}; }

// The innermost position wins: a node inside a called graph, not the call.
TEST(StatusTest, AtKeepsTheFirstPositionGiven) {
  Status s = InvalidArgument("bad").At(At(4, 2)).At(At(9, 1));
  EXPECT_EQ(s.span().line, 4u);
  EXPECT_EQ(s.span().column, 2u);
  EXPECT_FALSE(InvalidArgument("bad").span().valid());
  EXPECT_FALSE(Status::Ok().At(At(1, 1)).span().valid()) << "success points nowhere";
}

TEST(StatusTest, PrefixedKeepsCodeAndPosition) {
  const Status inner = OutOfRange("index 7").At(At(3, 5));
  const Status outer = inner.Prefixed("node 'e' (embedding): ");
  EXPECT_EQ(outer.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(outer.message(), "node 'e' (embedding): index 7");
  EXPECT_EQ(outer.span().line, 3u);
  EXPECT_EQ(outer.span().column, 5u);
  EXPECT_EQ(inner.message(), "index 7");
}

}  // namespace
}  // namespace shrew
