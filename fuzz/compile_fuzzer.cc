// libFuzzer entry point: the bytes are a .sw program, compiled through the
// whole front end (parse -> lower -> validate -> infer -> materialise ->
// optimise), then dumped, so every stage and the dumps see hostile input.
// Not part of the CMake build; scripts/fuzz.sh builds and runs it with
// -fsanitize=fuzzer,address,undefined. A crash, sanitizer report, timeout or
// out-of-memory is a bug: add the input to tests/testdata/fuzz_regressions/.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/compile.h"
#include "ir/dump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  shrew::CompileOptions options;
  options.filename = "fuzz.sw";
  shrew::CompileResult r = shrew::Compile(text, options);
  if (!r.ok) {
    // Rendering reads spans back into the source: exercise it.
    std::string rendered = r.RenderDiagnostics();
    if (rendered.empty()) __builtin_trap();  // a failed compile must explain itself
    return 0;
  }
  std::string dump = shrew::ir::DumpProgram(r.program);
  std::string before = shrew::ir::DumpProgram(r.unoptimized);
  std::string json = shrew::ir::DumpProgramJson(r.program);
  (void)dump;
  (void)before;
  (void)json;
  return 0;
}
