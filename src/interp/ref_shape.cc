// Reference kernels: transpose, permute, reshape/view, expand, concat, split
// (OPS.md §3.10) and range (§3.14). Shape operations accept every dtype and
// move elements without arithmetic, so they copy storage bytes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "interp/kernel.h"
#include "runtime/range_bound.h"
#include "ir/shapes.h"

namespace shrew::interp {
namespace {

size_t ElementBytes(const Tensor& t) { return ir::StorageByteSize(t.storage()); }

// out[i] = x[offset(i)] for a strided view of x with the shape of `out`.
void GatherStrided(const Tensor& x, const std::vector<int64_t>& strides, Tensor* out) {
  const size_t eb = ElementBytes(x);
  const std::byte* src = x.raw_data();
  std::byte* dst = out->mutable_raw_data();
  ForEachIndex<1>(out->shape(), {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    std::memcpy(dst + static_cast<size_t>(i) * eb, src + static_cast<size_t>(off[0]) * eb, eb);
  });
}

// A shape-list attribute resolved at run time: fixed sizes, symbolic names
// from the bindings, and -1 (Dim::Dynamic or the int -1) reported as -1.
Result<Shape> ResolveShapeAttr(const KernelArgs& args, std::string_view name) {
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(args.node, name));
  Shape shape;
  if (v.is_int_list()) {
    for (int64_t d : v.as_int_list()) {
      if (d < -1 || d == 0) return InvalidArgument("invalid size " + std::to_string(d) + " in " + std::string(name));
      shape.push_back(d);
    }
    return shape;
  }
  if (!v.is_shape()) return InvalidArgument("attribute '" + std::string(name) + "' must be a shape list");
  for (const ir::Dim& d : v.as_shape()) {
    if (d.is_fixed()) {
      shape.push_back(d.size());
    } else if (d.is_dynamic()) {
      shape.push_back(-1);
    } else {
      const ir::DimBindings* dims = args.ctx.dims;
      auto it = dims ? dims->find(d.name()) : ir::DimBindings::const_iterator();
      if (dims == nullptr || it == dims->end()) {
        return InvalidArgument("unresolved symbolic dimension '" + d.name() + "'");
      }
      shape.push_back(it->second);
    }
  }
  return shape;
}

Result<Tensor> ReshapeKernel(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(Shape target, ResolveShapeAttr(args, "shape"));
  int infer = -1;
  int64_t known = 1;
  // A 0 makes the product 0 whatever else it holds ([2^32, 2^32, 0]
  // multiplied from the left overflowed first; the tape took it).
  const bool empty = std::find(target.begin(), target.end(), int64_t{0}) != target.end();
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (infer >= 0) return InvalidArgument("reshape target " + runtime::ShapeToString(target) + " has two -1 entries");
      infer = static_cast<int>(i);
    } else if (target[i] < 0) {
      return InvalidArgument("invalid size " + std::to_string(target[i]) + " in reshape target");
    } else if (!empty && known > std::numeric_limits<int64_t>::max() / target[i]) {
      return InvalidArgument("reshape target " + runtime::ShapeToString(target) + " has too many elements");
    } else {
      known = empty ? 0 : known * target[i];
    }
  }
  if (infer >= 0) {
    if (known == 0) {
      return InvalidArgument("cannot reshape " + runtime::ShapeToString(x.shape()) + " to " +
                             runtime::ShapeToString(target) + ": -1 cannot be inferred when the other sizes multiply to 0");
    }
    if (x.num_elements() % known != 0) {
      return InvalidArgument("cannot reshape " + runtime::ShapeToString(x.shape()) + " (" +
                             std::to_string(x.num_elements()) + " elements) to " + runtime::ShapeToString(target) +
                             ": " + std::to_string(x.num_elements()) + " is not a multiple of " + std::to_string(known) +
                             ", the other sizes' product");
    }
    target[static_cast<size_t>(infer)] = x.num_elements() / known;
  }
  return ReshapeOp(x, std::move(target));
}

}  // namespace

Result<Tensor> PermuteOp(const Tensor& x, const std::vector<int>& perm) {
  Shape shape;
  std::vector<int64_t> strides;
  const std::vector<int64_t> in_strides = ContiguousStrides(x.shape());
  for (int p : perm) {
    shape.push_back(x.dim(p));
    strides.push_back(in_strides[static_cast<size_t>(p)]);
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), shape));
  GatherStrided(x, strides, &out);
  return out;
}

Result<Tensor> ReshapeOp(const Tensor& x, Shape shape) {
  SHREW_TRY_ASSIGN(Tensor out, x.Clone());
  SHREW_RETURN_IF_ERROR(out.Reshape(std::move(shape)));
  return out;
}

