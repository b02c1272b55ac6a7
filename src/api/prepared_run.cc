#include "api/prepared_run.h"

#include <cstring>

#include "api/program.h"

namespace shrew {

Status PreparedRun::Run(jit::InputIssue* issue) {
  // ran_ stays null for an ordinary graph: output_data reads its executor
  // afresh (Recompile replaces it).
  Program::Entry& entry = program_->graphs_[graph_];
  jit::Executor* executor = entry.executor.get();
  if (!entry.deferred) {
    ran_ = nullptr;
    keep_.reset();
  } else if (keep_ != nullptr && static_cast<const Program::Specialized*>(keep_.get())->generation == entry.generation) {
    // The last run's specialisation is still valid (SetParam and Recompile
    // drop them all; keep_ holds it even when other signatures pushed it out
    // of the graph's most recent ones): run it again without building the
    // signature and looking it up, so that a steady run allocates nothing,
    // also when another prepared run of the graph alternates with this one.
    program_->Touch(entry, static_cast<const Program::Specialized*>(keep_.get()));
    executor = ran_;
  } else {
    // Compiled per input signature: find (or make again) this one's.
    ran_ = nullptr;
    keep_.reset();
    Program::CheckedInputs checked;
    checked.dims = dims_;
    checked.shapes = shapes_;
    checked.supplied = supplied_;
    Result<Program::Runner> runner = program_->RunnerFor(graph_, specs_, checked);
    if (!runner.ok()) return runner.status();
    keep_ = runner->keep;
    ran_ = executor = runner->executor;
  }
  jit::Executor& ex = *executor;
  // Costs a comparison while this binding is active; re-plans (or picks the
  // cached plan) after another binding, SetParam or Recompile.
  SHREW_RETURN_IF_ERROR(ex.Bind(shapes_, dims_));
  for (size_t i = 0; i < staged_.size(); ++i) {
    const size_t size = staged_[i].byte_size();
    if (size == 0) continue;
    std::byte* buf = static_cast<std::byte*>(staged_[i].mutable_raw_data());
    if (is_bool_[i]) {
      for (size_t b = 0; b < size; ++b) buf[b] = buf[b] != std::byte{0} ? std::byte{1} : std::byte{0};
    }
    if (narrow_[i]) {
      const ir::Graph& g = program_->program_.graphs[graph_];
      const ir::Node& node = g.node(g.inputs()[i].node);
      // The staging buffer is bytes (a u8 tensor), 64-byte aligned: its i64 values in place.
      const std::span<const int64_t> values(reinterpret_cast<const int64_t*>(buf), size / sizeof(int64_t));
      SHREW_RETURN_IF_ERROR(CheckIntRange(node.name, node.type.dtype(), *narrow_[i], values, issue, "input", g.name()));
    }
    const int in = static_cast<int>(i);
    if (ex.input_bytes(in) == 0) continue;  // an input the tape never reads
    if (ex.input_bytes(in) != size) return Internal("input buffer size differs from its arena slot");
    std::memcpy(ex.input_data(in), buf, size);
  }
  SHREW_RETURN_IF_ERROR(program_->RunDrawingNothingOnFailure(ex));
  if (shapes_vary_) {
    for (int o = 0; o < ex.num_outputs(); ++o) {
      Output& out = outputs_[static_cast<size_t>(o)];
      out.shape = ex.output_shape(o);
      out.bytes = static_cast<uint64_t>(runtime::CountElements(out.shape).value()) *
                  ir::StorageByteSize(ir::StorageOf(out.dtype));
    }
  }
  return Status::Ok();
}

const void* PreparedRun::output_data(int o) const {
  return (ran_ != nullptr ? ran_ : program_->graphs_[graph_].executor.get())->output_data(o);
}

}  // namespace shrew
