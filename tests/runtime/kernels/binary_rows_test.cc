// BinaryRows over broadcasts whose rows are shorter than 32, which run in
// groups of whole rows (a repeated row or a column copied into a tile):
// every element equals the row function applied to that element alone,
// for each way an operand is read (a full plane, a repeated row, a column),
// on either side, across planes of a third axis, with groups that end
// inside a plane, several small planes per group (up to more than 8 axes),
// for arithmetic and comparisons of each storage type, and in place on a
// full operand.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/kernels/binary_rows.h"
#include "runtime/kernels/broadcast.h"

namespace shrew::runtime::kernels {
namespace {

using K = ir::OpKind;
using S = ir::StorageType;

// Row-major strides of `in` read as `out` (0 where broadcast).
std::vector<int64_t> StridesAs(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t ia = in.size() - 1 - i, oa = out.size() - 1 - i;
    s[oa] = in[ia] == 1 ? 0 : stride;
    stride *= in[ia];
  }
  return s;
}

int64_t Count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Values of `bytes` each: small integers (or their float bits) so that
// integer ops stay in range and divisors are never 0.
std::vector<uint8_t> Values(S storage, int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> v(1, 9);
  std::vector<uint8_t> out;
  for (int64_t i = 0; i < n; ++i) {
    const int x = v(rng) * (storage == S::kU8 || storage == S::kBool || v(rng) % 2 ? 1 : -1);
    uint8_t buf[8] = {};
    size_t bytes = 1;
    switch (storage) {
      case S::kF32: { const float f = static_cast<float>(x) / 4; std::memcpy(buf, &f, 4); bytes = 4; break; }
      case S::kF64: { const double f = static_cast<double>(x) / 4; std::memcpy(buf, &f, 8); bytes = 8; break; }
      case S::kI64: { const int64_t f = x; std::memcpy(buf, &f, 8); bytes = 8; break; }
      case S::kU8: buf[0] = static_cast<uint8_t>(x); break;
      default: buf[0] = static_cast<uint8_t>(x % 2); break;
    }
    out.insert(out.end(), buf, buf + bytes);
  }
  return out;
}

void Check(const BinaryRows& rows, S storage, const Shape& a_shape, const Shape& b_shape, const Shape& out_shape,
           bool in_place_a = false) {
  SCOPED_TRACE(ShapeToString(a_shape) + " , " + ShapeToString(b_shape) + " -> " + ShapeToString(out_shape));
  std::mt19937 rng(static_cast<unsigned>(Count(a_shape) * 31 + Count(b_shape)));
  const std::vector<uint8_t> a = Values(storage, Count(a_shape), rng), b = Values(storage, Count(b_shape), rng);
  BroadcastLoop<2> loop;
  loop.Init(out_shape, {&a_shape, &b_shape});
  ASSERT_TRUE(BinaryRows::RunsInGroups(loop));
  const int64_t n = Count(out_shape);
  std::vector<uint8_t> out(static_cast<size_t>(n) * rows.out_bytes + 16, 0xAB);
  std::vector<uint8_t> a_run = a;  // the output when in place
  if (in_place_a) {
    ASSERT_EQ(rows.in_bytes, rows.out_bytes);
    rows.Run(loop, a_run.data(), b.data(), a_run.data());
  } else {
    rows.Run(loop, a.data(), b.data(), out.data());
  }
  const uint8_t* got = in_place_a ? a_run.data() : out.data();
  // Each element alone.
  const std::vector<int64_t> sa = StridesAs(a_shape, out_shape), sb = StridesAs(b_shape, out_shape);
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, oa = 0, ob = 0;
    for (size_t ax = out_shape.size(); ax-- > 0;) {
      const int64_t idx = rest % out_shape[ax];
      rest /= out_shape[ax];
      oa += idx * sa[ax];
      ob += idx * sb[ax];
    }
    uint8_t want[8];
    const uint8_t* pa = a.data() + oa * rows.in_bytes;
    const uint8_t* pb = b.data() + ob * rows.in_bytes;
    if (rows.swap) {
      rows.fn(pb, 0, pa, 0, want, 1);
    } else {
      rows.fn(pa, 0, pb, 0, want, 1);
    }
    ASSERT_EQ(std::memcmp(want, got + i * rows.out_bytes, rows.out_bytes), 0) << "element " << i;
  }
  if (!in_place_a) {
    for (size_t i = static_cast<size_t>(n) * rows.out_bytes; i < out.size(); ++i) ASSERT_EQ(out[i], 0xAB) << "past the end";
  }
}

