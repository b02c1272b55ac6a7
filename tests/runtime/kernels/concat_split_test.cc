// split (ref_concat_split.cc) against a hand-written loop: every element
// size (1, 4, 8 bytes), chunks whose rows are a few bytes (copied word by
// word inline, with the widest word that divides the row, the source row
// and the chunk's offset) or 64 bytes and more (a memcpy per row), the last
// chunk shorter than the others, and the split axis in the middle.
#include <random>

#include "runtime/kernels/kernel_test_util.h"

namespace shrew::runtime::kernels {
namespace {

using testing::Attr;
using testing::MakeSpec;
using testing::RandomTensor;
using K = ir::OpKind;

void CheckSplit(ir::DType dtype, const Shape& x_shape, int64_t dim, int64_t chunks, int64_t index) {
  SCOPED_TRACE(std::string(ir::DTypeName(dtype)) + " " + ShapeToString(x_shape) + " dim " + std::to_string(dim) +
               " chunks " + std::to_string(chunks) + " index " + std::to_string(index));
  std::mt19937 rng(static_cast<unsigned>(x_shape.size() * 7 + dim * 3 + chunks + index));
  Tensor x = RandomTensor(dtype, x_shape, rng, 0, 100);
  const int64_t len = x_shape[static_cast<size_t>(dim)];
  const int64_t size = (len + chunks - 1) / chunks;
  const int64_t start = index * size, count = std::min(size, len - start);
  Shape out = x_shape;
  out[static_cast<size_t>(dim)] = count;
  ir::Attrs attrs = Attr("chunks", ir::AttrValue::Int(chunks));
  attrs.Set("dim", ir::AttrValue::Int(dim));
  attrs.Set("index", ir::AttrValue::Int(index));
  auto spec = MakeSpec(K::kSplit, {dtype}, dtype, attrs);
  Result<Tensor> y = testing::CreateAndRun(spec->spec, {&x}, out);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= x_shape[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(dim) + 1; i < x_shape.size(); ++i) inner *= x_shape[i];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count * inner; ++j) {
      ASSERT_EQ(y->GetDouble(o * count * inner + j), x.GetDouble((o * len + start) * inner + j))
          << "row " << o << " element " << j;
    }
  }
}

TEST(SplitKernelTest, NarrowAndWideChunksOfEveryElementSize) {
  for (ir::DType dtype : {ir::DType::kU8, ir::DType::kBool, ir::DType::kF32, ir::DType::kF64, ir::DType::kI64}) {
    CheckSplit(dtype, {301, 2}, 1, 2, 1);   // one element a row
    CheckSplit(dtype, {301, 7}, 1, 3, 2);   // the short last chunk
    CheckSplit(dtype, {301, 7}, 1, 3, 1);   // an odd offset
    CheckSplit(dtype, {301, 6}, 1, 3, 1);   // u8: 2-byte words (rows, chunk and offset even)
    CheckSplit(dtype, {5, 40, 3}, 1, 4, 3); // rows of 30 elements
    CheckSplit(dtype, {9, 200}, 1, 2, 1);   // 100 elements: a memcpy per row
    CheckSplit(dtype, {10, 3}, 0, 3, 2);    // the first axis: one row
  }
}

}  // namespace
}  // namespace shrew::runtime::kernels
