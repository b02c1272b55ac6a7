// Randomized differential testing: hundreds of valid random graphs (random
// ops over the catalog, random shapes with broadcasting, fusible patterns
// such as relu(matmul(x, W) + b) and relu(a − b), dead nodes, several
// outputs) compiled to the tape and compared with the interpreter; every
// memory plan must pass the no-overlap check and use no more than the naive
// arena. A failing case prints its seed and source.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "jit/jit_test_util.h"
#include "jit/liveness.h"

namespace shrew::jit {
namespace {

using runtime::Shape;
using runtime::TensorMap;

struct Value {
  std::string name;
  Shape shape;
  bool is_bool = false;  // not f32 (bool or i64): never picked as a float operand
};

std::string ShapeText(const Shape& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i == 0 ? "" : ", ") + std::to_string(s[i]);
  return t + "]";
}

class GraphGen {
 public:
  // `dropouts`: some nodes are training-mode dropouts (draws from the stream
  // of the generator only when set, so the other graphs stay as they were).
  explicit GraphGen(uint32_t seed, bool dropouts = false) : rng_(seed), dropouts_(dropouts) {}

  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool Coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  // A shape that broadcasts against `s`: a suffix of it with some axes 1.
  Shape BroadcastPartner(const Shape& s) {
    Shape t(s.begin() + Int(0, static_cast<int>(s.size())), s.end());
    for (int64_t& d : t) {
      if (Coin(0.3)) d = 1;
    }
    return t;
  }

  std::string Generate(TensorMap* feed) {
    // The base shape every value broadcasts to.
    Shape base;
    const int rank = Int(1, 3);
    for (int i = 0; i < rank; ++i) base.push_back(Int(1, 5));
    const int n_inputs = Int(1, 3);
    for (int i = 0; i < n_inputs; ++i) {
      Value v{"in" + std::to_string(i), i == 0 ? base : BroadcastPartner(base)};
      inputs_ += "  input " + v.name + ": Tensor<" + ShapeText(v.shape) + ", f32>;\n";
      feed->emplace(v.name, testing::RandomTensor(ir::DType::kF32, v.shape, static_cast<uint32_t>(rng_()), -2, 2));
      values_.push_back(v);
    }
    const int n_nodes = Int(3, 12);
    for (int i = 0; i < n_nodes; ++i) AddNode("n" + std::to_string(i));
    // Outputs: the last float node and maybe a few others; the rest may be dead.
    std::vector<std::string> outs;
    for (size_t k = values_.size(); k-- > 0;) {
      if (!values_[k].is_bool) {
        outs.push_back(values_[k].name);
        break;
      }
    }
    for (int k = Int(0, 2); k > 0; --k) {
      const Value& v = values_[static_cast<size_t>(Int(0, static_cast<int>(values_.size()) - 1))];
      bool dup = false;
      for (const std::string& o : outs) dup |= o == v.name;
      if (!dup && v.name.rfind("in", 0) != 0) outs.push_back(v.name);
    }
    std::string src = "@graph G {\n" + inputs_ + params_ + nodes_;
    for (const std::string& o : outs) src += "  output " + o + ";\n";
    return src + "}\n";
  }

 private:
  const Value& PickFloat() {
    for (;;) {
      const Value& v = values_[static_cast<size_t>(Int(0, static_cast<int>(values_.size()) - 1))];
      if (!v.is_bool) return v;
    }
  }
  // A float value whose shape broadcasts with `s` (or a fresh literal).
  std::string PartnerOf(const Shape& s, Shape* out_shape) {
    for (int tries = 0; tries < 8; ++tries) {
      const Value& v = PickFloat();
      Result<Shape> b = BroadcastOf(s, v.shape);
      if (b.ok()) {
        *out_shape = *b;
        return v.name;
      }
    }
    *out_shape = s;
    return std::to_string(Int(1, 4)) + ".5";
  }
  static Result<Shape> BroadcastOf(const Shape& a, const Shape& b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1;
      const int64_t y = i < b.size() ? b[b.size() - 1 - i] : 1;
      if (x != y && x != 1 && y != 1) return InvalidArgument("no");
      out[out.size() - 1 - i] = x == 1 ? y : x;
    }
    return out;
  }
  std::string NewParam(const Shape& s) {
    const std::string name = "p" + std::to_string(num_params_++);
    params_ += "  param " + name + ": Tensor<" + ShapeText(s) + ", f32> { init: \"uniform(-1, 1)\"; };\n";
    return name;
  }

  void Emit(const std::string& name, const std::string& expr, Shape shape, bool is_bool = false) {
    nodes_ += "  node " + name + " { op: " + expr + "; };\n";
    values_.push_back({name, std::move(shape), is_bool});
  }

