// Golden tests for the front end. For every tests/testdata/front/NAME.sw the
// expected output is NAME.expected next to it:
//   - NAME.sw       -> the AST dump (ast::DumpProgram with spans); the file
//                      must parse without diagnostics;
//   - fail_NAME.sw  -> the rendered diagnostics (diag::RenderAll).
// Example programs (tests/testdata/examples/NAME.sw) are dumped to
// tests/testdata/front/examples/NAME.expected.
// Regenerate after an intended change with
//   SHREW_UPDATE_GOLDEN=1 build/<dir>/shrew_tests --gtest_filter='FrontGolden*'
// and review the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "front/ast_dump.h"
#include "front/parser.h"

namespace shrew::front {
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

std::vector<fs::path> SourcesIn(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".sw") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Parses `source_path` and compares (or, in update mode, writes) the golden.
void CheckGolden(const fs::path& source_path, const fs::path& expected_path) {
  SCOPED_TRACE(source_path.string());
  bool expect_failure = source_path.filename().string().rfind("fail_", 0) == 0;
  diag::SourceFile source(source_path.filename().string(), ReadFile(source_path));
  diag::DiagnosticBag diags;
  ast::Program program = Parse(source, diags);
  std::string actual;
  if (expect_failure) {
    EXPECT_TRUE(diags.has_errors()) << "fail_ files must produce diagnostics";
    actual = diag::RenderAll(diags.all(), source);
  } else {
    EXPECT_TRUE(diags.all().empty()) << diag::RenderAll(diags.all(), source);
    actual = ast::DumpProgram(program);
  }
  if (UpdateMode()) {
    std::ofstream out(expected_path, std::ios::binary | std::ios::trunc);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << expected_path;
    return;
  }
  ASSERT_TRUE(fs::exists(expected_path))
      << expected_path << " is missing; run with SHREW_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(actual, ReadFile(expected_path));
}

TEST(FrontGoldenTest, TestdataFront) {
  fs::path dir = fs::path(SHREW_TESTDATA_DIR) / "front";
  std::vector<fs::path> sources = SourcesIn(dir);
  ASSERT_GE(sources.size(), 10u);
  int failures = 0;
  for (const fs::path& p : sources) {
    failures += p.filename().string().rfind("fail_", 0) == 0;
    fs::path expected = p;
    expected.replace_extension(".expected");
    CheckGolden(p, expected);
  }
  EXPECT_GE(failures, 5);
}

TEST(FrontGoldenTest, ExamplePrograms) {
  fs::path out_dir = fs::path(SHREW_TESTDATA_DIR) / "front" / "examples";
  if (UpdateMode()) fs::create_directories(out_dir);
  std::vector<fs::path> sources = SourcesIn(fs::path(SHREW_TESTDATA_DIR) / "examples");
  ASSERT_EQ(sources.size(), 9u);
  for (const fs::path& p : sources) {
    CheckGolden(p, out_dir / p.filename().replace_extension(".expected"));
  }
}

}  // namespace
}  // namespace shrew::front
