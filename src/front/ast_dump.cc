#include "front/ast_dump.h"

namespace shrew::ast {
namespace {

// Concatenation by appending. (Also sidesteps GCC 12's false -Wrestrict
// warning on `"literal" + std::string()`.)
template <typename... Parts> std::string Cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

class Dumper {
 public:
  explicit Dumper(const DumpOptions& options) : options_(options) {}

  std::string Take() { return std::move(out_); }

  void DumpProgram(const Program& p) {
    Line(0, "Program", {});
    for (const Block& b : p.blocks) DumpBlock(1, b);
  }

  // `label` prefixes the line ("dim: "); empty for none.
  void DumpExpr(int indent, const Expr& e, const std::string& label = {});

 private:
  void Line(int indent, const std::string& text, const diag::Span& span) {
    out_.append(static_cast<size_t>(indent) * 2, ' ');
    out_ += text;
    if (options_.spans && span.valid()) {
      out_ += " @" + std::to_string(span.line) + ":" + std::to_string(span.column);
    }
    out_ += '\n';
  }
  void Child(int indent, const ExprPtr& e, const std::string& label = {}) {
    if (e) {
      DumpExpr(indent, *e, label);
    } else {
      Line(indent, label + "<missing>", {});
    }
  }
  void Args(int indent, const std::vector<Argument>& args) {
    for (const Argument& a : args) Child(indent, a.value, a.name ? a.name->name + ": " : "");
  }
  void Fields(int indent, const std::vector<Field>& fields, const char* what = "Field") {
    for (const Field& f : fields) {
      Line(indent, std::string(what) + " " + f.key.name, f.span);
      Child(indent + 1, f.value);
    }
  }
  static std::string Params(const std::vector<GraphParam>& params) {
    std::string s = "(";
    for (size_t i = 0; i < params.size(); ++i) {
      if (i > 0) s += ", ";
      s += Cat(params[i].name.name, ": ", FormatType(params[i].type));
      if (params[i].optional) s += " optional";
    }
    return s + ")";
  }
  void DumpBlock(int indent, const Block& b);
  void DumpGraph(int indent, const GraphBlock& g, const diag::Span& span);
  void DumpStmt(int indent, const GraphStmt& s);
  void DumpAssert(int indent, const AssertStmt& a, const char* what);
  void CustomOpItems(int indent, const std::vector<CustomOpItem>& items);
  void Settings(int indent, const std::vector<Setting>& settings);

