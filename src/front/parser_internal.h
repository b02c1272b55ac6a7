// Private to the parser_*.cc files: the recursive-descent Parser class.
//
// Error handling follows Wren/Carbon: the first error of a statement is
// reported and sets `panic_`; while panicking further errors are dropped
// (they are usually consequences of the first). Statement-list loops call
// Recover(), which skips to a synchronisation point and clears `panic_`.
// A parse function therefore signals "this construct failed" simply by
// leaving `panic_` set; callers test Failed().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "front/ast.h"
#include "front/parser.h"
#include "front/token.h"

namespace shrew::front::internal {

class Parser {
 public:
  // `lexed`: the lexer's diagnostics when they are not in `diags` (the
  // parser stays quiet where the lexer spoke).
  Parser(const diag::SourceFile& source, const std::vector<Token>& tokens,
         diag::DiagnosticBag& diags, const diag::DiagnosticBag* lexed = nullptr);

  ast::Program ParseProgram();
  ast::ExprPtr ParseStandaloneExpression();

 private:
  // Counts one nesting level for as long as it lives; ok() is false (and
  // NestingTooDeep has been reported) once the limit is exceeded.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p);
    ~DepthGuard() { --parser_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    bool ok() const { return ok_; }

   private:
    Parser* parser_;
    bool ok_;
  };

  // How a statement list resynchronises after an error (see Recover).
  enum class Level { Block, Graph };

  // ---- tokens (parser.cc)
  const Token& Cur() const { return tokens_[pos_]; }
  const Token& Peek(size_t ahead) const;
  TokenKind Kind() const { return tokens_[pos_].kind; }
  bool At(TokenKind kind) const { return Kind() == kind; }
  bool AtKey() const { return IsKey(Kind()); }
  bool AtEnd() const { return Kind() == TokenKind::EndOfInput; }
  // End of a `{ ... }` list: '}', end of input, or a top-level directive
  // (which can never appear inside a block, so the '}' must be missing).
  bool AtListEnd() const;
  // A graph statement keyword (input, param, node, output, @assert, @check)
  // that starts a line: where a statement after a missing ';' or '}' begins.
  bool AtGraphStatementOnNewLine() const;
  const Token& Advance();
  bool Match(TokenKind kind);
  std::string_view Text(const Token& t) const { return TokenText(source_, t); }
  // From token `start` through the last consumed token.
  diag::Span SpanSince(size_t start) const;

  // ---- errors and recovery (parser.cc)
  bool Failed() const { return panic_; }
  void Error(diag::Kind kind, diag::Span span, std::string message);
  // "expected WHAT, got TOKEN" at the current token; silent on Error tokens
  // (the lexer reported them).
  // "expected WHAT, got TOKEN" and, when given, "; HINT".
  void ErrorExpected(std::string_view what, std::string_view hint = {});
  bool DotEndsNumber(const ast::Expr& e);
  // Consumes a token of `kind` or reports "expected 'SPELLING'".
  bool Expect(TokenKind kind);
  // Consumes the `closer` of a comma-separated list or reports "expected ','
  // or 'CLOSER'" (either continues the list), with HINT when given.
  bool ExpectListEnd(TokenKind closer, std::string_view hint = {});
  // "directives start with '@': write @graph" when the current word is a
  // directive of `category` (top-level or graph statement) without its '@'.
  std::string MissingAtHint(bool top_level) const;
  // At a ';' inside `{k: v, ...}`: blocks end entries with ';', values with ','.
  std::string_view DictSeparatorHint() const {
    return At(TokenKind::Semicolon) ? "the entries of a {key: value} value are separated by ','"
                                    : std::string_view();
  }
  // Consumes the '}' of WHAT, opened at `open`, or reports "expected '}'
  // closing WHAT (opened at line L)": where that is noticed (end of input,
  // the next block) can be far from the '{'.
  bool ExpectClosingBrace(std::string_view what, diag::Span open);
  bool ExpectKey(ast::Identifier* out);         // IDENT or soft keyword
  bool ExpectIdentifier(ast::Identifier* out);  // IDENT only
  bool ExpectString(ast::StringValue* out);
  ast::Identifier TakeIdentifier();  // consumes the current token as a name
  // Skips the rest of the construct that started at token `start`: through
  // the next ';' at the same brace depth, or up to (not including) the '}'
  // closing the enclosing list or a top-level directive. At Level::Graph it
  // also stops before a graph statement keyword that starts a line (the
  // usual missing ';'). Clears panic_ unless it reached the end of input.
  void Recover(size_t start, Level level);
  // Skips to the next top-level directive. Clears panic_ (as Recover).
  void RecoverTopLevel();
  // Runs one list loop body `item` until AtListEnd, recovering after errors.
  template <typename Fn> void ParseList(Level level, Fn&& item);
  // The `{ ... }` body of a graph statement (a node body, a param's
  // attributes), at its '{' (or where it is missing): items until its '}'. A graph statement that starts a line
  // and is no `key:` item (`output y: ...`, `node k { ...`) means the '}'
  // and ';' are missing: that is reported once, as "expected '}' closing
  // WHAT (opened at line L)", and false is returned with panic_ clear, so the
  // caller ends its statement there and the graph goes on with the next one
  // (instead of a misleading "expected ':'" and a cascade at the graph's end).
  template <typename Fn> bool ParseStatementBody(std::string_view what, Fn&& item);

  // ---- top-level blocks (parser_blocks.cc)
  void ParseBlock(ast::Program* program);
  bool ParseImport(ast::ImportBlock* out);
  bool ParseTypes(ast::TypesBlock* out);
  bool ParseCustomOp(ast::CustomOpBlock* out);
  bool ParseCustomOpItems(std::vector<ast::CustomOpItem>* out);
  bool ParseCustomOpItem(ast::CustomOpItem* out);
  bool ParseSettings(bool inference, std::vector<ast::Setting>* out);
  bool ParseSetting(bool inference, ast::Setting* out);
  bool ParseSections(TokenKind keyword, std::vector<ast::Section>* out);

