// Golden tests for lowering. For every tests/testdata/lower/NAME.sw the
// expected output is NAME.expected next to it:
//   - NAME.sw      -> the IR dump right after lowering (ir::DumpProgram, with
//                     types); the file must lower without diagnostics;
//   - fail_NAME.sw -> the diagnostics rendered by Compile() (any stage).
// Regenerate after an intended change with
//   SHREW_UPDATE_GOLDEN=1 build/<dir>/shrew_tests --gtest_filter='LowerGolden*'
// and review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/compile.h"
#include "front/parser.h"
#include "ir/dump.h"
#include "lower/lower.h"

namespace shrew::lower {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool UpdateMode() {
  const char* v = std::getenv("SHREW_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

std::string Actual(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string text = ReadFile(path);
  if (name.rfind("fail_", 0) == 0) {
    CompileOptions options;
    options.filename = name;
    CompileResult r = Compile(text, options);
    EXPECT_FALSE(r.ok) << "fail_ files must not compile";
    return r.RenderDiagnostics();
  }
  diag::SourceFile source(name, text);
  diag::DiagnosticBag diags;
  ast::Program tree = front::Parse(source, diags);
  EXPECT_FALSE(diags.has_errors()) << diag::RenderAll(diags.all(), source);
  if (diags.has_errors()) return "";
  LowerResult r = Lower(tree, source, diags);
  EXPECT_TRUE(r.ok && diags.all().empty()) << diag::RenderAll(diags.all(), source);
  return ir::DumpProgram(r.program);
}

TEST(LowerGoldenTest, TestdataLower) {
  fs::path dir = fs::path(SHREW_TESTDATA_DIR) / "lower";
  std::vector<fs::path> sources;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".sw") sources.push_back(entry.path());
  }
  std::sort(sources.begin(), sources.end());
  ASSERT_GE(sources.size(), 8u);
  for (const fs::path& path : sources) {
    SCOPED_TRACE(path.filename().string());
    fs::path expected = path;
    expected.replace_extension(".expected");
    std::string actual = Actual(path);
    if (UpdateMode()) {
      std::ofstream out(expected, std::ios::binary | std::ios::trunc);
      out << actual;
      ASSERT_TRUE(out.good()) << "cannot write " << expected;
      continue;
    }
    ASSERT_TRUE(fs::exists(expected))
        << expected << " is missing; run with SHREW_UPDATE_GOLDEN=1 to create it";
    EXPECT_EQ(actual, ReadFile(expected));
  }
}

}  // namespace
}  // namespace shrew::lower