Result<Tensor> RefTranspose(const KernelArgs& args) {
  const Tensor& x = args[0];
  if (x.rank() < 2) return InvalidArgument("transpose expects rank >= 2, got rank " + std::to_string(x.rank()));
  SHREW_TRY_ASSIGN(int64_t d0, GetIntAttr(args.node, "dim0"));
  SHREW_TRY_ASSIGN(int64_t d1, GetIntAttr(args.node, "dim1"));
  SHREW_TRY_ASSIGN(int a0, NormalizeAxis(d0, x.rank()));
  SHREW_TRY_ASSIGN(int a1, NormalizeAxis(d1, x.rank()));
  std::vector<int> perm(static_cast<size_t>(x.rank()));
  for (int i = 0; i < x.rank(); ++i) perm[static_cast<size_t>(i)] = i;
  std::swap(perm[static_cast<size_t>(a0)], perm[static_cast<size_t>(a1)]);
  return PermuteOp(x, perm);
}

Result<Tensor> RefPermute(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(ir::AttrValue v, GetAttr(args.node, "dims"));
  if (!v.is_int_list()) return InvalidArgument("attribute 'dims' must be an int list, got " + v.ToString());
  const std::vector<int64_t>& dims = v.as_int_list();
  if (static_cast<int>(dims.size()) != x.rank()) {
    return InvalidArgument("permute dims " + v.ToString() + " has " + std::to_string(dims.size()) +
                           " entries for a rank-" + std::to_string(x.rank()) + " tensor");
  }
  std::vector<int> perm;
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    SHREW_TRY_ASSIGN(int axis, NormalizeAxis(d, x.rank()));
    if (seen[static_cast<size_t>(axis)]) return InvalidArgument("permute dims " + v.ToString() + " is not a permutation");
    seen[static_cast<size_t>(axis)] = true;
    perm.push_back(axis);
  }
  return PermuteOp(x, perm);
}

Result<Tensor> RefReshape(const KernelArgs& args) { return ReshapeKernel(args); }
Result<Tensor> RefView(const KernelArgs& args) { return ReshapeKernel(args); }

Result<Tensor> RefExpand(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(Shape target, ResolveShapeAttr(args, "shape"));
  if (target.size() < x.shape().size()) {
    return InvalidArgument("cannot expand " + runtime::ShapeToString(x.shape()) + " to the lower-rank shape " +
                           runtime::ShapeToString(target));
  }
  const size_t lead = target.size() - x.shape().size();
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (i < lead) return InvalidArgument("expand: -1 is not allowed for the new leading axis " + std::to_string(i));
      target[i] = x.shape()[i - lead];
    } else if (target[i] < 0) {
      return InvalidArgument("invalid size " + std::to_string(target[i]) + " in expand target");
    }
    if (i >= lead) {
      const int64_t in = x.shape()[i - lead];
      if (in != target[i] && in != 1) {
        return InvalidArgument("cannot expand " + runtime::ShapeToString(x.shape()) + " to " +
                               runtime::ShapeToString(target));
      }
    }
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), target));
  GatherStrided(x, BroadcastStrides(x.shape(), target), &out);
  return out;
}

Result<Tensor> RefConcat(const KernelArgs& args) {
  const Tensor& first = args[0];
  SHREW_TRY_ASSIGN(int64_t dim, GetIntAttr(args.node, "dim"));
  SHREW_TRY_ASSIGN(int axis, NormalizeAxis(dim, first.rank()));
  Shape shape = first.shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (size_t k = 0; k < args.size(); ++k) {
    const Tensor& t = args[k];
    SHREW_RETURN_IF_ERROR(RequireSameDType(first, t));
    const std::string shapes = "concat operand " + std::to_string(k) + " has shape " +
                               runtime::ShapeToString(t.shape()) + ", operand 0 " + runtime::ShapeToString(first.shape());
    if (t.rank() != first.rank()) return InvalidArgument(shapes + ": their ranks differ");
    for (int i = 0; i < t.rank(); ++i) {
      if (i == axis || t.dim(i) == first.dim(i)) continue;
      // Name the axis where they differ (the message named the concatenated one).
      return InvalidArgument(shapes + ": sizes " + std::to_string(first.dim(i)) + " and " + std::to_string(t.dim(i)) +
                             " on axis " + std::to_string(i) + " (only axis " + std::to_string(axis) +
                             ", the one joined, may differ)");
    }
    shape[static_cast<size_t>(axis)] += t.dim(axis);
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(first.dtype(), shape));
  // Nothing to copy, however long the outer axes ([2^40, 0] looped 2^40 times).
  if (out.num_elements() == 0) return out;
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= first.dim(i);
  const size_t eb = ElementBytes(first);
  std::byte* dst = out.mutable_raw_data();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t k = 0; k < args.size(); ++k) {
      const Tensor& t = args[k];
      // One operand's slab for this outer index: its axis and everything after.
      const size_t slab = outer == 0 ? 0 : static_cast<size_t>(t.num_elements() / outer) * eb;
      if (slab == 0) continue;
      std::memcpy(dst, t.raw_data() + static_cast<size_t>(o) * slab, slab);
      dst += slab;
    }
  }
  return out;
}

