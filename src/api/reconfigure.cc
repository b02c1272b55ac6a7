#include "api/reconfigure.h"

#include <algorithm>
#include <utility>

namespace shrew {

Result<Reconfigured> Reconfigure(std::string_view source, CompileOptions compile_options,
                                 ProgramOptions program_options, const Program& previous,
                                 const ir::DimBindings& change) {
  SHREW_RETURN_IF_ERROR(CheckDimValues(change));
  Reconfigured out;
  out.dims = compile_options.dims;
  for (const auto& [name, value] : change) out.dims[name] = value;
  compile_options.dims = out.dims;
  program_options.dims = out.dims;
  out.compiled = std::make_unique<CompileResult>(Compile(source, compile_options));
  if (!out.compiled->ok) {
    std::string dims;
    for (const auto& [name, value] : change) dims += (dims.empty() ? "" : ", ") + name + " = " + std::to_string(value);
    return InvalidArgument("with " + dims + " the program does not compile:\n" + out.compiled->RenderDiagnostics());
  }
  SHREW_RETURN_IF_ERROR(CheckDims(*out.compiled, change));
  Result<std::unique_ptr<Program>> p =
      Program::CreateCarrying(*out.compiled, std::move(program_options), previous, &out.carried);
  if (!p.ok()) return p.status();
  out.program = std::move(p).value();
  for (const auto& [key, tensor] : out.program->Params()) {
    if (!std::binary_search(out.carried.begin(), out.carried.end(), key)) out.initialised.push_back(key);
  }
  return out;
}

}  // namespace shrew
