// libFuzzer target (2): the bytes are a .sw program; when it compiles, every
// graph runs on both executors with small seeded inputs (fuzz/run_check.h
// says what is checked). A crash, sanitizer report, SHREW_CHECK, timeout,
// out-of-memory or a failed check is a bug: add the input to
// tests/testdata/fuzz_regressions/ (tests/api/fuzz_regressions_test.cc
// replays it through the same check). Built by CMake with -DSHREW_FUZZ=ON
// (scripts/build-sanitize.sh), run by scripts/fuzz.sh.
#include <cstdio>

#include "fuzz/run_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = shrew::fuzz::CheckCompileAndRun(data, size);
  if (!problem.empty()) {
    std::fprintf(stderr, "run_fuzzer: %s\n", problem.c_str());
    __builtin_trap();
  }
  return 0;
}
