// Helpers shared by the optimiser tests: a compact graph printer (the IR dump
// format of PIPELINE.md §7.7 without types) and an IR-invariant checker.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "ir/graph.h"
#include "ir/op.h"

namespace shrew::opt::testing {

// One line per node, `%ID NAME = OP[ATTRS](%A, %B)`, then `outputs: …`.
// Inputs print as `input`, parameters as `param`; a constant prints its
// value followed by `:DTYPE` once its type is known (`constant[12:f32]`).
inline std::string Render(const ir::Graph& g) {
  std::string out;
  for (const ir::Node& n : g.nodes()) {
    out += "%" + std::to_string(n.id) + " " + n.name + " = ";
    if (n.is_input()) {
      out += "input\n";
      continue;
    }
    if (n.is_param()) {
      out += "param\n";
      continue;
    }
    out += ir::OpName(n.op);
    if (n.op == ir::OpKind::kCall || n.op == ir::OpKind::kCustom) out += "[" + n.callee + "]";
    if (n.op == ir::OpKind::kConstant) {
      const ir::AttrValue* v = n.attr("value");
      out += "[" + (v ? v->ToString() : std::string("?"));
      if (n.type.is_tensor()) out += std::string(":") + ir::DTypeName(n.type.dtype());
      out += "]";
    } else if (!n.attrs.empty()) {
      out += "[";
      for (size_t k = 0; k < n.attrs.entries().size(); ++k) {
        if (k) out += ", ";
        out += n.attrs.entries()[k].first + "=" + n.attrs.entries()[k].second.ToString();
      }
      out += "]";
    }
    if (!n.operands.empty()) {
      out += "(";
      for (size_t k = 0; k < n.operands.size(); ++k) {
        if (k) out += ", ";
        out += "%" + std::to_string(n.operands[k]);
      }
      out += ")";
    }
    out += "\n";
  }
  out += "outputs:";
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    out += (k ? ", " : " ") + g.outputs()[k].name + "=%" + std::to_string(g.outputs()[k].node);
  }
  return out + "\n";
}

// PIPELINE.md §2.2 invariants every pass must keep: ids 0..n-1 in order,
// operands earlier than their node, inputs/params/outputs in range, the
// name map current, parameter records naming parameter nodes.
inline void ExpectInvariants(const ir::Graph& g) {
  for (int i = 0; i < g.num_nodes(); ++i) {
    const ir::Node& n = g.node(i);
    EXPECT_EQ(n.id, i);
    for (ir::NodeId op : n.operands) {
      EXPECT_GE(op, 0) << n.name;
      EXPECT_LT(op, i) << n.name;
    }
    EXPECT_NE(g.FindNode(n.name), ir::kNoNode) << n.name;
    EXPECT_LE(g.FindNode(n.name), i) << n.name;
  }
  for (const ir::GraphInput& in : g.inputs()) {
    ASSERT_TRUE(g.HasNode(in.node));
    EXPECT_TRUE(g.node(in.node).is_input());
  }
  for (const ir::Param& p : g.params()) {
    ASSERT_TRUE(g.HasNode(p.node));
    EXPECT_TRUE(g.node(p.node).is_param());
    EXPECT_EQ(g.node(p.node).name, p.name);
  }
  for (const ir::GraphOutput& o : g.outputs()) EXPECT_TRUE(g.HasNode(o.node)) << o.name;
}

inline ir::Type F32(std::vector<int64_t> dims) {
  std::vector<ir::Dim> d;
  for (int64_t v : dims) d.push_back(ir::Dim::Fixed(v));
  return ir::Type::Tensor(std::move(d), ir::DType::kF32);
}

}  // namespace shrew::opt::testing
