// Text and JSON dumps of the IR (PIPELINE.md §7.7).
#include "ir/dump.h"

#include <cmath>
#include <cstdio>

#include "ir/shapes.h"

namespace shrew::ir {
namespace {

// "k=v" for every schema attribute (value or default) in order, then any
// attributes outside the schema in insertion order.
std::string AttrList(OpKind op, const Attrs& attrs) {
  std::string out;
  auto add = [&out](const std::string& item) {
    if (!out.empty()) out += ", ";
    out += item;
  };
  for (const OpAttrSpec& spec : OpAttrSpecs(op)) {
    const AttrValue* v = attrs.Find(spec.name);
    if (!v && spec.has_default) v = &spec.default_value;
    if (v) add(std::string(spec.name) + "=" + v->ToString());
  }
  for (const auto& [name, value] : attrs.entries()) {
    if (!FindOpAttrSpec(op, name)) add(name + "=" + value.ToString());
  }
  return out;
}

std::string OpText(OpKind op, const Attrs& attrs, const std::string& callee,
                   const std::optional<RepeatBody>& body, const Type& type) {
  std::string inner;
  if (op == OpKind::kConstant) {
    const AttrValue* v = attrs.Find("value");
    inner = v ? v->ToString() : "";
    if (type.is_tensor()) inner += std::string(":") + DTypeName(type.dtype());
  } else if (op == OpKind::kCall || op == OpKind::kCustom) {
    inner = callee;
    std::string rest = AttrList(op, attrs);
    if (!rest.empty()) inner += (inner.empty() ? "" : ", ") + rest;
  } else {
    inner = AttrList(op, attrs);
    if (op == OpKind::kRepeat && body) {
      if (!inner.empty()) inner += ", ";
      inner += "body=" + OpText(body->op, body->attrs, body->callee, std::nullopt, Type());
    }
  }
  std::string out = OpName(op);
  if (!inner.empty()) out += "[" + inner + "]";
  return out;
}

// The type a dump shows for `node`. In a graph whose types depend on its
// inputs, a literal's dtype and that of a weak expression of literals are
// provisional (each run re-types them, OPS.md §1.3), so the dump prints
// them as still weak: `constant[2] : ?`, `div(%1, %2) : ?`.
const Type& ShownType(const Node& node, const std::vector<bool>& provisional) {
  static const Type kUnknown;
  return provisional[static_cast<size_t>(node.id)] ? kUnknown : node.type;
}

std::string NodeOpText(const Node& node, const Type& shown) {
  return OpText(node.op, node.attrs, node.callee, node.repeat_body, shown);
}

void JsonString(std::string* out, std::string_view s) {
  *out += '"';
  for (char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

void JsonDouble(std::string* out, double v) {
  if (std::isfinite(v)) {
    *out += FormatDouble(v);
  } else {
    JsonString(out, FormatDouble(v));  // JSON has no inf/nan
  }
}

void JsonDim(std::string* out, const Dim& d) {
  if (d.is_fixed()) {
    *out += std::to_string(d.size());
  } else {
    JsonString(out, d.ToString());
  }
}

void JsonAttr(std::string* out, const AttrValue& v) {
  switch (v.kind()) {
    case AttrKind::kInt: *out += std::to_string(v.as_int()); break;
    case AttrKind::kFloat: JsonDouble(out, v.as_float()); break;
    case AttrKind::kBool: *out += v.as_bool() ? "true" : "false"; break;
    case AttrKind::kString: JsonString(out, v.as_string()); break;
    case AttrKind::kAll: JsonString(out, "all"); break;
    case AttrKind::kList: {
      *out += '[';
      const auto& l = v.as_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) *out += ',';
        JsonAttr(out, l[i]);
      }
      *out += ']';
      break;
    }
    case AttrKind::kIntList: {
      *out += '[';
      const auto& l = v.as_int_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) *out += ',';
        *out += std::to_string(l[i]);
      }
      *out += ']';
      break;
    }
    case AttrKind::kFloatList: {
      *out += '[';
      const auto& l = v.as_float_list();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) *out += ',';
        JsonDouble(out, l[i]);
      }
      *out += ']';
      break;
    }
    case AttrKind::kShape: {
      *out += '[';
      const auto& l = v.as_shape();
      for (size_t i = 0; i < l.size(); ++i) {
        if (i) *out += ',';
        if (l[i].is_dynamic()) {
          *out += "-1";
        } else {
          JsonDim(out, l[i]);
        }
      }
      *out += ']';
      break;
    }
  }
}

