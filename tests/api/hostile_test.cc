// The hostile-program catalog (tests/testdata/hostile/): every program must
// give its expected diagnostic code (on the expected line) — or compile,
// for the large-but-legal ones — within a CPU-time and memory bound.
//
// Two kinds of entries:
//   NAME.sw        checked-in bytes; line 1 is `// expect: CODE line N`
//                  (line numbers count that header; `line -` skips the check)
//   generated.txt  one recipe per line for programs too large to check in
//                  (format documented in the file)
// Each entry is its own test case, so under CTest (one process per case) the
// peak-RSS growth measured with getrusage is that program's own.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/sanitizer.h"
#include "api/compile.h"
#include "ir/dump.h"

namespace shrew {
namespace {

namespace fs = std::filesystem;

// Bounds per program. ASan + UBSan at -O1 slow the compiler down 5-8x and add shadow
// memory, so their build gets more room; the bounds exist to catch
// super-linear blow-ups, not to measure speed. The 10^5-node programs take
// 1.5-1.8 CPU seconds alone on a VM where first touching a page is slow (a
// quarter of their time in the kernel) and up to 2.9 s with ctest running
// two at once, so the bound leaves 4x room for a slower CI machine; a
// quadratic pass over 10^5 nodes would take minutes.
#ifdef SHREW_TEST_UNDER_ASAN
constexpr double kMaxCpuSeconds = 20.0;
constexpr long kMaxRssGrowthKb = 1024 * 1024;
#else
constexpr double kMaxCpuSeconds = 12.0;
constexpr long kMaxRssGrowthKb = 384 * 1024;
#endif

struct HostileCase {
  std::string name;
  std::string code;  // "E104", or "ok"
  int line = 0;      // 0: not checked
  std::string text;  // checked-in files
  std::vector<std::string> recipe;  // generated.txt fields (built in the test, not at start-up)
};

fs::path Dir() { return fs::path(SHREW_TESTDATA_DIR) / "hostile"; }

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "\n", "\t", "\\", "\xHH".
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[++i];
    if (c == 'n') out += '\n';
    else if (c == 't') out += '\t';
    else if (c == 'x' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else out += c;
  }
  return out;
}

std::string Substitute(const std::string& unit, int i) {
  std::string out;
  for (size_t k = 0; k < unit.size(); ++k) {
    if (unit.compare(k, 3, "{i}") == 0) {
      out += std::to_string(i);
      k += 2;
    } else if (unit.compare(k, 3, "{p}") == 0) {
      out += std::to_string(i - 1);
      k += 2;
    } else {
      out += unit[k];
    }
  }
  return out;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> f;
  size_t start = 0;
  while (true) {
    size_t tab = line.find('\t', start);
    f.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return f;
}

std::vector<HostileCase> LoadCatalog() {
  std::vector<HostileCase> cases;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(Dir())) {
    if (e.path().extension() == ".sw") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    HostileCase c;
    c.name = p.stem().string();
    c.text = ReadFile(p);
    const std::string header = c.text.substr(0, c.text.find('\n'));
    char code[16] = {0};
    char line[16] = {0};
    if (std::sscanf(header.c_str(), "// expect: %15s line %15s", code, line) != 2) {
      c.code = "bad header: " + header;
    } else {
      c.code = code;
      c.line = std::string(line) == "-" ? 0 : std::atoi(line);
    }
    cases.push_back(std::move(c));
  }
  std::istringstream recipes(ReadFile(Dir() / "generated.txt"));
  std::string row;
  while (std::getline(recipes, row)) {
    if (row.empty() || row[0] == '#') continue;
    std::vector<std::string> f = SplitTabs(row);
    HostileCase c;
    c.name = f[0];
    if (f.size() != 9) {
      c.code = "bad recipe (" + std::to_string(f.size()) + " fields)";
      cases.push_back(std::move(c));
      continue;
    }
    c.code = f[1];
    c.line = f[2] == "-" ? 0 : std::atoi(f[2].c_str());
    c.recipe = std::move(f);
    cases.push_back(std::move(c));
  }
  return cases;
}

// PREFIX + OPEN×COUNT + MIDDLE + CLOSE×COUNT + SUFFIX (see generated.txt).
std::string Build(const HostileCase& c) {
  if (c.recipe.empty()) return c.text;
  const std::vector<std::string>& f = c.recipe;
  const std::string open = Unescape(f[4]);
  const std::string close = Unescape(f[6]);
  int count = std::atoi(f[7].c_str());
#ifdef SHREW_TEST_UNDER_ASAN
  // The sanitizer build looks for memory errors, not speed: a tenth of the
  // size is as hostile to the code paths (every limit is still crossed: the
  // nesting bound is 200 levels, the expression height 512, the error cap 200) at a tenth of the time.
  // The plain build runs the full sizes against the 2 s bound.
  if (count >= 10000) count /= 10;
#endif
  const std::string n = std::to_string(count);
  auto with_count = [&](const std::string& field) {
    std::string out = Unescape(field);
    for (size_t at = out.find("{n}"); at != std::string::npos; at = out.find("{n}", at)) out.replace(at, 3, n);
    return out;
  };
  std::string text = with_count(f[3]);
  for (int i = 1; i <= count; ++i) text += Substitute(open, i);
  text += with_count(f[5]);
  for (int i = count; i >= 1; --i) text += Substitute(close, i);
  text += with_count(f[8]);
  return text;
}

const std::vector<HostileCase>& Catalog() {
  static const std::vector<HostileCase>* cases = new std::vector<HostileCase>(LoadCatalog());
  return *cases;
}

std::vector<size_t> Indices() {
  std::vector<size_t> v(Catalog().size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

long PeakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

class HostileTest : public ::testing::TestWithParam<size_t> {};

TEST(HostileCatalogTest, HasAtLeastFiftyPrograms) {
  EXPECT_GE(Catalog().size(), 50u);
  for (const HostileCase& c : Catalog()) {
    EXPECT_TRUE(c.code == "ok" || (c.code.size() == 4 && c.code[0] == 'E')) << c.name << ": " << c.code;
  }
}

TEST_P(HostileTest, GivesItsDiagnosticInBoundedTimeAndMemory) {
  const HostileCase& c = Catalog()[GetParam()];
  SCOPED_TRACE(c.name);
  const std::string text = Build(c);
  const long rss_before = PeakRssKb();
  const std::clock_t start = std::clock();
  CompileOptions options;
  options.filename = c.name + ".sw";
  CompileResult r = Compile(text, options);
  std::string rendered = r.RenderDiagnostics();
  if (r.ok) {
    // The dumps walk the whole program too (empty for metadata-only programs).
    std::string dump = ir::DumpProgram(r.program) + ir::DumpProgramJson(r.program);
    EXPECT_NE(dump.size(), 0u);
  }
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  const long rss_growth = PeakRssKb() - rss_before;

  if (c.code == "ok") {
    EXPECT_TRUE(r.ok) << rendered.substr(0, 2000);
  } else {
    ASSERT_FALSE(r.ok) << "expected " << c.code;
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_FALSE(rendered.empty());
    // DiagnosticBag's caps: max_errors (200) + "too many errors"; warnings
    // until the bag holds 4 × max_errors (a 100k-key forward chain warns
    // once per key, W003).
    size_t errors = 0;
    for (const diag::Diagnostic& d : r.diagnostics) errors += d.severity == diag::Severity::Error;
    EXPECT_LE(errors, 201u);
    EXPECT_LE(r.diagnostics.size(), 801u);
    // The expected code is the first error's (what a user reads first).
    const diag::Diagnostic* first = nullptr;
    for (const diag::Diagnostic& d : r.diagnostics) {
      if (d.severity == diag::Severity::Error) {
        first = &d;
        break;
      }
    }
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(std::string(first->code()), c.code) << rendered.substr(0, 2000);
    if (c.line > 0) {
      uint32_t line = 0;
      uint32_t column = 0;
      r.source->LineColumn(first->span.offset, &line, &column);
      EXPECT_EQ(static_cast<int>(line), c.line) << rendered.substr(0, 2000);
    }
  }
  EXPECT_LT(seconds, kMaxCpuSeconds) << "CPU seconds";
  EXPECT_LT(rss_growth, kMaxRssGrowthKb) << "peak RSS growth in KiB (" << text.size() << " source bytes)";
}

INSTANTIATE_TEST_SUITE_P(Catalog, HostileTest, ::testing::ValuesIn(Indices()),
                         [](const ::testing::TestParamInfo<size_t>& info) { return Catalog()[info.param].name; });

}  // namespace
}  // namespace shrew
