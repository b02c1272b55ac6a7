#include "api/bundle.h"

#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "api/param_blob.h"
#include "base/byte_io.h"
#include "diag/diagnostic.h"
#include "diag/utf8.h"
#include "ir/graph.h"
#include "ir/shapes.h"
#include "ir/validate.h"

namespace shrew {
namespace {

using ir::AttrKind;
using ir::AttrValue;
using ir::Attrs;
using ir::ConfigValue;
using ir::Dim;
using ir::Type;

// Nesting of @config and attribute lists: as deep as the parser lets a
// source write them (front::kMaxNestingDepth, 200: a bundle of any program
// that compiles loads; 32 refused a 40-deep `tags:` list that compiled),
// small enough for the stack.
constexpr int kMaxConfigDepth = 256;
constexpr uint32_t kMaxRank = 64;

// How a corrupt bundle's message names node `n` while its graph is read: by
// the name the source gave it, else by its index (`__anon_3` was never written).
std::string NodeRef(const ir::Node& n) {
  return ir::IsGeneratedName(n.name) ? "node " + std::to_string(n.id) : "node '" + n.name + "'";
}

// ---- writing

class Encoder {
 public:
  // Spans point into the source: without it they are written as unset.
  explicit Encoder(bool spans) : spans_(spans) {}
  ByteWriter& out() { return w_; }

