// The parameter blob (api/param_blob.h) and Program::SaveParams/LoadParams:
// round trips bit for bit, the documented byte layout, a reader that rejects
// every truncation and corruption with a clear error, all-or-nothing loads,
// and the checked-in per-example checksums (shared with the wasm build's
// node test, so a divergence in either build fails).
#include "api/param_blob.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include "base/byte_io.h"
#include "jit/jit_test_util.h"
#include "support/generated_programs.h"
#include "support/sanitizer.h"

namespace shrew {
namespace {

using runtime::Tensor;
using runtime::TensorMap;
using jit::testing::MakeProgram;
using jit::testing::ReadTestdata;

const char* kSource = R"SW(
@graph G {
  input x: Tensor<[B, 4], f32>;
  param w: Tensor<[4, 3], f32> { init: "xavier_uniform"; };
  param b: Tensor<[3], f32> { init: "normal(0, 0.5)"; };
  param steps: Tensor<[2], i64> { init: "ones"; };
  output y: relu(matmul(x, w) + b);
}
)SW";

TEST(ParamBlob, LayoutIsTheDocumentedOne) {
  Tensor t = Tensor::FromVector<float>(ir::DType::kF32, {2}, {1.0f, -2.0f}).value();
  std::vector<std::pair<std::string, const Tensor*>> params = {{"G/w", &t}};
  std::vector<uint8_t> blob = EncodeParamBlob(params);
  std::vector<uint8_t> expect = {'S', 'H', 'R', 'W', 'P', 'R', 'M', '1', 1, 0, 0, 0, 1, 0, 0, 0,  // magic, version, count
                                 3, 0, 0, 0, 'G', '/', 'w',                                       // key
                                 3, 'f', '3', '2',                                                // dtype
                                 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,                              // rank, dims
                                 8, 0, 0, 0, 0, 0, 0, 0,                                          // nbytes
                                 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0};                 // 1.0f, -2.0f
  EXPECT_EQ(blob, expect);
  Result<std::vector<ParamRecord>> recs = DecodeParamBlob(blob);
  ASSERT_TRUE(recs.ok()) << recs.status().ToString();
  ASSERT_EQ(recs->size(), 1u);
  EXPECT_EQ((*recs)[0].key, "G/w");
  EXPECT_EQ((*recs)[0].dtype, ir::DType::kF32);
  EXPECT_EQ((*recs)[0].shape, (runtime::Shape{2}));
  EXPECT_EQ((*recs)[0].data.size(), 8u);
  // FNV-1a 64 reference values.
  EXPECT_EQ(Fnv1a64({}), 0xcbf29ce484222325ull);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(Fnv1a64(a), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(ChecksumHex(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
}

// The checksum and a bundle's blob are made without a blob of their own
// (a copy of the weights aborted a nearly full wasm memory): the same bytes.
TEST(ParamBlob, ChecksumAndAppendedBlobAreThoseOfTheEncodedBlob) {
  Tensor w = Tensor::FromVector<float>(ir::DType::kF32, {2, 3}, {1, -2, 3.5f, 0, 7, -0.25f}).value();
  Tensor s = Tensor::FromVector<int64_t>(ir::DType::kI64, {2}, {5, -9}).value();
  Tensor e = Tensor::FromVector<float>(ir::DType::kF32, {0}, {}).value();
  std::vector<std::pair<std::string, const Tensor*>> params = {{"G/e", &e}, {"G/steps", &s}, {"G/w", &w}};
  const std::vector<uint8_t> blob = EncodeParamBlob(params);
  EXPECT_EQ(ParamBlobSize(params), blob.size());
  EXPECT_EQ(ParamBlobChecksum(params), Fnv1a64(blob));
  ByteWriter out;
  out.U8(42);
  AppendParamBlob(params, out);
  ASSERT_EQ(out.size(), blob.size() + 1);
  EXPECT_TRUE(std::equal(blob.begin(), blob.end(), out.bytes().begin() + 1));
  EXPECT_EQ(ParamBlobChecksum({}), Fnv1a64(EncodeParamBlob({})));
  std::unique_ptr<Program> p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->ParamsChecksum(), Fnv1a64(p->SaveParams()));
}

TEST(ParamBlob, EveryTruncationAndCorruptionIsACleanError) {
  std::unique_ptr<Program> p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  const std::vector<uint8_t> blob = p->SaveParams();
  ASSERT_TRUE(DecodeParamBlob(blob).ok());
  for (size_t n = 0; n < blob.size(); ++n) {
    Result<std::vector<ParamRecord>> r = DecodeParamBlob(std::span<const uint8_t>(blob.data(), n));
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes accepted";
    if (!r.ok()) EXPECT_NE(r.status().message().find("parameter blob"), std::string::npos);
  }
  std::vector<uint8_t> longer = blob;
  longer.push_back(0);
  EXPECT_NE(DecodeParamBlob(longer).status().message().find("unexpected bytes"), std::string::npos);
  // Flipping any single byte of the header or a length field never crashes;
  // most flips are rejected, and an accepted one still has exact sizes.
  for (size_t i = 0; i < blob.size(); ++i) {
    std::vector<uint8_t> bad = blob;
    bad[i] ^= 0xff;
    Result<std::vector<ParamRecord>> r = DecodeParamBlob(bad);
    if (r.ok()) {
      for (const ParamRecord& rec : *r) {
        EXPECT_EQ(rec.data.size(), static_cast<size_t>(runtime::CountElements(rec.shape).value()) *
                                       ir::StorageByteSize(ir::StorageOf(rec.dtype)));
      }
    }
  }
  std::vector<uint8_t> version = blob;
  version[8] = 2;
  EXPECT_NE(DecodeParamBlob(version).status().message().find("unsupported version 2"), std::string::npos);
  std::vector<uint8_t> count = blob;
  count[15] = 0x7f;  // a huge record count
  EXPECT_NE(DecodeParamBlob(count).status().message().find("records but only"), std::string::npos);
}

TEST(ParamBlob, SaveLoadReproducesOutputsBitForBit) {
  std::unique_ptr<Program> a = MakeProgram(kSource);
  ProgramOptions other;
  other.seed = 99;  // different initial values
  std::unique_ptr<Program> b = MakeProgram(kSource, other);
  ASSERT_TRUE(a && b);
  TensorMap in;
  in.emplace("x", jit::testing::RandomTensor(ir::DType::kF32, {5, 4}, 3));
  Result<TensorMap> ya = a->Run("G", in);
  Result<TensorMap> yb = b->Run("G", in);  // binds (and packs) before the load
  ASSERT_TRUE(ya.ok() && yb.ok());
  EXPECT_FALSE(runtime::BitwiseEqual(ya->at("y"), yb->at("y")));
  EXPECT_NE(a->ParamsChecksum(), b->ParamsChecksum());
  ASSERT_TRUE(b->LoadParams(a->SaveParams()).ok());
  EXPECT_EQ(a->SaveParams(), b->SaveParams());
  EXPECT_EQ(a->ParamsChecksum(), b->ParamsChecksum());
  Result<TensorMap> yb2 = b->Run("G", in);
  ASSERT_TRUE(yb2.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(ya->at("y"), yb2->at("y")));
  Result<TensorMap> ib = b->Interpret("G", in);
  ASSERT_TRUE(ib.ok());
  jit::testing::ExpectAgree(*yb2, *ib);
}

TEST(ParamBlob, AParameterPassedToAGraphCallIsSetAndLoadedWithoutError) {
  // The call's kernel packs nothing: setting the parameter re-creates no
  // kernel for it (it was "unimplemented ... no kernel for op 'call'", after
  // the value had been written).
  std::unique_ptr<Program> p = MakeProgram(R"(
    @graph Scale { input v: Tensor<[4], f32>; output out: v * 2.0; }
    @graph Main {
      input x: Tensor<[4], f32>;
      param g: Tensor<[4], f32> { init: "ones"; };
      output y: x + Scale(g);
    })");
  ASSERT_NE(p, nullptr);
  TensorMap in;
  in.emplace("x", Tensor::FromVector<float>(ir::DType::kF32, {4}, {1, 2, 3, 4}).value());
  ASSERT_TRUE(p->Run("Main", in).ok());
  Status set = p->SetParam("Main/g", Tensor::FromVector<float>(ir::DType::kF32, {4}, {10, 20, 30, 40}).value());
  ASSERT_TRUE(set.ok()) << set.ToString();
  for (int round = 0; round < 2; ++round) {
    Result<TensorMap> y = p->Run("Main", in);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const float want[4] = {21, 42, 63, 84};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y->at("y").GetDouble(i), want[i]) << i;
    Result<TensorMap> ref = p->Interpret("Main", in);
    ASSERT_TRUE(ref.ok());
    jit::testing::ExpectAgree(*y, *ref);
    Status load = p->LoadParams(p->SaveParams());
    ASSERT_TRUE(load.ok()) << load.ToString();
  }
}

TEST(ParamBlob, LoadingThousandsOfPackedWeightsRepacksEachOnce) {
  // Two graphs; G chains 4,000 matmuls, each with its own packed weight.
  // Loading refreshes every kernel that packed a written weight in one pass
  // per graph (per key, it was quadratic: 1.7 s here), and
  // both graphs then compute with the loaded values. CPU time.
  constexpr int kLayers = 4000;
  const std::string src = shrew::testing::PackedWeightChain(kLayers, /*add_input=*/false);
  std::unique_ptr<Program> a = MakeProgram(src);
  ProgramOptions other;
  other.seed = 99;
  std::unique_ptr<Program> b = MakeProgram(src, other);
  ASSERT_TRUE(a && b);
  TensorMap in;
  in.emplace("x", jit::testing::RandomTensor(ir::DType::kF32, {1, 4}, 5));
  Result<TensorMap> ga = a->Run("G", in), ha = a->Run("H", in);
  ASSERT_TRUE(ga.ok() && ha.ok());
  ASSERT_TRUE(b->Run("G", in).ok() && b->Run("H", in).ok());  // packed with the old values
  const std::vector<uint8_t> blob = a->SaveParams();
  const std::clock_t start = std::clock();
  ASSERT_TRUE(b->LoadParams(blob).ok());
  const double ms = 1000.0 * static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  Result<TensorMap> gb = b->Run("G", in), hb = b->Run("H", in);
  ASSERT_TRUE(gb.ok() && hb.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(ga->at("y"), gb->at("y")));
  EXPECT_TRUE(runtime::BitwiseEqual(ha->at("y"), hb->at("y")));
  EXPECT_LT(ms, 300.0 * shrew::testing::kTimeScale) << ms;
}

TEST(ParamBlob, MismatchedBlobIsRejectedAndChangesNothing) {
  std::unique_ptr<Program> p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  const std::vector<uint8_t> before = p->SaveParams();
  // Another program: w has another shape.
  std::string changed = kSource;
  changed.replace(changed.find("[4, 3]"), 6, "[4, 2]");
  changed.replace(changed.find("[3], f32"), 8, "[2], f32");
  std::unique_ptr<Program> q = MakeProgram(changed);
  ASSERT_NE(q, nullptr);
  Status s = p->LoadParams(q->SaveParams());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("parameter 'G/b': expected f32[3], the blob has f32[2]"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(p->SaveParams(), before);
  // Missing and unknown parameters, a garbage blob.
  std::unique_ptr<Program> r = MakeProgram("@graph G {\n  input x: Tensor<[2, 4], f32>;\n  param w: Tensor<[4, 3], f32>;\n"
                                           "  output y: matmul(x, w);\n}\n");
  ASSERT_NE(r, nullptr);
  s = p->LoadParams(r->SaveParams());
  EXPECT_NE(s.message().find("missing: G/b, G/steps"), std::string::npos) << s.ToString();
  s = r->LoadParams(p->SaveParams());
  EXPECT_NE(s.message().find("blob has 'G/b', which this program does not have"), std::string::npos) << s.ToString();
  // A key that is a likely typo of one of the program's is told it.
  std::unique_ptr<Program> upper = MakeProgram("@graph G {\n  input x: Tensor<[2, 4], f32>;\n  param W: Tensor<[4, 3], f32>;\n"
                                               "  output y: matmul(x, W);\n}\n");
  ASSERT_NE(upper, nullptr);
  EXPECT_EQ(p->LoadParams(upper->SaveParams()).message(),
            "parameter blob has 'G/W', which this program does not have; did you mean 'G/w'? its parameters: G/b, G/steps, G/w");
  // By getParam's rule: a two-letter name has no typos ('G/k' was suggested for 'G/w' by the whole key).
  std::unique_ptr<Program> wk = MakeProgram("@graph G {\n  param w: Tensor<[2], f32>;\n  param k: Tensor<[2], f32>;\n"
                                            "  output y: w + k;\n}\n");
  std::unique_ptr<Program> w2k = MakeProgram("@graph G {\n  param w2: Tensor<[2], f32>;\n  param k: Tensor<[2], f32>;\n"
                                             "  output y: w2 + k;\n}\n");
  ASSERT_NE(wk, nullptr);
  ASSERT_NE(w2k, nullptr);
  EXPECT_EQ(w2k->LoadParams(wk->SaveParams()).message(),
            "parameter blob has 'G/w', which this program does not have; its parameters: G/k, G/w2");
  const uint8_t junk[] = {1, 2, 3};
  EXPECT_NE(p->LoadParams(junk).message().find("bad magic"), std::string::npos);
  EXPECT_EQ(p->SaveParams(), before);
  // Still usable.
  TensorMap in;
  in.emplace("x", jit::testing::RandomTensor(ir::DType::kF32, {2, 4}, 5));
  EXPECT_TRUE(p->Run("G", in).ok());
}

std::unique_ptr<Program> CreateWithParams(const std::string& source, std::span<const uint8_t> blob,
                                          ProgramOptions options, Status* error) {
  CompileResult c = Compile(source);
  EXPECT_TRUE(c.ok) << c.RenderDiagnostics();
  options.verify_plans = true;
  options.check_slots = true;
  Result<std::unique_ptr<Program>> p = Program::CreateWithParams(c, options, blob);
  *error = p.ok() ? Status::Ok() : p.status();
  return p.ok() ? std::move(p).value() : nullptr;
}

// Dropout in training mode draws from the generator after initialisation:
// a program given its parameters at creation must continue the same stream
// as one that initialised them and loaded the blob afterwards.
const char* kTrainingSource = R"SW(
@graph G {
  input x: Tensor<[B, 4], f32>;
  param w: Tensor<[4, 3], f32> { init: "kaiming_normal"; };
  param b: Tensor<[3], f32> { init: "uniform(-1, 1)"; };
  output y: dropout(relu(matmul(x, w) + b), p: 0.5);
}
)SW";

TEST(ParamBlob, CreateWithParamsEqualsCreateThenLoad) {
  for (const char* source : {kSource, kTrainingSource}) {
    ProgramOptions donor_options;
    donor_options.seed = 123;
    std::unique_ptr<Program> donor = MakeProgram(source, donor_options);
    ASSERT_NE(donor, nullptr);
    const std::vector<uint8_t> blob = donor->SaveParams();
    ProgramOptions options;
    options.training = true;
    std::unique_ptr<Program> loaded = MakeProgram(source, options);
    ASSERT_NE(loaded, nullptr);
    ASSERT_TRUE(loaded->LoadParams(blob).ok());
    Status error;
    std::unique_ptr<Program> given = CreateWithParams(source, blob, options, &error);
    ASSERT_NE(given, nullptr) << error.ToString();
    EXPECT_EQ(given->SaveParams(), blob);
    TensorMap in;
    in.emplace("x", jit::testing::RandomTensor(ir::DType::kF32, {6, 4}, 9));
    for (int run = 0; run < 3; ++run) {  // dropout masks from the continuing stream
      Result<TensorMap> a = loaded->Run("G", in);
      Result<TensorMap> b = given->Run("G", in);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y"))) << "run " << run;
    }
  }
}

// `blob_read` runs once, after the blob is read and before the kernels are
// built (the wasm binding frees the blob there, so the packed weights reuse
// its pages). Freeing it there leaves the program with the blob's values;
// under ASan a read of the blob after the call would be reported.
TEST(ParamBlob, CreateWithParamsReleasesTheBlobBeforeTheKernels) {
  ProgramOptions donor_options;
  donor_options.seed = 7;
  std::unique_ptr<Program> donor = MakeProgram(kSource, donor_options);
  ASSERT_NE(donor, nullptr);
  const std::vector<uint8_t> saved = donor->SaveParams();
  auto blob = std::make_unique<std::vector<uint8_t>>(saved);
  CompileResult c = Compile(kSource);
  ASSERT_TRUE(c.ok) << c.RenderDiagnostics();
  int calls = 0;
  Result<std::unique_ptr<Program>> p = Program::CreateWithParams(c, ProgramOptions{}, *blob, [&] {
    ++calls;
    blob.reset();
  });
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(blob, nullptr);
  EXPECT_EQ((*p)->SaveParams(), saved);
  TensorMap in;
  in.emplace("x", jit::testing::RandomTensor(ir::DType::kF32, {2, 4}, 5));
  Result<TensorMap> a = donor->Run("G", in);
  Result<TensorMap> b = (*p)->Run("G", in);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(runtime::BitwiseEqual(a->at("y"), b->at("y")));
  // A rejected blob is not released (the caller still owns it, nothing was built).
  std::vector<uint8_t> junk = {1, 2, 3};
  calls = 0;
  EXPECT_FALSE(Program::CreateWithParams(c, ProgramOptions{}, junk, [&] { ++calls; }).ok());
  EXPECT_EQ(calls, 0);
}

TEST(ParamBlob, CreateWithParamsRejectsWhatLoadRejects) {
  std::unique_ptr<Program> p = MakeProgram(kSource);
  ASSERT_NE(p, nullptr);
  std::string changed = kSource;
  changed.replace(changed.find("[4, 3]"), 6, "[4, 2]");
  changed.replace(changed.find("[3], f32"), 8, "[2], f32");
  std::unique_ptr<Program> q = MakeProgram(changed);
  ASSERT_NE(q, nullptr);
  const std::vector<uint8_t> other = q->SaveParams();
  const Status load = p->LoadParams(other);
  Status error;
  EXPECT_EQ(CreateWithParams(kSource, other, {}, &error), nullptr);
  EXPECT_EQ(error.code(), load.code());
  EXPECT_EQ(error.message(), load.message());
  EXPECT_NE(error.message().find("parameter 'G/b': expected f32[3], the blob has f32[2]"), std::string::npos);
  const uint8_t junk[] = {1, 2, 3};
  EXPECT_EQ(CreateWithParams(kSource, junk, {}, &error), nullptr);
  EXPECT_NE(error.message().find("bad magic"), std::string::npos) << error.ToString();
  std::unique_ptr<Program> r = MakeProgram("@graph G {\n  input x: Tensor<[2, 4], f32>;\n  param w: Tensor<[4, 3], f32>;\n"
                                           "  output y: matmul(x, w);\n}\n");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(CreateWithParams(kSource, r->SaveParams(), {}, &error), nullptr);
  EXPECT_NE(error.message().find("missing: G/b, G/steps"), std::string::npos) << error.ToString();
}

// tests/testdata/param_checksums.txt: "FILE SEED CHECKSUM" per line, the
// checksum of every example's parameters for that seed. Regenerate with
// SHREW_UPDATE_GOLDEN=1; js/test/params.test.mjs asserts the same file
// against the wasm build.
TEST(ParamBlob, ChecksumsMatchTheCheckedInExpectations) {
  const char* examples[] = {"config_dims.sw",  "fusion_showcase.sw", "graph_calls.sw",
                            "logic_reductions.sw", "logistic_regression.sw", "mlp_classifier.sw",
                            "patch_mixer.sw",  "tiny_gpt.sw",        "transformer_block.sw"};
  std::ostringstream actual;
  for (const char* file : examples) {
    for (uint64_t seed : {0ull, 42ull}) {
      ProgramOptions o;
      o.seed = seed;
      std::unique_ptr<Program> p = MakeProgram(ReadTestdata(std::string("examples/") + file), o);
      ASSERT_NE(p, nullptr) << file;
      actual << file << " " << seed << " " << ChecksumHex(p->ParamsChecksum()) << "\n";
    }
  }
  const std::string path = std::string(SHREW_TESTDATA_DIR) + "/param_checksums.txt";
  if (std::getenv("SHREW_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual.str();
    GTEST_SKIP() << "wrote " << path;
  }
  EXPECT_EQ(actual.str(), ReadTestdata("param_checksums.txt"));
}

}  // namespace
}  // namespace shrew
