#include "api/compile.h"

#include <algorithm>
#include <utility>

#include "api/assertions.h"
#include "base/spelling.h"
#include "front/parser.h"
#include "ir/shapes.h"
#include "ir/validate.h"
#include "lower/config_eval.h"
#include "lower/lower.h"
#include "lower/materialize.h"

namespace shrew {

const char* CompileStageName(CompileStage stage) {
  switch (stage) {
    case CompileStage::kParse: return "parse";
    case CompileStage::kLower: return "lower";
    case CompileStage::kValidate: return "validate";
    case CompileStage::kInferShapes: return "infer shapes";
    case CompileStage::kMaterialize: return "materialise";
    case CompileStage::kOptimize: return "optimise";
    case CompileStage::kJit: return "jit";
  }
  return "";
}

std::string CompileResult::RenderDiagnostics() const {
  if (source == nullptr) return "";
  return diag::RenderAll(diagnostics, *source);
}

namespace {

// OPS.md §5: the host's seed, else an integer `seed` in @config (a negative
// one taken modulo 2^64), else 0.
uint64_t EffectiveSeed(const CompileOptions& options, const ir::Program& program) {
  if (options.seed) return *options.seed;
  auto it = program.config.find("seed");
  if (it != program.config.end() && it->second.kind == ir::ConfigValue::Kind::kInt) {
    return static_cast<uint64_t>(it->second.i);
  }
  return 0;
}

void AddSymbolic(const std::vector<ir::Dim>& dims, std::set<std::string, std::less<>>* names) {
  for (const ir::Dim& d : dims) {
    if (d.is_symbolic()) names->insert(d.name());
  }
}

void AddSymbolic(const ir::Type& t, std::set<std::string, std::less<>>* names) {
  if (t.is_tensor()) AddSymbolic(t.dims(), names);
}

void AddSymbolic(const ir::Attrs& attrs, std::set<std::string, std::less<>>* names) {
  for (const auto& [key, value] : attrs.entries()) {
    if (value.is_shape()) AddSymbolic(value.as_shape(), names);
  }
}

// Every place options.dims binds (shapes.h): input, parameter and declared
// types, and shape attributes (reshape targets).
std::set<std::string, std::less<>> SymbolicDimNames(const ir::Program& program) {
  std::set<std::string, std::less<>> names;
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Node& n : g.nodes()) {
      AddSymbolic(n.type, &names);
      if (n.declared_type) AddSymbolic(*n.declared_type, &names);
      AddSymbolic(n.attrs, &names);
      if (n.repeat_body) AddSymbolic(n.repeat_body->attrs, &names);
    }
    for (const ir::Param& p : g.params()) AddSymbolic(p.type, &names);
    // A name may appear only in `-> Tensor<[M], …>`, which is checked too.
    if (g.return_type()) AddSymbolic(*g.return_type(), &names);
  }
  return names;
}

// Calls `fn` on each operand of `e` that a run always evaluates, or on all
// of them with `guarded`: the right of && and || is evaluated only when the
// left does not decide (as in C: assertions.cc).
template <typename F>
void ForEachOperand(const ast::Expr& e, bool guarded, F fn) {
  const auto logical = [](ast::BinaryOp op) { return op == ast::BinaryOp::And || op == ast::BinaryOp::Or; };
  if (!guarded) {
    if (const auto* b = e.As<ast::BinaryExpr>(); b != nullptr && logical(b->op)) return fn(*b->lhs);
    if (const auto* c = e.As<ast::ChainExpr>(); c != nullptr && !c->links.empty() && logical(c->links.front().op)) {
      return fn(*c->first);
    }
  }
  ast::ForEachChild(e, fn);
}

// The first operator in `e` that an @assert does not evaluate (LANGUAGE.md
// §5.1: bitwise operators, shifts, ??, ~), or null; with `guarded`, also
// one only reached when && or || does not decide first.
const char* OpaqueOperator(const ast::Expr& e, bool guarded) {
  auto opaque = [](ast::BinaryOp op) -> const char* {
    using B = ast::BinaryOp;
    switch (op) {
      case B::BitOr: return "|";
      case B::BitXor: return "^";
      case B::BitAnd: return "&";
      case B::ShiftLeft: return "<<";
      case B::ShiftRight: return ">>";
      case B::Coalesce: return "??";
      default: return nullptr;
    }
  };
  if (const auto* b = e.As<ast::BinaryExpr>(); b != nullptr && opaque(b->op)) return opaque(b->op);
  if (const auto* u = e.As<ast::UnaryExpr>(); u != nullptr && u->op == ast::UnaryOp::BitNot) return "~";
  if (const auto* c = e.As<ast::ChainExpr>()) {
    for (const ast::ChainLink& link : c->links) {
      if (opaque(link.op)) return opaque(link.op);
    }
  }
  const char* found = nullptr;
  ForEachOperand(e, guarded, [&](const ast::Expr& child) {
    if (found == nullptr) found = OpaqueOperator(child, guarded);
  });
  return found;
}