// `compiler_marks`: also the entries the compiler added (IsGeneratedName
// keys, kConfigKeyAnnotation), which no source wrote.
void JsonAttrs(std::string* out, const Attrs& attrs, bool compiler_marks = true) {
  *out += '{';
  bool first = true;
  for (const auto& [name, value] : attrs.entries()) {
    if (!compiler_marks && IsGeneratedName(name)) continue;
    if (!first) *out += ',';
    first = false;
    JsonString(out, name);
    *out += ':';
    JsonAttr(out, value);
  }
  *out += '}';
}

void JsonType(std::string* out, const Type& t) {
  if (t.is_unknown()) {
    *out += "null";
    return;
  }
  *out += "{\"text\":";
  JsonString(out, t.ToString());
  *out += ",\"dims\":[";
  for (int i = 0; i < t.rank(); ++i) {
    if (i) *out += ',';
    JsonDim(out, t.dim(i));
  }
  *out += "],\"dtype\":";
  JsonString(out, DTypeName(t.dtype()));
  *out += '}';
}

void JsonSpan(std::string* out, const diag::Span& s) {
  *out += "{\"offset\":" + std::to_string(s.offset) + ",\"length\":" + std::to_string(s.length) +
          ",\"line\":" + std::to_string(s.line) + ",\"column\":" + std::to_string(s.column) + "}";
}

const char* RoleName(NodeRole r) {
  switch (r) {
    case NodeRole::kCompute: return "compute";
    case NodeRole::kInput: return "input";
    case NodeRole::kParam: return "param";
  }
  return "compute";
}

void GraphJson(std::string* out, const Graph& g) {
  const std::vector<bool> provisional = ProvisionalTypes(g);
  *out += "{\"name\":";
  JsonString(out, g.name());
  *out += ",\"inputs\":[";
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    if (i) *out += ',';
    *out += "{\"node\":";
    *out += std::to_string(g.inputs()[i].node);
    *out += ",\"optional\":";
    *out += g.inputs()[i].optional ? "true}" : "false}";
  }
  *out += "],\"outputs\":[";
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    if (i) *out += ',';
    *out += "{\"name\":";
    JsonString(out, g.outputs()[i].name);
    *out += ",\"node\":";
    *out += std::to_string(g.outputs()[i].node);
    *out += '}';
  }
  *out += "],\"params\":[";
  for (size_t i = 0; i < g.params().size(); ++i) {
    const Param& p = g.params()[i];
    if (i) *out += ',';
    *out += "{\"node\":";
    *out += std::to_string(p.node);
    *out += ",\"name\":";
    JsonString(out, p.name);
    *out += ",\"init\":";
    JsonString(out, p.init.text);
    *out += ",\"frozen\":";
    *out += p.frozen ? "true" : "false";
    *out += ",\"implicit\":";
    *out += p.implicit ? "true" : "false";
    *out += ",\"type\":";
    JsonType(out, p.type);
    *out += '}';
  }
  *out += "],\"nodes\":[";
  for (const Node& n : g.nodes()) {
    if (n.id) *out += ',';
    *out += "{\"id\":";
    *out += std::to_string(n.id);
    *out += ",\"name\":";
    JsonString(out, n.name);
    *out += ",\"op\":";
    JsonString(out, OpName(n.op));
    const Type& shown = ShownType(n, provisional);
    *out += ",\"label\":";
    JsonString(out, NodeOpText(n, shown));
    *out += ",\"role\":";
    JsonString(out, RoleName(n.role));
    *out += ",\"operands\":[";
    for (size_t i = 0; i < n.operands.size(); ++i) {
      if (i) *out += ',';
      *out += std::to_string(n.operands[i]);
    }
    *out += "],\"attrs\":";
    JsonAttrs(out, n.attrs);
    *out += ",\"annotations\":";
    JsonAttrs(out, n.annotations, false);
    *out += ",\"type\":";
    JsonType(out, shown);
    *out += ",\"declared_type\":";
    JsonType(out, n.declared_type ? *n.declared_type : Type());
    *out += ",\"hints\":[";
    for (size_t i = 0; i < n.hints.size(); ++i) {
      if (i) *out += ',';
      JsonString(out, n.hints[i]);
    }
    *out += "],\"callee\":";
    JsonString(out, n.callee);
    *out += ",\"span\":";
    JsonSpan(out, n.span);
    *out += '}';
  }
  *out += "],\"edges\":[";
  bool first = true;
  for (const Node& n : g.nodes()) {
    for (NodeId op : n.operands) {
      if (!first) *out += ',';
      first = false;
      *out += '[';
      *out += std::to_string(op);
      *out += ',';
      *out += std::to_string(n.id);
      *out += ']';
    }
  }
  *out += "]}";
}

}  // namespace

