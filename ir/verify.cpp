// ir::verify: the typed IR's invariants, as ir.h states them, checked over a whole module.
#include "config/settings.h"
#include "ir/walk.h"

#include <stdexcept>

namespace simt::ir {
namespace {

const Type &bool_type() {
  static const Type type = Type::scalar_of(Scalar::Bool);
  return type;
}

const Type &int64_type() {
  static const Type type = Type::scalar_of(Scalar::I64);
  return type;
}

class Verifier {
public:
  Verifier(const Module &module, const Function &f) : module_(module), f_(f) {}

  void function() {
    require(f_.num_params >= 0 && size_t(f_.num_params) <= f_.slots.size(), f_.first_line,
            "more parameters than slots");
    statements(f_.body, /*loop_depth=*/0);
  }

private:
  [[noreturn]] void fail(int line, const std::string &what) const {
    throw std::logic_error("ir::verify: " + f_.name + " (" + f_.file + ":" + std::to_string(line) +
                           "): " + what);
  }
  void require(bool holds, int line, const std::string &what) const {
    if (!holds)
      fail(line, what);
  }
  // Types beyond the plain ones ride on what they are represented as (a datetime64 or an enum
  // member is its int64, whose operations the typer emits): operands agree by representation.
  void same_type(const Type &actual, const Type &expected, int line, const std::string &what) {
    if (!(actual.plain() == expected.plain()))
      fail(line, what + " is " + actual.str() + ", not " + expected.str());
  }
  void slot(int index, int line) const {
    require(index >= 0 && size_t(index) < f_.slots.size(), line,
            "slot " + std::to_string(index) + " does not exist");
  }
  void operands(const Expr &e, size_t count) const {
    require(e.args.size() == count, e.loc.line,
            "an expression of kind " + std::to_string(int(e.kind)) + " has " +
                std::to_string(e.args.size()) + " operands, not " + std::to_string(count));
  }
  void in_range(int index, size_t size, int line, const char *what) const {
    require(index >= 0 && size_t(index) < size, line,
            std::string(what) + " " + std::to_string(index) + " does not exist");
  }

  void statements(const std::vector<Stmt> &body, int loop_depth) {
    for (const Stmt &s : body)
      statement(s, loop_depth);
  }

  void statement(const Stmt &s, int loop_depth) {
    const int line = s.loc.line;
    switch (s.kind) {
    case StmtKind::Assign:
      slot(s.slot, line);
      require(s.exprs.size() == 1, line, "an assignment takes one value");
      same_type(s.exprs[0]->type, f_.slots[size_t(s.slot)].type, line,
                "the value assigned to " + f_.slots[size_t(s.slot)].name);
      break;
    case StmtKind::Store:
      require(s.exprs.size() >= 2 && s.exprs[0]->type.is_array(), line,
              "a store takes an array, its indices and a value");
      break;
    case StmtKind::Eval:
      require(s.exprs.size() == 1, line, "an evaluation takes one expression");
      break;
    case StmtKind::If:
    case StmtKind::While:
    case StmtKind::Assert:
      require(s.exprs.size() == 1, line, "a condition is one expression");
      same_type(s.exprs[0]->type, bool_type(), line, "a condition");
      break;
    case StmtKind::ForRange:
      slot(s.slot, line);
      require(s.exprs.size() == 3, line, "a range() loop takes start, stop and step");
      for (const ExprPtr &bound : s.exprs)
        same_type(bound->type, int64_type(), line, "a range() bound");
      break;
    case StmtKind::Break:
    case StmtKind::Continue:
      require(loop_depth > 0, line, "break or continue outside a loop");
      break;
    case StmtKind::Return:
      if (!s.exprs.empty())
        same_type(s.exprs[0]->type, f_.return_type, line, "the returned value");
      break;
    case StmtKind::SyncThreads:
      require(s.exprs.empty(), line, "syncthreads takes no operands");
      break;
    default:
      break;
    }
    walk_stmt_exprs(s, [&](const Expr &e) { expr(e); });
    const bool loop = s.kind == StmtKind::While || s.kind == StmtKind::ForRange;
    statements(s.body, loop_depth + (loop ? 1 : 0));
    // A loop's else clause runs after it: a break there leaves an enclosing loop.
    statements(s.orelse, loop_depth);
  }