  const DumpOptions& options_;
  std::string out_;
};

void Dumper::DumpExpr(int indent, const Expr& e, const std::string& label) {
  const diag::Span& span = e.span;
  int in = indent + 1;
  if (e.Is<ErrorExpr>()) {
    Line(indent, label + "Error", span);
  } else if (auto* x = e.As<IntLiteral>()) {
    Line(indent, label + "Int " + x->text, span);
  } else if (auto* x = e.As<FloatLiteral>()) {
    Line(indent, label + "Float " + x->text, span);
  } else if (auto* x = e.As<StringLiteral>()) {
    Line(indent, label + "String " + QuoteString(x->value), span);
  } else if (auto* x = e.As<BoolLiteral>()) {
    Line(indent, label + (x->value ? "Bool true" : "Bool false"), span);
  } else if (e.Is<NullLiteral>()) {
    Line(indent, label + "Null", span);
  } else if (auto* x = e.As<NameExpr>()) {
    Line(indent, label + "Name " + x->name, span);
  } else if (auto* x = e.As<PathExpr>()) {
    std::string path;
    for (size_t i = 0; i < x->segments.size(); ++i) path += (i ? "::" : "") + x->segments[i].name;
    Line(indent, label + "Path " + path, span);
  } else if (auto* x = e.As<UnaryExpr>()) {
    Line(indent, label + "Unary " + UnaryOpSpelling(x->op), span);
    Child(in, x->operand);
  } else if (auto* x = e.As<BinaryExpr>()) {
    Line(indent, label + "Binary " + BinaryOpSpelling(x->op), span);
    Child(in, x->lhs);
    Child(in, x->rhs);
  } else if (auto* x = e.As<ChainExpr>()) {
    // Flat: a chain of thousands of operators stays thousands of lines.
    Line(indent, label + "Chain", span);
    Child(in, x->first);
    for (const ChainLink& link : x->links) Child(in, link.rhs, std::string(BinaryOpSpelling(link.op)) + " ");
  } else if (auto* x = e.As<ParenExpr>()) {
    Line(indent, label + "Paren", span);
    Child(in, x->inner);
  } else if (auto* x = e.As<CallExpr>()) {
    Line(indent, label + "Call " + x->CalleeName(), span);
    Args(in, x->args);
  } else if (auto* x = e.As<MethodCallExpr>()) {
    Line(indent, label + "MethodCall " + x->method.name, span);
    Child(in, x->receiver, "receiver: ");
    Args(in, x->args);
  } else if (auto* x = e.As<MemberExpr>()) {
    Line(indent, label + "Member " + x->member.name, span);
    Child(in, x->object);
  } else if (auto* x = e.As<IndexExpr>()) {
    Line(indent, label + "Index", span);
    Child(in, x->object);
    Child(in, x->index, "index: ");
  } else if (auto* x = e.As<SliceExpr>()) {
    Line(indent, label + "Slice", span);
    Child(in, x->object);
    Child(in, x->begin, "begin: ");
    Child(in, x->end, "end: ");
  } else if (auto* x = e.As<ListExpr>()) {
    Line(indent, label + "List", span);
    for (const ExprPtr& el : x->elements) Child(in, el);
  } else if (auto* x = e.As<DictExpr>()) {
    Line(indent, label + "Dict", span);
    for (const DictEntry& entry : x->entries) Child(in, entry.value, entry.key.name + ": ");
  } else if (auto* x = e.As<IfExpr>()) {
    Line(indent, label + "If", span);
    Child(in, x->condition, "cond: ");
    Child(in, x->then_branch, "then: ");
    if (x->else_branch) Child(in, x->else_branch, "else: ");
  } else if (auto* x = e.As<RepeatExpr>()) {
    Line(indent, label + "Repeat", span);
    Child(in, x->count, "count: ");
    Child(in, x->body, "body: ");
  } else if (auto* x = e.As<ClosureExpr>()) {
    std::string params;
    for (size_t i = 0; i < x->params.size(); ++i) params += (i ? ", " : "") + x->params[i].name;
    Line(indent, label + "Closure |" + params + "|", span);
    Child(in, x->body, "body: ");
  }
}

void Dumper::DumpBlock(int indent, const Block& b) {
  const diag::Span& span = b.span;
  int in = indent + 1;
  if (auto* x = b.As<ImportBlock>()) {
    Line(indent, Cat("Import ", QuoteString(x->path.value), x->alias ? " as " : "",
                     x->alias ? x->alias->name : ""),
         span);
  } else if (auto* x = b.As<ModelBlock>()) {
    Line(indent, "Model", span);
    Fields(in, x->fields);
  } else if (auto* x = b.As<ConfigBlock>()) {
    Line(indent, "Config", span);
    Fields(in, x->fields);
  } else if (auto* x = b.As<TypesBlock>()) {
    Line(indent, "Types", span);
    for (const TypeAlias& a : x->aliases) {
      Line(in, Cat("TypeAlias ", a.name.name, " = ", FormatType(a.type)), a.span);
    }
  } else if (auto* x = b.As<GraphBlock>()) {
    DumpGraph(indent, *x, span);
  } else if (auto* x = b.As<CustomOpBlock>()) {
    Line(indent, "CustomOp " + x->name.name, span);
    CustomOpItems(in, x->items);
  } else if (auto* x = b.As<TrainingBlock>()) {
    Line(indent, "Training", span);
    Settings(in, x->settings);
  } else if (auto* x = b.As<InferenceBlock>()) {
    Line(indent, "Inference", span);
    Settings(in, x->settings);
  } else if (auto* x = b.As<MetricsBlock>()) {
    Line(indent, "Metrics " + x->name.name, span);
    for (const Section& s : x->tracks) {
      Line(in, "Track " + s.name.name, s.span);
      Fields(in + 1, s.fields);
    }
  } else if (auto* x = b.As<LoggingBlock>()) {
    Line(indent, "Logging", span);
    Fields(in, x->fields);
  } else if (auto* x = b.As<VisualizationsBlock>()) {
    Line(indent, "Visualizations", span);
    for (const Section& s : x->plots) {
      Line(in, "Plot " + s.name.name, s.span);
      Fields(in + 1, s.fields);
    }
  }
}

void Dumper::DumpGraph(int indent, const GraphBlock& g, const diag::Span& span) {
  std::string head = "Graph " + g.name.name;
  if (g.has_param_list) head += Cat(" ", Params(g.params));
  if (g.return_type) head += Cat(" -> ", FormatType(*g.return_type));
  Line(indent, head, span);
  for (const GraphStmt& s : g.body) DumpStmt(indent + 1, s);
}

void Dumper::DumpStmt(int indent, const GraphStmt& s) {
  const diag::Span& span = s.span;
  int in = indent + 1;
  if (auto* x = s.As<InputDecl>()) {
    Line(indent, Cat("Input ", x->name.name, ": ", FormatType(x->type), x->optional ? " optional" : ""),
         span);
  } else if (auto* x = s.As<ParamDecl>()) {
    // `{}` marks an attribute block that is present but empty.
    bool empty_block = x->has_attribute_block && x->attributes.empty();
    Line(indent, Cat("Param ", x->name.name, ": ", FormatType(x->type), empty_block ? " {}" : ""),
         span);
    Fields(in, x->attributes, "Attribute");
  } else if (auto* x = s.As<NodeDecl>()) {
    Line(indent, Cat("Node ", x->name.name, x->type ? ": " : "", x->type ? FormatType(*x->type) : "",
                     x->has_body ? "" : " (no body)"),
         span);
    for (const NodeItem& item : x->body) {
      switch (item.kind) {
        case NodeItem::Kind::Op:
          Line(in, "Op", item.span);
          Child(in + 1, item.value);
          break;
        case NodeItem::Kind::Input:
          Line(in, "InputExpr", item.span);
          Child(in + 1, item.value);
          break;
        case NodeItem::Kind::OutputType:
          Line(in, Cat("OutputType ", FormatType(item.type)), item.span);
          break;
        case NodeItem::Kind::Attribute:
          Line(in, "Attribute " + item.key.name, item.span);
          Child(in + 1, item.value);
          break;
        case NodeItem::Kind::Hint:
          Line(in, "Hint " + item.key.name, item.span);
          break;
      }
    }
  } else if (auto* x = s.As<OutputDecl>()) {
    Line(indent, x->name ? "Output " + x->name->name : std::string("Output"), span);
    Child(in, x->value);
  } else if (auto* x = s.As<AssertStmt>()) {
    DumpAssert(indent, *x, "Assert");
  } else if (auto* x = s.As<CheckBlock>()) {
    Line(indent, "Check " + x->name.name, span);
    for (const AssertStmt& a : x->asserts) DumpAssert(in, a, "assert");
  }
}

void Dumper::DumpAssert(int indent, const AssertStmt& a, const char* what) {
  std::string text = what;
  if (a.message) text += Cat(" ", QuoteString(a.message->value));
  Line(indent, text, a.span);
  Child(indent + 1, a.condition);
}

void Dumper::CustomOpItems(int indent, const std::vector<CustomOpItem>& items) {
  for (const CustomOpItem& item : items) {
    switch (item.kind) {
      case CustomOpItem::Kind::Signature:
        Line(indent, Cat("Signature ", Params(item.params), " -> ", FormatType(item.return_type)),
             item.span);
        break;
      case CustomOpItem::Kind::Impl:
        Line(indent, "Impl " + item.name.name, item.span);
        Fields(indent + 1, item.fields);
        break;
      case CustomOpItem::Kind::Gradient:
        Line(indent, "Gradient " + item.name.name, item.span);
        CustomOpItems(indent + 1, item.items);
        break;
    }
  }
}

void Dumper::Settings(int indent, const std::vector<Setting>& settings) {
  for (const Setting& s : settings) {
    switch (s.kind) {
      case Setting::Kind::Expr:
        Line(indent, "Setting " + s.key.name, s.span);
        Child(indent + 1, s.value);
        break;
      case Setting::Kind::Name:
        Line(indent, "Setting " + s.key.name + " = " + s.name.name, s.span);
        break;
      case Setting::Kind::Fields:
        Line(indent, "Setting " + s.key.name + " {}", s.span);
        Fields(indent + 1, s.fields);
        break;
    }
  }
}

}  // namespace

std::string DumpProgram(const Program& program, const DumpOptions& options) {
  Dumper d(options);
  d.DumpProgram(program);
  return d.Take();
}

std::string DumpExpr(const Expr& expr, const DumpOptions& options) {
  Dumper d(options);
  d.DumpExpr(0, expr);
  return d.Take();
}

std::string FormatType(const Type& type) {
  switch (type.kind) {
    case Type::Kind::Error: return "<error>";
    case Type::Kind::Tensor: {
      std::string s = "Tensor<[";
      for (size_t i = 0; i < type.dims.size(); ++i) {
        const Dim& d = type.dims[i];
        if (i > 0) s += ", ";
        switch (d.kind) {
          case Dim::Kind::Fixed:
          case Dim::Kind::Named: s += d.name; break;
          case Dim::Kind::Dynamic: s += "?"; break;
          case Dim::Kind::Inferred: s += "_"; break;
        }
      }
      return s + "], " + DtypeName(type.dtype) + ">";
    }
    case Type::Kind::Scalar: return DtypeName(type.dtype);
    case Type::Kind::Alias: return type.name;
    case Type::Kind::Dynamic: return "?";
    case Type::Kind::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < type.elements.size(); ++i) {
        s += (i ? ", " : "") + FormatType(type.elements[i]);
      }
      return s + ")";
    }
    case Type::Kind::List:
    {
      std::string s = "[";
      if (!type.elements.empty()) s += FormatType(type.elements[0]);
      return s + "]";
    }
    case Type::Kind::Int: return std::to_string(type.int_value);
  }
  return "<error>";
}

std::string QuoteString(const std::string& value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace shrew::ast
