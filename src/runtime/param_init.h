// Parameter initialisation (OPS.md §5): a parameter's tensor from its
// ir::Param (type + InitSpec), the runtime dim bindings and the executor's
// generator.
//
// Determinism contract: one Rng per executor, seeded from the runtime seed
// (else the `@config` seed, else 0). Parameters draw from it in program
// order — graphs in source order, parameters in declaration order, implicit
// (materialised) parameters after the declared ones — and, within a
// parameter, one draw (uniform) or one normal per element in row-major
// order; `zeros`/`ones` draw nothing. Every formula is evaluated in binary64
// as written (no FMA) and rounded to nearest into the storage dtype, so
// native and wasm builds produce bit-identical parameters.
//
//   Rng rng(seed);
//   Result<ParamMap> params = InitProgramParams(program, dims, rng);
//   // rng now continues for training-mode dropout.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::runtime {

// Fan-in / fan-out of a resolved shape (OPS.md §5 table): rank 0 → (1, 1);
// [n] → (n, n); [a, b] → (b, a); [o, i, k…] → (i·∏k, o·∏k).
struct Fans {
  double fan_in = 1.0;
  double fan_out = 1.0;
};
Fans ComputeFans(std::span<const int64_t> shape);

// What initialisation produces. kAllocate: the tensors are allocated but
// not filled (the caller writes every byte, e.g. from a parameter blob), and
// the generator is advanced exactly as kFill would advance it, so the stream
// that follows (dropout) is the same.
enum class InitMode { kFill, kAllocate };

// A tensor of `dtype`/`shape` filled per `init`. Random kinds need a float
// dtype ("init 'TEXT' needs a float dtype, got i64"); zeros/ones work for
// every executable dtype.
Result<Tensor> InitTensor(const ir::InitSpec& init, ir::DType dtype, Shape shape, Rng& rng,
                          InitMode mode = InitMode::kFill);

// The parameter's concrete shape: symbolic dims from `dims` ("unresolved
// symbolic dimension 'N' in parameter 'P'"), no dynamic dims.
Result<Shape> ResolveParamShape(const ir::Param& param, const ir::DimBindings& dims);

// ResolveParamShape + InitTensor; errors name the parameter.
Result<Tensor> InitParam(const ir::Param& param, const ir::DimBindings& dims, Rng& rng,
                         InitMode mode = InitMode::kFill);

// Parameter values of a whole program, keyed "GRAPH/PARAM" (PIPELINE.md §10),
// so std::map order is the documented listing order.
using ParamMap = TensorMap;
std::string ParamKey(std::string_view graph, std::string_view param);

// Initialises every parameter of `program` in program order (see above). On
// error `*failed` (when given) is the parameter that could not be made.
Result<ParamMap> InitProgramParams(const ir::Program& program, const ir::DimBindings& dims, Rng& rng,
                                   InitMode mode = InitMode::kFill, const ir::Param** failed = nullptr);

}  // namespace shrew::runtime