std::string DumpOpWithAttrs(const Node& node) { return NodeOpText(node, node.type); }

namespace {

// The param record of each param node, by node id: one pass over the params
// so a dump stays linear in graph size (10^5 implicit params are possible).
std::vector<const Param*> ParamsByNode(const Graph& graph) {
  std::vector<const Param*> by_node(graph.num_nodes(), nullptr);
  for (const Param& p : graph.params()) {
    if (p.node >= 0 && static_cast<size_t>(p.node) < by_node.size()) by_node[static_cast<size_t>(p.node)] = &p;
  }
  return by_node;
}

std::string DumpNodeLine(const Node& node, const Param* param, const std::vector<bool>& provisional,
                         const DumpOptions& options) {
  const Type& shown = ShownType(node, provisional);
  std::string out = "%";
  out += std::to_string(node.id);
  out += ' ';
  out += node.name;
  out += " = ";
  if (node.is_input()) {
    out += "input";
  } else if (node.is_param()) {
    out += "param[init=" + (param ? param->init.text : std::string("zeros"));
    if (param && param->frozen) out += ", frozen=true";
    out += "]";
  } else {
    out += NodeOpText(node, shown);
    if (!node.operands.empty()) {
      out += "(";
      for (size_t i = 0; i < node.operands.size(); ++i) {
        if (i) out += ", ";
        out += '%';
        out += std::to_string(node.operands[i]);
      }
      out += ")";
    }
  }
  if (options.types) out += " : " + shown.ToString();
  if (!node.hints.empty()) {
    out += "  # hints: ";
    for (size_t i = 0; i < node.hints.size(); ++i) {
      if (i) out += ", ";
      out += node.hints[i];
    }
  }
  return out;
}

}  // namespace

std::string DumpNode(const Graph& graph, const Node& node, const DumpOptions& options) {
  const Param* param = nullptr;
  for (const Param& p : graph.params()) {
    if (p.node == node.id) param = &p;
  }
  return DumpNodeLine(node, param, ProvisionalTypes(graph), options);
}

std::string DumpGraph(const Graph& graph, const DumpOptions& options) {
  std::string out = "graph " + graph.name() + ": " + std::to_string(graph.num_nodes()) +
                    " nodes, " + std::to_string(graph.inputs().size()) + " inputs, " +
                    std::to_string(graph.outputs().size()) + " outputs, " +
                    std::to_string(graph.params().size()) + " params\n";
  const std::vector<const Param*> params = ParamsByNode(graph);
  const std::vector<bool> provisional = ProvisionalTypes(graph);
  for (const Node& n : graph.nodes()) {
    out += "  " + DumpNodeLine(n, params[static_cast<size_t>(n.id)], provisional, options) + "\n";
  }
  out += "  outputs: ";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    if (i) out += ", ";
    out += graph.outputs()[i].name + "=%" + std::to_string(graph.outputs()[i].node);
  }
  return out + "\n";
}

std::string DumpProgram(const Program& program, const DumpOptions& options) {
  std::string out;
  for (size_t i = 0; i < program.graphs.size(); ++i) {
    if (i) out += "\n";
    out += DumpGraph(program.graphs[i], options);
  }
  return out;
}

std::string DumpGraphJson(const Graph& graph) {
  std::string out;
  GraphJson(&out, graph);
  return out;
}

std::string DumpProgramJson(const Program& program) {
  std::string out = "{\"graphs\":[";
  for (size_t i = 0; i < program.graphs.size(); ++i) {
    if (i) out += ',';
    GraphJson(&out, program.graphs[i]);
  }
  return out + "]}";
}

}  // namespace shrew::ir
