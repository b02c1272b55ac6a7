// The lean run path (bindings, benchmarks): one graph bound to fixed input
// types, with input buffers the caller fills in place before every run.
//
//   std::vector<InputSpec> specs = {{"x", ir::DType::kF32, {1, 16}}};
//   Result<std::unique_ptr<PreparedRun>> p = program->Prepare("Tiny", specs);  // checks like Program::Run
//   std::memcpy((*p)->input_data(0), x, (*p)->input_bytes(0));
//   SHREW_RETURN_IF_ERROR((*p)->Run());
//   const float* y = static_cast<const float*>((*p)->output_data(0));
//
// Inputs are indexed in the graph's declaration order (input_bytes is 0 for
// an absent optional input). The buffers belong to this object and stay at
// the same address for its lifetime, whatever the program does meanwhile
// (runs with other shapes, SetParam, Recompile): Run re-binds the graph's
// executor when needed (cheap while it is still bound), copies the buffers
// into the arena and runs the tape. Run allocates nothing while the binding
// stays active. Bool inputs are normalised to 0/1 in place.
//
// Outputs (graph output order) have fixed dtype, shape and byte size —
// except when shapes_vary() (shapes that depend on computed values, see
// jit/executor.h): then output(o) holds the shape and bytes of the last
// successful Run (empty and 0 before one). output_data is valid after a
// successful Run until the next call into the program. Not thread-safe;
// must not outlive its Program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/input_ranges.h"
#include "base/status.h"
#include "ir/dtype.h"
#include "ir/type.h"
#include "runtime/tensor.h"

namespace shrew {

namespace jit {
class Executor;
}  // namespace jit
class Program;

// One supplied input described by dtype and shape (Program::Prepare).
struct InputSpec {
  std::string name;
  ir::DType dtype = ir::DType::kF32;
  runtime::Shape shape;
};

class PreparedRun {
 public:
  struct Output {
    std::string name;
    ir::DType dtype;
    runtime::Shape shape;
    uint64_t bytes;
  };

  int num_inputs() const { return static_cast<int>(staged_.size()); }
  std::byte* input_data(int i) { return static_cast<std::byte*>(staged_[static_cast<size_t>(i)].mutable_raw_data()); }
  uint64_t input_bytes(int i) const { return staged_[static_cast<size_t>(i)].byte_size(); }
  const runtime::Shape& input_shape(int i) const { return shapes_[static_cast<size_t>(i)]; }
  // The graph input (index for input_data) of the k-th InputSpec given to Prepare.
  int input_of_spec(int k) const { return spec_input_[static_cast<size_t>(k)]; }

  // On an input error (a value outside a narrow declared dtype) `issue`, if
  // given, receives its fields.
  Status Run(jit::InputIssue* issue = nullptr);

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const Output& output(int o) const { return outputs_[static_cast<size_t>(o)]; }
  const void* output_data(int o) const;
  bool shapes_vary() const { return shapes_vary_; }

 private:
  friend class Program;
  PreparedRun(Program* program, size_t graph) : program_(program), graph_(graph) {}

  Program* program_;
  size_t graph_;
  std::vector<InputSpec> specs_;  // as given to Prepare (a deferred graph's signature)
  std::vector<int> supplied_;     // per graph input: index into specs_, -1 if absent
  // The executor of the last Run (a deferred graph's specialisation stays
  // alive until the next Run, so that its outputs can be read).
  std::shared_ptr<void> keep_;
  jit::Executor* ran_ = nullptr;
  std::vector<runtime::Shape> shapes_;  // per graph input (the binding)
  ir::DimBindings dims_;
  // Per graph input, its bytes as u8 tensors: allocated like every tensor,
  // so running out of memory is an error (a std::vector would abort in
  // builds without exceptions).
  std::vector<runtime::Tensor> staged_;
  std::vector<uint8_t> is_bool_;                // per graph input
  std::vector<std::optional<IntRange>> narrow_;  // per graph input: declared i8..u32 fed as i64 (input_ranges.h)
  std::vector<int> spec_input_;                 // per InputSpec: its graph input
  std::vector<Output> outputs_;
  bool shapes_vary_ = false;
};

}  // namespace shrew