// The first part of `e` of a form no @assert evaluates ("an if-expression",
// "a list"), or "" (`guarded` as for OpaqueOperator).
std::string UnevaluatedForm(const ast::Expr& e, bool guarded) {
  if (e.Is<ast::IfExpr>()) return "an if-expression";
  if (e.Is<ast::ListExpr>() || e.Is<ast::DictExpr>()) return "a list";
  if (e.Is<ast::CallExpr>() || e.Is<ast::MethodCallExpr>()) return "a call";
  if (e.Is<ast::NullLiteral>()) return "null";
  if (e.Is<ast::IndexExpr>() || e.Is<ast::SliceExpr>()) return "an index";
  if (e.Is<ast::MemberExpr>() || e.Is<ast::PathExpr>()) return "a member access";
  if (e.Is<ast::RepeatExpr>() || e.Is<ast::ClosureExpr>()) return "a repeat";
  std::string found;
  ForEachOperand(e, guarded, [&](const ast::Expr& child) {
    if (found.empty()) found = UnevaluatedForm(child, guarded);
  });
  return found;
}

// Whether `e` is an integer whatever a run binds: integer literals, dims
// (names @config does not set), integer config keys and their arithmetic.
bool Integral(const ast::Expr& e, const std::map<std::string, ir::ConfigValue>& config) {
  const ast::Expr* x = ast::StripParens(&e);
  if (x->Is<ast::IntLiteral>()) return true;
  if (const auto* n = x->As<ast::NameExpr>()) {
    auto it = config.find(n->name);
    return it == config.end() || it->second.kind == ir::ConfigValue::Kind::kInt;
  }
  if (const auto* u = x->As<ast::UnaryExpr>(); u != nullptr && u->op == ast::UnaryOp::Neg) {
    return Integral(*u->operand, config);
  }
  if (const auto* b = x->As<ast::BinaryExpr>()) {
    using B = ast::BinaryOp;
    // `2 ** -1` is 0.5 (LANGUAGE.md §5.1): a power is an integer when its
    // exponent cannot be negative (a literal, a dim, a key that is not).
    if (b->op == B::Pow) {
      const ast::Expr* r = ast::StripParens(b->rhs.get());
      bool non_negative = r->Is<ast::IntLiteral>();
      if (const auto* n = r->As<ast::NameExpr>()) {
        auto it = config.find(n->name);
        non_negative = it == config.end() || (it->second.kind == ir::ConfigValue::Kind::kInt && it->second.i >= 0);
      }
      return non_negative && Integral(*b->lhs, config);
    }
    const bool arithmetic = b->op == B::Add || b->op == B::Sub || b->op == B::Mul || b->op == B::Div || b->op == B::Mod;
    return arithmetic && Integral(*b->lhs, config) && Integral(*b->rhs, config);
  }
  return false;
}

// The divisor of an integer `/` or `%` in `e` that is 0 whatever a run binds
// (a literal 0, a config key that is 0), as written, or "": every run
// evaluating it fails ("division by zero"). A float one is IEEE's inf or NaN.
std::string ZeroDivisor(const ast::Expr& e, const std::map<std::string, ir::ConfigValue>& config) {
  if (const auto* b = e.As<ast::BinaryExpr>();
      b != nullptr && (b->op == ast::BinaryOp::Div || b->op == ast::BinaryOp::Mod) && Integral(*b->lhs, config)) {
    const ast::Expr* r = ast::StripParens(b->rhs.get());
    if (const auto* i = r->As<ast::IntLiteral>(); i != nullptr && i->value == 0) return i->text;
    if (const auto* n = r->As<ast::NameExpr>()) {
      auto it = config.find(n->name);
      if (it != config.end() && it->second.kind == ir::ConfigValue::Kind::kInt && it->second.i == 0) {
        return "'" + n->name + "', which is 0";
      }
    }
  }
  // Where always reached: `N == 2 || 1 / 0 > 1` passes for N = 2.
  std::string found;
  ForEachOperand(e, false, [&](const ast::Expr& child) {
    if (found.empty()) found = ZeroDivisor(child, config);
  });
  return found;
}