  void Span(const diag::Span& s) {
    const bool write = spans_ && s.valid();
    w_.U8(write ? 1 : 0);
    if (!write) return;
    w_.U32(s.offset);
    w_.U32(s.length);
  }
  void OptString(const std::optional<std::string>& s) {
    w_.U8(s ? 1 : 0);
    if (s) w_.String(*s);
  }
  void DType(ir::DType d) { w_.String(ir::DTypeName(d)); }
  void DimValue(const Dim& d) {
    w_.U8(static_cast<uint8_t>(d.kind()));
    if (d.is_fixed()) w_.I64(d.size());
    if (d.is_symbolic()) w_.String(d.name());
  }
  void Dims(const std::vector<Dim>& dims) {
    w_.U32(static_cast<uint32_t>(dims.size()));
    for (const Dim& d : dims) DimValue(d);
  }
  void TypeValue(const Type& t) {
    w_.U8(t.is_tensor() ? 1 : 0);
    if (!t.is_tensor()) return;
    DType(t.dtype());
    Dims(t.dims());
  }
  void OptType(const std::optional<Type>& t) {
    w_.U8(t ? 1 : 0);
    if (t) TypeValue(*t);
  }
  void Attr(const AttrValue& v) {
    w_.U8(static_cast<uint8_t>(v.kind()));
    switch (v.kind()) {
      case AttrKind::kInt: w_.I64(v.as_int()); break;
      case AttrKind::kFloat: w_.F64(v.as_float()); break;
      case AttrKind::kBool: w_.U8(v.as_bool() ? 1 : 0); break;
      case AttrKind::kString: w_.String(v.as_string()); break;
      case AttrKind::kIntList:
        w_.U32(static_cast<uint32_t>(v.as_int_list().size()));
        for (int64_t x : v.as_int_list()) w_.I64(x);
        break;
      case AttrKind::kFloatList:
        w_.U32(static_cast<uint32_t>(v.as_float_list().size()));
        for (double x : v.as_float_list()) w_.F64(x);
        break;
      case AttrKind::kShape: Dims(v.as_shape()); break;
      case AttrKind::kAll: break;
      case AttrKind::kList:
        w_.U32(static_cast<uint32_t>(v.as_list().size()));
        for (const AttrValue& x : v.as_list()) Attr(x);
        break;
    }
  }
  void AttrList(const Attrs& attrs) {
    w_.U32(static_cast<uint32_t>(attrs.size()));
    for (const auto& [name, value] : attrs.entries()) {
      w_.String(name);
      Attr(value);
    }
  }
  void Config(const ConfigValue& v) {
    w_.U8(static_cast<uint8_t>(v.kind));
    switch (v.kind) {
      case ConfigValue::Kind::kInt: w_.I64(v.i); break;
      case ConfigValue::Kind::kFloat: w_.F64(v.f); break;
      case ConfigValue::Kind::kBool: w_.U8(v.b ? 1 : 0); break;
      case ConfigValue::Kind::kString:
      case ConfigValue::Kind::kOpaque: w_.String(v.s); break;
      case ConfigValue::Kind::kList:
        w_.U32(static_cast<uint32_t>(v.list.size()));
        for (const ConfigValue& e : v.list) Config(e);
        break;
    }
  }
  template <typename Map>
  void Settings(const Map& m) {
    w_.U32(static_cast<uint32_t>(m.size()));
    for (const auto& [k, v] : m) {
      w_.String(k);
      Config(v);
    }
  }
  void Graph(const ir::Graph& g) {
    w_.String(g.name());
    Span(g.span());
    OptType(g.return_type());
    w_.U32(static_cast<uint32_t>(g.num_nodes()));
    for (const ir::Node& n : g.nodes()) {
      w_.String(n.name);
      w_.String(ir::OpName(n.op));
      w_.U8(static_cast<uint8_t>(n.role));
      w_.U32(static_cast<uint32_t>(n.operands.size()));
      for (ir::NodeId o : n.operands) w_.U32(static_cast<uint32_t>(o));
      TypeValue(n.type);
      OptType(n.declared_type);
      AttrList(n.attrs);
      AttrList(n.annotations);
      w_.U32(static_cast<uint32_t>(n.hints.size()));
      for (const std::string& h : n.hints) w_.String(h);
      w_.String(n.callee);
      // Version 4: bit 0 a repeat body follows, bit 1 the node is a repeat's
      // iteration; version 6: bit 2 a fused producer follows.
      w_.U8(static_cast<uint8_t>((n.repeat_body ? 1 : 0) | (n.repeat_iteration ? 2 : 0) | (n.fused_producer ? 4 : 0)));
      if (n.repeat_body) {
        w_.String(ir::OpName(n.repeat_body->op));
        AttrList(n.repeat_body->attrs);
        w_.String(n.repeat_body->callee);
      }
      if (n.fused_producer) {
        w_.String(n.fused_producer->name);
        Span(n.fused_producer->span);
      }
      Span(n.span);
    }
    w_.U32(static_cast<uint32_t>(g.inputs().size()));
    for (const ir::GraphInput& in : g.inputs()) {
      w_.U32(static_cast<uint32_t>(in.node));
      w_.U8(in.optional ? 1 : 0);
    }
    w_.U32(static_cast<uint32_t>(g.outputs().size()));
    for (const ir::GraphOutput& out : g.outputs()) {
      w_.String(out.name);
      w_.U32(static_cast<uint32_t>(out.node));
      Span(out.span);
    }
    w_.U32(static_cast<uint32_t>(g.params().size()));
    for (const ir::Param& p : g.params()) {
      w_.U32(static_cast<uint32_t>(p.node));
      w_.String(p.name);
      TypeValue(p.type);
      w_.U8(static_cast<uint8_t>(p.init.kind));
      w_.F64(p.init.a);
      w_.F64(p.init.b);
      w_.String(p.init.text);
      w_.U8(p.frozen ? 1 : 0);
      w_.U8(p.implicit ? 1 : 0);
    }
    w_.U32(static_cast<uint32_t>(g.assertions().size()));
    for (const ir::Assertion& a : g.assertions()) {
      w_.String(a.message);
      w_.String(a.source_text);
      Span(a.span);
      w_.U8(a.reads_values ? 1 : 0);
    }
  }
  void Program(const ir::Program& p) {
    w_.U32(static_cast<uint32_t>(p.metadata.size()));
    for (const auto& [k, v] : p.metadata) {
      w_.String(k);
      w_.String(v);
    }
    Settings(p.config);
    w_.U32(static_cast<uint32_t>(p.type_aliases.size()));
    for (const auto& [name, t] : p.type_aliases) {
      w_.String(name);
      TypeValue(t);
    }
    w_.U32(static_cast<uint32_t>(p.custom_ops.size()));
    for (const std::string& op : p.custom_ops) w_.String(op);
    w_.U8(p.training ? 1 : 0);
    if (p.training) {
      const ir::TrainingSettings& t = *p.training;
      OptString(t.model);
      Span(t.model_span);
      OptString(t.loss);
      w_.String(t.optimizer_type);
      w_.F64(t.lr);
      Settings(t.optimizer_extra);
      OptString(t.lr_schedule_kind);
      Settings(t.lr_schedule);
      OptString(t.grad_clip_kind);
      Settings(t.grad_clip);
      w_.String(t.precision);
      w_.I64(t.epochs);
      w_.I64(t.batch_size);
      w_.I64(t.accumulation_steps);
      Span(t.span);
    }
    w_.U8(p.inference ? 1 : 0);
    if (p.inference) {
      const ir::InferenceSettings& s = *p.inference;
      OptString(s.model);
      Span(s.model_span);
      Settings(s.quantization);
      Settings(s.generation);
      Span(s.span);
    }
    w_.U32(static_cast<uint32_t>(p.graphs.size()));
    for (const ir::Graph& g : p.graphs) Graph(g);
  }

 private:
  bool spans_;
  ByteWriter w_;
};

// ---- reading

// Thrown-free decoding: every method returns false after recording what was
// wrong (the first problem only) and where.
class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> bytes) : r_(bytes) {}
  void set_version(uint32_t v) { version_ = v; }