// Shapes (a, b, out) that cover each pattern pair; 300 rows of up to 31
// make groups that end inside a plane.
struct Case {
  Shape a, b, out;
};
const Case kCases[] = {
    {{300, 3}, {3}, {300, 3}},               // a full, b a repeated row
    {{5}, {300, 5}, {300, 5}},               // the same, sides swapped
    {{300, 2}, {300, 1}, {300, 2}},          // b a column (rows of 2, 8 or 16 bytes: splat stores)
    {{300, 4}, {300, 1}, {300, 4}},          // rows of 4, 16 or 32 bytes
    {{300, 3}, {300, 1}, {300, 3}},          // rows of 3: 12 bytes of f32 in one splat store
    {{300, 1}, {300, 31}, {300, 31}},        // a column, b full
    {{1, 7}, {300, 1}, {300, 7}},            // a repeated row, b a column: neither is the output
    {{4, 70, 1}, {4, 1, 6}, {4, 70, 6}},     // planes of a third axis, each with its own row and column
    {{3, 1, 9}, {3, 130, 9}, {3, 130, 9}},   // a repeated row per plane
    {{2, 300, 1}, {1}, {2, 300, 1}},         // a column against one value: merged to a row, not grouped
    // Planes small enough to take several per group (row_groups::PlaneGroupsOf):
    {{600, 2, 2}, {1, 2, 1}, {600, 2, 2}},   // b's tile gathered once; 600 planes end inside a group
    {{600, 2, 1}, {600, 1, 2}, {600, 2, 2}}, // both gathered again for every group
    {{600, 1, 2}, {600, 3, 1}, {600, 3, 2}},
    {{5, 1, 3, 2}, {5, 4, 1, 2}, {5, 4, 3, 2}},
    {{1, 4, 3, 2}, {7, 4, 1, 1}, {7, 4, 3, 2}},
    {{40, 2, 2, 2, 2, 2}, {1, 2, 1, 2, 1, 2}, {40, 2, 2, 2, 2, 2}},
    {{3, 2, 2, 2, 2, 2, 2, 2, 2, 2}, {1, 2, 1, 2, 1, 2, 1, 2, 1, 2}, {3, 2, 2, 2, 2, 2, 2, 2, 2, 2}},  // > 8 axes
    // A row per plane repeated down it (gathered once, then RepeatRow: rows
    // of 3, 4 and 8 elements, past the 16 stored rows into the doubling).
    {{64, 40, 4}, {64, 1, 4}, {64, 40, 4}},
    {{20, 1, 3}, {20, 40, 3}, {20, 40, 3}},
    {{10, 1, 8}, {1, 30, 8}, {10, 30, 8}},   // both sides repeat, along different axes
};

