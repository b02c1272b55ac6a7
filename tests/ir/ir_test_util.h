// Helpers for hand-building IR graphs in tests (the parser and lowering are
// written elsewhere): a tiny type parser and a graph fixture that gives every
// node a distinct span (line = id + 1, column = 3) so tests can assert where
// a diagnostic points.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "ir/graph.h"
#include "ir/shapes.h"
#include "ir/validate.h"

namespace shrew::ir::testing {

// "[Batch, 8, ?] f32" -> Tensor<[Batch, 8, ?], f32>; "?" -> unknown.
inline Type T(std::string_view text) {
  if (text == "?") return Type::Unknown();
  size_t close = text.find(']');
  std::vector<Dim> dims;
  std::string cur;
  auto flush = [&] {
    std::string s;
    for (char c : cur) {
      if (c != ' ') s += c;
    }
    cur.clear();
    if (s.empty()) return;
    if (s == "?") {
      dims.push_back(Dim::Dynamic());
    } else if (std::isdigit(static_cast<unsigned char>(s[0]))) {
      int64_t v = 0;
      std::from_chars(s.data(), s.data() + s.size(), v);
      dims.push_back(Dim::Fixed(v));
    } else {
      dims.push_back(Dim::Symbolic(s));
    }
  };
  for (size_t i = 1; i < close; ++i) {
    if (text[i] == ',') {
      flush();
    } else {
      cur += text[i];
    }
  }
  flush();
  std::string dt(text.substr(close + 1));
  dt.erase(0, dt.find_first_not_of(' '));
  auto d = DTypeFromName(dt);
  EXPECT_TRUE(d.has_value()) << "bad dtype in test type: " << text;
  return Type::Tensor(std::move(dims), d.value_or(DType::kF32));
}

inline diag::Span SpanFor(int line) {
  diag::Span s;
  s.line = static_cast<uint32_t>(line);
  s.column = 3;
  s.offset = static_cast<uint32_t>(line * 100);
  s.length = 4;
  return s;
}

// A graph under construction plus its diagnostics.
struct GraphFixture {
  Graph g{"G"};
  diag::DiagnosticBag diags;

  diag::Span NextSpan() const { return SpanFor(g.num_nodes() + 1); }
  NodeId In(const std::string& name, std::string_view type, bool optional = false) {
    return g.AddInput(name, T(type), optional, NextSpan());
  }
  NodeId Param(const std::string& name, std::string_view type) {
    return g.AddParam(name, T(type), InitSpec{}, false, NextSpan());
  }
  NodeId Const(AttrValue v, const std::string& name = "") {
    return g.AddConstant(name, std::move(v), NextSpan());
  }
  NodeId Op(OpKind op, std::vector<NodeId> operands, const std::string& name = "",
            Attrs attrs = {}) {
    NodeId id = g.AddNode(name, op, std::move(operands), NextSpan());
    g.node(id).attrs = std::move(attrs);
    return id;
  }
  void Out(NodeId id, const std::string& name = "") {
    g.AddOutput(name.empty() ? g.node(id).name : name, id);
  }
  // Runs inference; returns true when no error.
  bool Infer(const InferOptions& o = {}) { return InferGraphTypes(&g, nullptr, &diags, o); }
  std::string TypeOf(NodeId id) const { return g.node(id).type.ToString(); }
  // The only error's code ("" when none, "several" when more than one).
  std::string OnlyError() const {
    std::string code;
    int n = 0;
    for (const auto& d : diags.all()) {
      if (d.severity == diag::Severity::Error) {
        code = d.code();
        ++n;
      }
    }
    return n > 1 ? "several: " + Messages() : code;
  }
  std::string Messages() const {
    std::string out;
    for (const auto& d : diags.all()) out += std::string(d.code()) + " " + d.message + "\n";
    return out;
  }
};

inline Attrs A(std::initializer_list<std::pair<const char*, AttrValue>> list) {
  Attrs a;
  for (const auto& [k, v] : list) a.Set(k, v);
  return a;
}

}  // namespace shrew::ir::testing