  bool Fail(std::string what) {
    if (error_.empty()) error_ = std::move(what) + " (at byte " + std::to_string(r_.position()) + ")";
    return false;
  }
  const std::string& error() const { return error_; }
  ByteReader& in() { return r_; }
  void set_source(const diag::SourceFile* s) { source_ = s; }
  void set_where(std::string where) { where_ = std::move(where); }

  bool U8(uint8_t* v, const char* what) { return r_.U8(v) || Fail(Truncated(what)); }
  bool U32(uint32_t* v, const char* what) { return r_.U32(v) || Fail(Truncated(what)); }
  bool U64(uint64_t* v, const char* what) { return r_.U64(v) || Fail(Truncated(what)); }
  bool I64(int64_t* v, const char* what) { return r_.I64(v) || Fail(Truncated(what)); }
  bool F64(double* v, const char* what) { return r_.F64(v) || Fail(Truncated(what)); }
  bool String(std::string* s, const char* what) { return r_.String(s) || Fail(Truncated(what)); }
  // Names (graphs, nodes, dims, keys) come from identifiers, which the lexer
  // only takes as well-formed UTF-8 without control or invisible characters:
  // one that breaks this was altered, and would reach JS as replacement
  // characters or reach a terminal as a C1 escape or a bidi override.
  bool Name(std::string* s, const char* what) {
    if (!String(s, what)) return false;
    for (size_t i = 0; i < s->size();) {
      uint32_t cp = 0;
      const size_t len = diag::DecodeUtf8(*s, i, &cp);
      if (len == 0 || cp < 0x20 || cp == 0x7f || diag::IsInvisible(cp)) return Fail(where_ + what + " is not a well-formed name");
      i += len;
    }
    return true;
  }
  bool Flag(bool* b, const char* what) {
    uint8_t v = 0;
    if (!U8(&v, what)) return false;
    if (v > 1) return Fail(where_ + what + " is " + std::to_string(v) + ", not 0 or 1");
    *b = v == 1;
    return true;
  }
  bool Index(int32_t* v, const char* what) {
    uint32_t u = 0;
    if (!U32(&u, what)) return false;
    if (u > static_cast<uint32_t>(INT32_MAX)) return Fail(where_ + what + " " + std::to_string(u) + " is out of range");
    *v = static_cast<int32_t>(u);
    return true;
  }

  // A u32 count, then that many items, each read by `read(T*)`. Items are
  // appended one by one: a hostile count runs out of bytes, not memory.
  template <typename T, typename Read>
  bool List(std::vector<T>* out, const char* what, Read read) {
    uint32_t n = 0;
    if (!U32(&n, what)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      if (!read(&out->emplace_back())) return false;
    }
    return true;
  }

