#include "front/ast.h"

namespace shrew::ast {

const char* UnaryOpSpelling(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Not: return "!";
    case UnaryOp::BitNot: return "~";
  }
  return "?";
}

const char* BinaryOpSpelling(BinaryOp op) {
  switch (op) {
    case BinaryOp::Coalesce: return "??";
    case BinaryOp::Or: return "||";
    case BinaryOp::And: return "&&";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::Equal: return "==";
    case BinaryOp::NotEqual: return "!=";
    case BinaryOp::Less: return "<";
    case BinaryOp::Greater: return ">";
    case BinaryOp::LessEqual: return "<=";
    case BinaryOp::GreaterEqual: return ">=";
    case BinaryOp::ShiftLeft: return "<<";
    case BinaryOp::ShiftRight: return ">>";
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
  }
  return "?";
}

std::string CallExpr::CalleeName() const {
  std::string out;
  for (size_t i = 0; i < callee.size(); ++i) {
    if (i > 0) out += "::";
    out += callee[i].name;
  }
  return out;
}

const Expr* StripParens(const Expr* e) {
  while (e != nullptr) {
    const ParenExpr* p = e->As<ParenExpr>();
    if (p == nullptr || p->inner == nullptr) break;
    e = p->inner.get();
  }
  return e;
}

const char* DtypeName(Dtype dtype) {
  switch (dtype) {
#define SHREW_DTYPE(Name, DtypeName, spelling) \
  case Dtype::DtypeName:                       \
    return spelling;
#include "front/token_kinds.def"
  }
  return "?";
}

}  // namespace shrew::ast
