// Golden-file helpers shared by the golden tests: a source NAME.sw sits next
// to NAME.expected. Run with SHREW_UPDATE_GOLDEN=1 to (re)write expectations
// after an intended change, then review the diff.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace shrew::testing {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool UpdateGoldenMode() {
  const char* v = std::getenv("SHREW_UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// The .sw files of `dir`, sorted by name.
inline std::vector<std::filesystem::path> SourcesIn(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".sw") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// fail_NAME.sw must produce errors; its golden holds the rendered diagnostics.
inline bool IsFailureCase(const std::filesystem::path& source) {
  return source.filename().string().rfind("fail_", 0) == 0;
}

// Compares `actual` with the file, or writes it in update mode.
inline void CheckAgainstGolden(const std::string& actual, const std::filesystem::path& expected_path) {
  if (UpdateGoldenMode()) {
    std::ofstream out(expected_path, std::ios::binary | std::ios::trunc);
    out << actual;
    ASSERT_TRUE(out.good()) << "cannot write " << expected_path;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(expected_path))
      << expected_path << " is missing; run with SHREW_UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(actual, ReadFile(expected_path));
}

}  // namespace shrew::testing