  bool Span(diag::Span* s) {
    bool valid = false;
    if (!Flag(&valid, "span flag")) return false;
    *s = {};
    if (!valid) return true;
    uint32_t offset = 0, length = 0;
    if (!U32(&offset, "span") || !U32(&length, "span")) return false;
    // Without the source a position cannot be shown; spans then stay unset.
    if (source_ == nullptr) return true;
    const uint64_t end = uint64_t{offset} + length;
    if (end > source_->text().size()) {
      return Fail(where_ + "span " + std::to_string(offset) + "+" + std::to_string(length) + " is past the end of the " +
                  std::to_string(source_->text().size()) + "-byte source");
    }
    *s = source_->MakeSpan(offset, length);
    return true;
  }
  bool OptString(std::optional<std::string>* s, const char* what) {
    bool present = false;
    if (!Flag(&present, what)) return false;
    if (!present) return true;
    s->emplace();
    return String(&**s, what);
  }
  bool DType(ir::DType* d) {
    std::string name;
    if (!String(&name, "dtype")) return false;
    std::optional<ir::DType> dt = ir::DTypeFromName(name);
    if (!dt) return Fail(where_ + "unknown dtype '" + name + "'");
    *d = *dt;
    return true;
  }
  bool DimValue(Dim* d) {
    uint8_t kind = 0;
    if (!U8(&kind, "dimension kind")) return false;
    switch (static_cast<Dim::Kind>(kind)) {
      case Dim::Kind::kFixed: {
        int64_t size = 0;
        if (!I64(&size, "dimension")) return false;
        if (size < 0) return Fail(where_ + "negative dimension " + std::to_string(size));
        *d = Dim::Fixed(size);
        return true;
      }
      case Dim::Kind::kSymbolic: {
        std::string name;
        if (!Name(&name, "dimension name")) return false;
        if (name.empty()) return Fail(where_ + "empty dimension name");
        *d = Dim::Symbolic(std::move(name));
        return true;
      }
      case Dim::Kind::kDynamic: *d = Dim::Dynamic(); return true;
    }
    return Fail(where_ + "unknown dimension kind " + std::to_string(kind));
  }
  bool Dims(std::vector<Dim>* dims) {
    uint32_t rank = 0;
    if (!U32(&rank, "rank")) return false;
    if (rank > kMaxRank) return Fail(where_ + "rank " + std::to_string(rank) + " is over " + std::to_string(kMaxRank));
    dims->resize(rank);
    for (Dim& d : *dims) {
      if (!DimValue(&d)) return false;
    }
    return true;
  }
  bool TypeValue(Type* t) {
    bool known = false;
    if (!Flag(&known, "type flag")) return false;
    if (!known) {
      *t = Type::Unknown();
      return true;
    }
    ir::DType dtype = ir::DType::kF32;
    std::vector<Dim> dims;
    if (!DType(&dtype) || !Dims(&dims)) return false;
    *t = Type::Tensor(std::move(dims), dtype);
    return true;
  }
  bool OptType(std::optional<Type>* t) {
    bool present = false;
    if (!Flag(&present, "type flag")) return false;
    if (!present) return true;
    t->emplace();
    return TypeValue(&**t);
  }
  bool Attr(AttrValue* v, int depth = 0) {
    if (depth > kMaxConfigDepth) return Fail(where_ + "attribute lists nested deeper than " + std::to_string(kMaxConfigDepth));
    uint8_t kind = 0;
    if (!U8(&kind, "attribute kind")) return false;
    switch (static_cast<AttrKind>(kind)) {
      case AttrKind::kInt: {
        int64_t x = 0;
        if (!I64(&x, "attribute")) return false;
        *v = AttrValue::Int(x);
        return true;
      }
      case AttrKind::kFloat: {
        double x = 0;
        if (!F64(&x, "attribute")) return false;
        *v = AttrValue::Float(x);
        return true;
      }
      case AttrKind::kBool: {
        bool x = false;
        if (!Flag(&x, "attribute")) return false;
        *v = AttrValue::Bool(x);
        return true;
      }
      case AttrKind::kString: {
        std::string x;
        if (!String(&x, "attribute")) return false;
        *v = AttrValue::String(std::move(x));
        return true;
      }
      case AttrKind::kIntList: {
        std::vector<int64_t> x;
        if (!List(&x, "attribute list", [&](int64_t* e) { return I64(e, "attribute list"); })) return false;
        *v = AttrValue::IntList(std::move(x));
        return true;
      }
      case AttrKind::kFloatList: {
        std::vector<double> x;
        if (!List(&x, "attribute list", [&](double* e) { return F64(e, "attribute list"); })) return false;
        *v = AttrValue::FloatList(std::move(x));
        return true;
      }
      case AttrKind::kShape: {
        std::vector<Dim> x;
        if (!Dims(&x)) return false;
        *v = AttrValue::Shape(std::move(x));
        return true;
      }
      case AttrKind::kAll: *v = AttrValue::All(); return true;
      case AttrKind::kList: {
        std::vector<AttrValue> x;
        if (!List(&x, "attribute list", [&](AttrValue* e) { return Attr(e, depth + 1); })) return false;
        *v = AttrValue::List(std::move(x));
        return true;
      }
    }
    return Fail(where_ + "unknown attribute kind " + std::to_string(kind));
  }
  bool AttrList(Attrs* attrs) {
    uint32_t n = 0;
    if (!U32(&n, "attribute count")) return false;
    for (uint32_t i = 0; i < n; ++i) {
      std::string name;
      AttrValue v;
      if (!Name(&name, "attribute name") || !Attr(&v)) return false;
      if (attrs->Has(name)) return Fail(where_ + "attribute '" + name + "' twice");
      attrs->Set(name, std::move(v));
    }
    return true;
  }
  bool Config(ConfigValue* v, int depth) {
    if (depth > kMaxConfigDepth) return Fail(where_ + "config lists nested deeper than " + std::to_string(kMaxConfigDepth));
    uint8_t kind = 0;
    if (!U8(&kind, "config value kind")) return false;
    v->kind = static_cast<ConfigValue::Kind>(kind);
    switch (v->kind) {
      case ConfigValue::Kind::kInt: return I64(&v->i, "config value");
      case ConfigValue::Kind::kFloat: return F64(&v->f, "config value");
      case ConfigValue::Kind::kBool: return Flag(&v->b, "config value");
      case ConfigValue::Kind::kString:
      case ConfigValue::Kind::kOpaque: return String(&v->s, "config value");
      case ConfigValue::Kind::kList:
        return List(&v->list, "config list", [&](ConfigValue* e) { return Config(e, depth + 1); });
    }
    return Fail(where_ + "unknown config value kind " + std::to_string(kind));
  }
  template <typename Map>
  bool Settings(Map* m) {
    uint32_t n = 0;
    if (!U32(&n, "settings count")) return false;
    for (uint32_t i = 0; i < n; ++i) {
      std::string key;
      ConfigValue v;
      if (!Name(&key, "settings key") || !Config(&v, 0)) return false;
      if (!m->emplace(std::move(key), std::move(v)).second) return Fail(where_ + "a settings key twice");
    }
    return true;
  }
  bool Op(ir::OpKind* op) {
    std::string name;
    if (!String(&name, "operation")) return false;
    std::optional<ir::OpKind> kind = ir::OpKindFromName(name);
    if (!kind) return Fail(where_ + "operation '" + name + "' is not known to this runtime");
    *op = *kind;
    return true;
  }
  bool NodeAt(const ir::Graph& g, int32_t id, ir::NodeRole role, const char* what) {
    if (!g.HasNode(id)) return Fail(where_ + what + " names node " + std::to_string(id) + " of " + std::to_string(g.num_nodes()));
    if (g.node(id).role != role) return Fail(where_ + what + " names " + NodeRef(g.node(id)) + ", which is not one");
    return true;
  }

