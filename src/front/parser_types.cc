// Field lists, @model literals, types and parameter lists (LANGUAGE.md §3.4,
// §3.5, §3.7, §3.13).
#include "front/lexer.h"
#include "front/parser_internal.h"

namespace shrew::front::internal {
namespace {

constexpr std::string_view kTensorTypeHint = "tensor types are written Tensor<[dims], dtype>";

ast::Dtype DtypeOf(TokenKind kind) {
  switch (kind) {
#define SHREW_DTYPE(Name, DtypeName, spelling) \
  case TokenKind::Name:                        \
    return ast::Dtype::DtypeName;
#include "front/token_kinds.def"
    default:
      return ast::Dtype::F32;
  }
}

}  // namespace

bool Parser::ParseFieldBlock(std::vector<ast::Field>* out, bool literal_values) {
  if (!Expect(TokenKind::LBrace)) return false;
  ParseList(Level::Block, [&] {
    ast::Field field;
    if (ParseField(&field, literal_values)) out->push_back(std::move(field));
  });
  return Expect(TokenKind::RBrace);
}

bool Parser::ParseStatementFields(std::string_view what, std::vector<ast::Field>* out) {
  return ParseStatementBody(what, [&] {
    ast::Field field;
    if (ParseField(&field, /*literal_value=*/false)) out->push_back(std::move(field));
  });
}

bool Parser::ParseField(ast::Field* out, bool literal_value) {
  size_t start = pos_;
  if (!ExpectKey(&out->key) || !Expect(TokenKind::Colon)) return false;
  out->value = literal_value ? ParseLiteral() : ParseExpr();
  if (Failed() || !Expect(TokenKind::Semicolon)) return false;
  out->span = SpanSince(start);
  return true;
}

ast::ExprPtr Parser::ParseLiteral() {
  switch (Kind()) {
    case TokenKind::IntLiteral:
    case TokenKind::FloatLiteral:
    case TokenKind::StringLiteral:
    case TokenKind::KwTrue:
    case TokenKind::KwFalse:
    case TokenKind::KwNull:
      return ParseScalarLiteral();
    case TokenKind::LBracket: return ParseListExpr(&Parser::ParseLiteral);
    case TokenKind::LBrace: return ParseDictExpr(&Parser::ParseLiteral);
    default:
      // Values in @model are literals only: `n: -1;` is an error (§3.4).
      ErrorExpected("literal");
      return ErrorExpr();
  }
}

ast::Type Parser::ParseType() {
  size_t start = pos_;
  ast::Type type;
  TokenKind kind = Kind();
  if (kind == TokenKind::KwTensor) {
    type.kind = ast::Type::Kind::Tensor;
    Advance();
    // `Tensor[2, f32]`, `Tensor<2, f32>`: say how the type is written.
    bool open = false;
    if (!Match(TokenKind::Less)) {
      ErrorExpected("'<'", kTensorTypeHint);
    } else if (!Match(TokenKind::LBracket)) {
      ErrorExpected("'['", kTensorTypeHint);
    } else {
      open = true;
    }
    if (open) {
      const size_t dims_at = pos_ - 1;  // the '['
      while (!At(TokenKind::RBracket) && !Failed()) {
        ast::Dim dim;
        if (!ParseDim(&dim)) break;
        type.dims.push_back(std::move(dim));
        if (!Match(TokenKind::Comma)) break;
      }
      TokenKind k = Kind();
      if (!Failed() && (k == TokenKind::Star || k == TokenKind::Plus || k == TokenKind::Minus ||
                        k == TokenKind::Slash || k == TokenKind::Percent || k == TokenKind::StarStar)) {
        // `[N * 2]`: there is no arithmetic in dimensions (§3.13); say where it goes.
        // @config computes from config keys only: a run's dims have no value there (LANGUAGE.md §5.1).
        ErrorExpected("',' or ']'", "there is no arithmetic in a type: compute the size in @config from config keys "
                             "(N2: N * 2;) and use its name; a size bound by the inputs gets a name of its own");
      }
      // `Tensor<[B, 784]>`: the dtype is left out; show the type with one.
      if (!Failed() && At(TokenKind::RBracket) && Peek(1).kind == TokenKind::Greater) {
        Advance();
        const size_t begin = tokens_[dims_at].span.offset;
        const size_t end = tokens_[pos_ - 1].span.offset + tokens_[pos_ - 1].span.length;
        ErrorExpected("',' and a dtype", "write Tensor<" + std::string(source_.text().substr(begin, end - begin)) +
                                             ", f32> (or the dtype meant)");
      } else if (ExpectListEnd(TokenKind::RBracket) && Expect(TokenKind::Comma)) {
        if (IsDtype(Kind())) {
          type.dtype = DtypeOf(Advance().kind);
          Expect(TokenKind::Greater);
        } else {
          const std::string_view dtype = AtKey() ? DtypeMeantBy(Text(Cur())) : std::string_view();
          ErrorExpected("dtype", dtype.empty() ? std::string() : "write " + std::string(dtype));
        }
      }
    }
  } else if (kind == TokenKind::LParen) {
    // Tuple: no trailing comma (§3.13).
    type.kind = ast::Type::Kind::Tuple;
    DepthGuard guard(this);
    if (guard.ok()) {
      Advance();
      if (!At(TokenKind::RParen)) {
        do {
          type.elements.push_back(ParseType());
        } while (!Failed() && Match(TokenKind::Comma));
      }
      ExpectListEnd(TokenKind::RParen);
    }
  } else if (kind == TokenKind::LBracket) {
    type.kind = ast::Type::Kind::List;
    DepthGuard guard(this);
    if (guard.ok()) {
      Advance();
      type.elements.push_back(ParseType());
      Expect(TokenKind::RBracket);
    }
  } else if (kind == TokenKind::Question) {
    type.kind = ast::Type::Kind::Dynamic;
    Advance();
  } else if (IsDtype(kind)) {
    type.kind = ast::Type::Kind::Scalar;
    type.dtype = DtypeOf(Advance().kind);
    // `f32[2]`: a scalar type takes no dims.
    if (At(TokenKind::LBracket)) ErrorExpected("the end of the type", kTensorTypeHint);
  } else if (kind == TokenKind::IntLiteral) {
    type.kind = ast::Type::Kind::Int;
    ParseIntLiteral(Text(Advance()), &type.int_value);
  } else if (IsKey(kind) && Peek(1).kind == TokenKind::Less) {
    // `tensor<[2], f32>`: no alias takes arguments; the word is `Tensor`.
    ErrorExpected("type", kTensorTypeHint);
  } else if (IsKey(kind)) {
    type.kind = ast::Type::Kind::Alias;
    type.name = std::string(Text(Advance()));
  } else {
    ErrorExpected("type");
  }
  if (Failed()) type.kind = ast::Type::Kind::Error;
  type.span = SpanSince(start);
  return type;
}

bool Parser::ParseDim(ast::Dim* out) {
  const Token& t = Cur();
  out->span = t.span;
  if (t.kind == TokenKind::Question) {
    out->kind = ast::Dim::Kind::Dynamic;
  } else if (t.kind == TokenKind::Underscore) {
    out->kind = ast::Dim::Kind::Inferred;
  } else if (t.kind == TokenKind::IntLiteral) {
    out->kind = ast::Dim::Kind::Fixed;
    out->name = std::string(Text(t));
    ParseIntLiteral(out->name, &out->value);  // overflow was reported by the lexer
  } else if (IsKey(t.kind)) {
    out->kind = ast::Dim::Kind::Named;
    out->name = std::string(Text(t));
  } else {
    // No arithmetic in dimensions (§3.13): `[N * 2]` fails at '*'.
    ErrorExpected("dimension");
    return false;
  }
  Advance();
  return true;
}

bool Parser::ParseParamDefs(std::vector<ast::GraphParam>* out) {
  while (!At(TokenKind::RParen)) {
    size_t start = pos_;
    ast::GraphParam param;
    if (!ExpectKey(&param.name) || !Expect(TokenKind::Colon)) return false;
    param.type = ParseType();
    if (Failed()) return false;
    param.optional = Match(TokenKind::Question);
    param.span = SpanSince(start);
    out->push_back(std::move(param));
    if (!Match(TokenKind::Comma)) break;
  }
  return true;
}

}  // namespace shrew::front::internal