  void expr(const Expr &e) {
    const int line = e.loc.line;
    switch (e.kind) {
    case ExprKind::Local:
      slot(e.index, line);
      break;
    case ExprKind::Unary:
      operands(e, 1);
      same_type(e.type, e.op == Op::Not ? bool_type() : e.args[0]->type, line, "a unary result");
      break;
    case ExprKind::Binary:
      operands(e, 2);
      same_type(e.args[0]->type, e.type, line, "a binary operation's first operand");
      same_type(e.args[1]->type, e.type, line, "a binary operation's second operand");
      break;
    case ExprKind::Compare:
      operands(e, 2);
      same_type(e.args[1]->type, e.args[0]->type, line, "a comparison's second operand");
      same_type(e.type, bool_type(), line, "a comparison");
      break;
    case ExprKind::Select:
      operands(e, 3);
      same_type(e.args[0]->type, bool_type(), line, "a selection's condition");
      same_type(e.args[1]->type, e.type, line, "a selection's first value");
      same_type(e.args[2]->type, e.type, line, "a selection's second value");
      break;
    case ExprKind::And:
    case ExprKind::Or:
      require(e.args.size() >= 2, line, "and/or takes two operands or more");
      for (const ExprPtr &arg : e.args)
        same_type(arg->type, e.type, line, "an and/or operand");
      break;
    case ExprKind::Cast:
      operands(e, 1);
      break;
    case ExprKind::Call:
      call(e);
      break;
    case ExprKind::ExternCall: {
      in_range(e.index, module_.externs.size(), line, "external function");
      const ExternFunction &callee = module_.externs[size_t(e.index)];
      operands(e, callee.params.size());
      for (size_t i = 0; i < e.args.size(); ++i)
        same_type(e.args[i]->type, callee.params[i], line, "an argument of " + callee.name);
      break;
    }
    case ExprKind::SharedArray:
      in_range(e.index, module_.shared_arrays.size(), line, "shared array");
      break;
    case ExprKind::LocalArray:
      in_range(e.index, f_.local_arrays.size(), line, "local array");
      break;
    case ExprKind::ConstArray:
      in_range(e.index, module_.const_arrays.size(), line, "constant array");
      break;
    case ExprKind::ArrayLoad:
    case ExprKind::ArrayShape:
    case ExprKind::ArrayStride:
    case ExprKind::ArraySize:
    case ExprKind::ArrayView:
    case ExprKind::ArrayAddress:
      require(!e.args.empty() && e.args[0]->type.is_array(), line,
              "an array operation on something else");
      break;
    default:
      break;
    }
  }

  void call(const Expr &e) {
    in_range(e.index, module_.functions.size(), e.loc.line, "function");
    const Function &callee = module_.functions[size_t(e.index)];
    operands(e, size_t(callee.num_params));
    for (size_t i = 0; i < e.args.size(); ++i)
      same_type(e.args[i]->type, callee.slots[i].type, e.loc.line,
                "argument " + callee.slots[i].name + " of " + callee.python_name);
    same_type(e.type, callee.return_type, e.loc.line, "the result of " + callee.python_name);
  }

  const Module &module_;
  const Function &f_;
};

} // namespace

void verify(const Module &module) {
  for (const Function &f : module.functions)
    Verifier(module, f).function();
}

bool verification_enabled() {
#ifndef NDEBUG
  return true;
#else
  static const bool enabled = config::text(config::Setting::SIMT_VERIFY_IR) == "1";
  return enabled;
#endif
}

} // namespace simt::ir