  bool Graph(ir::Graph* g) {
    std::string name;
    if (!Name(&name, "graph name")) return false;
    g->set_name(name);
    set_where("graph '" + name + "': ");
    diag::Span span;
    std::optional<Type> ret;
    if (!Span(&span) || !OptType(&ret)) return false;
    g->set_span(span);
    g->set_return_type(std::move(ret));
    uint32_t num_nodes = 0;
    if (!U32(&num_nodes, "node count")) return false;
    std::vector<ir::Node>& nodes = g->mutable_nodes();
    for (uint32_t i = 0; i < num_nodes; ++i) {
      ir::Node& n = nodes.emplace_back();
      n.id = static_cast<ir::NodeId>(i);
      if (!Name(&n.name, "node name")) return false;
      set_where("graph '" + name + "' " + NodeRef(n) + ": ");
      if (!Op(&n.op)) return false;
      uint8_t role = 0;
      if (!U8(&role, "node role")) return false;
      if (role > static_cast<uint8_t>(ir::NodeRole::kParam)) return Fail(where_ + "unknown role " + std::to_string(role));
      n.role = static_cast<ir::NodeRole>(role);
      if (!List(&n.operands, "operand count", [&](ir::NodeId* o) { return Index(o, "operand"); }) ||
          !TypeValue(&n.type) || !OptType(&n.declared_type) || !AttrList(&n.attrs) || !AttrList(&n.annotations) ||
          !List(&n.hints, "hint count", [&](std::string* h) { return String(h, "hint"); })) {
        return false;
      }
      bool repeat = false, fused = false;
      if (!Name(&n.callee, "callee")) return false;
      if (version_ >= 4) {
        uint8_t bits = 0;
        if (!U8(&bits, "node flags")) return false;
        const uint8_t known = version_ >= 6 ? 7 : 3;
        if ((bits & ~known) != 0) {
          return Fail(where_ + "node flags " + std::to_string(bits) + " have unknown bits (0 to " + std::to_string(known) + ")");
        }
        repeat = (bits & 1) != 0;
        n.repeat_iteration = (bits & 2) != 0;
        fused = (bits & 4) != 0;
      } else if (!Flag(&repeat, "repeat flag")) {
        return false;
      }
      if (repeat) {
        ir::RepeatBody& body = n.repeat_body.emplace();
        if (!Op(&body.op) || !AttrList(&body.attrs) || !Name(&body.callee, "repeat callee")) return false;
      }
      if (fused) {
        ir::Node::FusedProducer& producer = n.fused_producer.emplace();
        if (!Name(&producer.name, "fused producer") || !Span(&producer.span)) return false;
      }
      if (!Span(&n.span)) return false;
    }
    set_where("graph '" + name + "': ");
    uint32_t count = 0;
    if (!U32(&count, "input count")) return false;
    for (uint32_t i = 0; i < count; ++i) {
      ir::GraphInput& in = g->mutable_inputs().emplace_back();
      if (!Index(&in.node, "input") || !NodeAt(*g, in.node, ir::NodeRole::kInput, "an input") ||
          !Flag(&in.optional, "optional flag")) {
        return false;
      }
    }
    if (!U32(&count, "output count")) return false;
    for (uint32_t i = 0; i < count; ++i) {
      ir::GraphOutput& out = g->mutable_outputs().emplace_back();
      if (!Name(&out.name, "output name") || !Index(&out.node, "output")) return false;
      if (!g->HasNode(out.node)) return Fail(where_ + "output '" + out.name + "' names node " + std::to_string(out.node));
      if (!Span(&out.span)) return false;
    }
    if (!U32(&count, "parameter count")) return false;
    for (uint32_t i = 0; i < count; ++i) {
      ir::Param& p = g->mutable_params().emplace_back();
      uint8_t init = 0;
      if (!Index(&p.node, "parameter") || !NodeAt(*g, p.node, ir::NodeRole::kParam, "a parameter") ||
          !Name(&p.name, "parameter name") || !TypeValue(&p.type) || !U8(&init, "init kind")) {
        return false;
      }
      if (init > static_cast<uint8_t>(ir::InitSpec::Kind::kKaimingNormal)) {
        return Fail(where_ + "parameter '" + p.name + "': unknown init kind " + std::to_string(init));
      }
      p.init.kind = static_cast<ir::InitSpec::Kind>(init);
      if (!F64(&p.init.a, "init") || !F64(&p.init.b, "init") || !String(&p.init.text, "init") ||
          !Flag(&p.frozen, "frozen flag") || !Flag(&p.implicit, "implicit flag")) {
        return false;
      }
      // The parameter's tensor is allocated with p.type and its node's type
      // is inferred from the node's declared type: the two must agree, or
      // kernels would read past the tensor.
      const ir::Node& node = g->node(p.node);
      if (!node.declared_type || *node.declared_type != p.type) {
        return Fail(where_ + "parameter '" + p.name + "' is " + p.type.ToString() + " but its node is declared " +
                    (node.declared_type ? node.declared_type->ToString() : std::string("without a type")));
      }
    }
    // Each input and parameter node is listed exactly once (the executors
    // index them by that list).
    std::vector<int> listed(nodes.size(), 0);
    for (const ir::GraphInput& in : g->inputs()) ++listed[static_cast<size_t>(in.node)];
    for (const ir::Param& p : g->params()) ++listed[static_cast<size_t>(p.node)];
    for (const ir::Node& n : nodes) {
      if (n.is_source() && listed[static_cast<size_t>(n.id)] != 1) {
        return Fail(where_ + NodeRef(n) + " is listed " + std::to_string(listed[static_cast<size_t>(n.id)]) +
                    " times as an input or parameter");
      }
    }
    const bool assertions = List(&g->mutable_assertions(), "assertion count", [&](ir::Assertion* a) {
      if (!String(&a->message, "assertion") || !String(&a->source_text, "assertion") || !Span(&a->span)) return false;
      return version_ < 5 || Flag(&a->reads_values, "assertion flag");
    });
    if (!assertions) return false;
    g->RebuildNameMap();
    return true;
  }

