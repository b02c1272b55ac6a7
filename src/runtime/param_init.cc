#include "runtime/param_init.h"

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

// Draws one value for `kind` (a random kind) with precomputed fans.
double Draw(const ir::InitSpec& init, const Fans& fans, Rng& rng) {
  switch (init.kind) {
    case Kind::kNormal: {
      const double z = rng.NextNormal();
      return init.a + init.b * z;
    }
    case Kind::kUniform: {
      const double u = rng.NextUniform();
      return init.a + (init.b - init.a) * u;
    }
    case Kind::kXavierUniform: {
      const double a = std::sqrt(6.0 / (fans.fan_in + fans.fan_out));
      const double u = rng.NextUniform();
      return -a + 2.0 * a * u;
    }
    case Kind::kXavierNormal: {
      const double s = std::sqrt(2.0 / (fans.fan_in + fans.fan_out));
      return s * rng.NextNormal();
    }
    case Kind::kKaimingUniform: {
      const double b = std::sqrt(6.0 / fans.fan_in);
      const double u = rng.NextUniform();
      return -b + 2.0 * b * u;
    }
    case Kind::kKaimingNormal: {
      const double s = std::sqrt(2.0 / fans.fan_in);
      return s * rng.NextNormal();
    }
    case Kind::kZeros:
    case Kind::kOnes: break;
  }
  return 0.0;
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

Result<Tensor> InitTensor(const ir::InitSpec& init, ir::DType dtype, Shape shape, Rng& rng) {
  if (IsRandom(init.kind) && !ir::IsFloat(dtype)) {
    return InvalidArgument("init '" + init.text + "' needs a float dtype, got " + ir::DTypeName(dtype));
  }
  if (init.kind == Kind::kOnes) return Tensor::Full(dtype, std::move(shape), 1.0);
  Result<Tensor> t = Tensor::Zeros(dtype, std::move(shape));
  if (!t.ok() || init.kind == Kind::kZeros) return t;
  const Fans fans = ComputeFans(t->shape());
  // Doubles are rounded to nearest into the storage type by the cast.
  VisitStorage(t->storage(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      std::span<T> out = t->template mutable_values<T>();
      for (T& v : out) v = static_cast<T>(Draw(init, fans, rng));
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
        return InvalidArgument("unresolved symbolic dimension '" + d.name() + "' in parameter '" + param.name + "'");
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

Result<Tensor> InitParam(const ir::Param& param, const ir::DimBindings& dims, Rng& rng) {
  Result<Shape> shape = ResolveParamShape(param, dims);
  if (!shape.ok()) return shape.status();
  Result<Tensor> t = InitTensor(param.init, param.type.dtype(), std::move(shape).value(), rng);
  if (!t.ok()) return Status(t.status().code(), "parameter '" + param.name + "': " + t.status().message());
  return t;
}

std::string ParamKey(std::string_view graph, std::string_view param) {
  std::string key(graph);
  key += '/';
  key += param;
  return key;
}

Result<ParamMap> InitProgramParams(const ir::Program& program, const ir::DimBindings& dims, Rng& rng) {
  ParamMap out;
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Param& p : g.params()) {
      Result<Tensor> t = InitParam(p, dims, rng);
      if (!t.ok()) return Status(t.status().code(), "graph '" + g.name() + "': " + t.status().message());
      out.insert_or_assign(ParamKey(g.name(), p.name), std::move(t).value());
    }
  }
  return out;
}

}  // namespace shrew::runtime
