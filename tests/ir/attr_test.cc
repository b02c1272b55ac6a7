#include "ir/attr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace shrew::ir {
namespace {

TEST(AttrValueTest, KindsAndAccessors) {
  EXPECT_EQ(AttrValue::Int(3).as_int(), 3);
  EXPECT_EQ(AttrValue::Int(3).as_float(), 3.0);  // an int is accepted as float
  EXPECT_EQ(AttrValue::Float(0.5).as_float(), 0.5);
  EXPECT_TRUE(AttrValue::Bool(true).as_bool());
  EXPECT_EQ(AttrValue::String("f32").as_string(), "f32");
  EXPECT_EQ(AttrValue::IntList({1, -2}).as_int_list().size(), 2u);
  EXPECT_EQ(AttrValue::Shape({Dim::Symbolic("B"), Dim::Dynamic()}).as_shape().size(), 2u);
  EXPECT_EQ(AttrValue::All().kind(), AttrKind::kAll);
  EXPECT_TRUE(AttrValue::Int(1).is_number());
  EXPECT_FALSE(AttrValue::Bool(true).is_number());
}

TEST(AttrValueTest, PrintsInDumpForm) {
  EXPECT_EQ(AttrValue::Int(-1).ToString(), "-1");
  EXPECT_EQ(AttrValue::Float(1e-5).ToString(), "1e-05");
  EXPECT_EQ(AttrValue::Float(0.5).ToString(), "0.5");
  EXPECT_EQ(AttrValue::Float(12.0).ToString(), "12");
  EXPECT_EQ(AttrValue::Float(2.5).ToString(), "2.5");
  EXPECT_EQ(AttrValue::Float(0.1).ToString(), "0.1");
  EXPECT_EQ(AttrValue::Float(-std::numeric_limits<double>::infinity()).ToString(), "-inf");
  EXPECT_EQ(AttrValue::Bool(false).ToString(), "false");
  EXPECT_EQ(AttrValue::String("xavier_uniform").ToString(), "xavier_uniform");
  EXPECT_EQ(AttrValue::IntList({0, 2}).ToString(), "[0, 2]");
  EXPECT_EQ(AttrValue::FloatList({0.5, 1}).ToString(), "[0.5, 1]");
  EXPECT_EQ(AttrValue::Shape({Dim::Symbolic("Batch"), Dim::Dynamic(), Dim::Fixed(4)}).ToString(),
            "[Batch, -1, 4]");
  EXPECT_EQ(AttrValue::All().ToString(), "all");
}

TEST(AttrValueTest, EqualityKeepsKinds) {
  EXPECT_EQ(AttrValue::Int(1), AttrValue::Int(1));
  EXPECT_NE(AttrValue::Int(1), AttrValue::Float(1.0));  // CSE must not merge 1 and 1.0
  EXPECT_NE(AttrValue::Int(1), AttrValue::Bool(true));
  EXPECT_EQ(AttrValue::Float(std::nan("")), AttrValue::Float(std::nan("")));
  EXPECT_NE(AttrValue::Float(0.0), AttrValue::Float(-0.0));
  EXPECT_EQ(AttrValue::All(), AttrValue::All());
  EXPECT_NE(AttrValue::IntList({1}), AttrValue::IntList({1, 2}));
}

TEST(AttrsTest, OrderedSetFindRemove) {
  Attrs a;
  a.Set("keepdim", AttrValue::Bool(true));
  a.Set("dims", AttrValue::IntList({1}));
  a.Set("keepdim", AttrValue::Bool(false));  // replaces in place
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.entries()[0].first, "keepdim");
  EXPECT_FALSE(a.Find("keepdim")->as_bool());
  EXPECT_EQ(a.Find("missing"), nullptr);
  EXPECT_TRUE(a.Remove("keepdim"));
  EXPECT_FALSE(a.Remove("keepdim"));
  EXPECT_FALSE(a.Has("keepdim"));
  EXPECT_TRUE(a.Has("dims"));
}

}  // namespace
}  // namespace shrew::ir

