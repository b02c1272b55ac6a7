// The WebAssembly build runs with a 1 MB stack (CMakeLists: -sTOTAL_STACK=1MB).
// Compile the deepest inputs the front end accepts on a native thread with a
// 1 MB stack: native frames are at least as large as wasm's, so passing here
// means the recursive stages (parser, lowering, config evaluation, dumps)
// stay within the wasm budget.
#include <pthread.h>

#include <gtest/gtest.h>

#include <string>

#include "api/compile.h"
#include "front/parser.h"
#include "ir/dump.h"
#include "support/generated_programs.h"

namespace shrew {
namespace {

struct Job {
  std::string text;
  bool ok = false;
  std::string diagnostics;
};

void* RunCompile(void* arg) {
  Job* job = static_cast<Job*>(arg);
  CompileResult r = Compile(job->text);
  job->ok = r.ok;
  job->diagnostics = r.RenderDiagnostics().substr(0, 2000);
  if (r.ok) job->diagnostics = ir::DumpProgram(r.program).substr(0, 100);
  return nullptr;
}

// Compiles `text` on a thread whose stack is 1 MB.
Job CompileOnSmallStack(std::string text) {
  Job job;
  job.text = std::move(text);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t{1} << 20);
  pthread_t thread;
  EXPECT_EQ(pthread_create(&thread, &attr, RunCompile, &job), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job;
}

TEST(CompileStackTest, TallestOperatorTree) {
  const std::string text = "@graph G { input x: Tensor<[3], f32>; output y: " +
                           testing::TallExpression("x", " - x", front::kMaxExprHeight - 1) + "; }";
  Job job = CompileOnSmallStack(text);
  EXPECT_TRUE(job.ok) << job.diagnostics;
}

TEST(CompileStackTest, LongestOperatorRuns) {
  // 100,000 operators in one run, in a graph and in @config: one flat
  // ChainExpr each, lowered and evaluated in a loop.
  std::string sum = "@config { n: 0";
  for (int i = 0; i < 100000; ++i) sum += i % 2 ? " + 2" : " - 1";
  sum += "; }\n@graph G { input x: Tensor<[3], f32>; output y: x";
  for (int i = 0; i < 100000; ++i) sum += i % 3 ? " + x * 0.5" : " - x";
  sum += " + n; }";
  Job job = CompileOnSmallStack(sum);
  EXPECT_TRUE(job.ok) << job.diagnostics;
}

TEST(CompileStackTest, DeepestNestedCalls) {
  const int depth = front::kMaxNestingDepth - 5;
  std::string text = "@graph G { input x: Tensor<[3], f32>; output y: ";
  for (int i = 0; i < depth; ++i) text += "relu(";
  text += "x";
  for (int i = 0; i < depth; ++i) text += ")";
  text += "; }";
  Job job = CompileOnSmallStack(text);
  EXPECT_TRUE(job.ok) << job.diagnostics;
}

TEST(CompileStackTest, DeepestConfigExpression) {
  const std::string text = "@config { a: " + testing::TallExpression("1", " + 1", front::kMaxExprHeight - 1) +
                           "; }\n@graph G { input x: Tensor<[a], f32>; output x; }";
  Job job = CompileOnSmallStack(text);
  EXPECT_TRUE(job.ok) << job.diagnostics;
}

TEST(CompileStackTest, RejectedNestingOnSmallStack) {
  Job job = CompileOnSmallStack("@graph G { input x: f32; output y: " + std::string(100000, '(') +
                                "x" + std::string(100000, ')') + "; }");
  EXPECT_FALSE(job.ok);
  EXPECT_NE(job.diagnostics.find("E021"), std::string::npos) << job.diagnostics;
}

}  // namespace
}  // namespace shrew
