#include "runtime/param_init.h"

#include <algorithm>
#include <cmath>
#include <utility>

// The init formulas must be evaluated as written, without fused
// multiply-add (OPS.md §5), for bit-identical native and wasm parameters.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace shrew::runtime {
namespace {

using Kind = ir::InitSpec::Kind;

bool IsRandom(Kind kind) { return kind != Kind::kZeros && kind != Kind::kOnes; }

// Fills out[0, n) from the stream. Called once per chunk of a tensor, not
// once per tensor: V8 runs a wasm function's first calls in baseline code and
// only switches to optimised code at the next call, so one call over a large
// weight would stay in slow code throughout. `draw` maps the generator to one
// value, with the per-tensor constants hoisted.
template <typename T, typename DrawFn>
[[gnu::noinline]] void FillChunk(T* out, size_t n, Rng& rng, const DrawFn& draw) {
  Rng local = rng;
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(draw(local));
  rng = local;
}

template <typename T, typename DrawFn>
void Fill(std::span<T> out, Rng& rng, const DrawFn& draw) {
  constexpr size_t kChunk = 4096;
  for (size_t i = 0; i < out.size(); i += kChunk) {
    FillChunk(out.data() + i, std::min(kChunk, out.size() - i), rng, draw);
  }
}

// Draws every element of `out` for `init` (a random kind) with precomputed
// fans. Each formula is the one of OPS.md §5, evaluated as written: the
// hoisted subexpressions (b − a, −bound, 2·bound, the sqrt) are the same
// binary64 operations on the same operands, so the values are bit-identical
// to computing them per element.
template <typename T>
void DrawAll(const ir::InitSpec& init, const Fans& fans, Rng& rng, std::span<T> out) {
  switch (init.kind) {
    case Kind::kNormal: {
      const double mean = init.a, stddev = init.b;
      Fill(out, rng, [=](Rng& r) { return mean + stddev * r.NextNormal(); });
      return;
    }
    case Kind::kUniform: {
      const double lo = init.a, width = init.b - init.a;
      Fill(out, rng, [=](Rng& r) { return lo + width * r.NextUniform(); });
      return;
    }
    case Kind::kXavierUniform:
    case Kind::kKaimingUniform: {
      const double bound = init.kind == Kind::kXavierUniform ? std::sqrt(6.0 / (fans.fan_in + fans.fan_out))
                                                             : std::sqrt(6.0 / fans.fan_in);
      const double neg = -bound, twice = 2.0 * bound;
      Fill(out, rng, [=](Rng& r) { return neg + twice * r.NextUniform(); });
      return;
    }
    case Kind::kXavierNormal:
    case Kind::kKaimingNormal: {
      const double s = init.kind == Kind::kXavierNormal ? std::sqrt(2.0 / (fans.fan_in + fans.fan_out))
                                                        : std::sqrt(2.0 / fans.fan_in);
      Fill(out, rng, [=](Rng& r) { return s * r.NextNormal(); });
      return;
    }
    case Kind::kZeros:
    case Kind::kOnes: return;
  }
}

// The draws DrawAll makes for `count` elements, without the values.
void SkipDraws(const ir::InitSpec& init, int64_t count, Rng& rng) {
  switch (init.kind) {
    case Kind::kUniform:
    case Kind::kXavierUniform:
    case Kind::kKaimingUniform:
      rng.SkipBits(static_cast<uint64_t>(count));
      return;
    case Kind::kNormal:
    case Kind::kXavierNormal:
    case Kind::kKaimingNormal:
      for (int64_t i = 0; i < count; ++i) rng.SkipNormal();
      return;
    case Kind::kZeros:
    case Kind::kOnes: return;
  }
}

}  // namespace

