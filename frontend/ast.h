// The untyped syntax tree of the kernel subset of Python, as the parser produces it.
#pragma once

#include "frontend/operators.h"
#include "ir/ir.h" // Loc

#include <memory>
#include <string>
#include <vector>

namespace simt::ast {

using ir::Loc;

enum class ExprKind : uint8_t {
  Name,      // id
  Int,       // int_value (Python int literal; True/False are Bool)
  Float,     // float_value; the imaginary literal float_value * 1j when imaginary
  Bool,      // int_value 0/1
  None,      // None
  String,    // text
  Tuple,     // elts
  UnaryOp,   // op (a Unary operator), operand = elts[0]
  BinOp,     // elts[0] op elts[1] (a Binary operator)
  BoolOp,    // op (And / Or) over elts (two or more)
  Compare,   // elts[0] ops[0] elts[1] ops[1] elts[2] ... (Comparison operators)
  IfExp,     // elts[1] if elts[0] else elts[2]
  Call,      // func = elts[0], positional args = elts[1..]; keywords
  Attribute, // elts[0].id
  Subscript, // elts[0][elts[1]] (a tuple index is a Tuple expression; slices are Slice)
  Slice,     // elts[0]:elts[1]:elts[2], each may be null (absent)
  List,      // [elts] (only for error messages and literal shapes; not a runtime value)
  Ellipsis,  // ... (only as an array index)
  Starred,   // *elts[0] (only as a call's positional argument)
  Lambda,    // lambda params: body; `function` is it as `def <lambda>(params): return body`
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct FunctionDef;

struct Keyword {
  std::string name;
  ExprPtr value;
  Loc loc;
};

struct Expr {
  ExprKind kind = ExprKind::None;
  Loc loc;
  std::string id;            // Name; Attribute's attribute name
  Operator op{};             // UnaryOp/BinOp/BoolOp operator
  std::vector<Operator> ops; // Compare operators
  int64_t int_value = 0;
  bool int_overflow = false; // an integer literal too large for int64 (an error when used)
  bool int_uint64 = false;   // ... but not for uint64: then int_value holds its bits, typed uint64
                             // (when it does not fit uint64 either, `text` holds its digits)
  double float_value = 0;
  bool imaginary = false; // Float: an imaginary literal (2j)
  bool bytes = false;     // String: a bytes literal (b'...')
  std::string text;
  std::vector<ExprPtr> elts; // operands, see ExprKind; Slice parts may be null
  std::vector<Keyword> keywords;
  std::shared_ptr<const FunctionDef> function; // Lambda
};

enum class StmtKind : uint8_t {
  Expr,      // value
  Assign,    // targets = value (chained: a = b = 1 has two targets); targets may be Tuple/
             // Name/Subscript/Attribute
  AugAssign, // target op= value (op a Binary operator, as in BinOp)
  AnnAssign, // target: annotation = value (value may be null)
  If,        // test: body else orelse (elif is a nested If as the only orelse statement)
  While,     // while test: body (else: orelse)
  For,       // for target in iter: body (else: orelse)
  Break,
  Continue,
  Pass,
  Return,      // value may be null
  Raise,       // value may be null (bare raise)
  Assert,      // test, msg (msg may be null)
  FunctionDef, // nested def: names[0] its name, `function` it (inlined where it is called)
  Global,      // names
  Nonlocal,    // names
  Del,         // targets
  With,
  Try,
  Import,
  ClassDef, // parsed only far enough to be reported as unsupported
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  Loc loc;
  std::vector<ExprPtr> targets;
  ExprPtr target; // AugAssign / AnnAssign / For
  ExprPtr value;  // Expr / Assign / AugAssign / Return / Raise / AnnAssign value
  ExprPtr test;   // If / While / Assert
  ExprPtr iter;   // For
  ExprPtr msg;    // Assert
  ExprPtr annotation;
  Operator op{}; // AugAssign
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  std::vector<std::string> names;
  std::shared_ptr<const FunctionDef> function; // FunctionDef
};

struct Param {
  std::string name;
  Loc loc;
  ExprPtr default_value; // may be null
};

struct FunctionDef {
  std::string name;
  Loc loc; // of the `def` keyword
  std::vector<ExprPtr> decorators;
  std::vector<Param> params;
  // *args: its name (a device function takes the extra positional arguments as a tuple)
  std::string vararg;
  // **kwargs, a bare * or parameters after *args (unsupported; reported by the typer)
  bool has_varargs = false;
  std::vector<StmtPtr> body;
};

} // namespace simt::ast

namespace simt {

// Lexes and parses `source` (one Python function definition, possibly indented and preceded by
// decorators, as inspect.getsource returns it). `first_line` is the line of the source's first
// line in `file`, so every Loc is a real file position. Throws CompileError.
ast::FunctionDef parse_function(const std::string &source, const std::string &file, int first_line);

} // namespace simt
