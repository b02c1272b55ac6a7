// embedding (ref_embedding.cc) against a hand-written gather: rows of every
// width around the word copies (1 to 15 floats, 16 and more a memcpy each),
// f32 and f64 tables, i64, u8 and float indices (truncated toward zero),
// and an index out of range in the middle: an error naming the element.
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;

TEST(EmbeddingKernelTest, RowsOfEveryWidthMatchAGather) {
  std::mt19937 rng(5);
  for (ir::DType table_dtype : {ir::DType::kF32, ir::DType::kF64}) {
    for (ir::DType index_dtype : {ir::DType::kI64, ir::DType::kU8, ir::DType::kF32}) {
      for (int64_t d : {1, 2, 3, 7, 15, 16, 17, 100}) {
        SCOPED_TRACE(std::string(ir::DTypeName(table_dtype)) + " table of width " + std::to_string(d) + ", " +
                     ir::DTypeName(index_dtype) + " indices");
        const int64_t rows = 37;
        Tensor table = RandomTensor(table_dtype, {rows, d}, rng, -10, 10);
        Tensor idx = Tensor::Zeros(index_dtype, {5, 9}).value();
        for (int64_t i = 0; i < idx.num_elements(); ++i) {
          const double v = static_cast<double>((i * 11) % rows);
          idx.SetDouble(i, index_dtype == ir::DType::kF32 ? v + 0.75 : v);  // 0.75: truncated away
        }
        auto spec = MakeSpec(K::kEmbedding, {index_dtype, table_dtype}, table_dtype);
        Result<Tensor> y = testing::CreateAndRun(spec->spec, {&idx, &table}, {5, 9, d});
        ASSERT_TRUE(y.ok()) << y.status().ToString();
        for (int64_t i = 0; i < idx.num_elements(); ++i) {
          const int64_t row = (i * 11) % rows;
          for (int64_t j = 0; j < d; ++j) {
            ASSERT_EQ(y->GetDouble(i * d + j), table.GetDouble(row * d + j)) << "index " << i << " column " << j;
          }
        }
      }
    }
  }
}

TEST(EmbeddingKernelTest, AnIndexOutOfRangeIsAnErrorNamingItsElement) {
  std::mt19937 rng(6);
  Tensor table = RandomTensor(ir::DType::kF32, {4, 2}, rng);
  Tensor idx = Tensor::FromVector<int64_t>(ir::DType::kI64, {3}, {1, 4, 0}).value();
  auto spec = MakeSpec(K::kEmbedding, {ir::DType::kI64, ir::DType::kF32}, ir::DType::kF32);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&idx, &table}, {3, 2});
  ASSERT_FALSE(y.ok());
  EXPECT_NE(y.status().message().find("embedding index 4 out of range for a table of 4 rows"), std::string::npos)
      << y.status().message();
  EXPECT_NE(y.status().message().find("element 1"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace shrew::runtime::kernels