TEST(BinaryRowsTest, ShortRowsInGroupsEqualEachElementAlone) {
  for (S storage : {S::kF32, S::kF64, S::kI64, S::kU8}) {
    SCOPED_TRACE(static_cast<int>(storage));
    for (K op : {K::kAdd, K::kSub, K::kMul, K::kDiv, K::kMod, K::kPow}) {
      if (op == K::kPow && (storage == S::kI64 || storage == S::kU8)) continue;  // exponents may be negative
      const BinaryRows rows = ArithmeticRows(op, storage);
      ASSERT_TRUE(rows) << ir::OpName(op);
      for (const Case& c : kCases) {
        if (c.a == Shape{2, 300, 1}) continue;
        Check(rows, storage, c.a, c.b, c.out);
      }
    }
    for (K op : {K::kLess, K::kGreater, K::kEqual}) {  // greater runs as less with the operands swapped
      const BinaryRows rows = ComparisonRows(op, storage);
      ASSERT_TRUE(rows) << ir::OpName(op);
      for (const Case& c : kCases) {
        if (c.a != Shape{2, 300, 1}) Check(rows, storage, c.a, c.b, c.out);
      }
    }
  }
  const BinaryRows and_rows = ComparisonRows(K::kAnd, S::kBool);
  Check(and_rows, S::kBool, {300, 3}, {3}, {300, 3});
  Check(and_rows, S::kBool, {300, 1}, {300, 31}, {300, 31});
  // In place on the full operand.
  Check(ArithmeticRows(K::kSub, S::kF32), S::kF32, {300, 3}, {3}, {300, 3}, /*in_place_a=*/true);
  Check(ArithmeticRows(K::kMul, S::kI64), S::kI64, {4, 70, 6}, {4, 70, 1}, {4, 70, 6}, /*in_place_a=*/true);
  Check(ArithmeticRows(K::kAdd, S::kF32), S::kF32, {600, 2, 2}, {1, 2, 1}, {600, 2, 2}, /*in_place_a=*/true);
}

TEST(BinaryRowsTest, ByteProductsWrapInEveryStepCombination) {
  // u8 multiply runs 16 lanes at a time in 16-bit halves (MulBytesRow):
  // each element is (a · b) mod 256, for rows around the vector width,
  // either operand broadcast, and in place.
  const BinaryRows rows = ArithmeticRows(K::kMul, S::kU8);
  ASSERT_TRUE(rows);
  std::mt19937 rng(3);
  for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 100}) {
    std::vector<uint8_t> a(n + 1), b(n + 1);
    for (auto& v : a) v = static_cast<uint8_t>(rng());
    for (auto& v : b) v = static_cast<uint8_t>(rng());
    for (int64_t sa : {0, 1}) {
      for (int64_t sb : {0, 1}) {
        for (bool in_place : {false, true}) {
          if (in_place && sa == 0) continue;
          std::vector<uint8_t> out(n + 16, 0xAB), x = a;
          uint8_t* y = in_place ? x.data() : out.data();
          rows.fn(x.data(), sa, b.data(), sb, y, n);
          for (size_t i = 0; i < n; ++i) {
            const unsigned want = (a[i * static_cast<size_t>(sa)] * b[i * static_cast<size_t>(sb)]) & 255u;
            ASSERT_EQ(y[i], want) << "n " << n << " sa " << sa << " sb " << sb << " at " << i;
          }
          if (!in_place) {
            for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], 0xAB) << "past the end";
          }
        }
      }
    }
  }
}

TEST(BinaryRowsTest, OnlyBroadcastsOfShortRowsRunInGroups) {
  auto groups = [](const Shape& a, const Shape& b, const Shape& out) {
    BroadcastLoop<2> loop;
    loop.Init(out, {&a, &b});
    return BinaryRows::RunsInGroups(loop);
  };
  EXPECT_TRUE(groups({300, 31}, {31}, {300, 31}));
  EXPECT_FALSE(groups({300, 32}, {32}, {300, 32}));    // rows long enough
  EXPECT_FALSE(groups({300, 3}, {300, 3}, {300, 3}));  // no broadcast: one row
  EXPECT_FALSE(groups({300, 3}, {}, {300, 3}));        // one value: one row
  EXPECT_FALSE(groups({3}, {3}, {3}));
  EXPECT_FALSE(groups({3, 0}, {3, 1}, {3, 0}));  // empty: no rows (the group size divided by 0)
  EXPECT_FALSE(groups({0, 2}, {2}, {0, 2}));
}

}  // namespace
}  // namespace shrew::runtime::kernels
