// Top-level blocks other than @graph (LANGUAGE.md §3.2-§3.6, §3.9-§3.12).
#include "diag/utf8.h"
#include "front/parser_internal.h"

namespace shrew::front::internal {

void Parser::ParseBlock(ast::Program* program) {
  size_t start = pos_;
  ast::Block block;
  bool ok = false;
  switch (Kind()) {
    case TokenKind::AtImport: ok = ParseImport(&block.node.emplace<ast::ImportBlock>()); break;
    case TokenKind::AtModel:
      Advance();
      ok = ParseFieldBlock(&block.node.emplace<ast::ModelBlock>().fields, /*literal_values=*/true);
      break;
    case TokenKind::AtConfig:
      Advance();
      ok = ParseFieldBlock(&block.node.emplace<ast::ConfigBlock>().fields);
      break;
    case TokenKind::AtTypes: ok = ParseTypes(&block.node.emplace<ast::TypesBlock>()); break;
    case TokenKind::AtGraph: ok = ParseGraph(&block.node.emplace<ast::GraphBlock>()); break;
    case TokenKind::AtCustomOp: ok = ParseCustomOp(&block.node.emplace<ast::CustomOpBlock>()); break;
    case TokenKind::AtTraining:
      Advance();
      ok = ParseSettings(false, &block.node.emplace<ast::TrainingBlock>().settings);
      break;
    case TokenKind::AtInference:
      Advance();
      ok = ParseSettings(true, &block.node.emplace<ast::InferenceBlock>().settings);
      break;
    case TokenKind::AtMetrics: {
      Advance();
      auto& metrics = block.node.emplace<ast::MetricsBlock>();
      ok = ExpectKey(&metrics.name) && ParseSections(TokenKind::KwTrack, &metrics.tracks);
      break;
    }
    case TokenKind::AtLogging:
      Advance();
      ok = ParseFieldBlock(&block.node.emplace<ast::LoggingBlock>().fields);
      break;
    case TokenKind::AtVisualizations:
      Advance();
      ok = ParseSections(TokenKind::KwPlot, &block.node.emplace<ast::VisualizationsBlock>().plots);
      break;
    default:
      ErrorExpected("a top-level block such as @graph");
      return;
  }
  (void)ok;  // a failed block is kept (partial); Failed() tells the caller to recover
  block.span = SpanSince(start);
  program->blocks.push_back(std::move(block));
}

bool Parser::ParseImport(ast::ImportBlock* out) {
  const diag::Span directive = Cur().span;
  Advance();  // '@import'
  if (!ExpectString(&out->path)) return false;
  if (Match(TokenKind::KwAs)) {
    ast::Identifier alias;
    // The alias must be a plain identifier, not a soft keyword (§3.3).
    if (!ExpectIdentifier(&alias)) return false;
    out->alias = std::move(alias);
  }
  if (!Expect(TokenKind::Semicolon)) return false;
  // LANGUAGE.md §9: imports are kept in the program but nothing is loaded;
  // say so, or a user would expect the imported graphs to exist.
  // Quoted as a string literal reads: `\` and `"` escaped too ("a\"b" showed as "a"b").
  std::string quoted;
  for (char c : out->path.value) {
    if (c == '\\' || c == '"') quoted += '\\';
    quoted += c;
  }
  diags_.Add(diag::Kind::ImportIgnored, directive,
             "@import \"" + diag::EscapeForMessage(quoted, 200) + "\" is parsed and ignored: no file is read");
  return true;
}

bool Parser::ParseTypes(ast::TypesBlock* out) {
  Advance();  // '@types'
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    size_t start = pos_;
    ast::TypeAlias alias;
    // `T: Tensor<…>;` as a @config field is written, or `T = …;`.
    if (IsKey(Kind()) && !At(TokenKind::KwType) &&
        (Peek(1).kind == TokenKind::Colon || Peek(1).kind == TokenKind::Assign)) {
      const std::string hint = "an alias is written 'type " + std::string(Text(Cur())) + " = ...;'";
      ErrorExpected("'type'", hint);
      return;
    }
    if (!Expect(TokenKind::KwType) || !ExpectKey(&alias.name) || !Expect(TokenKind::Assign)) return;
    alias.type = ParseType();
    if (Failed() || !Expect(TokenKind::Semicolon)) return;
    alias.span = SpanSince(start);
    out->aliases.push_back(std::move(alias));
  });
  return Expect(TokenKind::RBrace);
}

