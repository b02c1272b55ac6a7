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

TEST(CompileStackTest, TallestOperatorChain) {
  std::string text = "@graph G { input x: Tensor<[3], f32>; output y: x";
  for (uint32_t i = 0; i + 2 < front::kMaxExprHeight; ++i) text += " - x";
  text += "; }";
  Job job = CompileOnSmallStack(text);
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
  std::string text = "@config { a: 1";
  for (uint32_t i = 0; i + 2 < front::kMaxExprHeight; ++i) text += " + 1";
  text += "; }\n@graph G { input x: Tensor<[a], f32>; output x; }";
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