Fans ComputeFans(std::span<const int64_t> shape) {
  Fans f;
  if (shape.empty()) return f;
  if (shape.size() == 1) {
    f.fan_in = f.fan_out = static_cast<double>(shape[0]);
    return f;
  }
  // Receptive field: product of the trailing dims (1 for rank 2). Computed
  // in double: only the ratio matters and it cannot overflow.
  double receptive = 1.0;
  for (size_t i = 2; i < shape.size(); ++i) receptive *= static_cast<double>(shape[i]);
  f.fan_in = static_cast<double>(shape[1]) * receptive;
  f.fan_out = static_cast<double>(shape[0]) * receptive;
  return f;
}

Result<Tensor> InitTensor(const ir::InitSpec& init, ir::DType dtype, Shape shape, Rng& rng, InitMode mode) {
  if (IsRandom(init.kind) && !ir::IsFloat(dtype)) {
    return InvalidArgument("init '" + init.text + "' needs a float dtype, got " + ir::DTypeName(dtype));
  }
  if (mode == InitMode::kAllocate) {
    Result<Tensor> t = Tensor::Uninitialized(dtype, std::move(shape));
    if (t.ok() && IsRandom(init.kind)) SkipDraws(init, t->num_elements(), rng);
    return t;
  }
  if (init.kind == Kind::kOnes) return Tensor::Full(dtype, std::move(shape), 1.0);
  const ir::StorageType storage = ir::StorageOf(dtype);
  if (init.kind == Kind::kZeros || (storage != ir::StorageType::kF32 && storage != ir::StorageType::kF64)) {
    return Tensor::Zeros(dtype, std::move(shape));
  }
  // Every element is drawn below (float storage), so no zeroing pass first.
  Result<Tensor> t = Tensor::Uninitialized(dtype, std::move(shape));
  if (!t.ok()) return t;
  const Fans fans = ComputeFans(t->shape());
  // Doubles are rounded to nearest into the storage type by the cast.
  VisitStorage(t->storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      DrawAll<T>(init, fans, rng, t->template mutable_values<T>());
    }
  });
  return t;
}

Result<Shape> ResolveParamShape(const ir::Param& param, const ir::DimBindings& dims) {
  if (!param.type.is_tensor()) {
    return InvalidArgument("parameter '" + param.name + "' has no tensor type");
  }
  Shape shape;
  for (const ir::Dim& d : param.type.dims()) {
    if (d.is_fixed()) {
      shape.push_back(d.size());
    } else if (d.is_symbolic()) {
      auto it = dims.find(d.name());
      if (it == dims.end()) {
        return InvalidArgument("unresolved symbolic dimension '" + d.name() + "' in parameter '" + param.name +
                               "': set it in @config or in the dims option");
      }
      if (it->second < 0) {
        return InvalidArgument("symbolic dimension '" + d.name() + "' is bound to " + std::to_string(it->second) +
                               " in parameter '" + param.name + "'");
      }
      shape.push_back(it->second);
    } else {
      return InvalidArgument("parameter '" + param.name + "' needs a tensor type without dynamic dimensions");
    }
  }
  return shape;
}

Result<Tensor> InitParam(const ir::Param& param, const ir::DimBindings& dims, Rng& rng, InitMode mode) {
  Result<Shape> shape = ResolveParamShape(param, dims);
  if (!shape.ok()) return shape.status();
  Result<Tensor> t = InitTensor(param.init, param.type.dtype(), std::move(shape).value(), rng, mode);
  if (!t.ok()) return t.status().Prefixed("parameter '" + param.name + "': ");
  return t;
}

std::string ParamKey(std::string_view graph, std::string_view param) {
  std::string key(graph);
  key += '/';
  key += param;
  return key;
}

Result<ParamMap> InitProgramParams(const ir::Program& program, const ir::DimBindings& dims, Rng& rng,
                                   InitMode mode, const ir::Param** failed) {
  ParamMap out;
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Param& p : g.params()) {
      Result<Tensor> t = InitParam(p, dims, rng, mode);
      if (!t.ok()) {
        if (failed != nullptr) *failed = &p;
        return t.status().Prefixed("graph '" + g.name() + "': ");
      }
      out.insert_or_assign(ParamKey(g.name(), p.name), std::move(t).value());
    }
  }
  return out;
}

}  // namespace shrew::runtime
