// Dense kernels: matmul (constant weight → fully-connected, dynamic →
// batch-matrix-multiply, 1-D operands, batch broadcasting), fused_matmul_add
// (bias folding, in-place add, add that broadcasts the product larger),
// fused_matmul_relu, linear, and dense + activation as one kernel; against
// a hand-written double-precision NumPy matmul.
//
// Tolerance for f32: a float dot product of length K is within
// K·u·Σ|a_k·b_k| of the exact value (u = 2^-24, the standard summation bound;
// XNNPACK also uses FMA and its own order), so each element must satisfy
// |y − ref| <= 1e-5·|ref| + 1e-6 + K·1.2e-7·Σ|a·b| (+ 1e-5·|ref| for the
// XNNPACK activation approximations).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::BroadcastOffset;
using testing::BroadcastShape;
using testing::MakeSpec;
using testing::RandomTensor;
using testing::Unravel;
using K = ir::OpKind;

double Activate(K op, double x) {
  switch (op) {
    case K::kRelu:
      return x > 0 ? x : 0;
    case K::kGelu:
      return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
    case K::kSilu:
      return x / (1 + std::exp(-x));
    case K::kSigmoid:
      return 1 / (1 + std::exp(-x));
    case K::kTanh:
      return std::tanh(x);
    default:
      return x;
  }
}

// Exact (double) NumPy matmul or linear, plus the magnitude Σ|a·b| per element.
struct Reference {
  Shape shape;
  std::vector<double> value, magnitude;
  int64_t k = 0;
};

Reference RefDense(const Tensor& a, const Tensor& b, bool linear) {
  Reference r;
  const Shape& as = a.shape();
  const Shape& bs = b.shape();
  if (linear) {
    r.k = as.back();
    const int64_t n = bs[0];
    r.shape.assign(as.begin(), as.end() - 1);
    r.shape.push_back(n);
    int64_t total_rows = 1;
    for (size_t i = 0; i + 1 < as.size(); ++i) total_rows *= as[i];
    for (int64_t m = 0; m < total_rows; ++m) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (int64_t p = 0; p < r.k; ++p) {
          const double t = a.GetDouble(m * r.k + p) * b.GetDouble(j * r.k + p);
          s += t;
          mag += std::fabs(t);
        }
        r.value.push_back(s);
        r.magnitude.push_back(mag);
      }
    }
    return r;
  }
  // NumPy: promote 1-D operands, broadcast batch axes, drop promoted axes.
  const Shape a2 = as.size() == 1 ? Shape{1, as[0]} : as;
  const Shape b2 = bs.size() == 1 ? Shape{bs[0], 1} : bs;
  const Shape ab(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  const Shape batch = BroadcastShape(ab, bb);
  const int64_t m = a2[a2.size() - 2], n = b2.back();
  r.k = a2.back();
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  for (int64_t t = 0; t < nb; ++t) {
    const std::vector<int64_t> idx = Unravel(t, batch);
    const int64_t oa = BroadcastOffset(idx, ab, batch), ob = BroadcastOffset(idx, bb, batch);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (int64_t p = 0; p < r.k; ++p) {
          const double v = a.GetDouble((oa * m + i) * r.k + p) * b.GetDouble((ob * r.k + p) * n + j);
          s += v;
          mag += std::fabs(v);
        }
        r.value.push_back(s);
        r.magnitude.push_back(mag);
      }
    }
  }
  r.shape = batch;
  if (as.size() > 1) r.shape.push_back(m);
  if (bs.size() > 1) r.shape.push_back(n);
  return r;
}

class MatmulTester {
 public:
  MatmulTester& Op(K op) {
    op_ = op;
    return *this;
  }
  MatmulTester& Shapes(Shape a, Shape b) {
    a_ = std::move(a);
    b_ = std::move(b);
    return *this;
  }
  MatmulTester& Addend(Shape c, bool constant) {
    c_ = std::move(c);
    c_const_ = constant;
    return *this;
  }
  MatmulTester& ConstantWeight(bool v) {
    w_const_ = v;
    return *this;
  }
  MatmulTester& Activation(K act) {
    act_ = act;
    return *this;
  }
  MatmulTester& DType(ir::DType d) {
    dtype_ = d;
    return *this;
  }
  MatmulTester& ExpectImpl(std::string s) {
    impl_ = std::move(s);
    return *this;
  }
  MatmulTester& Repeats(int n) {
    repeats_ = n;
    return *this;
  }
  MatmulTester& PoisonEachRun() {
    poison_ = true;
    return *this;
  }
  // This share of a's elements, drawn at random, set to 0 (ReLU-like input).
  MatmulTester& ZeroFraction(double f) {
    zeros_ = {f};
    return *this;
  }
  // Row r of a (its leading axes flattened) gets the share f[r] of zeros.
  MatmulTester& RowZeroFractions(std::vector<double> f) {
    zeros_ = std::move(f);
    return *this;
  }

