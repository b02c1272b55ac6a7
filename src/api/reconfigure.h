// Changing the configured dimensions of a built program (a model's width,
// a fixed batch size, …). Compile-time dims specialise shape inference and
// fix parameter shapes, so the source is compiled again with the new values
// and a new Program is built from it. It carries over every parameter whose
// key, dtype and shape did not change — values set by SetParam/LoadParams
// included — and a parameter that is new or changed shape gets the value a
// fresh compile with the new dims and the same seed gives it.
//
//   Result<Reconfigured> r = Reconfigure(source, copts, popts, *program, {{"D", 512}});
//   if (r.ok()) program = std::move(r->program);  // r->carried / r->initialised list the parameters
//
// The previous program is only read: on any error (a negative value, a dim
// fixed by @config — which always wins, so a change would be ignored — a name
// the program does not use, or a source that no longer compiles with the new
// values) the caller keeps it, unchanged and usable. A name counts as used
// when the source's types name it (CheckDims in compile.h, the rule of the
// package's compile option too).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/compile.h"
#include "api/program.h"
#include "base/status.h"
#include "ir/type.h"

namespace shrew {

struct Reconfigured {
  std::unique_ptr<CompileResult> compiled;  // the new IR and diagnostics (warnings)
  std::unique_ptr<Program> program;
  ir::DimBindings dims;                  // effective: the previous dims overlaid by the change
  std::vector<std::string> carried;      // parameter keys, sorted
  std::vector<std::string> initialised;  // parameter keys, sorted
};

// `compile_options` and `program_options` are the ones `previous` was built
// with (their dims are the previous dims; program_options.dims is replaced
// by the effective dims, as the package passes the same dims to both).
Result<Reconfigured> Reconfigure(std::string_view source, CompileOptions compile_options,
                                 ProgramOptions program_options, const Program& previous,
                                 const ir::DimBindings& change);

}  // namespace shrew
