// Every input a fuzzer (fuzz/*_fuzzer.cc) ever crashed on, kept in
// tests/testdata/fuzz_regressions/: Compile() must return on each (with or
// without diagnostics), a failed compile must explain itself, and compiling
// + running each (fuzz/run_check.h, the run fuzzer's check) must behave.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/compile.h"
#include "fuzz/run_check.h"

namespace shrew {
namespace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> Inputs() {
  fs::path dir = fs::path(SHREW_TESTDATA_DIR) / "fuzz_regressions";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out.emplace_back(path.filename().string(), ss.str());
  }
  return out;
}

TEST(FuzzRegressionsTest, EveryCrashInputNowCompilesOrExplains) {
  const auto inputs = Inputs();
  ASSERT_FALSE(inputs.empty());
  for (const auto& [name, text] : inputs) {
    SCOPED_TRACE(name);
    CompileResult r = Compile(text);
    if (!r.ok) {
      EXPECT_FALSE(r.diagnostics.empty());
    }
  }
}

TEST(FuzzRegressionsTest, EveryCrashInputNowCompilesAndRunsOrExplains) {
  for (const auto& [name, text] : Inputs()) {
    EXPECT_EQ(fuzz::CheckCompileAndRun(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "") << name;
  }
}

}  // namespace
}  // namespace shrew
