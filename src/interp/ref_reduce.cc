// Reference kernels: reductions sum/mean/max/min/variance (OPS.md §3.8) and
// softmax (§3.9). Float only (checked by EvalNode). Sums accumulate in
// double, as the JIT's kernels do: the oracle must not be the less precise
// of the two (an f32 running sum of 2^20 values of 0.1 is 1 % off).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "interp/kernel.h"

namespace shrew::interp {
namespace {

using K = ir::OpKind;

// Which axes `dims` reduces: `all`, an int list or a single int; negative
// axes allowed, duplicates (after normalisation) rejected.
Result<std::vector<bool>> ReducedAxes(const ir::Node& node, int rank) {
  SHREW_TRY_ASSIGN(ir::AttrValue dims, GetAttr(node, "dims"));
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (dims.is_all()) {
    reduced.assign(static_cast<size_t>(rank), true);
    return reduced;
  }
  std::vector<int64_t> list;
  if (dims.is_int()) {
    list.push_back(dims.as_int());
  } else if (dims.is_int_list()) {
    list = dims.as_int_list();
  } else {
    return InvalidArgument("attribute 'dims' must be an int list or all, got " + dims.ToString());
  }
  for (int64_t d : list) {
    SHREW_TRY_ASSIGN(int axis, NormalizeAxis(d, rank));
    if (reduced[static_cast<size_t>(axis)]) {
      return InvalidArgument("duplicate axis " + std::to_string(d) + " in dims " + dims.ToString());
    }
    reduced[static_cast<size_t>(axis)] = true;
  }
  return reduced;
}

template <typename T>
void ReduceLoop(K op, const Tensor& x, const std::vector<int64_t>& out_strides, int64_t count, Tensor* out) {
  const T* px = x.data<T>();
  T* po = out->mutable_data<T>();
  const std::vector<int64_t> in_strides = ContiguousStrides(x.shape());
  auto for_each = [&](auto&& fn) {
    ForEachIndex<2>(x.shape(), {in_strides, out_strides},
                    [&](int64_t, const std::array<int64_t, 2>& off) { fn(px[off[0]], po[off[1]]); });
  };
  const int64_t n_out = out->num_elements();
  // Sums in double, one accumulator per output element.
  auto sum_into = [&](std::vector<double>& acc, const std::vector<double>* centre) {
    ForEachIndex<2>(x.shape(), {in_strides, out_strides}, [&](int64_t, const std::array<int64_t, 2>& off) {
      const size_t o = static_cast<size_t>(off[1]);
      const double v = centre ? static_cast<double>(px[off[0]]) - (*centre)[o] : static_cast<double>(px[off[0]]);
      acc[o] += centre ? v * v : v;
    });
  };
  const double n = static_cast<double>(count);
  switch (op) {
    case K::kSum:
    case K::kMean: {
      std::vector<double> acc(static_cast<size_t>(n_out), 0.0);
      sum_into(acc, nullptr);
      const double div = op == K::kMean ? n : 1.0;
      for (int64_t i = 0; i < n_out; ++i) po[i] = static_cast<T>(acc[static_cast<size_t>(i)] / div);
      break;
    }
    case K::kMax:
    case K::kMin: {
      const bool is_max = op == K::kMax;
      const T init = is_max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < n_out; ++i) po[i] = init;
      // NaN propagates: once the accumulator is NaN no comparison replaces it.
      for_each([is_max](T v, T& acc) {
        if (std::isnan(v) || (is_max ? v > acc : v < acc)) acc = v;
      });
      break;
    }
    case K::kVariance: {
      // Two passes (OPS.md §3.11.3): the mean, then the mean of squared
      // deviations from it. Population variance (divides by N).
      std::vector<double> mean(static_cast<size_t>(n_out), 0.0);
      sum_into(mean, nullptr);
      for (double& m : mean) m /= n;
      std::vector<double> sq(static_cast<size_t>(n_out), 0.0);
      sum_into(sq, &mean);
      for (int64_t i = 0; i < n_out; ++i) po[i] = static_cast<T>(sq[static_cast<size_t>(i)] / n);
      break;
    }
    default: break;
  }
}

Result<Tensor> Reduce(const KernelArgs& args) {
  const Tensor& x = args[0];
  const K op = args.node.op;
  SHREW_TRY_ASSIGN(std::vector<bool> reduced, ReducedAxes(args.node, x.rank()));
  SHREW_TRY_ASSIGN(bool keepdim, GetBoolAttr(args.node, "keepdim"));
  Shape keep_shape;  // the output with reduced axes kept as size 1
  Shape out_shape;
  int64_t count = 1;
  for (int i = 0; i < x.rank(); ++i) {
    if (reduced[static_cast<size_t>(i)]) {
      count *= x.dim(i);
      keep_shape.push_back(1);
      if (keepdim) out_shape.push_back(1);
    } else {
      keep_shape.push_back(x.dim(i));
      out_shape.push_back(x.dim(i));
    }
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), out_shape));
  if ((op == K::kMax || op == K::kMin) && count == 0 && out.num_elements() > 0) {
    return InvalidArgument(std::string(ir::OpName(op)) + " of an empty slice (input shape " +
                           runtime::ShapeToString(x.shape()) + ")");
  }
  // Strides of the output seen from the input's index: 0 on reduced axes.
  std::vector<int64_t> out_strides = ContiguousStrides(keep_shape);
  for (size_t i = 0; i < reduced.size(); ++i) {
    if (reduced[i]) out_strides[i] = 0;
  }
  if (x.storage() == ir::StorageType::kF32) {
    ReduceLoop<float>(op, x, out_strides, count, &out);
  } else {
    ReduceLoop<double>(op, x, out_strides, count, &out);
  }
  return out;
}