  bool Program(ir::Program* p) {
    set_where("program: ");
    uint32_t count = 0;
    if (!U32(&count, "metadata count")) return false;
    for (uint32_t i = 0; i < count; ++i) {
      std::string k, v;
      if (!Name(&k, "metadata key") || !String(&v, "metadata value")) return false;
      if (!p->metadata.emplace(std::move(k), std::move(v)).second) return Fail(where_ + "a metadata key twice");
    }
    if (!Settings(&p->config)) return false;
    const bool aliases = List(&p->type_aliases, "type alias count", [&](std::pair<std::string, Type>* a) {
      return Name(&a->first, "type alias") && TypeValue(&a->second);
    });
    if (!aliases || !List(&p->custom_ops, "custom op count", [&](std::string* op) { return String(op, "custom op"); })) {
      return false;
    }
    bool present = false;
    if (!Flag(&present, "training flag")) return false;
    if (present) {
      ir::TrainingSettings& t = p->training.emplace();
      if (!OptString(&t.model, "training model") || !Span(&t.model_span) || !OptString(&t.loss, "loss") ||
          !String(&t.optimizer_type, "optimizer") || !F64(&t.lr, "lr") || !Settings(&t.optimizer_extra) ||
          !OptString(&t.lr_schedule_kind, "lr schedule") || !Settings(&t.lr_schedule) ||
          !OptString(&t.grad_clip_kind, "grad clip") || !Settings(&t.grad_clip) || !String(&t.precision, "precision") ||
          !I64(&t.epochs, "epochs") || !I64(&t.batch_size, "batch size") ||
          !I64(&t.accumulation_steps, "accumulation steps") || !Span(&t.span)) {
        return false;
      }
    }
    if (!Flag(&present, "inference flag")) return false;
    if (present) {
      ir::InferenceSettings& s = p->inference.emplace();
      if (!OptString(&s.model, "inference model") || !Span(&s.model_span) || !Settings(&s.quantization) ||
          !Settings(&s.generation) || !Span(&s.span)) {
        return false;
      }
    }
    return List(&p->graphs, "graph count", [&](ir::Graph* g) { return Graph(g); });
  }

 private:
  std::string Truncated(const char* what) { return where_ + "truncated " + what; }