  void Test() const {
    const bool linear = op_ == K::kLinear;
    SCOPED_TRACE(std::string(ir::OpName(op_)) + " " + ShapeToString(a_) + " x " + ShapeToString(b_) +
                 (c_ ? " + " + ShapeToString(*c_) + (c_const_ ? " const" : "") : "") +
                 (w_const_ ? " const weight" : " dynamic weight") +
                 (act_ ? std::string(" then ") + ir::OpName(*act_) : ""));
    std::mt19937 rng(static_cast<unsigned>(a_.size() * 7 + b_.size() * 3 + (c_ ? c_->size() : 0)));
    const double lo = ir::IsFloat(dtype_) ? -1 : -4, hi = ir::IsFloat(dtype_) ? 1 : 4;
    Tensor a = RandomTensor(dtype_, a_, rng, lo, hi);
    if (!zeros_.empty()) {
      std::uniform_real_distribution<double> u(0, 1);
      const int64_t k = a_.back();
      for (int64_t i = 0; i < a.num_elements(); ++i) {
        const double share = zeros_.size() == 1 ? zeros_[0] : zeros_.at(static_cast<size_t>(i / k));
        if (u(rng) < share) a.SetDouble(i, 0);
      }
    }
    Tensor b = RandomTensor(dtype_, b_, rng, lo, hi);
    std::optional<Tensor> c;
    if (c_) c = RandomTensor(dtype_, *c_, rng, lo, hi);

    // Reference: product, + c, activation.
    Reference ref = RefDense(a, b, linear);
    Shape out = ref.shape;
    // linear's bias ([n] or [1, n]) never changes the product's shape
    // (OPS.md §3.11.2); fused_matmul_add's c broadcasts.
    if (c && !linear) out = BroadcastShape(ref.shape, *c_);
    std::optional<K> act = act_;
    if (op_ == K::kFusedMatmulRelu) act = K::kRelu;
    Result<int64_t> n_out = CountElements(out);
    ASSERT_TRUE(n_out.ok());
    std::vector<double> expected(static_cast<size_t>(*n_out)), bound(expected.size());
    for (int64_t i = 0; i < *n_out; ++i) {
      const std::vector<int64_t> idx = Unravel(i, out);
      const int64_t pi = BroadcastOffset(idx, ref.shape, out);
      double v = ref.value[pi];
      if (c) v += c->GetDouble(linear ? idx.back() : BroadcastOffset(idx, *c_, out));
      bound[i] = 1e-6 + 1e-5 * std::fabs(v) + static_cast<double>(ref.k) * 1.2e-7 * ref.magnitude[pi];
      if (act) v = Activate(*act, v);
      expected[i] = v;
      if (act) bound[i] = 1.2 * bound[i] + 1e-5 * std::fabs(v);
    }

    std::vector<ir::DType> dtypes(c ? 3 : 2, dtype_);
    std::vector<const Tensor*> constants = {nullptr, w_const_ ? &b : nullptr};
    if (c) constants.push_back(c_const_ ? &*c : nullptr);
    auto spec = MakeSpec(op_, dtypes, dtype_, {}, constants);
    Result<KernelPtr> k = act_ ? CreateFusedDenseActivation(spec->spec, *act_) : CreateKernel(spec->spec);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    std::vector<const Tensor*> operands = {&a, &b};
    if (c) operands.push_back(&*c);
    testing::RunOptions opt;
    opt.repeats = repeats_;
    opt.poison_each_run = poison_;
    Result<Tensor> y = testing::RunKernel(**k, operands, out, dtype_, opt);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    ASSERT_EQ(y->shape(), out);
    for (int64_t i = 0; i < *n_out; ++i) {
      if (ir::IsFloat(dtype_)) {
        ASSERT_NEAR(y->GetDouble(i), expected[i], bound[i]) << "element " << i;
      } else {
        ASSERT_EQ(y->GetInt64(i), static_cast<int64_t>(expected[i])) << "element " << i;
      }
    }
    if (!impl_.empty()) EXPECT_EQ((*k)->impl_name(), impl_);
  }

 private:
  K op_ = K::kMatmul;
  Shape a_, b_;
  std::optional<Shape> c_;
  bool c_const_ = false;
  bool w_const_ = true;
  std::optional<K> act_;
  ir::DType dtype_ = ir::DType::kF32;
  std::string impl_;
  int repeats_ = 1;
  bool poison_ = false;
  std::vector<double> zeros_;
};

TEST(MatmulKernelTest, ConstantWeightUsesFullyConnected) {
  MatmulTester().Shapes({3, 4}, {4, 5}).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Shapes({2, 3, 17}, {17, 9}).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Shapes({4}, {4, 5}).Test();  // 1-D a: result [5]
  MatmulTester().Shapes({2, 6}, {6}).Test();  // 1-D weight: result [2]
  MatmulTester().Shapes({1, 1}, {1, 1}).Test();
  MatmulTester().Shapes({64, 128}, {128, 33}).Repeats(3).Test();
}

// A constant weight of 512 KiB or more runs as column panels, taken in
// alternating order from one run to the next: the first run (panels in
// order), the second (reversed) and the third each give the whole product,
// with the uneven last panel, a [K, N] weight's gathered columns, linear's
// [N, K] rows, the packed bias and the relu clamp per panel.
TEST(MatmulKernelTest, LargeWeightRunsAsPanelsInEitherOrder) {
  for (int runs = 1; runs <= 3; ++runs) {
    SCOPED_TRACE("runs " + std::to_string(runs));
    // 700 x 200 floats = 547 KB: 3 panels of 96, 96 and 8 columns.
    MatmulTester().Op(K::kFusedMatmulRelu).Shapes({2, 700}, {700, 200}).Repeats(runs).PoisonEachRun()
        .ExpectImpl("xnn_fully_connected[3 panels]|by_row|sparse_rows(relu clamp)").Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 700}, {700, 200}).Addend({200}, true).Repeats(runs)
        .PoisonEachRun().ExpectImpl("xnn_fully_connected[3 panels]|sparse_rows").Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({4, 700}, {700, 200}).Addend({200}, true).Repeats(runs)
        .PoisonEachRun().ExpectImpl("xnn_fully_connected[3 panels]").Test();
    // linear [300, 600]: 3 panels of 128, 128 and 44 rows.
    MatmulTester().Op(K::kLinear).Shapes({65, 600}, {300, 600}).Addend({300}, true).Repeats(runs).PoisonEachRun()
        .ExpectImpl("xnn_fully_connected[3 panels]").Test();
  }
  // Under 512 KiB; fewer than 64 columns; K so long that a 32-column panel
  // exceeds 1 MiB: one operator.
  MatmulTester().Shapes({1, 500}, {500, 200}).ExpectImpl("xnn_fully_connected|sparse_rows").Test();
  MatmulTester().Shapes({1, 4000}, {4000, 40}).ExpectImpl("xnn_fully_connected|sparse_rows").Test();
  MatmulTester().Shapes({1, 9000}, {9000, 64}).ExpectImpl("xnn_fully_connected|sparse_rows").Test();
}

