// XNNPACK alone: the mlp workload's three fully-connected layers (784 -> 512
// with a ReLU clamp, 512 -> 512 with a ReLU clamp, 512 -> 10) as bare XNNPACK
// operators, created and packed once, then run in a loop. No Shrew code runs:
// this is the kernel library's own speed. The same source is built natively
// (build/native/xnn_fc_probe) and for wasm (build/wasm/xnn_fc_probe.cjs, run
// with node), so `npm run bench` can put XNNPACK's own wasm ÷ native ratio on
// this machine next to Shrew's (issue 8's target assumes XNNPACK's is ≈ 1.5).
//
//   xnn_fc_probe [--batch N]... [--warmup-ms N] [--time-ms N] [--burst-ms N]
//
// Prints one JSON line: per batch, the median, p10 and p90 wall time of one
// pass over the three layers (per-pass means of bursts of passes) and its
// GFLOP/s. Before timing, each batch's output is checked against a plain
// loop; a mismatch exits 1 without figures.
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Layer {
  size_t in, out;
  bool relu;
};
constexpr Layer kLayers[] = {{784, 512, true}, {512, 512, true}, {512, 10, false}};

struct Options {
  std::vector<size_t> batches;
  double warmup_ms = 1000;
  double time_ms = 2000;
  double burst_ms = 5;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "xnn_fc_probe: %s\n", message.c_str());
  std::exit(1);
}

void Check(xnn_status status, const char* step) {
  if (status != xnn_status_success) Fail(std::string(step) + " failed (xnn_status " + std::to_string(status) + ")");
}

double Number(const char* flag, const char* text) {
  char* end = nullptr;
  const double v = text ? std::strtod(text, &end) : 0;
  if (!text || *end != '\0' || !(v > 0)) Fail(std::string(flag) + " expects a positive number");
  return v;
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--batch") {
      const double b = Number("--batch", v);
      if (b > 4096 || b != static_cast<double>(static_cast<size_t>(b))) Fail("--batch expects an integer from 1 to 4096");
      o.batches.push_back(static_cast<size_t>(b));
    }
    else if (a == "--warmup-ms") o.warmup_ms = Number("--warmup-ms", v);
    else if (a == "--time-ms") o.time_ms = Number("--time-ms", v);
    else if (a == "--burst-ms") o.burst_ms = Number("--burst-ms", v);
    else Fail("unknown argument '" + a + "'");
    ++i;
  }
  if (o.batches.empty()) o.batches = {1, 64};
  return o;
}

// Deterministic values in [-scale, scale): a 32-bit LCG, no libc++ <random>.
std::vector<float> Filled(size_t n, uint32_t seed, float scale) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(seed >> 8) / 8388608.0f - 1.0f);
  }
  return v;
}

// The three layers for one batch size: weights [in, out] as Shrew's matmul
// passes them (XNN_FLAG_TRANSPOSE_WEIGHTS), activations padded by
// XNN_EXTRA_BYTES because XNNPACK may read past its input.
struct Net {
  std::vector<std::vector<float>> w, b, act;
  std::vector<xnn_operator_t> ops;

  explicit Net(size_t batch) {
    const size_t pad = XNN_EXTRA_BYTES / sizeof(float);
    act.push_back(Filled(batch * kLayers[0].in + pad, 7, 1.0f));
    uint32_t seed = 11;
    for (const Layer& l : kLayers) {
      w.push_back(Filled(l.in * l.out, seed++, 1.0f / std::sqrt(static_cast<float>(l.in))));
      b.push_back(Filled(l.out, seed++, 0.1f));
      act.push_back(std::vector<float>(batch * l.out + pad));
      xnn_operator_t op = nullptr;
      const float inf = std::numeric_limits<float>::infinity();
      Check(xnn_create_fully_connected_nc_f32(l.in, l.out, l.in, l.out, w.back().data(), b.back().data(),
                                              l.relu ? 0.0f : -inf, inf, XNN_FLAG_TRANSPOSE_WEIGHTS, nullptr,
                                              nullptr, &op),
            "xnn_create_fully_connected_nc_f32");
      ops.push_back(op);
      Check(xnn_reshape_fully_connected_nc_f32(op, batch, nullptr), "xnn_reshape_fully_connected_nc_f32");
      Check(xnn_setup_fully_connected_nc_f32(op, act[act.size() - 2].data(), act.back().data()),
            "xnn_setup_fully_connected_nc_f32");
    }
  }
  ~Net() {
    for (xnn_operator_t op : ops) xnn_delete_operator(op);
  }
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;