// A comparison of a comparison's bool with a number in `e` (`0 < N < 10` is
// `(0 < N) < 10`, as in C), said with the way to write it, or "": every run
// evaluating it fails.
std::string ChainedComparison(const ast::Expr& e, const diag::SourceFile& source) {
  using B = ast::BinaryOp;
  const auto ordering = [](B op) { return op == B::Less || op == B::Greater || op == B::LessEqual || op == B::GreaterEqual; };
  const auto comparison = [&](B op) { return ordering(op) || op == B::Equal || op == B::NotEqual; };
  if (const auto* b = e.As<ast::BinaryExpr>()) {
    const auto* inner = ast::StripParens(b->lhs.get())->As<ast::BinaryExpr>();
    const ast::Expr* r = ast::StripParens(b->rhs.get());
    const bool number = r->Is<ast::IntLiteral>() || r->Is<ast::FloatLiteral>();
    if (inner != nullptr && comparison(inner->op) && (ordering(b->op) || (comparison(b->op) && number))) {
      const std::string whole(lower::SpanText(source, e.span)), first(lower::SpanText(source, b->lhs->span));
      const std::string middle(lower::SpanText(source, inner->rhs->span)), last(lower::SpanText(source, b->rhs->span));
      const std::string op(lower::SpanText(source, b->op_span));
      return "'" + whole + "' compares the bool of '" + first + "' with '" + last + "'; write '" + first + " && " +
             middle + " " + op + " " + last + "'";
    }
  }
  // Where always reached, as for ZeroDivisor: `K == 0 || 0 < K < 10` passes for K = 0.
  std::string found;
  ForEachOperand(e, false, [&](const ast::Expr& child) {
    if (found.empty()) found = ChainedComparison(child, source);
  });
  return found;
}

// Why an @assert's condition, as written, can never fail, or "": it uses an
// operator no run evaluates or divides by zero, or it is a number (`B - 2`)
// or a string, not true or false.
std::string NeverFails(const std::string& condition, const std::map<std::string, ir::ConfigValue>& config) {
  const diag::SourceFile source("", condition);
  diag::DiagnosticBag parse;
  ast::ExprPtr e = front::ParseExpression(source, parse);
  if (parse.has_errors() || e == nullptr) return "";
  // Where a run always reaches it, never checked; behind && or ||, skipped
  // whenever the left does not decide (`B > 100 && ~B < 0` fails for B = 2).
  for (bool guarded : {false, true}) {
    const std::string head = guarded ? "@assert is skipped whenever its evaluation reaches "
                                     : "@assert can never be checked: its condition uses ";
    if (const std::string form = UnevaluatedForm(*e, guarded); !form.empty()) {
      return head + form + ", which a run does not evaluate (arithmetic, comparisons, &&, || and ! only)";
    }
    if (const char* op = OpaqueOperator(*e, guarded)) {
      const std::string_view o = op;
      return head + "'" + std::string(o) + "', which a run does not evaluate (arithmetic, comparisons, &&, || and ! only)" +
             (o == "|" ? "; for or, write ||" : o == "&" ? "; for and, write &&" : "");
    }
  }
  // After the forms a run skips: a division in an if-expression is never reached.
  if (const std::string divisor = ZeroDivisor(*e, config); !divisor.empty()) {
    return "@assert fails every run: its condition divides by " + divisor;
  }
  if (const std::string chained = ChainedComparison(*e, source); !chained.empty()) {
    return "@assert fails every run: " + chained;
  }
  const ast::Expr* top = e.get();
  const bool grouped = top->As<ast::ParenExpr>() != nullptr;
  while (const auto* p = top->As<ast::ParenExpr>()) top = p->inner.get();
  std::string what;
  if (top->As<ast::StringLiteral>()) {
    what = "a string";
  } else if (top->As<ast::IntLiteral>() || top->As<ast::FloatLiteral>()) {
    what = "a number";
  } else if (const auto* u = top->As<ast::UnaryExpr>(); u != nullptr && u->op == ast::UnaryOp::Neg) {
    what = "a number";
  } else if (const auto* name = top->As<ast::NameExpr>()) {
    // A dimension, or a config key (a name neither binds was told before).
    const auto key = config.find(name->name);
    if (key == config.end() || key->second.is_number()) {
      what = "a number";
    } else if (key->second.kind == ir::ConfigValue::Kind::kString) {
      what = "a string";
    }
  } else if (const auto* b = top->As<ast::BinaryExpr>()) {
    using B = ast::BinaryOp;
    const bool arithmetic = b->op == B::Add || b->op == B::Sub || b->op == B::Mul || b->op == B::Div ||
                            b->op == B::Mod || b->op == B::Pow;
    const bool text = b->lhs->As<ast::StringLiteral>() != nullptr || b->rhs->As<ast::StringLiteral>() != nullptr;
    if (arithmetic) what = text ? "a string" : "a number";
  }
  if (what.empty()) return "";
  const bool operand = grouped || top->As<ast::NameExpr>() || top->As<ast::IntLiteral>() || top->As<ast::FloatLiteral>();
  return "@assert can never fail: its condition '" + condition + "' is " + what + ", not true or false" +
         (what == "a number" ? "; write a comparison, as in '" + (operand ? condition : "(" + condition + ")") +
                                   " != 0'"
                             : std::string());
}

