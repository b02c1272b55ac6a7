// Expressions (LANGUAGE.md §3.14): a Pratt loop over one precedence table for
// the binary operators, recursive descent for prefix, postfix and primaries.
#include <array>

#include "front/lexer.h"
#include "front/parser_internal.h"

namespace shrew::front::internal {
namespace {

using ast::BinaryOp;

// All binary operators at a glance: token, tree node, precedence (1 binds
// loosest), associativity. Prefix `- ! ~` sit above all of these (level 13),
// postfix `.name`, `[i]`, calls above that (14).
struct InfixRule {
  TokenKind token;
  BinaryOp op;
  int precedence;
  bool right_assoc;
};

constexpr InfixRule kInfixRules[] = {
    {TokenKind::QuestionQuestion, BinaryOp::Coalesce, 1, false},
    {TokenKind::PipePipe, BinaryOp::Or, 2, false},
    {TokenKind::AmpAmp, BinaryOp::And, 3, false},
    {TokenKind::Pipe, BinaryOp::BitOr, 4, false},
    {TokenKind::Caret, BinaryOp::BitXor, 5, false},
    {TokenKind::Amp, BinaryOp::BitAnd, 6, false},
    {TokenKind::EqualEqual, BinaryOp::Equal, 7, false},
    {TokenKind::BangEqual, BinaryOp::NotEqual, 7, false},
    {TokenKind::Less, BinaryOp::Less, 8, false},
    {TokenKind::Greater, BinaryOp::Greater, 8, false},
    {TokenKind::LessEqual, BinaryOp::LessEqual, 8, false},
    {TokenKind::GreaterEqual, BinaryOp::GreaterEqual, 8, false},
    {TokenKind::LessLess, BinaryOp::ShiftLeft, 9, false},
    {TokenKind::GreaterGreater, BinaryOp::ShiftRight, 9, false},
    {TokenKind::Plus, BinaryOp::Add, 10, false},
    {TokenKind::Minus, BinaryOp::Sub, 10, false},
    {TokenKind::Star, BinaryOp::Mul, 11, false},
    {TokenKind::Slash, BinaryOp::Div, 11, false},
    {TokenKind::Percent, BinaryOp::Mod, 11, false},
    {TokenKind::StarStar, BinaryOp::Pow, 12, true},
};

// Token kind -> index into kInfixRules, or -1.
constexpr std::array<int8_t, kTokenKindCount> BuildInfixIndex() {
  std::array<int8_t, kTokenKindCount> index{};
  for (auto& i : index) i = -1;
  for (size_t r = 0; r < std::size(kInfixRules); ++r) {
    index[static_cast<int>(kInfixRules[r].token)] = static_cast<int8_t>(r);
  }
  return index;
}
constexpr std::array<int8_t, kTokenKindCount> kInfixIndex = BuildInfixIndex();

const InfixRule* FindInfix(TokenKind kind) {
  int8_t i = kInfixIndex[static_cast<int>(kind)];
  return i < 0 ? nullptr : &kInfixRules[i];
}

}  // namespace

ast::ExprPtr Parser::MakeExpr(size_t start, ast::Expr::Node node) {
  return MakeExprAt(SpanSince(start), std::move(node));
}

ast::ExprPtr Parser::MakeExprAt(diag::Span span, ast::Expr::Node node) {
  auto e = std::make_unique<ast::Expr>();
  e->span = span;
  e->node = std::move(node);
  uint32_t tallest = 0;
  ast::ForEachChild(*e, [&](const ast::Expr& child) { tallest = std::max(tallest, child.height); });
  e->height = tallest + 1;
  if (e->height > kMaxExprHeight) {
    // Long chains (`a + a + ... + a`) grow the tree without nesting. Cut it
    // here so every later recursive walk over an Expr stays bounded.
    Error(diag::Kind::NestingTooDeep, span,
          "expression is too deeply nested (more than " + std::to_string(kMaxExprHeight) +
              " levels)");
    e->node = ast::ErrorExpr{};
    e->height = 1;
  }
  return e;
}

ast::ExprPtr Parser::ParseExpr() { return ParseBinary(1); }

ast::ExprPtr Parser::ExtendChain(size_t start, ast::ExprPtr lhs, ast::BinaryOp op, diag::Span op_span,
                                 ast::ExprPtr rhs) {
  if (!lhs->Is<ast::ChainExpr>()) {
    // The first link past kMaxNestedLinks: unfold the BinaryExprs this loop
    // built (the run's first operand, from ParseUnary, is never one).
    std::vector<ast::ChainLink> reversed;
    while (auto* b = lhs->As<ast::BinaryExpr>()) {
      if (b->lhs == nullptr) break;
      reversed.push_back({b->op, b->op_span, std::move(b->rhs), lhs->span});
      ast::ExprPtr next = std::move(b->lhs);
      lhs = std::move(next);
    }
    ast::ChainExpr chain;
    chain.first = std::move(lhs);
    chain.links.assign(std::make_move_iterator(reversed.rbegin()), std::make_move_iterator(reversed.rend()));
    lhs = std::make_unique<ast::Expr>();
    lhs->height = chain.first->height + 1;
    for (const ast::ChainLink& link : chain.links) lhs->height = std::max(lhs->height, link.rhs->height + 1);
    lhs->node = std::move(chain);
  }
  // Height in O(1) per link (MakeExprAt would visit every link).
  const diag::Span span = SpanSince(start);
  const uint32_t height = std::max(lhs->height, rhs->height + 1);
  lhs->span = span;
  lhs->As<ast::ChainExpr>()->links.push_back({op, op_span, std::move(rhs), span});
  lhs->height = height;
  if (height > kMaxExprHeight) {
    Error(diag::Kind::NestingTooDeep, span,
          "expression is too deeply nested (more than " + std::to_string(kMaxExprHeight) + " levels)");
    lhs->node = ast::ErrorExpr{};
    lhs->height = 1;
  }
  return lhs;
}

ast::ExprPtr Parser::ParseBinary(int min_precedence) {
  size_t start = pos_;
  ast::ExprPtr lhs = ParseUnary();
  int links = 0;
  while (!Failed()) {
    const InfixRule* rule = FindInfix(Kind());
    if (rule == nullptr || rule->precedence < min_precedence) break;
    diag::Span op_span = Advance().span;
    ast::ExprPtr rhs;
    if (rule->right_assoc) {
      // `a ** b ** c ...` recurses once per operator: count it as nesting.
      DepthGuard guard(this);
      rhs = guard.ok() ? ParseBinary(rule->precedence) : ErrorExpr();
    } else {
      rhs = ParseBinary(rule->precedence + 1);
    }
    if (++links <= kMaxNestedLinks) {
      lhs = MakeExpr(start, ast::BinaryExpr{rule->op, op_span, std::move(lhs), std::move(rhs)});
    } else {
      lhs = ExtendChain(start, std::move(lhs), rule->op, op_span, std::move(rhs));
    }
  }
  return lhs;
}

ast::ExprPtr Parser::ParseUnary() {
  ast::UnaryOp op;
  switch (Kind()) {
    case TokenKind::Minus: op = ast::UnaryOp::Neg; break;
    case TokenKind::Bang: op = ast::UnaryOp::Not; break;
    case TokenKind::Tilde: op = ast::UnaryOp::BitNot; break;
    default: return ParsePostfix();
  }
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  diag::Span op_span = Advance().span;
  // Prefix binds tighter than `**`: `-x ** 2` is `(-x) ** 2` (§3.14).
  ast::ExprPtr operand = ParseUnary();
  return MakeExpr(start, ast::UnaryExpr{op, op_span, std::move(operand)});
}

// `1.`: a number has digits after its '.' (§2.6), so this lexes as `1`
// `.`, and read as a field of 1 with its name missing ("expected name, got
// ';'"). Said as the number meant; true when reported. (`1.e5` is a field
// access as the grammar has it; lowering says what it meant.)
bool Parser::DotEndsNumber(const ast::Expr& e) {
  if (pos_ == 0 || !e.Is<ast::IntLiteral>()) return false;
  const Token& number = tokens_[pos_ - 1];
  if (number.kind != TokenKind::IntLiteral || number.span.offset + number.span.length != Cur().span.offset) return false;
  if (IsKey(Peek(1).kind)) return false;  // `1.foo`, `1.e5`, `1 .e`
  const std::string_view text = Text(number);
  if (text.find_first_not_of("0123456789") != std::string_view::npos) {
    panic_ = true;  // `0x1.5`: the lexer told the number ("write 1"); "write 0x1.0" would mislead
    return true;
  }
  diag::Span span = number.span;
  span.length += 1;
  const std::string digits(Text(number));
  Error(diag::Kind::InvalidNumber, span, "'" + digits + ".' is not a number: write " + digits + ".0");
  return true;
}

ast::ExprPtr Parser::ParsePostfix() {
  size_t start = pos_;
  ast::ExprPtr e = ParsePrimary();
  while (!Failed()) {
    if (At(TokenKind::Dot) && DotEndsNumber(*e)) return ErrorExpr();
    if (At(TokenKind::Dot)) {
      Advance();
      ast::Identifier name;
      if (!ExpectKey(&name)) break;
      if (At(TokenKind::LParen)) {
        ast::MethodCallExpr call{std::move(e), std::move(name), {}};
        ParseArgs(&call.args);
        e = MakeExpr(start, std::move(call));
      } else {
        e = MakeExpr(start, ast::MemberExpr{std::move(e), std::move(name)});
      }
    } else if (At(TokenKind::LBracket)) {
      DepthGuard guard(this);
      if (!guard.ok()) break;
      Advance();
      ast::ExprPtr index = ParseExpr();
      if (Match(TokenKind::Colon)) {
        ast::ExprPtr end = ParseExpr();
        Expect(TokenKind::RBracket);
        e = MakeExpr(start, ast::SliceExpr{std::move(e), std::move(index), std::move(end)});
      } else {
        Expect(TokenKind::RBracket);
        e = MakeExpr(start, ast::IndexExpr{std::move(e), std::move(index)});
      }
    } else {
      break;
    }
  }
  return e;
}

ast::ExprPtr Parser::ParseScalarLiteral() {
  size_t start = pos_;
  const Token& t = Advance();
  std::string text(Text(t));
  switch (t.kind) {
    case TokenKind::IntLiteral: {
      int64_t value;
      ParseIntLiteral(text, &value);  // overflow was reported by the lexer
      return MakeExpr(start, ast::IntLiteral{value, std::move(text)});
    }
    case TokenKind::FloatLiteral: {
      double value;
      ParseFloatLiteral(text, &value);  // malformed text was reported by the lexer
      return MakeExpr(start, ast::FloatLiteral{value, std::move(text)});
    }
    case TokenKind::StringLiteral: {
      std::string value = UnescapeString(text);
      return MakeExpr(start, ast::StringLiteral{std::move(value), std::move(text)});
    }
    case TokenKind::KwTrue: return MakeExpr(start, ast::BoolLiteral{true});
    case TokenKind::KwFalse: return MakeExpr(start, ast::BoolLiteral{false});
    case TokenKind::KwNull: return MakeExpr(start, ast::NullLiteral{});
    default: break;
  }
  pos_ = start;  // callers only pass literal tokens; be safe anyway
  ErrorExpected("literal");
  return ErrorExpr();
}

ast::ExprPtr Parser::ParsePrimary() {
  switch (Kind()) {
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::StringLiteral:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNull:
      return ParseScalarLiteral();
    case TokenKind::LParen: {
      size_t start = pos_;
      DepthGuard guard(this);
      if (!guard.ok()) return ErrorExpr();
      Advance();
      ast::ExprPtr inner = ParseExpr();
      Expect(TokenKind::RParen);
      return MakeExpr(start, ast::ParenExpr{std::move(inner)});
    }
    case TokenKind::LBracket: return ParseListExpr(&Parser::ParseExpr);
    case TokenKind::LBrace: return ParseDictExpr(&Parser::ParseExpr);
    case TokenKind::KwIf: return ParseIfExpr();
    case TokenKind::KwRepeat: return ParseRepeatExpr();
    case TokenKind::Pipe: return ParseClosureExpr();
    default:
      if (AtKey()) return ParseNameOrCall();
      if (At(TokenKind::Dot) && Peek(1).kind == TokenKind::IntLiteral &&
          Peek(1).span.offset == Cur().span.offset + 1) {
        // `.5`: a number starts with a digit (§2.6).
        ErrorExpected("expression", "write 0" + std::string(Text(Cur())) + std::string(Text(Peek(1))));
        return ErrorExpr();
      }
      // `cast(x, f64)`: a dtype in an expression is an attribute's string
      // (a positional "f64" is a tensor operand, E059).
      ErrorExpected("expression", IsDtype(Kind()) ? "a dtype is an attribute written as a string: cast(x, dtype: \"" +
                                                       std::string(Text(Cur())) + "\")"
                                                 : std::string());
      return ErrorExpr();
  }
}

ast::ExprPtr Parser::ParseNameOrCall() {
  size_t start = pos_;
  std::vector<ast::Identifier> path;
  path.push_back(TakeIdentifier());
  while (At(TokenKind::ColonColon)) {
    Advance();
    ast::Identifier segment;
    if (!ExpectKey(&segment)) return ErrorExpr();
    path.push_back(std::move(segment));
  }
  if (At(TokenKind::LParen)) {
    ast::CallExpr call{std::move(path), {}};
    ParseArgs(&call.args);
    return MakeExpr(start, std::move(call));
  }
  if (path.size() > 1) return MakeExpr(start, ast::PathExpr{std::move(path)});
  return MakeExpr(start, ast::NameExpr{std::move(path[0].name)});
}

void Parser::ParseArgs(std::vector<ast::Argument>* out) {
  DepthGuard guard(this);
  if (!guard.ok()) return;
  Advance();  // '('
  while (!At(TokenKind::RParen) && !Failed()) {
    size_t start = pos_;
    ast::Argument arg;
    // A named argument is a key immediately followed by ':' (two-token look-ahead).
    if (AtKey() && Peek(1).kind == TokenKind::Colon) {
      arg.name = TakeIdentifier();
      Advance();  // ':'
    }
    arg.value = ParseExpr();
    arg.span = SpanSince(start);
    out->push_back(std::move(arg));
    if (!Match(TokenKind::Comma)) break;
  }
  ExpectListEnd(TokenKind::RParen);
}

ast::ExprPtr Parser::ParseListExpr(ElementParser element) {
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  Advance();  // '['
  ast::ListExpr list;
  while (!At(TokenKind::RBracket) && !Failed()) {
    list.elements.push_back((this->*element)());
    if (!Match(TokenKind::Comma)) break;
  }
  ExpectListEnd(TokenKind::RBracket);
  return MakeExpr(start, std::move(list));
}

ast::ExprPtr Parser::ParseDictExpr(ElementParser value) {
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  Advance();  // '{'
  ast::DictExpr dict;
  while (!At(TokenKind::RBrace) && !Failed()) {
    size_t entry_start = pos_;
    ast::DictEntry entry;
    if (!ExpectKey(&entry.key) || !Expect(TokenKind::Colon)) break;
    entry.value = (this->*value)();
    entry.span = SpanSince(entry_start);
    dict.entries.push_back(std::move(entry));
    if (!Match(TokenKind::Comma)) break;
  }
  ExpectListEnd(TokenKind::RBrace, DictSeparatorHint());
  return MakeExpr(start, std::move(dict));
}

ast::ExprPtr Parser::ParseIfExpr() {
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  Advance();  // 'if'
  ast::IfExpr e;
  e.condition = ParseExpr();
  Expect(TokenKind::LBrace);
  e.then_branch = ParseExpr();
  Expect(TokenKind::RBrace);
  if (!Failed() && Match(TokenKind::KwElse)) {
    Expect(TokenKind::LBrace);
    e.else_branch = ParseExpr();
    Expect(TokenKind::RBrace);
  }
  return MakeExpr(start, std::move(e));
}

ast::ExprPtr Parser::ParseRepeatExpr() {
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  Advance();  // 'repeat'
  ast::RepeatExpr e;
  Expect(TokenKind::LParen);
  e.count = ParseExpr();
  Expect(TokenKind::RParen);
  Expect(TokenKind::LBrace);
  e.body = ParseExpr();
  Expect(TokenKind::RBrace);
  return MakeExpr(start, std::move(e));
}

ast::ExprPtr Parser::ParseClosureExpr() {
  size_t start = pos_;
  DepthGuard guard(this);
  if (!guard.ok()) return ErrorExpr();
  Advance();  // '|'
  ast::ClosureExpr e;
  if (At(TokenKind::Identifier)) {
    do {
      ast::Identifier param;
      if (!ExpectIdentifier(&param)) break;
      e.params.push_back(std::move(param));
    } while (Match(TokenKind::Comma));
  }
  Expect(TokenKind::Pipe);
  Expect(TokenKind::LBrace);
  e.body = ParseExpr();
  Expect(TokenKind::RBrace);
  return MakeExpr(start, std::move(e));
}

}  // namespace shrew::front::internal