// One row (up to 3) against a constant [K, N] weight of 64 KiB or more skips
// the weight rows a zero input multiplies when enough of the row is zero
// (30 %, or 60 % under 128 columns, 40 % for 3 rows; sparse_row.h): every share of zeros, on either
// side of those thresholds and all zeros, with N and the count of nonzeros
// not multiples of 4, panels in either order, the packed bias, the relu
// clamp, an add that is not a bias and a fused activation.
TEST(MatmulKernelTest, OneRowOfZerosSkipsWeightRows) {
  for (double zeros : {0.0, 0.2, 0.35, 0.5, 0.65, 0.9, 0.99, 1.0}) {
    SCOPED_TRACE("zeros " + std::to_string(zeros));
    MatmulTester().Shapes({1, 300}, {300, 203}).ZeroFraction(zeros).Repeats(2).PoisonEachRun()
        .ExpectImpl("xnn_fully_connected|sparse_rows").Test();
    MatmulTester().Shapes({301}, {301, 130}).ZeroFraction(zeros).ExpectImpl("xnn_fully_connected|sparse_rows").Test();
    MatmulTester().Op(K::kFusedMatmulRelu).Shapes({1, 700}, {700, 200}).ZeroFraction(zeros).Repeats(3)
        .PoisonEachRun().ExpectImpl("xnn_fully_connected[3 panels]|sparse_rows(relu clamp)").Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({1, 1, 302}, {302, 129}).Addend({129}, true).ZeroFraction(zeros)
        .ExpectImpl("xnn_fully_connected|sparse_rows").Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({1, 302}, {302, 129}).Addend({2, 129}, false).ZeroFraction(zeros)
        .ExpectImpl("xnn_fully_connected|sparse_rows+xnn_binary").Test();
    MatmulTester().Shapes({1, 303}, {303, 200}).Activation(K::kGelu).ZeroFraction(zeros)
        .ExpectImpl("xnn_fully_connected|sparse_rows+gelu").Test();
    MatmulTester().Shapes({1, 2001}, {2001, 21}).ZeroFraction(zeros).ExpectImpl("xnn_fully_connected|sparse_rows").Test();
  }
  // 2 and 3 rows (batch axes folded in), each row on its own when every row pays.
  for (double zeros : {0.0, 0.45, 0.65, 0.9, 1.0}) {
    SCOPED_TRACE("rows, zeros " + std::to_string(zeros));
    MatmulTester().Op(K::kFusedMatmulRelu).Shapes({2, 300}, {300, 203}).ZeroFraction(zeros).Repeats(2)
        .PoisonEachRun().ExpectImpl("xnn_fully_connected|by_row|sparse_rows(relu clamp)").Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 1, 301}, {301, 130}).Addend({130}, true).ZeroFraction(zeros)
        .ExpectImpl("xnn_fully_connected|sparse_rows").Test();
  }
  // Four rows, linear's [N, K] weight, a weight under 64 KiB: dense.
  MatmulTester().Shapes({4, 300}, {300, 200}).ZeroFraction(0.9).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Op(K::kLinear).Shapes({1, 300}, {200, 300}).ZeroFraction(0.9).ExpectImpl("xnn_fully_connected")
      .Test();
  MatmulTester().Shapes({1, 100}, {100, 100}).ZeroFraction(0.9).ExpectImpl("xnn_fully_connected").Test();
}

// Two rows (three in wasm) against a weight of 16 KiB or more (natively at
// most 3 MiB) run one at a time through XNNPACK's one-row kernel, panel by
// panel, each set up for its own row on every run: panels in either order,
// the packed bias and relu clamp, linear's [N, K] weight, a 1-D weight,
// rows from batch axes, an add that is not a bias and a fused activation. A
// row that is mostly zeros takes the sparse product on its own while the
// other runs dense, whichever of the two it is.
TEST(MatmulKernelTest, TwoRowsRunOneAtATime) {
  for (int runs = 1; runs <= 3; ++runs) {
    SCOPED_TRACE("runs " + std::to_string(runs));
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({2, 700}, {700, 200}).Addend({200}, true).Activation(K::kRelu)
        .Repeats(runs).PoisonEachRun().ExpectImpl("xnn_fully_connected[3 panels]|by_row|sparse_rows(relu clamp)")
        .Test();
    MatmulTester().Op(K::kLinear).Shapes({2, 600}, {300, 600}).Addend({300}, true).Repeats(runs).PoisonEachRun()
        .ExpectImpl("xnn_fully_connected[3 panels]|by_row").Test();
    for (std::vector<double> zeros : {std::vector<double>{0.9, 0}, {0, 0.9}, {0.8, 0.9}}) {
      MatmulTester().Op(K::kFusedMatmulRelu).Shapes({2, 700}, {700, 200}).RowZeroFractions(zeros).Repeats(runs)
          .PoisonEachRun().ExpectImpl("xnn_fully_connected[3 panels]|by_row|sparse_rows(relu clamp)").Test();
    }
  }
  MatmulTester().Shapes({2, 5000}, {5000, 5}).ExpectImpl("xnn_fully_connected|by_row|sparse_rows").Test();
  MatmulTester().Shapes({2, 1, 300}, {300, 203}).RowZeroFractions({0, 0.95}).Repeats(2)
      .ExpectImpl("xnn_fully_connected|by_row|sparse_rows").Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({2, 302}, {302, 129}).Addend({2, 129}, false)
      .RowZeroFractions({0.7, 0}).ExpectImpl("xnn_fully_connected|by_row|sparse_rows+xnn_binary").Test();
  MatmulTester().Shapes({2, 303}, {303, 200}).Activation(K::kGelu).ExpectImpl("xnn_fully_connected|by_row|sparse_rows+gelu")
      .Test();
  MatmulTester().Shapes({2, 64}, {64, 64}).Repeats(2).PoisonEachRun().ExpectImpl("xnn_fully_connected|by_row").Test();
  // Under 16 KiB, the rows run together.
  MatmulTester().Shapes({2, 30}, {30, 20}).Repeats(2).ExpectImpl("xnn_fully_connected").Test();
#if defined(__wasm__)
  const std::string by_row = "|by_row";
#else
  const std::string by_row;  // 3 rows, or a weight over 3 MiB: together
#endif
  MatmulTester().Shapes({3, 300}, {300, 203}).ExpectImpl("xnn_fully_connected" + by_row + "|sparse_rows").Test();
  MatmulTester().Shapes({2, 1000}, {1000, 800}).Repeats(2).PoisonEachRun()
      .ExpectImpl("xnn_fully_connected[13 panels]" + by_row + "|sparse_rows").Test();
}