Result<Tensor> RefSplit(const KernelArgs& args) {
  const Tensor& x = args[0];
  SHREW_TRY_ASSIGN(int64_t chunks, GetIntAttr(args.node, "chunks"));
  SHREW_TRY_ASSIGN(int64_t dim, GetIntAttr(args.node, "dim"));
  SHREW_TRY_ASSIGN(int64_t index, GetIntAttr(args.node, "index"));
  if (chunks < 1) return InvalidArgument("split chunks must be >= 1, got " + std::to_string(chunks));
  if (index < 0) return InvalidArgument("split index must be >= 0, got " + std::to_string(index));
  SHREW_TRY_ASSIGN(int axis, NormalizeAxis(dim, x.rank()));
  const int64_t len = x.dim(axis);
  const ir::SplitChunks split = ir::SplitChunksOf(len, chunks);
  const int64_t c = split.size, produced = split.produced;
  if (index >= produced) {
    return InvalidArgument("split index " + std::to_string(index) + " does not exist: an axis of size " +
                           std::to_string(len) + " in " + std::to_string(chunks) + " chunks gives " +
                           std::to_string(produced) + " chunks");
  }
  const int64_t start = index * c;
  const int64_t size = std::min(c, len - start);
  Shape shape = x.shape();
  shape[static_cast<size_t>(axis)] = size;
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(x.dtype(), shape));
  std::vector<int64_t> strides = ContiguousStrides(x.shape());
  // A strided view starting at `start` along the axis.
  const size_t eb = ElementBytes(x);
  const size_t base = static_cast<size_t>(start * strides[static_cast<size_t>(axis)]) * eb;
  std::byte* dst = out.mutable_raw_data();
  ForEachIndex<1>(shape, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    std::memcpy(dst + static_cast<size_t>(i) * eb, x.raw_data() + base + static_cast<size_t>(off[0]) * eb, eb);
  });
  return out;
}

Result<Tensor> RefRange(const KernelArgs& args) {
  int64_t bounds[2] = {0, 0};
  for (size_t k = 0; k < args.size(); ++k) {
    const Tensor& t = args[k];
    if (t.num_elements() != 1) {
      return InvalidArgument("range operand " + std::to_string(k) + " must be a scalar, got shape " +
                             runtime::ShapeToString(t.shape()));
    }
    if (ir::IsFloat(t.dtype())) {
      SHREW_TRY_ASSIGN(bounds[k], runtime::RangeBoundOfFloat(t.GetDouble(0), ir::StorageOf(t.dtype()) == ir::StorageType::kF32));
    } else if (ir::IsInteger(t.dtype())) {
      bounds[k] = t.GetInt64(0);
    } else {
      return InvalidArgument(std::string("range operands must be numbers, got ") + ir::DTypeName(t.dtype()));
    }
  }
  int64_t start = 0;
  int64_t end = 0;
  if (args.size() == 0) {
    // The declared rank-1 type gives the length (fixed or bound symbolic).
    const ir::Type& type = args.node.type;
    if (!type.is_tensor() || type.rank() != 1 || type.dim(0).is_dynamic()) {
      return InvalidArgument("range() without operands needs a declared rank-1 type with a known length");
    }
    const ir::Dim& d = type.dim(0);
    if (d.is_fixed()) {
      end = d.size();
    } else {
      const ir::DimBindings* dims = args.ctx.dims;
      auto it = dims ? dims->find(d.name()) : ir::DimBindings::const_iterator();
      if (dims == nullptr || it == dims->end()) return InvalidArgument("unresolved symbolic dimension '" + d.name() + "'");
      end = it->second;
    }
  } else if (args.size() == 1) {
    end = bounds[0];
  } else {
    start = bounds[0];
    end = bounds[1];
  }
  if (end <= start) {
    return InvalidArgument("range is empty (start " + std::to_string(start) + ", end " + std::to_string(end) + ")");
  }
  int64_t length = 0;
  if (__builtin_sub_overflow(end, start, &length)) {
    return InvalidArgument("range [" + std::to_string(start) + ", " + std::to_string(end) +
                           ") has more elements than an i64 can count");
  }
  SHREW_TRY_ASSIGN(Tensor out, Tensor::Zeros(ir::DType::kI64, {length}));
  std::span<int64_t> v = out.mutable_values<int64_t>();
  for (int64_t i = 0; i < length; ++i) v[static_cast<size_t>(i)] = start + i;
  return out;
}

}  // namespace shrew::interp
