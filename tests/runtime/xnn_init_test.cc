#include "runtime/xnn_init.h"

#include <gtest/gtest.h>
#include <xnnpack.h>

namespace shrew::runtime {
namespace {

TEST(XnnStatusError, OutOfMemoryIsResourceExhausted) {
  Status s = XnnStatusError(xnn_status_out_of_memory, "XNNPACK fully_connected create failed");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "XNNPACK fully_connected create failed: out of memory");
}

TEST(XnnStatusError, OtherFailuresAreInternal) {
  Status s = XnnStatusError(xnn_status_invalid_parameter, "XNNPACK softmax reshape failed");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "XNNPACK softmax reshape failed: invalid parameter");
}

}  // namespace
}  // namespace shrew::runtime
