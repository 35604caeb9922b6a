#include "frontend/ast_dump.h"

#include <charconv>

namespace simt::ast {

namespace {

// Appends S-expressions to one string (building it piecewise also avoids GCC 12's false
// -Wrestrict warnings on chains of `"literal" + std::string`).
class Dumper {
public:
  std::string out;

  void expr(const Expr *expr) {
    if (!expr) {
      out += " _";
      return;
    }
    out += " (";
    switch (expr->kind) {
    case ExprKind::Name:
      word("Name", expr->id);
      break;
    case ExprKind::Int:
      word(expr->int_overflow ? "Int!" : "Int", std::to_string(expr->int_value));
      break;
    case ExprKind::Float: {
      char buffer[64];
      auto result = std::to_chars(buffer, buffer + sizeof buffer, expr->float_value);
      word(expr->imaginary ? "Imaginary" : "Float", std::string(buffer, result.ptr));
      break;
    }
    case ExprKind::Bool:
      word("Bool", expr->int_value ? "True" : "False");
      break;
    case ExprKind::None:
      out += "None";
      break;
    case ExprKind::String:
      out += "String ";
      quote(expr->text);
      break;
    case ExprKind::Tuple:
      elts("Tuple", *expr);
      break;
    case ExprKind::List:
      elts("List", *expr);
      break;
    case ExprKind::UnaryOp:
      word("UnaryOp", spelling(expr->op));
      elts("", *expr);
      break;
    case ExprKind::BinOp:
      word("BinOp", spelling(expr->op));
      elts("", *expr);
      break;
    case ExprKind::BoolOp:
      word("BoolOp", spelling(expr->op));
      elts("", *expr);
      break;
    case ExprKind::Compare:
      out += "Compare";
      this->expr(expr->elts[0].get());
      for (size_t i = 0; i < expr->ops.size(); ++i) {
        out += ' ';
        out += spelling(expr->ops[i]);
        this->expr(expr->elts[i + 1].get());
      }
      break;
    case ExprKind::IfExp:
      elts("IfExp", *expr);
      break;
    case ExprKind::Call:
      elts("Call", *expr);
      for (const Keyword &keyword : expr->keywords) {
        out += " (";
        out += keyword.name;
        out += '=';
        this->expr(keyword.value.get());
        out += ')';
      }
      break;
    case ExprKind::Attribute:
      out += "Attribute";
      this->expr(expr->elts[0].get());
      out += ' ';
      out += expr->id;
      break;
    case ExprKind::Subscript:
      elts("Subscript", *expr);
      break;
    case ExprKind::Slice:
      elts("Slice", *expr);
      break;
    case ExprKind::Ellipsis:
      out += "Ellipsis";
      break;
    case ExprKind::Starred:
      elts("Starred", *expr);
      break;
    case ExprKind::Lambda:
      out += "Lambda (params";
      for (const Param &param : expr->function->params)
        out += " " + param.name;
      out += ")";
      block("body", expr->function->body);
      break;
    }
    out += ')';
  }

  void stmt(const Stmt &stmt) {
    out += " (";
    switch (stmt.kind) {
    case StmtKind::Expr:
      out += "Expr";
      expr(stmt.value.get());
      break;
    case StmtKind::Assign:
      out += "Assign";
      for (const ExprPtr &target : stmt.targets)
        expr(target.get());
      out += " =";
      expr(stmt.value.get());
      break;
    case StmtKind::AugAssign:
      out += "AugAssign";
      expr(stmt.target.get());
      out += ' ';
      out += spelling(*operator_info(stmt.op).inplace);
      expr(stmt.value.get());
      break;
    case StmtKind::AnnAssign:
      out += "AnnAssign";
      expr(stmt.target.get());
      expr(stmt.annotation.get());
      expr(stmt.value.get());
      break;
    case StmtKind::If:
      out += "If";
      expr(stmt.test.get());
      blocks(stmt);
      break;
    case StmtKind::While:
      out += "While";
      expr(stmt.test.get());
      blocks(stmt);
      break;
    case StmtKind::For:
      out += "For";
      expr(stmt.target.get());
      expr(stmt.iter.get());
      blocks(stmt);
      break;
    case StmtKind::Break:
      out += "Break";
      break;
    case StmtKind::Continue:
      out += "Continue";
      break;
    case StmtKind::Pass:
      out += "Pass";
      break;
    case StmtKind::Return:
      out += "Return";
      optional(stmt.value.get());
      break;
    case StmtKind::Raise:
      out += "Raise";
      optional(stmt.value.get());
      break;
    case StmtKind::Assert:
      out += "Assert";
      expr(stmt.test.get());
      optional(stmt.msg.get());
      break;
    case StmtKind::FunctionDef:
      word("FunctionDef", stmt.names.at(0));
      block("body", stmt.function->body);
      break;
    case StmtKind::Global:
      names("Global", stmt.names);
      break;
    case StmtKind::Nonlocal:
      names("Nonlocal", stmt.names);
      break;
    case StmtKind::Del:
      out += "Del";
      for (const ExprPtr &target : stmt.targets)
        expr(target.get());
      break;
    case StmtKind::With:
      out += "With";
      break;
    case StmtKind::Try:
      out += "Try";
      break;
    case StmtKind::Import:
      out += "Import";
      break;
    case StmtKind::ClassDef:
      out += "ClassDef";
      break;
    }
    out += ')';
  }

  void function(const FunctionDef &function) {
    out += '(';
    word("FunctionDef", function.name);
    out += " (params";
    for (const Param &param : function.params) {
      out += ' ';
      if (!param.default_value) {
        out += param.name;
        continue;
      }
      out += '(';
      out += param.name;
      expr(param.default_value.get());
      out += ')';
    }
    if (!function.vararg.empty())
      out += " *" + function.vararg;
    if (function.has_varargs)
      out += " *";
    out += ") (decorators";
    for (const ExprPtr &decorator : function.decorators)
      expr(decorator.get());
    out += ')';
    block("body", function.body);
    out += ')';
  }

  void block(const char *head, const std::vector<StmtPtr> &stmts) {
    out += " (";
    out += head;
    for (const StmtPtr &stmt : stmts)
      this->stmt(*stmt);
    out += ')';
  }

private:
  void word(const char *head, const std::string &text) {
    out += head;
    out += ' ';
    out += text;
  }

  void elts(const char *head, const Expr &expr) {
    out += head;
    for (const ExprPtr &elt : expr.elts)
      this->expr(elt.get());
  }

  void optional(const Expr *expr) {
    if (expr)
      this->expr(expr);
  }

  // The body, then the else block only when there is one.
  void blocks(const Stmt &stmt) {
    block("body", stmt.body);
    if (!stmt.orelse.empty())
      block("else", stmt.orelse);
  }

  void names(const char *head, const std::vector<std::string> &names) {
    out += head;
    for (const std::string &name : names) {
      out += ' ';
      out += name;
    }
  }

  void quote(const std::string &text) {
    out += '"';
    for (char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += c;
      }
    }
    out += '"';
  }
};

} // namespace

std::string dump(const Expr &expr) {
  Dumper dumper;
  dumper.expr(&expr);
  return dumper.out.substr(1); // without the separating space
}

std::string dump(const Stmt &stmt) {
  Dumper dumper;
  dumper.stmt(stmt);
  return dumper.out.substr(1);
}

std::string dump(const FunctionDef &function) {
  Dumper dumper;
  dumper.function(function);
  return dumper.out;
}

} // namespace simt::ast
