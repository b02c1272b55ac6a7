#include "ir/run_steps.h"

#include <limits>
#include <string_view>
#include <unordered_map>

namespace shrew::ir {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t Add(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }
uint64_t Mul(uint64_t a, uint64_t b) { return a != 0 && b > kMax / a ? kMax : a * b; }

class Counter {
 public:
  explicit Counter(const Program& program)
      : program_(program), steps_(program.graphs.size()), state_(program.graphs.size(), kTodo) {
    // The first graph of each name, as Program::FindGraphIndex (a scan per
    // call made 32,000 call sites quadratic).
    for (size_t i = 0; i < program.graphs.size(); ++i) index_.emplace(program.graphs[i].name(), static_cast<int>(i));
  }

  std::vector<RunSteps> All() {
    for (size_t i = 0; i < program_.graphs.size(); ++i) Visit(static_cast<int>(i));
    return std::move(steps_);
  }

 private:
  enum State : uint8_t { kTodo, kVisiting, kDone };

  // The steps of graph i (computed once; graphs called from it first, on an
  // explicit stack: a chain of calls 64 deep is allowed, and the limit of
  // every other recursion is not ours to assume).
  void Visit(int root) {
    if (state_[static_cast<size_t>(root)] == kDone) return;
    std::vector<int> stack = {root};
    while (!stack.empty()) {
      const int g = stack.back();
      State& st = state_[static_cast<size_t>(g)];
      if (st == kTodo) {
        st = kVisiting;
        for (const Node& n : program_.graphs[static_cast<size_t>(g)].nodes()) {
          const int callee = CalleeOf(n);
          if (callee >= 0 && state_[static_cast<size_t>(callee)] == kTodo) stack.push_back(callee);
        }
        continue;
      }
      stack.pop_back();
      if (st == kDone) continue;
      Sum(g);
      st = kDone;
    }
  }

  int CalleeOf(const Node& n) const {
    const std::string* name = nullptr;
    if (n.op == OpKind::kCall) name = &n.callee;
    if (n.op == OpKind::kRepeat && n.repeat_body && n.repeat_body->op == OpKind::kCall) name = &n.repeat_body->callee;
    if (name == nullptr) return -1;
    auto it = index_.find(*name);
    return it == index_.end() ? -1 : it->second;
  }

  void Sum(int g) {
    RunSteps& out = steps_[static_cast<size_t>(g)];
    entered_.clear();  // callee -> times one run enters it (over all its call sites)
    for (const Node& n : program_.graphs[static_cast<size_t>(g)].nodes()) {
      uint64_t times = 1;
      if (n.op == OpKind::kRepeat) {
        const AttrValue* count = n.attr("count");
        times = count != nullptr && count->is_int() && count->as_int() > 0 ? static_cast<uint64_t>(count->as_int()) : 0;
      }
      const int callee = CalleeOf(n);
      uint64_t each = 1;
      if (callee >= 0) {
        // A callee still being visited is a cycle: unbounded.
        each = state_[static_cast<size_t>(callee)] == kDone ? Add(1, steps_[static_cast<size_t>(callee)].steps) : kMax;
        uint64_t& entered = entered_[callee];
        entered = Add(entered, n.op == OpKind::kRepeat ? times : 1);
      }
      out.steps = Add(out.steps, n.op == OpKind::kRepeat ? Add(1, Mul(times, each)) : each);
    }
    uint64_t heaviest = 0;
    for (const auto& [callee, entered] : entered_) {
      const uint64_t each = state_[static_cast<size_t>(callee)] == kDone
                                ? Add(1, steps_[static_cast<size_t>(callee)].steps)
                                : kMax;
      const uint64_t total = Mul(entered, each);
      if (out.heaviest_callee < 0 || total > heaviest || (total == heaviest && callee < out.heaviest_callee)) {
        out.heaviest_callee = callee;
        out.heaviest_times = entered;
        heaviest = total;
      }
    }
  }

  const Program& program_;
  std::vector<RunSteps> steps_;
  std::vector<State> state_;
  std::unordered_map<std::string_view, int> index_;
  std::unordered_map<int, uint64_t> entered_;  // Sum's, per callee
};

}  // namespace

std::vector<RunSteps> StepsPerRun(const Program& program) { return Counter(program).All(); }

std::string HeaviestCallChain(const Program& program, const std::vector<RunSteps>& steps, int index, int hops) {
  std::string out;
  for (int h = 0; h < hops && index >= 0 && static_cast<size_t>(index) < steps.size(); ++h) {
    const RunSteps& s = steps[static_cast<size_t>(index)];
    if (s.heaviest_callee < 0) return out;
    if (!out.empty()) out += ", ";
    out += program.graphs[static_cast<size_t>(index)].name() + " calls " +
           program.graphs[static_cast<size_t>(s.heaviest_callee)].name() + " " + std::to_string(s.heaviest_times) +
           (s.heaviest_times == 1 ? " time" : " times");
    index = s.heaviest_callee;
  }
  const bool more = index >= 0 && static_cast<size_t>(index) < steps.size() &&
                    steps[static_cast<size_t>(index)].heaviest_callee >= 0;
  if (more) out += ", …";
  return out;
}

}  // namespace shrew::ir