#include <charconv>
#include <random>

namespace shrew::ir {
namespace {

std::string ToChars(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// FormatDouble is hand-written (the wasm libc++ lacks floating to_chars);
// natively it must agree with std::to_chars exactly.
TEST(FormatDoubleTest, MatchesToChars) {
  const double kValues[] = {0.0,     -0.0,    1.0,     -1.0,    0.5,        12.0,
                            1e-5,    1e-7,    100000,  1234567, 1e20,       1.5e20,
                            0.1,     0.2,     0.3,     1.0 / 3, 2.0 / 3,    3.141592653589793,
                            1e300,   1e-300,  5e-324,  1.7976931348623157e308, 123.456, 0.001,
                            0.0001,  1e15,    1e16,    1e17,    123456789012345678.0, 9.5,
                            -2.5e-3, 0.35355339059327373, 1e21, 1e22, 1e23};
  for (double v : kValues) EXPECT_EQ(FormatDouble(v), ToChars(v)) << v;
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<uint64_t> bits;
  int checked = 0;
  for (int i = 0; i < 5000; ++i) {
    uint64_t b = bits(rng);
    double v;
    std::memcpy(&v, &b, sizeof(v));
    if (!std::isfinite(v)) continue;
    ++checked;
    ASSERT_EQ(FormatDouble(v), ToChars(v)) << b;
  }
  std::uniform_real_distribution<double> small(-1000, 1000);
  for (int i = 0; i < 5000; ++i) {
    double v = small(rng);
    ASSERT_EQ(FormatDouble(v), ToChars(v));
    double r = std::round(v * 100) / 100;  // short decimals
    ASSERT_EQ(FormatDouble(r), ToChars(r));
  }
  EXPECT_GT(checked, 4700);
}

std::string ToChars(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// An f32 value reads as the float it is (0.1f printed 0.10000000149011612).
TEST(FormatDoubleTest, FormatFloatMatchesToCharsOfFloat) {
  const float kValues[] = {0.0f, -0.0f, 1.0f, 0.1f, -2.5e-3f, 1e30f, 1e19f, 3.4028235e38f, 1.4e-45f,
                           16777216.0f, 16777218.0f, 123456792.0f, 0.35355338f, 1e-7f};
  for (float v : kValues) EXPECT_EQ(FormatFloat(v), ToChars(v)) << v;
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  // Next to a power of two the shortest digits may not be the nearest
  // ones (2^-96 read 1.26217745e-29: nine digits, where eight read back).
  for (const uint32_t b : {0x0f800000u, 0x6b000000u, 0x6c800000u}) {
    float v;
    std::memcpy(&v, &b, sizeof(v));
    EXPECT_EQ(FormatFloat(v), ToChars(v)) << b;
  }
  EXPECT_EQ(FormatFloat(std::ldexp(1.0f, -96)), "1.2621775e-29");
  // Every power of two, and its neighbours, as f32 and as f64.
  for (int e = -149; e <= 127; ++e) {
    const float p = std::ldexp(1.0f, e);
    for (const float v : {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY)}) {
      if (std::isfinite(v) && v != 0) ASSERT_EQ(FormatFloat(v), ToChars(v)) << e;
    }
  }
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    for (const double v : {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY)}) {
      if (std::isfinite(v) && v != 0) ASSERT_EQ(FormatDouble(v), ToChars(v)) << e;
    }
  }
  std::mt19937 rng(54321);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint32_t b = static_cast<uint32_t>(rng());
    float v;
    std::memcpy(&v, &b, sizeof(v));
    if (!std::isfinite(v)) continue;
    ++checked;
    ASSERT_EQ(FormatFloat(v), ToChars(v)) << b;
  }
  EXPECT_GT(checked, 19000);
  EXPECT_EQ(FormatDouble(std::nan("")), "nan");
}

}  // namespace
}  // namespace shrew::ir