  // ---- fields, literals and types (parser_types.cc)
  // `{ key: value; ... }`; literal_values selects @model's literal grammar.
  bool ParseFieldBlock(std::vector<ast::Field>* out, bool literal_values = false);
  // The fields of a graph statement's body (see ParseStatementBody); false
  // when the '}' is missing.
  bool ParseStatementFields(std::string_view what, std::vector<ast::Field>* out);
  bool ParseField(ast::Field* out, bool literal_value);
  ast::ExprPtr ParseLiteral();
  ast::Type ParseType();
  bool ParseDim(ast::Dim* out);
  // `param_def { "," param_def } [","]` up to (not including) ')'.
  bool ParseParamDefs(std::vector<ast::GraphParam>* out);

  // ---- graphs (parser_graph.cc)
  bool ParseGraph(ast::GraphBlock* out);
  bool ParseGraphStmt(std::vector<ast::GraphStmt>* out);
  bool ParseInputDecl(ast::InputDecl* out);
  bool ParseParamDecl(ast::ParamDecl* out);
  bool ParseNodeDecl(ast::NodeDecl* out);
  bool ParseNodeItem(ast::NodeItem* out);
  bool ParseOutputDecl(ast::OutputDecl* out);
  bool ParseAssert(ast::AssertStmt* out);
  bool ParseCheck(ast::CheckBlock* out);

  // ---- expressions (parser_expr.cc)
  ast::ExprPtr ParseExpr();
  ast::ExprPtr ParseBinary(int min_precedence);
  ast::ExprPtr ParseUnary();
  ast::ExprPtr ParsePostfix();
  ast::ExprPtr ParsePrimary();
  ast::ExprPtr ParseNameOrCall();
  // `[a, b]` and `{k: v}`, each element or value read by `element`:
  // ParseExpr in expressions, ParseLiteral in @model's literal grammar.
  using ElementParser = ast::ExprPtr (Parser::*)();
  ast::ExprPtr ParseListExpr(ElementParser element);
  ast::ExprPtr ParseDictExpr(ElementParser value);
  ast::ExprPtr ParseIfExpr();
  ast::ExprPtr ParseRepeatExpr();
  ast::ExprPtr ParseClosureExpr();
  // Literal tokens (INT FLOAT STRING true false null) -> a literal Expr.
  ast::ExprPtr ParseScalarLiteral();
  // `( args )`; the current token must be '('.
  void ParseArgs(std::vector<ast::Argument>* out);
  // A node spanning tokens [start, pos_), with its height checked.
  ast::ExprPtr MakeExpr(size_t start, ast::Expr::Node node);
  ast::ExprPtr MakeExprAt(diag::Span span, ast::Expr::Node node);
  // Appends `op rhs` to the run of binary operators `lhs` (ParseBinary's
  // loop, past kMaxNestedLinks), making `lhs` a ChainExpr first if needed.
  ast::ExprPtr ExtendChain(size_t start, ast::ExprPtr lhs, ast::BinaryOp op, diag::Span op_span, ast::ExprPtr rhs);
  ast::ExprPtr ErrorExpr() { return MakeExprAt(Cur().span, ast::ErrorExpr{}); }

  const diag::SourceFile& source_;
  const std::vector<Token>& tokens_;
  diag::DiagnosticBag& diags_;
  // brace_depth_[i]: '{' minus '}' among tokens [0, i); lets Recover find the
  // depth of any token in O(1) (so recovery never rescans: no quadratic case).
  std::vector<int32_t> brace_depth_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool panic_ = false;
  std::vector<uint32_t> reported_;  // offsets of the lexer's diagnostics, sorted
  uint32_t last_error_offset_ = UINT32_MAX;
};

template <typename Fn> void Parser::ParseList(Level level, Fn&& item) {
  while (!AtListEnd()) {
    size_t start = pos_;
    item();
    if (Failed()) Recover(start, level);
    if (pos_ == start) Advance();  // progress guarantee
  }
}

template <typename Fn> bool Parser::ParseStatementBody(std::string_view what, Fn&& item) {
  // Without its '{' (`node h op: relu(x); };`, which the caller reported) the
  // body is read all the same, so its '}' does not end the graph; it ends at
  // that '}' or, quietly, before the next statement.
  const bool braced = At(TokenKind::LBrace);
  const diag::Span open = Cur().span;
  if (braced) Advance();
  // Level::Graph: after an error inside the body, recovery also stops at such
  // a statement, so one missing "; }" is one error.
  // `input`, `param` and `node` must be followed by their name to count (a
  // stray `node` before `@hint` is a bad item, not the next statement).
  auto unclosed = [&] {
    if (!AtGraphStatementOnNewLine() || Peek(1).kind == TokenKind::Colon) return false;
    TokenKind k = Kind();
    return k == TokenKind::KwOutput || k == TokenKind::AtAssert || k == TokenKind::AtCheck || IsKey(Peek(1).kind);
  };
  while (!AtListEnd() && !unclosed()) {
    size_t start = pos_;
    item();
    if (Failed()) Recover(start, Level::Graph);
    if (pos_ == start) Advance();  // progress guarantee
  }
  if (!Failed() && unclosed()) {
    if (!braced) return false;
    ExpectClosingBrace(what, open);
    panic_ = false;
    return false;
  }
  return braced ? ExpectClosingBrace(what, open) : Expect(TokenKind::RBrace);
}

}  // namespace shrew::front::internal
