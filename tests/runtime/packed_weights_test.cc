#include "runtime/packed_weights.h"

#include <gtest/gtest.h>
#include <xnnpack.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "runtime/xnn_init.h"

namespace shrew::runtime {
namespace {

struct OperatorDeleter {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDeleter>;

constexpr size_t kIn = 64, kOut = 40, kRows = 3;

// A fully-connected operator over the [kOut, kIn] weight `w`, its pack held by `packs`.
Operator Create(PackedWeights& packs, const std::vector<float>& w, const std::vector<float>& bias, float lo) {
  xnn_operator_t raw = nullptr;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(xnn_create_fully_connected_nc_f32(kIn, kOut, kIn, kOut, w.data(), bias.empty() ? nullptr : bias.data(), lo,
                                              inf, 0, nullptr, packs.cache(), &raw),
            xnn_status_success);
  return Operator(raw);
}

std::vector<float> RunProduct(xnn_operator_t op, const std::vector<float>& x) {
  std::vector<float> y(kRows * kOut);
  EXPECT_EQ(xnn_reshape_fully_connected_nc_f32(op, kRows, nullptr), xnn_status_success);
  EXPECT_EQ(xnn_setup_fully_connected_nc_f32(op, x.data(), y.data()), xnn_status_success);
  EXPECT_EQ(xnn_run_operator(op, nullptr), xnn_status_success);
  return y;
}

// y = max(x · wᵀ + bias, lo), by hand.
void ExpectProduct(const std::vector<float>& y, const std::vector<float>& x, const std::vector<float>& w,
                   const std::vector<float>& bias, float lo) {
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t o = 0; o < kOut; ++o) {
      double acc = bias.empty() ? 0.0 : bias[o];
      for (size_t i = 0; i < kIn; ++i) acc += double(x[r * kIn + i]) * w[o * kIn + i];
      const double want = std::max(acc, double(lo));
      ASSERT_NEAR(y[r * kOut + o], want, 1e-4 * (1 + std::fabs(want))) << "row " << r << " column " << o;
    }
  }
}

class PackedWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(EnsureXnnInitialized().ok());
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& v : w_) v = u(rng);
    for (float& v : x_) v = u(rng);
    live_before_ = PackedWeights::LivePacks();
    bytes_before_ = PackedWeights::LiveBytes();
  }
  std::vector<float> w_ = std::vector<float>(kOut * kIn);
  std::vector<float> x_ = std::vector<float>(kRows * kIn);
  size_t live_before_ = 0, bytes_before_ = 0;
};

TEST_F(PackedWeightsTest, EqualWeightsInDifferentBuffersShareOnePack) {
  const std::vector<float> copy = w_;  // equal values, another address
  const float inf = std::numeric_limits<float>::infinity();
  auto a = std::make_unique<PackedWeights>();
  auto b = std::make_unique<PackedWeights>();
  Operator op_a = Create(*a, w_, {}, -inf);
  const size_t one_pack = PackedWeights::LiveBytes() - bytes_before_;
  EXPECT_GE(one_pack, kOut * kIn * sizeof(float));
  // The same weight again, with a clamp: clamps are not part of the pack.
  Operator op_b = Create(*b, copy, {}, 0.0f);
  Operator op_b2 = Create(*b, w_, {}, -inf);
  EXPECT_EQ(PackedWeights::LivePacks(), live_before_ + 1);
  EXPECT_EQ(PackedWeights::LiveBytes(), bytes_before_ + one_pack);
  EXPECT_EQ(a->num_packs(), 1u);
  EXPECT_EQ(b->num_packs(), 2u);
  EXPECT_EQ(a->unshared_bytes(), 0u);

  ExpectProduct(RunProduct(op_a.get(), x_), x_, w_, {}, -inf);
  ExpectProduct(RunProduct(op_b.get(), x_), x_, w_, {}, 0.0f);
  // The first holder goes; the pack stays for the others.
  op_a.reset();
  a.reset();
  EXPECT_EQ(PackedWeights::LivePacks(), live_before_ + 1);
  EXPECT_EQ(b->unshared_bytes(), one_pack);  // held twice, by b alone
  ExpectProduct(RunProduct(op_b2.get(), x_), x_, w_, {}, -inf);
  op_b.reset();
  op_b2.reset();
  b.reset();
  EXPECT_EQ(PackedWeights::LivePacks(), live_before_);
  EXPECT_EQ(PackedWeights::LiveBytes(), bytes_before_);
}

TEST_F(PackedWeightsTest, WeightsDifferingInOneValueOrInBiasKeepTheirOwnPacks) {
  // One changed value anywhere (most are not among the hashed samples, so
  // the byte comparison decides) and a bias each make a pack of their own.
  PackedWeights packs;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<std::vector<float>> weights;
  for (size_t at : {size_t{0}, size_t{1}, size_t{7}, kIn + 3, kOut * kIn / 2 + 5, kOut * kIn - 1}) {
    weights.push_back(w_);
    weights.back()[at] += 0.25f;
  }
  std::vector<Operator> ops;
  for (const auto& w : weights) ops.push_back(Create(packs, w, {}, -inf));
  const std::vector<float> bias(kOut, 0.5f);
  ops.push_back(Create(packs, w_, bias, -inf));
  ops.push_back(Create(packs, w_, {}, -inf));
  EXPECT_EQ(PackedWeights::LivePacks(), live_before_ + weights.size() + 2);
  for (size_t k = 0; k < weights.size(); ++k) ExpectProduct(RunProduct(ops[k].get(), x_), x_, weights[k], {}, -inf);
  ExpectProduct(RunProduct(ops[weights.size()].get(), x_), x_, w_, bias, -inf);
  ExpectProduct(RunProduct(ops[weights.size() + 1].get(), x_), x_, w_, {}, -inf);
  ops.clear();
}

}  // namespace
}  // namespace shrew::runtime