template <typename T>
void SoftmaxLoop(const Tensor& x, int axis, Tensor* out) {
  int64_t outer = 1;
  int64_t inner = 1;
  for (int i = 0; i < axis; ++i) outer *= x.dim(i);
  for (int i = axis + 1; i < x.rank(); ++i) inner *= x.dim(i);
  const int64_t len = x.dim(axis);
  const T* px = x.data<T>();
  T* po = out->mutable_data<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * len * inner + in;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < len; ++j) m = std::max(m, px[base + j * inner]);
      const double md = static_cast<double>(m);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += std::exp(static_cast<double>(px[base + j * inner]) - md);
      for (int64_t j = 0; j < len; ++j) {
        po[base + j * inner] = static_cast<T>(std::exp(static_cast<double>(px[base + j * inner]) - md) / sum);
      }
    }
  }
}

}  // namespace

Result<Tensor> SoftmaxOp(const Tensor& x, int64_t axis) {
  SHREW_RETURN_IF_ERROR(RequireFloat(K::kSoftmax, x));
  SHREW_TRY_ASSIGN(int ax, NormalizeAxis(axis, x.rank()));
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), x.shape()));
  // Nothing to do, however long the other axes ([2^40, 0] looped 2^40 times).
  if (x.num_elements() == 0) return out;
  if (x.storage() == ir::StorageType::kF32) {
    SoftmaxLoop<float>(x, ax, &out);
  } else {
    SoftmaxLoop<double>(x, ax, &out);
  }
  return out;
}

Result<Tensor> RefSum(const KernelArgs& args) { return Reduce(args); }
Result<Tensor> RefMean(const KernelArgs& args) { return Reduce(args); }
Result<Tensor> RefMax(const KernelArgs& args) { return Reduce(args); }
Result<Tensor> RefMin(const KernelArgs& args) { return Reduce(args); }
Result<Tensor> RefVariance(const KernelArgs& args) { return Reduce(args); }

Result<Tensor> RefSoftmax(const KernelArgs& args) {
  SHREW_TRY_ASSIGN(int64_t dim, GetIntAttr(args.node, "dim"));
  return SoftmaxOp(args[0], dim);
}

}  // namespace shrew::interp
