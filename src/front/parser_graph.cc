// @graph blocks and their statements (LANGUAGE.md §3.7, §3.8).
#include "front/parser_internal.h"

#include "diag/utf8.h"
#include "front/lexer.h"

namespace shrew::front::internal {

bool Parser::ParseGraph(ast::GraphBlock* out) {
  Advance();  // '@graph'
  if (!ExpectKey(&out->name)) return false;
  if (At(TokenKind::LParen)) {
    out->has_param_list = true;
    Advance();
    if (!ParseParamDefs(&out->params) || !ExpectListEnd(TokenKind::RParen)) return false;
  }
  // Header parameters and `-> T` are independent options (§3.7).
  if (Match(TokenKind::Arrow)) {
    out->return_type = ParseType();
    if (Failed()) return false;
  }
  const diag::Span open = Cur().span;
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Graph, [&] { ParseGraphStmt(&out->body); });
  return ExpectClosingBrace("graph '" + out->name.name + "'", open);
}

bool Parser::ParseGraphStmt(std::vector<ast::GraphStmt>* out) {
  size_t start = pos_;
  ast::GraphStmt stmt;
  bool ok = false;
  switch (Kind()) {
    case TokenKind::KwInput: ok = ParseInputDecl(&stmt.node.emplace<ast::InputDecl>()); break;
    case TokenKind::KwParam: ok = ParseParamDecl(&stmt.node.emplace<ast::ParamDecl>()); break;
    case TokenKind::KwNode: ok = ParseNodeDecl(&stmt.node.emplace<ast::NodeDecl>()); break;
    case TokenKind::KwOutput: ok = ParseOutputDecl(&stmt.node.emplace<ast::OutputDecl>()); break;
    case TokenKind::AtAssert: ok = ParseAssert(&stmt.node.emplace<ast::AssertStmt>()); break;
    case TokenKind::AtCheck: ok = ParseCheck(&stmt.node.emplace<ast::CheckBlock>()); break;
    default:
      // There is no assignment statement: `h = relu(x);` lands here, and so
      // do `return y;` and `assert …` without its '@'.
      std::string hint = MissingAtHint(false);
      if (AtKey() && Peek(1).kind == TokenKind::Assign) {
        hint = "there is no assignment: write node " + std::string(Text(Cur())) + " { op: EXPR; };";
      } else if (AtKey() && Text(Cur()) == "return") {
        hint = "a graph's results are its output statements: output NAME;";
      }
      ErrorExpected("input, param, node, output, @assert or @check", hint);
      return false;
  }
  if (!ok) return false;
  stmt.span = SpanSince(start);
  out->push_back(std::move(stmt));
  return true;
}

bool Parser::ParseInputDecl(ast::InputDecl* out) {
  Advance();  // 'input'
  if (!ExpectKey(&out->name) || !Expect(TokenKind::Colon)) return false;
  out->type = ParseType();
  if (Failed()) return false;
  // `input x: ? ?;` is a dynamic optional input; `??` is one token and fails.
  out->optional = Match(TokenKind::Question);
  return Expect(TokenKind::Semicolon);
}

bool Parser::ParseParamDecl(ast::ParamDecl* out) {
  Advance();  // 'param'
  if (!ExpectKey(&out->name) || !Expect(TokenKind::Colon)) return false;
  out->type = ParseType();
  if (Failed()) return false;
  if (At(TokenKind::LBrace)) {
    out->has_attribute_block = true;
    if (!ParseStatementFields("the attributes of param '" + out->name.name + "'", &out->attributes)) {
      return !Failed();  // an unclosed block ends the statement (ParseStatementBody)
    }
  }
  // `param w: T = randn;` (an initialiser in the spelling of other
  // languages): say how one is written, with the name given if there is one.
  if (!out->has_attribute_block && At(TokenKind::Assign)) {
    const Token& next = Peek(1);
    std::string init = "randn";
    if (next.kind == TokenKind::Identifier) init = std::string(Text(next));
    if (next.kind == TokenKind::StringLiteral) init = diag::EscapeForMessage(UnescapeString(Text(next)), 40);
    ErrorExpected("'{' or ';' after the type of param '" + out->name.name + "'",
                  "an initialiser is written param " + out->name.name + ": TYPE { init: \"" + init + "\"; };");
    return false;
  }
  // Also required after the attribute block's '}' (§3.7).
  return Expect(TokenKind::Semicolon);
}