  void Run() {
    for (xnn_operator_t op : ops) Check(xnn_run_operator(op, nullptr), "xnn_run_operator");
  }

  // Largest |XNNPACK - plain loop| over the last layer, relative to its largest |value|.
  double RelativeError(size_t batch) const {
    std::vector<double> x(act[0].begin(), act[0].begin() + batch * kLayers[0].in);
    for (size_t li = 0; li < std::size(kLayers); ++li) {
      const Layer& l = kLayers[li];
      std::vector<double> y(batch * l.out);
      for (size_t r = 0; r < batch; ++r) {
        for (size_t o = 0; o < l.out; ++o) {
          double s = b[li][o];
          for (size_t i = 0; i < l.in; ++i) s += x[r * l.in + i] * w[li][i * l.out + o];
          y[r * l.out + o] = l.relu ? std::max(s, 0.0) : s;
        }
      }
      x = std::move(y);
    }
    double diff = 0, scale = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      diff = std::max(diff, std::fabs(x[i] - act.back()[i]));
      scale = std::max(scale, std::fabs(x[i]));
    }
    return diff / std::max(scale, 1e-30);
  }
};

double MsSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  Check(xnn_initialize(nullptr), "xnn_initialize");
  double flops_per_row = 0;
  for (const Layer& l : kLayers) flops_per_row += 2.0 * static_cast<double>(l.in * l.out);

  std::string results;
  for (size_t batch : o.batches) {
    Net net(batch);
    net.Run();
    const double err = net.RelativeError(batch);
    if (!(err < 1e-4)) Fail("batch " + std::to_string(batch) + ": output differs from a plain loop by " + std::to_string(err));

    // Warm-up: in wasm, V8 runs the kernels in baseline code until it has optimised them.
    size_t passes = 0;
    const Clock::time_point w0 = Clock::now();
    while (MsSince(w0) < o.warmup_ms) {
      net.Run();
      ++passes;
    }
    const size_t per_burst = std::max<size_t>(1, static_cast<size_t>(o.burst_ms * static_cast<double>(passes) / MsSince(w0)));
    std::vector<double> us;
    const Clock::time_point t0 = Clock::now();
    while (us.size() < 50 || MsSince(t0) < o.time_ms) {
      const Clock::time_point b0 = Clock::now();
      for (size_t i = 0; i < per_burst; ++i) net.Run();
      us.push_back(MsSince(b0) * 1000.0 / static_cast<double>(per_burst));
    }
    const double median = Quantile(us, 0.5);
    char line[320];
    std::snprintf(line, sizeof line,
                  "%s{\"batch\":%zu,\"medianUs\":%.3f,\"p10Us\":%.3f,\"p90Us\":%.3f,\"bursts\":%zu,"
                  "\"passesPerBurst\":%zu,\"gflops\":%.3f,\"relativeError\":%.3g}",
                  results.empty() ? "" : ",", batch, median, Quantile(us, 0.1), Quantile(us, 0.9), us.size(),
                  per_burst, flops_per_row * static_cast<double>(batch) / (median * 1e3), err);
    results += line;
  }
  std::printf("{\"layers\":\"784-512 relu, 512-512 relu, 512-10\",\"wasm\":%s,\"results\":[%s]}\n",
#ifdef __EMSCRIPTEN__
              "true",
#else
              "false",
#endif
              results.c_str());
  return 0;
}
