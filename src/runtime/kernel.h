// The kernel interface of the tape executor, after XNNPACK's operator
// lifecycle (STYLE.md): every tape instruction that computes owns one Kernel.
//
//   Create  (JIT time)  factory builds the kernel for one IR node: creates its
//                       XNNPACK operator(s) and packs constant weights.
//   Reshape (JIT time, and again for each new binding of symbolic dims)
//                       gets concrete operand/output shapes and reports the
//                       workspace bytes it needs; the planner places the
//                       workspace as a one-instruction buffer.
//   Setup   (when the arena is bound; inputs and outputs have fixed arena
//                       slots, so pointers only change when the arena moves)
//   Run     (per call)  no allocation, no lookups.
//
// Kernels never see names or the graph; all they get is in KernelSpec.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "runtime/rng.h"
#include "runtime/tensor.h"

namespace shrew::runtime {

// What a factory may look at when creating a kernel for one node.
struct KernelSpec {
  const ir::Node* node = nullptr;      // op kind, attributes
  std::vector<ir::DType> operand_dtypes;
  ir::DType output_dtype = ir::DType::kF32;
  // For each operand: the tensor if its value is fixed at compile time (a
  // parameter or a materialised constant), else nullptr. Factories may pack
  // such operands (e.g. fully-connected weights) and must then be re-created
  // when the parameter changes (Program::SetParam does that).
  std::vector<const Tensor*> constant_operands;
  // matmul, fused_matmul_add, fused_matmul_relu: operand 1 is b with its
  // last two axes swapped ([.., N, K]; the source of a transpose the JIT
  // folded into the product). Other factories refuse it.
  bool b_transposed = false;
  bool training = false;
  // How run-time messages name operand i ("'tokens'", "computed in node
  // 'y'": ir::Graph::ValueLabel), e.g. for an embedding index out of range.
  // Computed when a factory asks (while it runs): a label may scan the
  // graph, and every kernel taking them made a long chain's setup quadratic.
  // May be empty.
  std::function<std::string(size_t)> operand_label;
  // The program's seeded generator (training-mode dropout draws from it at
  // Run); owned by the caller, outlives the kernel. May be null.
  Rng* rng = nullptr;
};

class Kernel {
 public:
  virtual ~Kernel() = default;

  // Concrete shapes for the next runs. Returns the workspace bytes needed
  // (0 for none). May be called again with other shapes.
  virtual Result<size_t> Reshape(std::span<const Shape> operand_shapes, const Shape& output_shape) = 0;

  // Binds buffers: one pointer per operand (nullptr for an absent optional
  // operand), the output and the workspace (nullptr when 0 bytes). Buffers
  // stay valid until the next Setup; operands may be read past their end by
  // up to kTailPaddingBytes.
  virtual Status Setup(std::span<const void* const> operands, void* output, void* workspace) = 0;

  // Computes the output. Must not allocate.
  virtual Status Run() = 0;

  // Whether Run tolerates `output` being the same buffer as operand `i`
  // (elementwise ops whose output has operand i's shape). Lets the planner
  // place the result over an operand that dies at this instruction.
  virtual bool CanRunInPlace(size_t operand_index) const { return false; }

  // Number of live XNNPACK operators this kernel owns (lifetime tests).
  virtual int num_xnn_operators() const { return 0; }

  // Short name of the implementation for dumps ("xnn_fully_connected", "ref").
  virtual const char* impl_name() const = 0;
};

using KernelPtr = std::unique_ptr<Kernel>;

}  // namespace shrew::runtime
