#include "api/reconfigure.h"

#include <algorithm>
#include <set>
#include <utility>

namespace shrew {
namespace {

// Symbolic dimension names still in the program's types (names bound when
// compiling are fixed sizes by now).
std::set<std::string, std::less<>> SymbolicNames(const ir::Program& program) {
  std::set<std::string, std::less<>> names;
  auto add = [&](const ir::Type& t) {
    if (!t.is_tensor()) return;
    for (const ir::Dim& d : t.dims()) {
      if (d.is_symbolic()) names.insert(d.name());
    }
  };
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Node& n : g.nodes()) add(n.type);
    for (const ir::Param& p : g.params()) add(p.type);
  }
  return names;
}

std::string Join(const std::set<std::string, std::less<>>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

}  // namespace

Result<Reconfigured> Reconfigure(std::string_view source, CompileOptions compile_options,
                                 ProgramOptions program_options, const Program& previous,
                                 const ir::DimBindings& change) {
  for (const auto& [name, value] : change) {
    if (value < 0) {
      return InvalidArgument("dimension '" + name + "' = " + std::to_string(value) +
                             ": a dimension is a non-negative integer");
    }
    if (previous.ir().config.count(name) != 0) {
      return InvalidArgument("dimension '" + name + "' is set by @config in the source, which always wins over " +
                             "configured dims; change it there");
    }
  }
  // A name the program never uses would change nothing: most likely a typo.
  const std::set<std::string, std::less<>> symbolic = SymbolicNames(previous.ir());
  for (const auto& [name, value] : change) {
    if (compile_options.dims.count(name) != 0 || symbolic.count(name) != 0) continue;
    std::set<std::string, std::less<>> known = symbolic;
    for (const auto& [n, v] : compile_options.dims) known.insert(n);
    return InvalidArgument("dimension '" + name + "' is not used by this program; its dimensions: " + Join(known));
  }
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