// Batches of matrices at most 4 columns wide over a short k (2 x 2, 3 x 3,
// vector times matrix) run inline in the plain loop's order; batch axes
// broadcast on either side, f32 and f64.
TEST(MatmulKernelTest, BatchesOfTinyMatrices) {
  for (ir::DType dt : {ir::DType::kF32, ir::DType::kF64}) {
    MatmulTester().Shapes({300, 2, 2}, {300, 2, 2}).ConstantWeight(false).DType(dt).ExpectImpl("ref_matmul").Test();
    MatmulTester().Shapes({7, 3, 3}, {3, 3}).ConstantWeight(false).DType(dt).Test();
    MatmulTester().Shapes({2, 1}, {5, 1, 3}).ConstantWeight(false).DType(dt).Test();
    MatmulTester().Shapes({4, 1, 7}, {4, 7, 1}).ConstantWeight(false).DType(dt).Test();
  }
  // The bits of the plain f32 loop: each sum from +0 over k in order.
  std::mt19937 rng(12);
  const Tensor a = RandomTensor(ir::DType::kF32, {50, 3, 7}, rng, -1e3, 1e3);
  const Tensor b = RandomTensor(ir::DType::kF32, {50, 7, 4}, rng, -1e3, 1e3);
  auto spec = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&a, &b}, {50, 3, 4});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  const float* av = a.values<float>().data();
  const float* bv = b.values<float>().data();
  for (int64_t t = 0; t < 50; ++t) {
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        float s = 0;
        for (int64_t p = 0; p < 7; ++p) {
          const float prod = av[(t * 3 + i) * 7 + p] * bv[(t * 7 + p) * 4 + j];  // rounded, as the kernel's
          s += prod;
        }
        ASSERT_EQ(y->values<float>()[static_cast<size_t>((t * 3 + i) * 4 + j)], s) << t << " " << i << " " << j;
      }
    }
  }
}

// Runs matmul(x, w) (+ b) (then relu) on one row of 300 against a [300, 200] weight.
Result<Tensor> RunOneRow(const Tensor& x, const Tensor& w, const Tensor* b, bool relu = false) {
  const std::vector<ir::DType> dtypes(b ? 3 : 2, ir::DType::kF32);
  std::vector<const Tensor*> constants = {nullptr, &w};
  std::vector<const Tensor*> operands = {&x, &w};
  if (b) {
    constants.push_back(b);
    operands.push_back(b);
  }
  auto spec = MakeSpec(b ? K::kFusedMatmulAdd : K::kMatmul, dtypes, ir::DType::kF32, {}, constants);
  if (!relu) return testing::CreateAndRun(spec->spec, operands, {1, 200});
  Result<KernelPtr> k = CreateFusedDenseActivation(spec->spec, K::kRelu);
  if (!k.ok()) return k.status();
  return testing::RunKernel(**k, operands, {1, 200}, ir::DType::kF32, {});
}

// What skipping must not change: 0 · inf and 0 · NaN are NaN (a weight that
// is not finite never takes the sparse path), a NaN input is not a zero (and
// relu of the NaN sum is 0), and a sum of nothing but zeros plus a bias of
// -0 is +0, as the interpreter adds it.
TEST(MatmulKernelTest, SkippedRowsKeepNaNAndTheSignOfZero) {
  std::mt19937 rng(11);
  Tensor w = RandomTensor(ir::DType::kF32, {300, 200}, rng);
  Tensor x = Tensor::Zeros(ir::DType::kF32, {1, 300}).value();
  x.SetDouble(3, 0.5);  // one nonzero of 300
  Result<Tensor> y = RunOneRow(x, w, nullptr);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t j = 0; j < 200; ++j) ASSERT_FLOAT_EQ(y->values<float>()[j], 0.5f * w.values<float>()[3 * 200 + j]);

  Tensor w_inf = w;  // a copy
  w_inf.SetDouble(7 * 200 + 5, std::numeric_limits<double>::infinity());  // row 7: its input is 0
  y = RunOneRow(x, w_inf, nullptr);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_TRUE(std::isnan(y->values<float>()[5]));
  EXPECT_FLOAT_EQ(y->values<float>()[6], 0.5f * w.values<float>()[3 * 200 + 6]);

  Tensor x_nan = x;
  x_nan.SetDouble(9, std::numeric_limits<double>::quiet_NaN());
  y = RunOneRow(x_nan, w, nullptr);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t j = 0; j < 200; ++j) ASSERT_TRUE(std::isnan(y->values<float>()[j])) << j;
  // relu of that NaN is 0, as in the interpreter (the clamp left NaN).
  y = RunOneRow(x_nan, w, nullptr, /*relu=*/true);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int64_t j = 0; j < 200; ++j) ASSERT_EQ(y->values<float>()[j], 0.0f) << j;

  const Tensor zeros = Tensor::Zeros(ir::DType::kF32, {1, 300}).value();
  const Tensor minus_zero = Tensor::Full(ir::DType::kF32, {200}, -0.0).value();
  for (const Tensor* b : {static_cast<const Tensor*>(nullptr), &minus_zero}) {
    y = RunOneRow(zeros, w, b);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    for (int64_t j = 0; j < 200; ++j) {
      ASSERT_EQ(y->values<float>()[j], 0.0f) << j;
      ASSERT_FALSE(std::signbit(y->values<float>()[j])) << j;
    }
  }
}