  void AddNode(const std::string& name) {
    const Value x = PickFloat();
    const int r = static_cast<int>(x.shape.size());
    static const char* kUnary[] = {"relu", "tanh", "sigmoid", "neg", "gelu", "silu"};
    static const char* kReduce[] = {"sum", "mean", "max", "min", "var"};
    Shape s;
    if (dropouts_ && Int(0, 4) == 0) {
      Emit(name, "dropout(" + x.name + ", p: 0." + std::to_string(Int(1, 8)) + ")", x.shape);
      return;
    }
    switch (Int(0, 15)) {
      case 0:
      case 1:
        Emit(name, std::string(kUnary[Int(0, 5)]) + "(" + x.name + ")", x.shape);
        return;
      case 2:
      case 3: {
        const char* ops[] = {"+", "-", "*"};
        const std::string other = PartnerOf(x.shape, &s);
        Emit(name, x.name + " " + ops[Int(0, 2)] + " " + other, s);
        return;
      }
      case 4: {  // fusible: relu(a ± b)
        const std::string other = PartnerOf(x.shape, &s);
        Emit(name, "relu(" + x.name + (Coin() ? " + " : " - ") + other + ")", s);
        return;
      }
      case 5: {  // fusible: [act](matmul(x, W) [+ b])
        if (r == 0) break;
        const int64_t k = x.shape.back();
        const int64_t m = Int(1, 6);
        const std::string w = NewParam({k, m});
        Shape out = x.shape;
        out.back() = m;
        std::string e = "matmul(" + x.name + ", " + w + ")";
        if (Coin()) e += " + " + NewParam({m});
        if (Coin()) e = std::string(Coin() ? "relu(" : "tanh(") + e + ")";
        if (r == 1) out = {m};
        Emit(name, e, out);
        return;
      }
      case 6: {
        const char* op = kReduce[Int(0, 4)];
        const bool keep = Coin();
        if (Coin(0.3) || r == 0) {
          Emit(name, std::string(op) + "(" + x.name + (keep ? ", keepdim: true" : "") + ")",
               keep ? Shape(x.shape.size(), 1) : Shape{});
          return;
        }
        const int axis = Int(-r, r - 1);
        Shape out;
        for (int i = 0; i < r; ++i) {
          if (i == (axis + r) % r) {
            if (keep) out.push_back(1);
          } else {
            out.push_back(x.shape[static_cast<size_t>(i)]);
          }
        }
        Emit(name, std::string(op) + "(" + x.name + ", dim: " + std::to_string(axis) +
                       (keep ? ", keepdim: true" : "") + ")",
             out);
        return;
      }
      case 7:
        if (r == 0) break;
        Emit(name, "softmax(" + x.name + ", dim: " + std::to_string(Int(-r, r - 1)) + ")", x.shape);
        return;
      case 8:
        if (r == 0) break;
        Emit(name, "layer_norm(" + x.name + ")", x.shape);
        return;
      case 9: {  // comparison feeding where
        const std::string other = PartnerOf(x.shape, &s);
        const char* cmp[] = {"<", ">", "<=", ">=", "==", "!="};
        Emit(name + "c", x.name + " " + cmp[Int(0, 5)] + " " + other, s, true);
        Shape t;
        const std::string b = PartnerOf(s, &t);
        Emit(name, "where(" + name + "c, " + x.name + ", " + b + ")", t);
        return;
      }
      case 10:
        if (r < 2) break;
        Emit(name, "transpose(" + x.name + ")", [&] {
          Shape t = x.shape;
          std::swap(t[t.size() - 1], t[t.size() - 2]);
          return t;
        }());
        return;
      case 11: {
        if (r == 0) break;
        const int axis = Int(-r, r - 1);
        Shape t = x.shape;
        t[static_cast<size_t>((axis + r) % r)] *= 2;
        Emit(name, "concat(" + x.name + ", " + x.name + ", dim: " + std::to_string(axis) + ")", t);
        return;
      }
      case 12: {
        if (r == 0) break;
        const int axis = Int(0, r - 1);
        const int64_t len = x.shape[static_cast<size_t>(axis)];
        const int64_t chunks = Int(1, 3);
        const int64_t c = (len + chunks - 1) / chunks;
        const int64_t produced = (len + c - 1) / c;
        const int64_t index = Int(0, static_cast<int>(produced) - 1);
        Shape t = x.shape;
        t[static_cast<size_t>(axis)] = std::min(c, len - index * c);
        Emit(name, "split(" + x.name + ", chunks: " + std::to_string(chunks) + ", dim: " + std::to_string(axis) +
                       ", index: " + std::to_string(index) + ")",
             t);
        return;
      }
      case 13:
        Emit(name, "cast(" + x.name + " > 0.0, dtype: \"f32\") * " + x.name, x.shape);
        return;
      case 14: {  // integer arithmetic: i64 storage, floored mod, wrapping pow
        const char* ops[] = {" % 3", " * 7", " - 5", " ** 2"};
        Emit(name + "i", "cast(" + x.name + " * 4.0, dtype: \"i64\")", x.shape, /*not_float=*/true);
        Emit(name + "j", name + "i" + ops[Int(0, 3)], x.shape, /*not_float=*/true);
        Emit(name, "cast(" + name + "j, dtype: \"f32\")", x.shape);
        return;
      }
      case 15: {  // logic with broadcasting, back to f32
        const std::string other = PartnerOf(x.shape, &s);
        const char* logic[] = {" && ", " || "};
        Emit(name, "cast((" + x.name + " > " + other + ")" + logic[Int(0, 1)] + "!(" + x.name + " < 0.5), dtype: \"f32\")",
             s);
        return;
      }
    }
    Emit(name, "exp(tanh(" + x.name + "))", x.shape);
  }