bool Parser::ParseNodeDecl(ast::NodeDecl* out) {
  Advance();  // 'node'
  if (!ExpectKey(&out->name)) return false;
  bool typed = false;
  if (Match(TokenKind::Colon) && !At(TokenKind::LBrace)) {
    // The type after ':' may be left out only before a body: `node h: { ... };`.
    out->type = ParseType();
    if (Failed()) return false;
    typed = true;
  }
  // `node h op: relu(x); };`: only the '{' is missing. Say so, and read the
  // body anyway, so its '}' does not end the graph (a cascade after it).
  const bool brace_missing = !At(TokenKind::LBrace) && AtKey() && Peek(1).kind == TokenKind::Colon;
  if (brace_missing) {
    ErrorExpected("'{' before the body of node '" + out->name.name + "'");
    panic_ = false;
  }
  if (At(TokenKind::LBrace) || brace_missing) {
    out->has_body = true;
    bool closed = ParseStatementBody("the body of node '" + out->name.name + "'", [&] {
      ast::NodeItem item;
      if (ParseNodeItem(&item)) out->body.push_back(std::move(item));
    });
    if (!closed) return !Failed();  // an unclosed body ends the statement (ParseStatementBody)
    return Expect(TokenKind::Semicolon);
  }
  if (Match(TokenKind::Semicolon)) return true;  // `node h;` parses (no op: a lowering error)
  // `node h = relu(x);`, `node h op: ...`: say what may follow the name.
  ErrorExpected(std::string(typed ? "'{' or ';'" : "'{', ':' or ';'") + " after node '" + out->name.name + "'",
                At(TokenKind::Assign) ? "a node is written node " + out->name.name + " { op: EXPR; };"
                                      : std::string());
  return false;
}

bool Parser::ParseNodeItem(ast::NodeItem* out) {
  size_t start = pos_;
  if (At(TokenKind::AtHint)) {
    Advance();
    out->kind = ast::NodeItem::Kind::Hint;
    switch (Kind()) {
      case TokenKind::KwRecomputeInBackward:
      case TokenKind::KwMustPreserve:
      case TokenKind::KwInPlace:
      case TokenKind::KwNoGrad:
      case TokenKind::Identifier:  // custom hints: plain identifiers only
        out->key = TakeIdentifier();
        break;
      default:
        ErrorExpected("hint name");
        return false;
    }
  } else if (AtKey()) {
    TokenKind key_kind = Kind();
    out->key = TakeIdentifier();
    // `node h { relu(x); };`: the operation without its `op:` key.
    if (At(TokenKind::LParen)) {
      ErrorExpected("':'", "the operation is the value of op: write op: " + out->key.name + "(...);");
      return false;
    }
    if (!Expect(TokenKind::Colon)) return false;
    // `op`, `input` and `output` are special only as keys here (§3.8).
    if (key_kind == TokenKind::KwOutput) {
      out->kind = ast::NodeItem::Kind::OutputType;
      out->type = ParseType();
    } else {
      out->kind = key_kind == TokenKind::KwOp      ? ast::NodeItem::Kind::Op
                  : key_kind == TokenKind::KwInput ? ast::NodeItem::Kind::Input
                                                   : ast::NodeItem::Kind::Attribute;
      out->value = ParseExpr();
    }
    if (Failed()) return false;
  } else {
    ErrorExpected("op, an attribute or @hint");
    return false;
  }
  if (!Expect(TokenKind::Semicolon)) return false;
  out->span = SpanSince(start);
  return true;
}

bool Parser::ParseOutputDecl(ast::OutputDecl* out) {
  Advance();  // 'output'
  // `output name: expr;` is recognised by two-token look-ahead; `a::b` is
  // one token, so `output a::b;` stays an expression.
  if (AtKey() && Peek(1).kind == TokenKind::Colon) {
    out->name = TakeIdentifier();
    Advance();  // ':'
  }
  // `output y = relu(x);`: a named output takes ':' (as a node's type does).
  if (AtKey() && Peek(1).kind == TokenKind::Assign) {
    const std::string name(Text(Cur()));
    Advance();
    ErrorExpected("';'", "a named output is written output " + name + ": EXPR;");
    return false;
  }
  out->value = ParseExpr();
  if (Failed()) return false;
  return Expect(TokenKind::Semicolon);
}

bool Parser::ParseAssert(ast::AssertStmt* out) {
  size_t start = pos_;
  Advance();  // '@assert', or 'assert' inside @check
  out->condition = ParseExpr();
  if (Failed()) return false;
  if (Match(TokenKind::Comma)) {
    ast::StringValue message;
    if (!ExpectString(&message)) return false;
    out->message = std::move(message);
  }
  if (!Expect(TokenKind::Semicolon)) return false;
  out->span = SpanSince(start);
  return true;
}

bool Parser::ParseCheck(ast::CheckBlock* out) {
  Advance();  // '@check'
  if (!ExpectKey(&out->name) || !Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    // `assert` is an ordinary identifier, matched by its text (§3.7).
    if (!At(TokenKind::Identifier) || Text(Cur()) != "assert") {
      ErrorExpected("assert");
      return;
    }
    ast::AssertStmt line;
    if (ParseAssert(&line)) out->asserts.push_back(std::move(line));
  });
  return Expect(TokenKind::RBrace);
}

}  // namespace shrew::front::internal