TEST(MatmulKernelTest, DynamicWeightUsesBatchMatrixMultiply) {
  const std::pair<Shape, Shape> cases[] = {
      {{3, 4}, {4, 5}},
      {{2, 3, 4}, {4, 5}},
      {{2, 3, 4}, {2, 4, 5}},
      {{2, 1, 3, 4}, {5, 4, 6}},
      {{4}, {2, 4, 5}},
      {{2, 3, 4}, {4}},
      {{4}, {4}},
      {{1, 1}, {3, 1, 2}},
      {{3, 2, 5, 8}, {1, 8, 3}},
      {{1, 7, 16}, {4, 16, 1}},
  };
  for (const auto& [a, b] : cases) MatmulTester().Shapes(a, b).ConstantWeight(false).Test();
  MatmulTester().Shapes({2, 4, 4}, {2, 4, 5}).ConstantWeight(false).ExpectImpl("xnn_batch_matrix_multiply").Test();
}

// Fewer than 4 rows against a dynamic b (a vector times a matrix, a dot
// product) run on our own tiles, which read b where it is: XNNPACK packed it
// on every run. Linear's [N, K] weight still goes to XNNPACK (our tiles
// would read it down its columns).
TEST(MatmulKernelTest, FewRowsAgainstADynamicWeightUseOurTiles) {
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{
           {{1, 64}, {64, 40}}, {{3, 64}, {64, 40}}, {{8, 1, 33}, {8, 33, 17}}, {{2, 1, 5}, {5, 7}}}) {
    MatmulTester().Shapes(a, b).ConstantWeight(false).ExpectImpl("ref_matmul").Test();
  }
  // linear's [N, K] weight: its rows are the columns (row_dots.h), no packing per run.
  MatmulTester().Op(K::kLinear).Shapes({1, 64}, {40, 64}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kLinear).Shapes({3, 100}, {37, 100}).ConstantWeight(false).Repeats(2).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kLinear).Shapes({2, 1, 100}, {37, 100}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kLinear).Shapes({4, 100}, {37, 100}).ConstantWeight(false)
      .ExpectImpl("xnn_batch_matrix_multiply").Test();
}