// W006: an @assert no run checks (LANGUAGE.md §6 evaluates config keys and
// dimensions only), each silently skipped at every run: one naming what
// nothing binds (almost surely a misspelling), one reading a tensor of its
// graph, one that cannot fail (NeverFails).
void WarnOfUncheckableAssertions(const ir::Program& program, const std::set<std::string, std::less<>>& dims,
                                 diag::DiagnosticBag& diags) {
  std::vector<std::string_view> known;
  for (const auto& [key, value] : program.config) known.push_back(key);
  for (const std::string& d : dims) known.push_back(d);
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Assertion& a : g.assertions()) {
      if (a.reads_values) {
        std::string value = a.names.empty() ? std::string() : a.names.front();
        for (const std::string& name : a.names) {
          if (program.config.count(name) == 0 && dims.count(name) == 0) {
            value = name;
            break;
          }
        }
        diags.Add(diag::Kind::AssertNeverChecked, a.span,
                  "@assert can never be checked: it reads '" + value + "', a value of graph '" + g.name() +
                      "'; only config keys and dimensions are evaluated, at the start of a run");
        continue;
      }
      // A name nothing binds first: the condition is then never evaluated, whatever else it holds.
      bool unknown = false;
      for (const std::string& name : a.names) {
        if (program.config.count(name) != 0 || dims.count(name) != 0) continue;
        diags.Add(diag::Kind::AssertNeverChecked, a.span,
                  "@assert can never be checked: '" + name +
                      "' is neither a config key nor a dimension of the program" + DidYouMean(name, known));
        unknown = true;
        break;
      }
      if (unknown) continue;
      if (const std::string why = NeverFails(a.source_text, program.config); !why.empty()) {
        diags.Add(diag::Kind::AssertNeverChecked, a.span, why);
        continue;
      }
      // Of config keys only: what every run will find.
      if (const std::string why = FailsEveryRun(a.source_text, program.config); !why.empty()) {
        diags.Add(diag::Kind::AssertNeverChecked, a.span, "@assert fails every run: " + why);
      }
    }
  }
}

}  // namespace

Status CheckDims(const CompileResult& compiled, const ir::DimBindings& dims) {
  for (const auto& [name, value] : dims) {
    if (compiled.program.config.count(name) != 0) {
      return InvalidArgument("dimension '" + name + "' is set by @config in the source, which always wins over " +
                             "configured dims; change it there");
    }
    if (compiled.dim_names.count(name) == 0) {
      const std::vector<std::string> known(compiled.dim_names.begin(), compiled.dim_names.end());
      return InvalidArgument("dimension '" + name + "' is not used by this program" +
                             HintBeforeList(DidYouMean(name, known)) + "its dimensions: " + JoinNames(known));
    }
  }
  return Status::Ok();
}

Status CheckDimValues(const ir::DimBindings& dims) {
  for (const auto& [name, value] : dims) {
    if (value < 0) {
      return InvalidArgument("dimension '" + name + "' = " + std::to_string(value) +
                             ": a dimension is a non-negative integer");
    }
  }
  return Status::Ok();
}