  ByteReader r_;
  uint32_t version_ = kBundleVersion;
  const diag::SourceFile* source_ = nullptr;
  std::string where_;
  std::string error_;
};

Status Corrupt(const std::string& what) { return InvalidArgument("bundle: " + what); }

// The first error of a check of the decoded program, with its line and
// column when the bundle holds the source.
Status FirstError(const char* stage, const diag::DiagnosticBag& bag) {
  for (const diag::Diagnostic& d : bag.all()) {
    if (d.severity != diag::Severity::Error) continue;
    const std::string at = d.span.valid() ? std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " : "";
    return Corrupt(std::string(stage) + ": " + at + d.message);
  }
  return Corrupt(std::string(stage) + " failed");
}

// The passes a program was optimised with, as one byte: bit 0 optimised,
// bits 1-5 DCE, identity elimination, constant folding, CSE, fusion.
uint8_t PassBits(const std::optional<opt::PassOptions>& passes) {
  if (!passes) return 0;
  return static_cast<uint8_t>(1 | passes->dce << 1 | passes->identity << 2 | passes->const_fold << 3 |
                              passes->cse << 4 | passes->fusion << 5);
}

bool PassesFromBits(uint8_t bits, std::optional<opt::PassOptions>* passes) {
  if ((bits & ~0x3fu) != 0 || (bits > 1 && (bits & 1) == 0)) return false;
  passes->reset();
  if ((bits & 1) == 0) return true;
  *passes = opt::PassOptions{(bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0, (bits & 16) != 0, (bits & 32) != 0};
  return true;
}

std::string HexByte(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return {digits[b >> 4], digits[b & 15]};
}

// A dims list: count u32, then name + i64 value per dim.
void WriteDims(ByteWriter& w, const ir::DimBindings& dims) {
  w.U32(static_cast<uint32_t>(dims.size()));
  for (const auto& [name, value] : dims) {
    w.String(name);
    w.I64(value);
  }
}

Status ReadDims(Decoder& d, const char* which, ir::DimBindings* dims) {
  uint32_t count = 0;
  if (!d.U32(&count, "dims")) return Corrupt(d.error());
  for (uint32_t i = 0; i < count; ++i) {
    std::string name;
    int64_t value = 0;
    if (!d.Name(&name, "dim name") || !d.I64(&value, "dim value")) return Corrupt(d.error());
    if (value < 0 || !dims->emplace(name, value).second) {
      return Corrupt(std::string(which) + " dim '" + name + "' is invalid");
    }
  }
  return Status::Ok();
}

}  // namespace

std::vector<uint8_t> EncodeBundle(const Program& program, const diag::SourceFile* source,
                                  const opt::OptStats& opt_stats) {
  Encoder e(source != nullptr);
  ByteWriter& w = e.out();
  // Room for the header, the source and a small program before the weights
  // are sized below. (GCC 12 took the growth of the empty vector by the
  // magic's 8 bytes for an overflow.)
  w.Reserve(4096);
  w.Bytes(kBundleMagic, sizeof kBundleMagic);
  w.U32(kBundleVersion);
  w.U64(program.seed());
  e.DType(program.options().default_dtype);
  WriteDims(w, program.options().dims);
  for (int v : {opt_stats.dead_code_removed, opt_stats.identities_removed, opt_stats.constants_folded,
                opt_stats.cse_eliminated, opt_stats.ops_fused, opt_stats.rounds}) {
    w.U32(static_cast<uint32_t>(v));
  }
  w.U8(PassBits(program.options().optimized_with));
  WriteDims(w, program.options().inference_dims());
  w.U8(source != nullptr ? 1 : 0);
  if (source != nullptr) {
    w.String(source->name());
    w.String(source->text());
  }
  e.Program(program.ir());
  const auto params = program.Params();
  w.U64(ParamBlobSize(params));
  AppendParamBlob(params, w);
  return w.Take();
}

