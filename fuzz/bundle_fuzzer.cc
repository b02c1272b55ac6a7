// libFuzzer entry point: the bytes are a program bundle (api/bundle.h).
// LoadBundle must never read out of bounds, abort or allocate without
// bound; an error must explain itself. A bundle that loads is a program like
// a compiled one: encoding it again and loading that gives the same bytes,
// and each graph whose input types are fixed runs on zero inputs (or fails
// cleanly) without crashing.
// Seeds: fuzz/seeds/bundle_fuzzer/ (bundles of small programs; small_v1.bin
// in the previous format version, which is still read).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "api/bundle.h"
#include "api/prepared_run.h"
#include "api/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  shrew::ProgramOptions options;
  // Every tensor the program would hold, at most 16 MiB: a hostile shape is
  // an error, not an allocation (libFuzzer's -rss_limit_mb catches the rest).
  options.max_tensor_bytes = uint64_t{1} << 24;
  auto loaded = shrew::LoadBundle(std::span<const uint8_t>(data, size), options);
  if (!loaded.ok()) {
    if (loaded.status().message().empty()) __builtin_trap();
    return 0;
  }
  shrew::Program& program = **loaded;
  const std::vector<uint8_t> once = shrew::EncodeBundle(program, nullptr);
  auto again = shrew::LoadBundle(once, options);
  if (!again.ok() || shrew::EncodeBundle(**again, nullptr) != once) __builtin_trap();
  for (const std::string& graph : program.GraphNames()) {
    std::optional<std::vector<shrew::InputSpec>> specs = program.StaticInputs(graph);
    if (!specs) continue;
    auto prepared = program.Prepare(graph, *specs);
    if (!prepared.ok()) {
      if (prepared.status().message().empty()) __builtin_trap();
      continue;
    }
    shrew::PreparedRun& run = **prepared;
    for (int i = 0; i < run.num_inputs(); ++i) std::memset(run.input_data(i), 0, run.input_bytes(i));
    shrew::Status s = run.Run();
    if (!s.ok() && s.message().empty()) __builtin_trap();
  }
  return 0;
}