TEST(MatmulKernelTest, ProductsOfAtMostFourColumnsAreRowDots) {
  // Any rows, K >= 8, N <= 4 (a constant weight: 1, or 2 under 4 rows):
  // transposed (linear) or not, a vector (N dropped), batches with
  // broadcasting, K not a multiple of the vector steps; a constant bias and
  // relu folded in, other addends and activations after.
  for (int64_t n = 1; n <= 4; ++n) {
    for (int64_t k : {8, 9, 31, 300, 4100}) {
      for (int64_t m : {1, 2, 5, 70}) {
        for (bool constant : {true, false}) {
          // A constant weight of 3 or 4 columns, or 2 in 4 rows or more,
          // stays with XNNPACK (its implementation then depends on the rows
          // and the target).
          const std::string impl = constant && (n > 2 || (n == 2 && m >= 4)) ? "" : "row_dots";
          MatmulTester().Shapes({m, k}, {k, n}).ConstantWeight(constant).Repeats(2).PoisonEachRun().ExpectImpl(impl)
              .Test();
          MatmulTester().Op(K::kLinear).Shapes({m, k}, {n, k}).ConstantWeight(constant).ExpectImpl(impl).Test();
        }
      }
    }
  }
  MatmulTester().Shapes({64, 4096}, {4096}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  // b of 2-4 columns read as it is: K around the vector steps (4 sums of 1
  // or 2 rows of b; for 3 columns the last row of b apart), one row of a,
  // batches.
  for (int64_t n = 2; n <= 4; ++n) {
    for (int64_t k = 8; k <= 19; ++k) {
      MatmulTester().Shapes({1, k}, {k, n}).ConstantWeight(false).ExpectImpl("row_dots").Test();
      MatmulTester().Shapes({3, k}, {k, n}).ExpectImpl(n == 2 ? "row_dots" : "").Test();
    }
    MatmulTester().Shapes({64, 1, 64}, {64, 64, n}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  }
  MatmulTester().Shapes({300}, {300}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Shapes({300}, {300, 2}).ExpectImpl("row_dots").Test();
  MatmulTester().Shapes({300}, {300, 3}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Shapes({8, 1, 33}, {8, 33, 3}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Shapes({4, 6, 40}, {1, 40, 2}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Shapes({3, 2, 40}, {3, 40, 1}).ConstantWeight(false).Repeats(2).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kLinear).Shapes({3, 5, 40}, {3, 40}).ConstantWeight(false).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 50}, {50, 2}).Addend({2}, true).Activation(K::kRelu)
      .ExpectImpl("row_dots(relu clamp)").Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({9, 50}, {50, 1}).Addend({1}, true).Activation(K::kRelu)
      .ExpectImpl("row_dots(relu clamp)").Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({9, 50}, {50, 1}).Addend({9, 1}, false).Activation(K::kGelu)
      .ExpectImpl("row_dots+xnn_binary+gelu").Test();
  MatmulTester().Op(K::kLinear).Shapes({2, 50}, {2, 50}).Addend({2}, true).ExpectImpl("row_dots").Test();
  MatmulTester().Op(K::kLinear).Shapes({9, 50}, {2, 50}).Addend({2}, true).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Op(K::kFusedMatmulRelu).Shapes({9, 50}, {50, 2}).ConstantWeight(false)
      .ExpectImpl("row_dots+relu").Test();
  // K under 8, 5 columns, 3 of a constant weight: not row dots.
  MatmulTester().Shapes({70, 7}, {7, 2}).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Shapes({70, 64}, {64, 5}).ConstantWeight(false).ExpectImpl("xnn_batch_matrix_multiply").Test();
  MatmulTester().Shapes({70, 64}, {64, 3}).ExpectImpl("xnn_fully_connected").Test();
}

TEST(MatmulKernelTest, RandomShapes) {
  // Random ranks 1..4 on either side, broadcast batch axes, sizes 1..9.
  std::mt19937 rng(77);
  auto size = [&] { return static_cast<int64_t>(1 + rng() % 9); };
  for (int i = 0; i < 60; ++i) {
    const int ra = static_cast<int>(1 + rng() % 4), rb = static_cast<int>(1 + rng() % 4);
    const int64_t m = size(), k = size(), n = size();
    const int batch = std::max(ra, rb) - 2;
    Shape full_batch(static_cast<size_t>(std::max(batch, 0)));
    for (int64_t& d : full_batch) d = 1 + static_cast<int64_t>(rng() % 3);
    auto batch_of = [&](int rank) {
      Shape s;
      const int nb = rank - 2;
      for (int j = 0; j < nb; ++j) {
        const int64_t d = full_batch[full_batch.size() - static_cast<size_t>(nb) + static_cast<size_t>(j)];
        s.push_back(rng() % 3 == 0 ? 1 : d);
      }
      return s;
    };
    Shape a = ra == 1 ? Shape{k} : batch_of(ra), b = rb == 1 ? Shape{k} : batch_of(rb);
    if (ra > 1) a.insert(a.end(), {m, k});
    if (rb > 1) b.insert(b.end(), {k, n});
    const bool constant = rb <= 2 && rng() % 2 == 0;
    MatmulTester().Shapes(a, b).ConstantWeight(constant).Test();
    if (rb >= 2) {
      MatmulTester().Op(K::kFusedMatmulAdd).Shapes(a, b).ConstantWeight(constant).Addend({n}, rng() % 2 == 0).Test();
    }
  }
}

// NaN·0 and Inf·0 are NaN (OPS.md §3.7: Σ a·b), also where a weight is 0.
// XNNPACK's kernels for narrow N (4x2c4) zeroed A in the k remainder wherever
// the weight was 0, so matmul([NaN, 1, 1], [[0, 1], [1, 1], [1, 1]]) gave
// [2, NaN]; every K remainder and N around the panel widths, both weights.
TEST(MatmulKernelTest, NaNAndInfTimesZeroWeightPropagate) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (bool constant : {true, false}) {
    for (int64_t m : {1, 3, 5}) {
      for (int64_t k : {1, 2, 3, 5, 6, 7, 9}) {
        for (int64_t n : {1, 2, 3, 5, 9, 17, 33}) {
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                       (constant ? " const weight" : " dynamic weight"));
          std::vector<float> av(static_cast<size_t>(m * k)), bv(static_cast<size_t>(k * n));
          for (size_t i = 0; i < av.size(); ++i) av[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
          for (size_t i = 0; i < bv.size(); ++i) bv[i] = 0.125f * static_cast<float>(i % 5) + 0.25f;
          // Row r's last element is NaN (odd r) or Inf (even r); the weight
          // row it meets is 0 in every other column.
          for (int64_t r = 0; r < m; ++r) av[static_cast<size_t>(r * k + k - 1)] = r % 2 ? nan : inf;
          for (int64_t j = 0; j < n; j += 2) bv[static_cast<size_t>((k - 1) * n + j)] = 0;
          Tensor a = Tensor::FromVector<float>(ir::DType::kF32, {m, k}, av).value();
          Tensor b = Tensor::FromVector<float>(ir::DType::kF32, {k, n}, bv).value();
          auto spec = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32, {},
                               {nullptr, constant ? &b : nullptr});
          Result<KernelPtr> kernel = CreateKernel(spec->spec);
          ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
          Result<Tensor> y = testing::RunKernel(**kernel, {&a, &b}, {m, n}, ir::DType::kF32, {});
          ASSERT_TRUE(y.ok()) << y.status().ToString();
          for (int64_t r = 0; r < m; ++r) {
            for (int64_t j = 0; j < n; ++j) {
              double want = 0;
              for (int64_t q = 0; q < k; ++q) {
                want += static_cast<double>(av[static_cast<size_t>(r * k + q)]) * bv[static_cast<size_t>(q * n + j)];
              }
              const double got = y->GetDouble(r * n + j);
              if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << "row " << r << " column " << j << ": " << got;
              } else {
                EXPECT_EQ(got, want) << "row " << r << " column " << j;  // ±inf, exactly
              }
            }
          }
        }
      }
    }
  }
}

TEST(MatmulKernelTest, SubnormalProductsAreNotFlushedToZero) {
  // [1e-40, 1e-40] · [1e38, 1e38]ᵀ = 0.02 (natively XNNPACK flushed the
  // subnormal operands, giving 0; wasm and the interpreter give 0.02).
  for (bool constant : {true, false}) {
    SCOPED_TRACE(constant ? "const weight" : "dynamic weight");
    Tensor a = Tensor::FromVector<float>(ir::DType::kF32, {1, 2}, {1e-40f, 1e-40f}).value();
    Tensor b = Tensor::FromVector<float>(ir::DType::kF32, {2, 1}, {1e38f, 1e38f}).value();
    auto spec = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32, {},
                         {nullptr, constant ? &b : nullptr});
    Result<KernelPtr> kernel = CreateKernel(spec->spec);
    ASSERT_TRUE(kernel.ok()) << kernel.status().ToString();
    Result<Tensor> y = testing::RunKernel(**kernel, {&a, &b}, {1, 1}, ir::DType::kF32, {});
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const double want = 2.0 * static_cast<double>(1e-40f) * static_cast<double>(1e38f);
    EXPECT_NEAR(y->GetDouble(0), want, 1e-6 * want);
  }
}