  std::mt19937 rng_;
  std::vector<Value> values_;
  std::string inputs_, params_, nodes_;
  int num_params_ = 0;
  bool dropouts_ = false;
};

TEST(RandomGraphs, TapeMatchesInterpreterAndPlansAreSound) {
  constexpr int kGraphs = 300;
  int total_ref = 0, total_instructions = 0, total_fused = 0, total_in_place = 0;
  for (int seed = 1; seed <= kGraphs; ++seed) {
    TensorMap feed;
    GraphGen gen(static_cast<uint32_t>(seed));
    const std::string src = gen.Generate(&feed);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + src);
    std::unique_ptr<Program> p = testing::MakeProgram(src);
    ASSERT_NE(p, nullptr);
    testing::RunBoth(*p, "G", feed, /*slack=*/20.0);
    const Executor* ex = p->executor("G");
    ASSERT_NE(ex, nullptr);
    ASSERT_NE(ex->plan(), nullptr);
    Status s = CheckBufferAssignment(ex->graph().tape, ex->graph().lifetimes, ex->plan()->buffers,
                                     ex->plan()->plan.offsets, kDefaultAlignment);
    EXPECT_TRUE(s.ok()) << s.ToString();
    Result<CompileStats> st = p->Stats("G");
    ASSERT_TRUE(st.ok());
    EXPECT_LE(st->arena_bytes, st->arena_naive);
    EXPECT_GE(st->arena_bytes, st->arena_lower_bound);
    total_ref += st->num_ref_kernels;
    total_instructions += st->num_instructions;
    total_fused += st->num_fused;
    total_in_place += st->num_in_place;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf("[random] %d graphs, %d instructions, %d fused, %d in-place placements\n", kGraphs,
              total_instructions, total_fused, total_in_place);
  EXPECT_EQ(total_ref, 0) << "random graphs should run entirely on native kernels";
}

// Training mode: random graphs with dropouts (and, unoptimised, their dead
// nodes) draw the same masks on the tape and in the interpreter — two
// programs with the same seed, so both start from the same generator state.
TEST(RandomGraphs, TrainingModeTapeMatchesInterpreter) {
  constexpr int kGraphs = 100;
  for (int seed = 1; seed <= kGraphs; ++seed) {
    TensorMap feed;
    GraphGen gen(static_cast<uint32_t>(seed), /*dropouts=*/true);
    const std::string src = gen.Generate(&feed);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + src);
    ProgramOptions o;
    o.training = true;
    o.seed = static_cast<uint64_t>(seed);
    shrew::CompileOptions copts;
    copts.optimize = seed % 2 == 0;  // odd seeds keep dead nodes on the tape
    std::unique_ptr<Program> tape = testing::MakeProgram(src, o, copts);
    std::unique_ptr<Program> interp = testing::MakeProgram(src, o, copts);
    ASSERT_TRUE(tape && interp);
    for (int run = 0; run < 2; ++run) {
      Result<TensorMap> t = tape->Run("G", feed);
      Result<TensorMap> r = interp->Interpret("G", feed);
      ASSERT_TRUE(t.ok() && r.ok()) << t.status().ToString() << " / " << r.status().ToString();
      testing::ExpectAgree(*t, *r, /*slack=*/20.0);
    }
    if (::testing::Test::HasFailure()) break;
  }
}

}  // namespace
}  // namespace shrew::jit
