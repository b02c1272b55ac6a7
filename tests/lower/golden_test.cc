// Golden tests for lowering. For every tests/testdata/lower/NAME.sw the
// expected output is NAME.expected next to it:
//   - NAME.sw      -> its warnings, if any, then the IR dump right after
//                     lowering (ir::DumpProgram, with types); it must lower
//                     without errors;
//   - fail_NAME.sw -> the diagnostics rendered by Compile() (any stage).
// Regenerate with SHREW_UPDATE_GOLDEN=1 (tests/support/golden.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "api/compile.h"
#include "front/parser.h"
#include "ir/dump.h"
#include "lower/lower.h"
#include "support/golden.h"

namespace shrew::lower {
namespace {

namespace fs = std::filesystem;
using shrew::testing::CheckAgainstGolden;
using shrew::testing::IsFailureCase;
using shrew::testing::ReadFile;
using shrew::testing::SourcesIn;

std::string Actual(const fs::path& path) {
  const std::string name = path.filename().string();
  const std::string text = ReadFile(path);
  if (IsFailureCase(path)) {
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
  EXPECT_TRUE(r.ok && !diags.has_errors()) << diag::RenderAll(diags.all(), source);
  return diag::RenderAll(diags.all(), source) + ir::DumpProgram(r.program);
}

TEST(LowerGoldenTest, TestdataLower) {
  std::vector<fs::path> sources = SourcesIn(fs::path(SHREW_TESTDATA_DIR) / "lower");
  ASSERT_GE(sources.size(), 8u);
  for (const fs::path& path : sources) {
    SCOPED_TRACE(path.filename().string());
    fs::path expected = path;
    expected.replace_extension(".expected");
    CheckAgainstGolden(Actual(path), expected);
  }
}

}  // namespace
}  // namespace shrew::lower