Result<std::unique_ptr<Program>> LoadBundle(std::span<const uint8_t> bytes, ProgramOptions options,
                                            BundleInfo* info, const std::function<void()>& bytes_read) {
  Decoder d(bytes);
  ByteReader& r = d.in();
  std::span<const uint8_t> magic;
  if (!r.Bytes(sizeof kBundleMagic, &magic) || std::memcmp(magic.data(), kBundleMagic, sizeof kBundleMagic) != 0) {
    return Corrupt("not a Shrew bundle (bad magic; " + std::to_string(bytes.size()) + " bytes)");
  }
  uint32_t version = 0;
  if (!r.U32(&version)) return Corrupt("truncated header");
  if (version < 1 || version > kBundleVersion) {
    return Corrupt("unsupported version " + std::to_string(version) + " (this build reads versions 1 to " +
                   std::to_string(kBundleVersion) + ")");
  }
  d.set_version(version);
  uint64_t seed = 0;
  ir::DimBindings dims;
  if (!d.U64(&seed, "seed") || !d.DType(&options.default_dtype)) return Corrupt(d.error());
  // Said as the bundle's, not as ProgramOptions' (Program::Create checks it too).
  if (!ir::IsFloat(options.default_dtype)) {
    d.Fail(std::string("default dtype ") + ir::DTypeName(options.default_dtype) + " is no float dtype");
    return Corrupt(d.error());
  }
  SHREW_RETURN_IF_ERROR(ReadDims(d, "configured", &dims));
  opt::OptStats stats;
  for (int* v : {&stats.dead_code_removed, &stats.identities_removed, &stats.constants_folded, &stats.cse_eliminated,
                 &stats.ops_fused, &stats.rounds}) {
    uint32_t u = 0;
    if (!d.U32(&u, "optimiser counters")) return Corrupt(d.error());
    if (u > static_cast<uint32_t>(INT32_MAX)) return Corrupt("optimiser counter " + std::to_string(u) + " is out of range");
    *v = static_cast<int>(u);
  }
  if (version == 1) {
    // Version 1 did not say: a bundle optimised at all was optimised with every pass.
    if (stats.rounds > 0) options.optimized_with = opt::PassOptions{};
  } else {
    uint8_t bits = 0;
    if (!d.U8(&bits, "optimiser passes")) return Corrupt(d.error());
    if (!PassesFromBits(bits, &options.optimized_with)) {
      return Corrupt("optimiser passes 0x" + HexByte(bits) + " have unknown bits");
    }
  }
  if (version >= 3) {
    ir::DimBindings inferred_with;
    SHREW_RETURN_IF_ERROR(ReadDims(d, "inference", &inferred_with));
    options.specialized_with = std::move(inferred_with);
  } else {
    options.specialized_with.reset();  // earlier versions stored one set for both
  }
  bool has_source = false;
  std::unique_ptr<diag::SourceFile> source;
  if (!d.Flag(&has_source, "source flag")) return Corrupt(d.error());
  if (has_source) {
    std::string name, text;
    if (!d.String(&name, "source name") || !d.String(&text, "source text")) return Corrupt(d.error());
    source = std::make_unique<diag::SourceFile>(std::move(name), std::move(text));
    d.set_source(source.get());
  }
  ir::Program program;
  if (!d.Program(&program)) return Corrupt(d.error());
  uint64_t params_size = 0;
  std::span<const uint8_t> params;
  // (The decoder's own message would name the last graph it read.)
  if (!d.U64(&params_size, "parameter size")) return Corrupt("truncated parameters: the bundle ends inside their size");
  const size_t remaining = r.remaining();
  if (!r.Bytes(params_size, &params)) {
    return Corrupt("truncated parameters: their blob is " + std::to_string(params_size) + " bytes, " +
                   std::to_string(remaining) + " remain");
  }
  if (r.remaining() != 0) return Corrupt(std::to_string(r.remaining()) + " unexpected bytes after the parameters");

  // The checks a compiled program passed, on what was read.
  diag::DiagnosticBag bag(8);
  if (!ir::ValidateProgram(program, &bag)) return FirstError("invalid program", bag);
  ir::Program inferred = program;
  ir::InferOptions io;
  io.default_float = options.default_dtype;
  options.dims = std::move(dims);  // before inference_dims() reads it
  const ir::DimBindings& inference = options.inference_dims();
  io.bindings = inference.empty() ? nullptr : &inference;
  io.callee_bindings = io.bindings;  // the configuration's: shared by every graph
  if (!ir::InferProgramTypes(&inferred, &bag, io)) return FirstError("invalid types", bag);
  for (size_t gi = 0; gi < program.graphs.size(); ++gi) {
    const ir::Graph& stored = program.graphs[gi];
    const ir::Graph& checked = inferred.graphs[gi];
    for (int i = 0; i < stored.num_nodes(); ++i) {
      const ir::Type& a = stored.node(i).type;
      const ir::Type& b = checked.node(i).type;
      if (a != b) {
        return Corrupt("graph '" + stored.name() + "': " + stored.NodeLabel(stored.node(i)) + ": stored type " + a.ToString() +
                       ", but its operands give " + b.ToString());
      }
    }
  }
  options.seed = seed;
  Result<std::unique_ptr<Program>> p =
      Program::CreateWithParams(std::move(program), std::move(options), params, source.get(), bytes_read);
  // A parameter section that does not fit is the bundle's corruption too.
  if (!p.ok() && p.status().code() == StatusCode::kInvalidArgument) return p.status().Prefixed("bundle: ");
  if (p.ok() && info != nullptr) {
    info->source = std::move(source);
    info->opt_stats = stats;
  }
  return p;
}

}  // namespace shrew
