// Where a graph's run time goes, instruction by instruction (Program.profile
// in JS, `shrew profile` on the command line).
//
// The executor's binding (its last run's input shapes) is run `runs` times
// with every kernel timed (Executor::RunTimed), interleaved with as many
// untimed runs. Each instruction gets its mean over the timed runs, less the
// runs whose kernels took over twice the median and a clock step (another
// process or a collection took the core). A mean, not a median: a browser's
// clock steps by 5-100 us, so most runs of a short kernel read 0. A timed kernel's
// figure includes one read of the clock (in wasm a call out to JS,
// performance.now: about 50-100 ns, as much as a small kernel), so that
// read's own median cost is measured and taken off, never below 0.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "jit/executor.h"

namespace shrew::jit {

// At most this many runs per profile, and kernel times kept (runs times
// kernels: each run's are kept until the slowest runs are known).
inline constexpr int kMaxProfileRuns = 10000;
inline constexpr uint64_t kMaxProfileSamples = uint64_t{1} << 22;

struct TapeProfile {
  int runs = 0;
  // Per tape instruction (Executor::RunTimed's indices): the mean ns of its
  // kernel less clock_ns; 0 for an instruction without a kernel.
  std::vector<double> instruction_ns;
  double kernels_ns = 0;  // the sum of instruction_ns
  double run_ns = 0;      // median untimed Executor::Run: what a run costs without the profiler
  double clock_ns = 0;    // the median cost of one clock read, taken off each kernel
  double clock_step_ns = 0;  // the clock's step (the least change seen between reads)
};

// Profiles the executor's active binding. Errors: no binding yet
// (FailedPrecondition: run the graph first), runs outside [1,
// kMaxProfileRuns] or over kMaxProfileSamples kernel times (InvalidArgument,
// saying the most), and whatever a run fails with.
Result<TapeProfile> ProfileTape(Executor& executor, int runs);

// The aggregation ProfileTape does, from data: times[j * runs + k] is
// kernel j's time in run k. Runs whose kernels took over twice the median
// run's and a clock step more are left out (never the median run itself);
// each kernel gets its mean over the rest.
struct KernelMeans {
  std::vector<double> mean;  // per kernel
  double sum = 0;            // of the means
  size_t kept = 0;           // runs averaged
};
KernelMeans MeanOverSteadyRuns(std::span<const float> times, size_t kernels, size_t runs, double clock_step_ns);

}  // namespace shrew::jit
