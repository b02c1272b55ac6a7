#include "jit/profile.h"

#include <algorithm>
#include <chrono>
#include <string>

namespace shrew::jit {
namespace {

using Clock = std::chrono::steady_clock;

double NsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

// What timing a kernel adds to its time: two reads of the clock back to back.
double ClockReadNs() {
  std::vector<double> d(256);
  for (double& x : d) {
    const auto t0 = Clock::now();
    x = NsBetween(t0, Clock::now());
  }
  return Median(std::move(d));
}

// The clock's step: the smallest change seen between reads (about 1 ns
// natively and in Node, 5-100 us in a browser).
double ClockStepNs() {
  double step = 0;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = Clock::now();
    auto t1 = t0;
    for (int i = 0; i < (1 << 20) && t1 == t0; ++i) t1 = Clock::now();
    const double d = NsBetween(t0, t1);
    if (d > 0 && (step == 0 || d < step)) step = d;
  }
  return step;
}

}  // namespace

Result<TapeProfile> ProfileTape(Executor& executor, int runs) {
  const CompiledGraph& cg = executor.graph();
  std::vector<size_t> timed;  // the instructions with a kernel
  for (size_t i = 0; i < cg.tape.instrs.size(); ++i) {
    if (cg.tape.instrs[i].kernel >= 0) timed.push_back(i);
  }
  const uint64_t max_runs = std::max<uint64_t>(
      1, std::min<uint64_t>(kMaxProfileRuns, kMaxProfileSamples / std::max<size_t>(1, timed.size())));
  if (runs < 1 || static_cast<uint64_t>(runs) > max_runs) {
    return InvalidArgument("runs must be from 1 to " + std::to_string(max_runs) + " for graph '" + cg.name +
                           "' (" + std::to_string(timed.size()) + " kernels), got " + std::to_string(runs));
  }
  if (executor.plan() == nullptr) {
    return FailedPrecondition("graph '" + cg.name + "' has not run yet: run it once before profiling");
  }
  const size_t r = static_cast<size_t>(runs);
  std::vector<float> times(timed.size() * r);  // times[j * r + k]: kernel j in timed run k
  std::vector<double> one(cg.tape.instrs.size()), untimed(r);
  TapeProfile profile;
  profile.runs = runs;
  profile.clock_ns = ClockReadNs();
  profile.clock_step_ns = ClockStepNs();
  for (size_t k = 0; k < r; ++k) {
    SHREW_RETURN_IF_ERROR(executor.RunTimed(one));
    const auto t0 = Clock::now();
    SHREW_RETURN_IF_ERROR(executor.Run());
    untimed[k] = NsBetween(t0, Clock::now());
    for (size_t j = 0; j < timed.size(); ++j) {
      times[j * r + k] = static_cast<float>(std::max(0.0, one[timed[j]] - profile.clock_ns));
    }
  }
  const KernelMeans means = MeanOverSteadyRuns(times, timed.size(), r, profile.clock_step_ns);
  profile.kernels_ns = means.sum;
  profile.instruction_ns.assign(cg.tape.instrs.size(), 0.0);
  for (size_t j = 0; j < timed.size(); ++j) profile.instruction_ns[timed[j]] = means.mean[j];
  profile.run_ns = Median(std::move(untimed));
  return profile;
}

KernelMeans MeanOverSteadyRuns(std::span<const float> times, size_t kernels, size_t runs, double clock_step_ns) {
  KernelMeans out;
  out.mean.assign(kernels, 0.0);
  if (runs == 0) return out;
  std::vector<double> sums(runs, 0.0);
  for (size_t j = 0; j < kernels; ++j) {
    for (size_t k = 0; k < runs; ++k) sums[k] += times[j * runs + k];
  }
  // With a clock of coarse steps (a browser's performance.now, 5-100 us) a
  // short kernel's median is 0 and its mean is not: most runs read 0, and a
  // run with one step in it is no outlier (cutting the slowest tenth of the
  // runs left only the zeros).
  const double cut = 2 * Median(sums) + clock_step_ns;
  for (size_t k = 0; k < runs; ++k) {
    if (sums[k] > cut) continue;
    ++out.kept;
    for (size_t j = 0; j < kernels; ++j) out.mean[j] += times[j * runs + k];
  }
  for (double& m : out.mean) {
    m /= static_cast<double>(out.kept);
    out.sum += m;
  }
  return out;
}

}  // namespace shrew::jit
