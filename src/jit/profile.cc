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
  std::vector<double> one(cg.tape.instrs.size()), sums(r), untimed(r);
  TapeProfile profile;
  profile.runs = runs;
  profile.clock_ns = ClockReadNs();
  for (size_t k = 0; k < r; ++k) {
    SHREW_RETURN_IF_ERROR(executor.RunTimed(one));
    const auto t0 = Clock::now();
    SHREW_RETURN_IF_ERROR(executor.Run());
    untimed[k] = NsBetween(t0, Clock::now());
    double sum = 0;
    for (size_t j = 0; j < timed.size(); ++j) {
      const double t = std::max(0.0, one[timed[j]] - profile.clock_ns);
      times[j * r + k] = static_cast<float>(t);
      sum += t;
    }
    sums[k] = sum;
  }
  // The mean over the runs, less the slowest tenth (a collection or another
  // process took the core): with a clock of coarse ticks (a browser's
  // performance.now, 5-100 us) a short kernel's median is 0, its mean is not.
  std::vector<double> sorted = sums;
  std::sort(sorted.begin(), sorted.end());
  const double cut = sorted[(r - 1) * 9 / 10];
  std::vector<double> total(timed.size(), 0.0);
  size_t kept = 0;
  for (size_t k = 0; k < r; ++k) {
    if (sums[k] > cut) continue;
    ++kept;
    profile.kernels_ns += sums[k];
    for (size_t j = 0; j < timed.size(); ++j) total[j] += times[j * r + k];
  }
  profile.kernels_ns /= static_cast<double>(kept);
  profile.instruction_ns.assign(cg.tape.instrs.size(), 0.0);
  for (size_t j = 0; j < timed.size(); ++j) profile.instruction_ns[timed[j]] = total[j] / static_cast<double>(kept);
  profile.run_ns = Median(std::move(untimed));
  return profile;
}

}  // namespace shrew::jit
