// .npy parsing and writing: round trips of every supported dtype, files as
// numpy writes them (hand-assembled bytes), and malformed input (every
// rejection is a clear status, no crash, no over-read).
#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace shrew::io {
namespace {

using runtime::Tensor;

std::span<const std::byte> Bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// A version-1.0 file with `header` (padded like numpy) followed by `data`.
std::string File(const std::string& header, const std::string& data, int major = 1) {
  std::string h = header;
  const size_t prefix = major == 1 ? 10 : 12;
  h.append((64 - (prefix + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>((h.size() >> 8) & 0xff);
  if (major != 1) out += std::string(2, '\0');
  return out + h + data;
}

template <typename T>
std::string Raw(std::initializer_list<T> v) {
  std::string s(v.size() * sizeof(T), '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

TEST(NpyParse, NumpyFloat32Matrix) {
  Result<Tensor> t = ParseNpy(Bytes(File("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                                         Raw<float>({1, 2, 3, 4, 5, -6.5f}))));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), ir::DType::kF32);
  EXPECT_EQ(t->shape(), (runtime::Shape{2, 3}));
  EXPECT_EQ(t->values<float>()[5], -6.5f);
  EXPECT_EQ(t->values<float>()[1], 2.0f);
}

TEST(NpyParse, Int32WidensToI64AndVersion2Header) {
  Result<Tensor> t = ParseNpy(Bytes(File("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                                         Raw<int32_t>({-7, 0, 2147483647}), 2)));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->dtype(), ir::DType::kI32);
  EXPECT_EQ(t->values<int64_t>()[0], -7);
  EXPECT_EQ(t->values<int64_t>()[2], 2147483647);
}

TEST(NpyParse, ScalarEmptyAndDoubleQuotedKeys) {
  Result<Tensor> s = ParseNpy(Bytes(File("{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": ()}", Raw<double>({2.5}))));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->rank(), 0);
  EXPECT_EQ(s->values<double>()[0], 2.5);
  Result<Tensor> e = ParseNpy(Bytes(File("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4), }", "")));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->num_elements(), 0);
}

TEST(NpyParse, FortranOrderOnlyForRankOne) {
  EXPECT_TRUE(ParseNpy(Bytes(File("{'descr': '|u1', 'fortran_order': True, 'shape': (2,), }", "\x01\x02"))).ok());
  Result<Tensor> t = ParseNpy(Bytes(File("{'descr': '|u1', 'fortran_order': True, 'shape': (1, 2), }", "\x01\x02")));
  EXPECT_EQ(t.status().code(), StatusCode::kUnimplemented);
}

TEST(NpyRoundTrip, EverySupportedDtype) {
  std::vector<Tensor> in;
  in.push_back(Tensor::FromVector<float>(ir::DType::kF32, {2, 2}, {1.5f, -2, 0, 3e8f}).value());
  in.push_back(Tensor::FromVector<double>(ir::DType::kF64, {3}, {1e-300, -0.0, 7}).value());
  in.push_back(Tensor::FromVector<int64_t>(ir::DType::kI32, {2}, {-5, 123456}).value());
  in.push_back(Tensor::FromVector<int64_t>(ir::DType::kI64, {1, 1, 2}, {int64_t{1} << 40, -1}).value());
  in.push_back(Tensor::FromVector<uint8_t>(ir::DType::kU8, {4}, {0, 1, 200, 255}).value());
  in.push_back(Tensor::FromVector(ir::DType::kBool, {3}, std::vector<bool>{true, false, true}).value());
  in.push_back(Tensor::FromVector<float>(ir::DType::kF32, {}, {4.25f}).value());
  for (const Tensor& t : in) {
    Result<std::string> bytes = SerializeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ((bytes->size() - t.byte_size() / (t.dtype() == ir::DType::kI32 ? 2 : 1)) % 64, 0u) << t.TypeString();
    Result<Tensor> back = ParseNpy(Bytes(*bytes));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    std::string why;
    EXPECT_TRUE(runtime::BitwiseEqual(back.value(), t, &why)) << t.TypeString() << ": " << why;
  }
}

TEST(NpyWrite, HeaderIsWhatNumpyWrites) {
  Result<std::string> b = SerializeNpy(Tensor::FromVector<float>(ir::DType::kF32, {5}, {1, 2, 3, 4, 5}).value());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(b->find("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"), std::string::npos);
  EXPECT_EQ((*b)[b->size() - 20 - 1], '\n');  // header ends right before the 20 data bytes
  EXPECT_EQ(SerializeNpy(Tensor::Zeros(ir::DType::kF16, {2}).value()).status().code(), StatusCode::kUnimplemented);
}

struct BadCase {
  std::string name;
  std::string file;
  StatusCode code;
  std::string fragment;
};

TEST(NpyParse, MalformedFilesAreRejectedClearly) {
  const std::string ok_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string two = Raw<float>({1, 2});
  std::string good = File(ok_header, two);
  std::vector<BadCase> cases = {
      {"empty", "", StatusCode::kInvalidArgument, "bad magic"},
      {"magic", "\x93NUMPX\x01\x00", StatusCode::kInvalidArgument, "bad magic"},
      {"version", std::string("\x93NUMPY\x04\x00", 8), StatusCode::kUnimplemented, "version 4.0"},
      {"no length", std::string("\x93NUMPY\x01\x00\x10", 9), StatusCode::kInvalidArgument, "truncated"},
      {"short header", good.substr(0, 40), StatusCode::kInvalidArgument, "truncated header"},
      {"short data", good.substr(0, good.size() - 1), StatusCode::kInvalidArgument, "needs 8 data bytes, the file has 7"},
      {"extra data", good + "x", StatusCode::kInvalidArgument, "the file has 9"},
      {"big endian", File("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", two), StatusCode::kUnimplemented, "'>f4'"},
      {"structured", File("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", two),
       StatusCode::kUnimplemented, "structured"},
      {"not a dict", File("['descr']", two), StatusCode::kInvalidArgument, "not a dict"},
      {"unterminated", File("{'descr", two), StatusCode::kInvalidArgument, "unterminated"},
      {"missing key", File("{'descr': '<f4', 'shape': (2,), }", two), StatusCode::kInvalidArgument, "needs"},
      {"unknown key", File("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", two),
       StatusCode::kInvalidArgument, "unknown key 'x'"},
      {"duplicate", File("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", two),
       StatusCode::kInvalidArgument, "duplicate"},
      {"bad bool", File("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", two), StatusCode::kInvalidArgument, "True or False"},
      {"negative dim", File("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", two), StatusCode::kInvalidArgument,
       "non-negative"},
      {"huge dim", File("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", two),
       StatusCode::kInvalidArgument, "too large"},
      {"overflowing count", File("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", two),
       StatusCode::kInvalidArgument, "too many"},
      {"count times size overflows", File("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,)}", two),
       StatusCode::kInvalidArgument, "the file has 8"},
      {"open tuple", File("{'descr': '<f4', 'fortran_order': False, 'shape': (2", two), StatusCode::kInvalidArgument, "shape"},
      {"trailing", File(ok_header + " x", two), StatusCode::kInvalidArgument, "trailing"},
      {"bad bool byte", File("{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "\x01\x07"),
       StatusCode::kInvalidArgument, "expected 0 or 1"},
  };
  std::string deep = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 40; ++i) deep += "1,";
  cases.push_back({"rank 40", File(deep + ")}", Raw<float>({1})), StatusCode::kInvalidArgument, "more than 32"});
  for (const BadCase& c : cases) {
    Result<Tensor> t = ParseNpy(Bytes(c.file));
    ASSERT_FALSE(t.ok()) << c.name;
    EXPECT_EQ(t.status().code(), c.code) << c.name << ": " << t.status().ToString();
    EXPECT_NE(t.status().message().find(c.fragment), std::string::npos) << c.name << ": " << t.status().message();
  }
}

TEST(NpyParse, EveryTruncationOfAValidFileFailsCleanly) {
  const std::string good = File("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", Raw<int64_t>({1, 2, 3}));
  ASSERT_TRUE(ParseNpy(Bytes(good)).ok());
  for (size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(ParseNpy(Bytes(good.substr(0, n))).ok()) << n;
}

// A directory opens as a file but fails to read: an ifstream's buffer threw
// there and the uncaught exception aborted the process.
TEST(NpyFile, ADirectoryOrAMissingPathIsAnErrorNamingIt) {
  const std::string dir = ::testing::TempDir();
  Result<Tensor> d = ReadNpyFile(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(d.status().message(), "cannot read '" + dir + "': Is a directory");
  Result<Tensor> missing = ReadNpyFile(dir + "/no_such_file.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "cannot open '" + dir + "/no_such_file.npy': No such file or directory");
}

TEST(NpyFile, WrittenFilesReadBack) {
  const std::string path = ::testing::TempDir() + "/npy_file_round_trip.npy";
  Tensor t = std::move(Tensor::FromVector<double>(ir::DType::kF64, {2, 3}, {1, -2, 3.5, 0, 1e300, -0.0})).value();
  ASSERT_TRUE(WriteNpyFile(path, t).ok());
  Result<Tensor> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->TypeString(), "f64[2, 3]");
  EXPECT_EQ(std::memcmp(back->raw_data(), t.raw_data(), t.byte_size()), 0);
  std::remove(path.c_str());
}

// A path that cannot be written is the caller's error with the system's
// reason, as a read's is (it was "internal: cannot create", no reason).
TEST(NpyFile, AnUnwritablePathSaysWhy) {
  Tensor t = std::move(Tensor::FromVector<float>(ir::DType::kF32, {1}, {1})).value();
  const std::string dir = ::testing::TempDir();
  Status missing = WriteNpyFile(dir + "/no_such_dir/x.npy", t);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "cannot create '" + dir + "/no_such_dir/x.npy': No such file or directory");
  Status directory = WriteNpyFile(dir, t);
  EXPECT_EQ(directory.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(directory.message(), "cannot create '" + dir + "': Is a directory");
}

}  // namespace
}  // namespace shrew::io