CompileResult Compile(std::string_view text, const CompileOptions& options) {
  CompileResult result;
  result.dims = options.dims;
  result.default_float = options.default_float;
  diag::DiagnosticBag diags(options.max_errors);
  auto stop = [&](CompileStage stage) -> CompileResult {
    result.stage = stage;
    result.ok = false;
    result.diagnostics = diags.Take();
    return std::move(result);
  };
  // Spans are 32-bit, so the limit never exceeds 4 GiB; the text past it is
  // not copied (a hostile caller may pass far more than it should).
  const size_t max_bytes = std::min<size_t>(options.max_source_bytes, kMaxSourceBytesCap);
  if (text.size() > max_bytes) {
    result.source = std::make_unique<diag::SourceFile>(options.filename, std::string(text.substr(0, max_bytes)));
    diags.Add(diag::Kind::SourceTooLarge, result.source->MakeSpan(static_cast<uint32_t>(max_bytes), 0),
              "source is " + std::to_string(text.size()) + " bytes, more than the limit of " +
                  std::to_string(max_bytes) + " (CompileOptions::max_source_bytes)");
    return stop(CompileStage::kParse);
  }
  result.source = std::make_unique<diag::SourceFile>(options.filename, std::string(text));
  if (Status dims = CheckDimValues(options.dims); !dims.ok()) {
    diags.Add(diag::Kind::BadDimension, result.source->MakeSpan(0, 0), dims.message() + " (CompileOptions::dims)");
    return stop(CompileStage::kParse);
  }
  // An integer or bool dtype here made `2.5 * 3.0` "a float literal used with an integer operand".
  if (!ir::IsFloat(options.default_float)) {
    diags.Add(diag::Kind::BadOption, result.source->MakeSpan(0, 0),
              std::string("default_float is ") + ir::DTypeName(options.default_float) +
                  "; float literals take f16, bf16, f32 or f64 (CompileOptions::default_float)");
    return stop(CompileStage::kParse);
  }

  result.stage = CompileStage::kParse;
  ast::Program tree = front::Parse(*result.source, diags);
  if (diags.has_errors()) return stop(CompileStage::kParse);

  lower::LowerResult lowered = lower::Lower(tree, *result.source, diags);
  if (!lowered.ok || diags.has_errors()) return stop(CompileStage::kLower);
  ir::Program program = std::move(lowered.program);
  tree = ast::Program();  // the IR keeps spans, not the tree
  result.dim_names = SymbolicDimNames(program);
  WarnOfUncheckableAssertions(program, result.dim_names, diags);

  if (!ir::ValidateProgram(program, &diags)) return stop(CompileStage::kValidate);

  ir::InferOptions infer;
  infer.default_float = options.default_float;
  infer.bindings = options.dims.empty() ? nullptr : &options.dims;
  infer.callee_bindings = infer.bindings;  // the configuration's: shared by every graph
  if (!ir::InferProgramTypes(&program, &diags, infer)) return stop(CompileStage::kInferShapes);

  lower::MaterializeOptions mat;
  mat.bindings = &options.dims;
  if (!lower::MaterializeProgram(&program, &diags, mat)) return stop(CompileStage::kMaterialize);

  result.seed = EffectiveSeed(options, program);
  result.unoptimized = program;
  if (options.optimize) {
    result.stage = CompileStage::kOptimize;
    result.stats = opt::Optimize(program, options.passes);
    result.passes = options.passes;
  } else {
    result.stage = CompileStage::kMaterialize;
  }
  // A @custom_op call compiles to no kernel (OPS.md §3.19): a source error at
  // each call left to compile, found here, with every other diagnostic, and
  // not when the first executor is built.
  for (const ir::Graph& g : program.graphs) {
    for (const ir::Node& n : g.nodes()) {
      if (n.op != ir::OpKind::kCustom || diags.capped()) continue;
      diags.Add(diag::Kind::ExecutorSetup, n.span, g.DiagnosticPrefix(n) + "custom op '" + n.callee + "' has no kernel");
    }
  }
  if (diags.has_errors()) return stop(CompileStage::kJit);
  result.program = std::move(program);
  result.diagnostics = diags.Take();
  result.ok = true;
  return result;
}

}  // namespace shrew
