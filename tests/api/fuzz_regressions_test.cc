// Every input the fuzzer (fuzz/compile_fuzzer.cc) ever crashed on, kept in
// tests/testdata/fuzz_regressions/: Compile() must return on each (with or
// without diagnostics) and a failed compile must explain itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/compile.h"

namespace shrew {
namespace {

namespace fs = std::filesystem;

TEST(FuzzRegressionsTest, EveryCrashInputNowCompilesOrExplains) {
  fs::path dir = fs::path(SHREW_TESTDATA_DIR) / "fuzz_regressions";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    CompileResult r = Compile(ss.str());
    if (!r.ok) {
      EXPECT_FALSE(r.diagnostics.empty());
    }
  }
}

}  // namespace
}  // namespace shrew