bool Parser::ParseCustomOp(ast::CustomOpBlock* out) {
  Advance();  // '@custom_op'
  if (!ExpectKey(&out->name)) return false;
  return ParseCustomOpItems(&out->items);
}

bool Parser::ParseCustomOpItems(std::vector<ast::CustomOpItem>* out) {
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    ast::CustomOpItem item;
    if (ParseCustomOpItem(&item)) out->push_back(std::move(item));
  });
  return Expect(TokenKind::RBrace);
}

bool Parser::ParseCustomOpItem(ast::CustomOpItem* out) {
  size_t start = pos_;
  switch (Kind()) {
    case TokenKind::KwSignature:
      out->kind = ast::CustomOpItem::Kind::Signature;
      Advance();
      if (!Expect(TokenKind::Colon) || !Expect(TokenKind::LParen) ||
          !ParseParamDefs(&out->params) || !ExpectListEnd(TokenKind::RParen) ||
          !Expect(TokenKind::Arrow)) {
        return false;
      }
      out->return_type = ParseType();
      if (Failed() || !Expect(TokenKind::Semicolon)) return false;
      break;
    case TokenKind::KwImpl:
      out->kind = ast::CustomOpItem::Kind::Impl;
      Advance();
      if (!ExpectKey(&out->name) || !ParseFieldBlock(&out->fields)) return false;
      break;
    case TokenKind::KwGradient: {
      out->kind = ast::CustomOpItem::Kind::Gradient;
      // Gradient blocks nest: bound the recursion like any other nesting.
      DepthGuard guard(this);
      if (!guard.ok()) return false;
      Advance();
      if (!ExpectKey(&out->name) || !ParseCustomOpItems(&out->items)) return false;
      break;
    }
    default:
      ErrorExpected("signature, impl or gradient");
      return false;
  }
  out->span = SpanSince(start);
  return true;
}

bool Parser::ParseSettings(bool inference, std::vector<ast::Setting>* out) {
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    ast::Setting setting;
    if (ParseSetting(inference, &setting)) out->push_back(std::move(setting));
  });
  return Expect(TokenKind::RBrace);
}

bool Parser::ParseSetting(bool inference, ast::Setting* out) {
  size_t start = pos_;
  TokenKind key = Kind();
  if (!ExpectKey(&out->key) || !Expect(TokenKind::Colon)) return false;
  bool takes_name = key == TokenKind::KwModel || (!inference && key == TokenKind::KwLoss);
  bool takes_fields = inference ? key == TokenKind::KwQuantization || key == TokenKind::KwGeneration
                                : key == TokenKind::KwOptimizer || key == TokenKind::KwLrSchedule ||
                                      key == TokenKind::KwGradClip;
  if (takes_name) {
    // `model: Net;` takes a bare name, not a string (§3.10).
    out->kind = ast::Setting::Kind::Name;
    if (!ExpectKey(&out->name) || !Expect(TokenKind::Semicolon)) return false;
  } else if (takes_fields) {
    // brace_fields: no ';' after the '}' (§3.10).
    out->kind = ast::Setting::Kind::Fields;
    if (!ParseFieldBlock(&out->fields)) return false;
    if (At(TokenKind::Semicolon)) {
      // The usual slip here: say why the ';' is wrong (it was "expected name").
      ErrorExpected("a setting or '}'", "no ';' follows the '}' of '" + out->key.name + ": { ... }'");
      return false;
    }
  } else {
    out->kind = ast::Setting::Kind::Expr;
    if (inference && key == TokenKind::KwOptimizations && !At(TokenKind::LBracket)) {
      ErrorExpected("'['");
      return false;
    }
    out->value = ParseExpr();
    if (Failed() || !Expect(TokenKind::Semicolon)) return false;
  }
  out->span = SpanSince(start);
  return true;
}

bool Parser::ParseSections(TokenKind keyword, std::vector<ast::Section>* out) {
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    size_t start = pos_;
    ast::Section section;
    if (!Expect(keyword) || !ExpectKey(&section.name) || !ParseFieldBlock(&section.fields)) return;
    section.span = SpanSince(start);
    const std::string name = section.name.name;
    out->push_back(std::move(section));
    if (At(TokenKind::Semicolon)) {
      ErrorExpected("'" + std::string(TokenSpelling(keyword)) + "' or '}'",
                    "no ';' follows the '}' of '" + name + " { ... }'");
    }
  });
  return Expect(TokenKind::RBrace);
}

}  // namespace shrew::front::internal