TEST(MatmulKernelTest, DegenerateSizes) {
  for (bool constant : {true, false}) {
    MatmulTester().Shapes({3, 0}, {0, 5}).ConstantWeight(constant).Test();  // K = 0: zeros
    MatmulTester().Shapes({0, 4}, {4, 5}).ConstantWeight(constant).Test();  // M = 0
    MatmulTester().Shapes({3, 4}, {4, 0}).ConstantWeight(constant).Test();  // N = 0
  }
  MatmulTester().Shapes({2, 0, 3, 4}, {1, 4, 5}).ConstantWeight(false).Test();            // empty batch
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 0}, {0, 5}).Addend({5}, true).Test();  // K = 0: bias
}

// K = 0 with a packed bias: the empty sum plus c, as the interpreter adds
// it, so a bias of -0 gives +0 (the bias was copied as it was).
TEST(MatmulKernelTest, AnEmptySumPlusANegativeZeroBiasIsPositiveZero) {
  const Tensor x = Tensor::Zeros(ir::DType::kF32, {3, 0}).value();
  const Tensor w = Tensor::Zeros(ir::DType::kF32, {0, 2}).value();
  const Tensor b = Tensor::FromVector<float>(ir::DType::kF32, {2}, {-0.0f, 1.0f}).value();
  auto spec = MakeSpec(K::kFusedMatmulAdd, {ir::DType::kF32, ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32, {},
                       {nullptr, &w, &b});
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x, &w, &b}, {3, 2});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(y->values<float>()[static_cast<size_t>(2 * r)], 0.0f);
    EXPECT_FALSE(std::signbit(y->values<float>()[static_cast<size_t>(2 * r)])) << r;
    EXPECT_EQ(y->values<float>()[static_cast<size_t>(2 * r + 1)], 1.0f);
  }
}

TEST(MatmulKernelTest, MoreThanSixBatchAxesFallBackToOwnLoop) {
  MatmulTester()
      .Shapes({2, 1, 2, 1, 2, 1, 2, 3, 4}, {1, 2, 1, 2, 1, 2, 1, 4, 5})
      .ConstantWeight(false)
      .ExpectImpl("ref_matmul")
      .Test();
}

TEST(MatmulKernelTest, FusedMatmulAdd) {
  // Constant c along N only: folded into the fully-connected bias.
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({3, 4}, {4, 5})
      .Addend({5}, true)
      .ExpectImpl("xnn_fully_connected")
      .Test();
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({3, 4}, {4, 5})
      .Addend({1, 5}, true)
      .ExpectImpl("xnn_fully_connected")
      .Test();
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({3, 4}, {4, 5})
      .Addend({}, true)
      .ExpectImpl("xnn_fully_connected")
      .Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({2, 3, 4}, {4, 5}).Addend({1, 1, 5}, true).Test();
  // Otherwise a broadcast add: in place, or from the workspace when c makes
  // the result larger than the product.
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({3, 4}, {4, 5})
      .Addend({3, 5}, true)
      .ExpectImpl("xnn_fully_connected+xnn_binary")
      .Test();
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({3, 4}, {4, 5})
      .Addend({5}, false)
      .ExpectImpl("xnn_fully_connected+xnn_binary")
      .Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 4}, {4, 5}).Addend({2, 3, 5}, false).Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 4}, {4, 5}).Addend({3, 1}, true).Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({2, 6}, {6}).Addend({2}, true).Test();  // 1-D weight: no bias folding
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({2, 4, 4}, {2, 4, 5})
      .ConstantWeight(false)
      .Addend({5}, true)
      .ExpectImpl("xnn_batch_matrix_multiply+xnn_binary")
      .Test();
  MatmulTester().Op(K::kFusedMatmulAdd).Shapes({3, 4}, {4, 5}).ConstantWeight(false).Addend({4, 3, 5}, false).Test();
}

TEST(MatmulKernelTest, FusedMatmulRelu) {
  MatmulTester().Op(K::kFusedMatmulRelu).Shapes({5, 8}, {8, 7}).ExpectImpl("xnn_fully_connected(relu clamp)").Test();
  MatmulTester()
      .Op(K::kFusedMatmulRelu)
      .Shapes({2, 5, 8}, {2, 8, 7})
      .ConstantWeight(false)
      .ExpectImpl("xnn_batch_matrix_multiply+relu")
      .Test();
}

TEST(MatmulKernelTest, Linear) {
  MatmulTester().Op(K::kLinear).Shapes({2, 3, 4}, {5, 4}).Addend({5}, true).ExpectImpl("xnn_fully_connected").Test();
  MatmulTester().Op(K::kLinear).Shapes({2, 3, 4}, {5, 4}).Test();  // no bias
  // A [1, out] bias keeps a rank-1 x's result [out] (OPS.md §3.11.2),
  // whether it is packed (constant), added by XNNPACK or by our loops (f64).
  MatmulTester().Op(K::kLinear).Shapes({4}, {5, 4}).Addend({1, 5}, true).Test();
  MatmulTester().Op(K::kLinear).Shapes({4}, {5, 4}).Addend({1, 5}, false).Test();
  MatmulTester().Op(K::kLinear).Shapes({4}, {5, 4}).ConstantWeight(false).Addend({1, 5}, false).Test();
  MatmulTester().Op(K::kLinear).DType(ir::DType::kF64).Shapes({4}, {5, 4}).Addend({1, 5}, false).Test();
  MatmulTester().Op(K::kLinear).DType(ir::DType::kF64).Shapes({3, 4}, {5, 4}).Addend({1, 5}, true).Test();
  MatmulTester()
      .Op(K::kLinear)
      .Shapes({3, 4}, {5, 4})
      .Addend({5}, false)
      .ExpectImpl("xnn_fully_connected+xnn_binary")
      .Test();
  MatmulTester()
      .Op(K::kLinear)
      .Shapes({2, 3, 4}, {5, 4})
      .ConstantWeight(false)
      .Addend({5}, false)
      .ExpectImpl("xnn_batch_matrix_multiply+xnn_binary")
      .Test();
}

