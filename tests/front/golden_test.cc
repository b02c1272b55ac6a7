// Golden tests for the front end. For every tests/testdata/front/NAME.sw the
// expected output is NAME.expected next to it:
//   - NAME.sw       -> its warnings, if any (diag::RenderAll), then the AST
//                      dump (ast::DumpProgram with spans); it must parse
//                      without errors;
//   - fail_NAME.sw  -> the rendered diagnostics.
// Example programs (tests/testdata/examples/NAME.sw) are dumped to
// tests/testdata/front/examples/NAME.expected.
// Regenerate with SHREW_UPDATE_GOLDEN=1 (tests/support/golden.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "front/ast_dump.h"
#include "front/parser.h"
#include "support/golden.h"

namespace shrew::front {
namespace {

namespace fs = std::filesystem;
using shrew::testing::CheckAgainstGolden;
using shrew::testing::IsFailureCase;
using shrew::testing::ReadFile;
using shrew::testing::SourcesIn;

std::string Actual(const fs::path& source_path) {
  diag::SourceFile source(source_path.filename().string(), ReadFile(source_path));
  diag::DiagnosticBag diags;
  ast::Program program = Parse(source, diags);
  if (IsFailureCase(source_path)) {
    EXPECT_TRUE(diags.has_errors()) << "fail_ files must produce errors";
    return diag::RenderAll(diags.all(), source);
  }
  EXPECT_FALSE(diags.has_errors()) << diag::RenderAll(diags.all(), source);
  return diag::RenderAll(diags.all(), source) + ast::DumpProgram(program);
}

TEST(FrontGoldenTest, TestdataFront) {
  std::vector<fs::path> sources = SourcesIn(fs::path(SHREW_TESTDATA_DIR) / "front");
  ASSERT_GE(sources.size(), 10u);
  int failures = 0;
  for (const fs::path& p : sources) {
    SCOPED_TRACE(p.string());
    failures += IsFailureCase(p);
    fs::path expected = p;
    expected.replace_extension(".expected");
    CheckAgainstGolden(Actual(p), expected);
  }
  EXPECT_GE(failures, 5);
}

TEST(FrontGoldenTest, ExamplePrograms) {
  fs::path out_dir = fs::path(SHREW_TESTDATA_DIR) / "front" / "examples";
  if (shrew::testing::UpdateGoldenMode()) fs::create_directories(out_dir);
  std::vector<fs::path> sources = SourcesIn(fs::path(SHREW_TESTDATA_DIR) / "examples");
  ASSERT_EQ(sources.size(), 9u);
  for (const fs::path& p : sources) {
    SCOPED_TRACE(p.string());
    CheckAgainstGolden(Actual(p), out_dir / p.filename().replace_extension(".expected"));
  }
}

}  // namespace
}  // namespace shrew::front