TEST(MatmulKernelTest, DenseActivationAsOneKernel) {
  for (K act : {K::kRelu, K::kGelu, K::kSilu, K::kSigmoid, K::kTanh}) {
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({9, 16}, {16, 12}).Addend({12}, true).Activation(act).Test();
    MatmulTester().Op(K::kLinear).Shapes({2, 9, 16}, {12, 16}).Addend({12}, true).Activation(act).Test();
    MatmulTester().Op(K::kFusedMatmulAdd).Shapes({9, 16}, {16, 12}).Addend({9, 12}, false).Activation(act).Test();
    MatmulTester().Op(K::kMatmul).Shapes({3, 9, 16}, {3, 16, 12}).ConstantWeight(false).Activation(act).Test();
  }
  MatmulTester()
      .Op(K::kLinear)
      .Shapes({9, 16}, {12, 16})
      .Addend({12}, true)
      .Activation(K::kRelu)
      .ExpectImpl("xnn_fully_connected(relu clamp)")
      .Test();
  MatmulTester()
      .Op(K::kLinear)
      .Shapes({9, 16}, {12, 16})
      .Addend({12}, true)
      .Activation(K::kGelu)
      .ExpectImpl("xnn_fully_connected+gelu")
      .Test();
  MatmulTester()
      .Op(K::kFusedMatmulAdd)
      .Shapes({9, 16}, {16, 12})
      .Addend({9, 12}, true)
      .Activation(K::kRelu)
      .ExpectImpl("xnn_fully_connected+xnn_binary+relu")
      .Test();
}

TEST(MatmulKernelTest, DenseActivationRejectsOtherPairs) {
  auto spec = MakeSpec(K::kFusedMatmulRelu, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  EXPECT_EQ(CreateFusedDenseActivation(spec->spec, K::kGelu).status().code(), StatusCode::kUnimplemented);
  auto mm = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  EXPECT_EQ(CreateFusedDenseActivation(mm->spec, K::kExp).status().code(), StatusCode::kUnimplemented);
  auto f64 = MakeSpec(K::kMatmul, {ir::DType::kF64, ir::DType::kF64}, ir::DType::kF64);
  EXPECT_EQ(CreateFusedDenseActivation(f64->spec, K::kRelu).status().code(), StatusCode::kUnimplemented);
  EXPECT_TRUE(CanFuseDenseActivation(K::kLinear, K::kSilu));
  EXPECT_FALSE(CanFuseDenseActivation(K::kAdd, K::kRelu));
}

TEST(MatmulKernelTest, F64AndIntegers) {
  for (ir::DType d : {ir::DType::kF64, ir::DType::kI64, ir::DType::kI32}) {
    MatmulTester().DType(d).Shapes({3, 4}, {4, 5}).ExpectImpl("ref_matmul").Test();
    MatmulTester().DType(d).Shapes({2, 1, 3, 4}, {5, 4, 2}).Test();
    MatmulTester().DType(d).Shapes({4}, {4}).Test();
    MatmulTester().DType(d).Op(K::kFusedMatmulAdd).Shapes({3, 4}, {4, 5}).Addend({2, 3, 5}, false).Test();
    MatmulTester().DType(d).Op(K::kFusedMatmulRelu).Shapes({3, 4}, {4, 5}).Test();
  }
  MatmulTester().DType(ir::DType::kF64).Op(K::kLinear).Shapes({2, 3, 4}, {5, 4}).Addend({5}, true).Test();
}

TEST(MatmulKernelTest, ShapeErrors) {
  auto spec = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32);
  Result<KernelPtr> k = CreateKernel(spec->spec);
  ASSERT_TRUE(k.ok());
  std::vector<Shape> bad = {{2, 3}, {4, 5}};
  Result<size_t> r = (*k)->Reshape(bad, {2, 5});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("matmul inner dimensions 3 and 4 differ"), std::string::npos)
      << r.status().message();
  std::vector<Shape> scalar = {{}, {4, 5}};
  EXPECT_FALSE((*k)->Reshape(scalar, {5}).ok());
  std::vector<Shape> batch = {{2, 3, 4}, {3, 4, 5}};
  EXPECT_FALSE((*k)->Reshape(batch, {2, 3, 5}).ok());

  // The packed weight's shape is fixed at Create.
  Tensor w = Tensor::Zeros(ir::DType::kF32, {4, 5}).value();
  auto fc = MakeSpec(K::kMatmul, {ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32, {}, {nullptr, &w});
  Result<KernelPtr> kf = CreateKernel(fc->spec);
  ASSERT_TRUE(kf.ok());
  std::vector<Shape> other = {{2, 4}, {4, 6}};
  EXPECT_FALSE((*kf)->Reshape(other, {2, 6}).ok());

  auto lin = MakeSpec(K::kLinear, {ir::DType::kF32, ir::DType::kF32, ir::DType::kF32}, ir::DType::kF32,
                      testing::Attr("bias", ir::AttrValue::Bool(false)));
  EXPECT_EQ(CreateKernel(lin->spec).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace shrew::runtime::kernels
