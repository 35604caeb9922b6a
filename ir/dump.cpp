// ir::dump: one line per statement, nested bodies indented, each line led by its source line.
#include "ir/ir.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace simt::ir {

namespace {

const char *op_name(Op op) {
  switch (op) {
  case Op::None:
    return "none";
  case Op::Neg:
    return "neg";
  case Op::Pos:
    return "pos";
  case Op::Invert:
    return "invert";
  case Op::Not:
    return "not";
  case Op::Add:
    return "add";
  case Op::Sub:
    return "sub";
  case Op::Mul:
    return "mul";
  case Op::TrueDiv:
    return "truediv";
  case Op::FloorDiv:
    return "floordiv";
  case Op::Mod:
    return "mod";
  case Op::Pow:
    return "pow";
  case Op::LShift:
    return "lshift";
  case Op::RShift:
    return "rshift";
  case Op::BitAnd:
    return "bitand";
  case Op::BitOr:
    return "bitor";
  case Op::BitXor:
    return "bitxor";
  case Op::Eq:
    return "eq";
  case Op::Ne:
    return "ne";
  case Op::Lt:
    return "lt";
  case Op::Le:
    return "le";
  case Op::Gt:
    return "gt";
  case Op::Ge:
    return "ge";
  case Op::ThreadIdx:
    return "threadIdx";
  case Op::BlockIdx:
    return "blockIdx";
  case Op::BlockDim:
    return "blockDim";
  case Op::GridDim:
    return "gridDim";
  case Op::LaneId:
    return "laneid";
  case Op::WarpSize:
    return "warpsize";
  case Op::AtomicAdd:
    return "atomic.add";
  case Op::AtomicSub:
    return "atomic.sub";
  case Op::AtomicMax:
    return "atomic.max";
  case Op::AtomicMin:
    return "atomic.min";
  case Op::AtomicAnd:
    return "atomic.and";
  case Op::AtomicOr:
    return "atomic.or";
  case Op::AtomicXor:
    return "atomic.xor";
  case Op::AtomicExch:
    return "atomic.exch";
  case Op::AtomicInc:
    return "atomic.inc";
  case Op::AtomicDec:
    return "atomic.dec";
  case Op::AtomicCas:
    return "atomic.cas";
  case Op::AtomicNanMax:
    return "atomic.nanmax";
  case Op::AtomicNanMin:
    return "atomic.nanmin";
  }
  return "?";
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string shape_str(const std::vector<int64_t> &shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

class Dumper {
public:
  explicit Dumper(const Module &module) : module_(module) {}

  std::string run() {
    for (size_t i = 0; i < module_.shared_arrays.size(); ++i) {
      const SharedArrayDecl &s = module_.shared_arrays[i];
      out_ << "shared[" << i << "]: " << s.elements.str() << " "
           << (s.dynamic ? std::string("dynamic") : shape_str(s.shape)) << " at " << s.offset
           << (s.alignment ? " align " + std::to_string(s.alignment) : "") << "\n";
    }
    for (size_t i = 0; i < module_.const_arrays.size(); ++i) {
      const ConstArrayDecl &c = module_.const_arrays[i];
      out_ << "const[" << i << "]: " << scalar_name(c.dtype) << " " << shape_str(c.shape) << "\n";
    }
    out_ << "static_shared_bytes: " << module_.static_shared_bytes << "\n";
    if (module_.options.python_error_model)
      out_ << "error_model: python\n";
    for (const Function &fn : module_.functions)
      function(fn);
    return out_.str();
  }

private:
  void function(const Function &fn) {
    function_ = &fn;
    out_ << "\n" << (fn.is_kernel ? "kernel " : "function ") << fn.name << "(";
    for (int i = 0; i < fn.num_params; ++i)
      out_ << (i ? ", " : "") << fn.slots[i].name << ": " << fn.slots[i].type.str();
    out_ << ") -> " << fn.return_type.str() << "  # " << fn.file << ":" << fn.first_line;
    const Properties &p = fn.props;
    if (p.uses_barrier || p.uses_shared || p.uses_atomics || p.uses_print || p.uses_warp ||
        p.may_spin) {
      out_ << " uses";
      if (p.uses_barrier)
        out_ << " barrier";
      if (p.uses_grid_sync)
        out_ << " grid_sync";
      if (p.uses_shared)
        out_ << " shared";
      if (p.uses_atomics)
        out_ << " atomics";
      if (p.uses_print)
        out_ << " print";
      if (p.uses_warp)
        out_ << " warp";
      if (p.may_spin)
        out_ << " spin";
    }
    out_ << "\n";
    for (size_t i = fn.num_params; i < fn.slots.size(); ++i)
      out_ << "  local " << fn.slots[i].name << ": " << fn.slots[i].type.str() << "\n";
    for (size_t i = 0; i < fn.local_arrays.size(); ++i)
      out_ << "  local[" << i << "]: " << fn.local_arrays[i].elements.str() << " "
           << shape_str(fn.local_arrays[i].shape)
           << (fn.local_arrays[i].alignment
                   ? " align " + std::to_string(fn.local_arrays[i].alignment)
                   : "")
           << "\n";
    block(fn.body, 1);
  }

  // Statements in order, each line then the blocks it holds, from a work list rather than by
  // recursion: an elif chain nests its Ifs as deep as it is long (see frontend/nesting.h).
  void block(const std::vector<Stmt> &body, int depth) {
    struct Pending {
      const Stmt *stmt;
      int depth;
      bool else_line; // the "else:" of stmt's orelse, not stmt itself
    };
    std::vector<Pending> work;
    auto push_block = [&](const std::vector<Stmt> &stmts, int at) {
      for (auto it = stmts.rbegin(); it != stmts.rend(); ++it)
        work.push_back({&*it, at, false});
    };
    push_block(body, depth);
    while (!work.empty()) {
      const Pending next = work.back();
      work.pop_back();
      if (next.else_line) {
        line(*next.stmt, next.depth, "else:");
        continue;
      }
      stmt(*next.stmt, next.depth);
      if (!next.stmt->orelse.empty()) {
        push_block(next.stmt->orelse, next.depth + 1);
        work.push_back({next.stmt, next.depth, true});
      }
      push_block(next.stmt->body, next.depth + 1);
    }
  }

  void line(const Stmt &s, int depth, const std::string &text) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%4d:", s.loc.line);
    out_ << prefix << std::string(depth * 2, ' ') << text << "\n";
  }

  // The line of `s` (block() dumps the blocks it holds).
  void stmt(const Stmt &s, int depth) {
    switch (s.kind) {
    case StmtKind::Assign: {
      const Slot &slot = function_->slots[s.slot];
      line(s, depth, slot.name + ": " + slot.type.str() + " = " + expr(*s.exprs[0]));
      return;
    }
    case StmtKind::Store: {
      std::string text = expr(*s.exprs[0]) + "[";
      for (size_t i = 1; i + 1 < s.exprs.size(); ++i)
        text += (i > 1 ? ", " : "") + expr(*s.exprs[i]);
      line(s, depth, text + "] = " + expr(*s.exprs.back()));
      return;
    }
    case StmtKind::Eval:
      line(s, depth, expr(*s.exprs[0]));
      return;
    case StmtKind::If:
      line(s, depth, "if " + expr(*s.exprs[0]) + ":");
      return;
    case StmtKind::While:
      line(s, depth, "while " + expr(*s.exprs[0]) + ":");
      return;
    case StmtKind::ForRange:
      line(s, depth,
           "for " + function_->slots[s.slot].name + " in range(" + expr(*s.exprs[0]) + ", " +
               expr(*s.exprs[1]) + ", " + expr(*s.exprs[2]) + "):");
      return;
    case StmtKind::Break:
      line(s, depth, "break");
      return;
    case StmtKind::Continue:
      line(s, depth, "continue");
      return;
    case StmtKind::Return:
      line(s, depth, s.exprs.empty() ? "return" : "return " + expr(*s.exprs[0]));
      return;
    case StmtKind::Raise:
      line(s, depth, "raise " + s.exc + "(" + quoted(s.message) + ")");
      return;
    case StmtKind::Assert:
      line(s, depth, "assert " + expr(*s.exprs[0]) + ", " + quoted(s.message));
      return;
    case StmtKind::SyncThreads:
      line(s, depth, "syncthreads()");
      return;
    case StmtKind::Print:
      line(s, depth, "print" + args(s.exprs, 0));
      return;
    case StmtKind::FieldStore:
      line(s, depth, field(*s.exprs[0], s.field) + " = " + expr(*s.exprs[1]));
      return;
    }
  }

  std::string field(const Expr &record, int index) {
    return expr(record) + "." + record.type.record->fields[index].name;
  }

  std::string args(const std::vector<ExprPtr> &exprs, size_t from) {
    std::string out = "(";
    for (size_t i = from; i < exprs.size(); ++i)
      out += (i > from ? ", " : "") + expr(*exprs[i]);
    return out + ")";
  }

  std::string constant(const Expr &e) {
    std::string text;
    if (e.type.scalar == Scalar::Bool)
      return e.int_value ? "True" : "False";
    auto real = [](double value) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", value);
      std::string digits = buf;
      if (std::isfinite(value) && digits.find_first_of(".e") == std::string::npos)
        digits += ".0";
      return digits;
    };
    if (is_complex(e.type.scalar)) {
      return scalar_name(e.type.scalar) + "(" + real(e.float_value) + ", " + real(e.imag_value) +
             ")";
    } else if (is_real(e.type.scalar)) {
      text = real(e.float_value);
    } else {
      text = is_signed(e.type.scalar) ? std::to_string(e.int_value)
                                      : std::to_string(static_cast<uint64_t>(e.int_value));
    }
    if (e.type.scalar == Scalar::I64 || e.type.scalar == Scalar::F64)
      return text;
    return scalar_name(e.type.scalar) + "(" + text + ")";
  }

  // A part of an expression's text: a subexpression, or text.
  struct Piece {
    const Expr *expr = nullptr;
    std::string text;
  };

  // The text of `e`, written from a work list of pieces rather than by recursion: a long chain's
  // IR is as deep as the chain is long (see frontend/nesting.h).
  std::string expr(const Expr &e) {
    std::string out;
    std::vector<Piece> work{{&e, ""}};
    while (!work.empty()) {
      Piece next = std::move(work.back());
      work.pop_back();
      if (!next.expr) {
        out += next.text;
        continue;
      }
      std::vector<Piece> parts = pieces(*next.expr);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it)
        work.push_back(std::move(*it));
    }
    return out;
  }

  // `prefix`, then the args in parentheses: add(a, b)
  static std::vector<Piece> call(std::string prefix, const Expr &e) {
    std::vector<Piece> parts{{nullptr, std::move(prefix) + "("}};
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i)
        parts.push_back({nullptr, ", "});
      parts.push_back({e.args[i].get(), ""});
    }
    parts.push_back({nullptr, ")"});
    return parts;
  }

  // args[0], then the other args in brackets: a[i, j]
  static std::vector<Piece> indexed(const Expr &e) {
    std::vector<Piece> parts{{e.args[0].get(), ""}, {nullptr, "["}};
    for (size_t i = 1; i < e.args.size(); ++i) {
      if (i > 1)
        parts.push_back({nullptr, ", "});
      parts.push_back({e.args[i].get(), ""});
    }
    parts.push_back({nullptr, "]"});
    return parts;
  }

  // args[0], then `suffix`: a.size
  static std::vector<Piece> suffixed(const Expr &e, std::string suffix) {
    return {{e.args[0].get(), ""}, {nullptr, std::move(suffix)}};
  }

  // args[i] and the texts between them, in turn: a:b:c
  static std::vector<Piece> joined(const Expr &e, const std::vector<std::string> &between) {
    std::vector<Piece> parts;
    for (size_t i = 0; i < e.args.size(); ++i) {
      parts.push_back({e.args[i].get(), ""});
      if (i < between.size())
        parts.push_back({nullptr, between[i]});
    }
    return parts;
  }

  static std::string bracketed(int index) {
    return std::string(1, '[') + std::to_string(index) + "]";
  }

  std::vector<Piece> pieces(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Const:
      return {{nullptr, constant(e)}};
    case ExprKind::String:
      return {{nullptr, quoted(e.name)}};
    case ExprKind::Local:
      return {{nullptr, function_->slots[e.index].name}};
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Compare:
    case ExprKind::Atomic:
      return call(op_name(e.op), e);
    case ExprKind::And:
      return call("and", e);
    case ExprKind::Or:
      return call("or", e);
    case ExprKind::Select:
      return call("select", e);
    case ExprKind::Cast:
      return call(e.type.str(), e);
    case ExprKind::Special:
      if (e.op == Op::LaneId || e.op == Op::WarpSize)
        return {{nullptr, op_name(e.op)}};
      return {{nullptr, std::string(op_name(e.op)) + "." + "xyz"[e.index]}};
    case ExprKind::ArrayLoad:
    case ExprKind::ArrayView:
      return indexed(e);
    case ExprKind::ArrayShape:
      return suffixed(e, ".shape" + bracketed(e.index));
    case ExprKind::ArrayStride:
      return suffixed(e, ".strides" + bracketed(e.index));
    case ExprKind::ArraySize:
      return suffixed(e, ".size");
    case ExprKind::ArrayAddress:
      return suffixed(e, ".ctypes.data");
    case ExprKind::TupleMake:
      return call("tuple", e);
    case ExprKind::TupleGet:
      return suffixed(e, bracketed(e.index));
    case ExprKind::Call:
      return call("call " + module_.functions[e.index].name, e);
    case ExprKind::ExternCall:
      return call("extern " + module_.externs[e.index].name, e);
    case ExprKind::Intrinsic:
      return call(std::string("@") + intrinsic_name(e.intrinsic), e);
    case ExprKind::SharedArray:
      return {{nullptr, "shared" + bracketed(e.index)}};
    case ExprKind::LocalArray:
      return {{nullptr, "local" + bracketed(e.index)}};
    case ExprKind::ConstArray:
      return {{nullptr, "const" + bracketed(e.index)}};
    case ExprKind::DtypeView:
      return joined(e, {".view(" + e.type.str() + ", axis ", ": extent ", ", stride ", ")"});
    case ExprKind::Reshape:
      return suffixed(e, ".reshape(" + e.type.str() + ")");
    case ExprKind::ArrayAlloc:
      return call(std::string(e.int_value ? "zeros " : "empty ") + e.type.str(), e);
    case ExprKind::FieldView:
      return suffixed(e, ".field(" + e.type.str() + ", +" + std::to_string(e.index) + ")");
    case ExprKind::Slice:
      return joined(e, {":", ":"});
    case ExprKind::TupleIndex:
      return joined(e, {"[", "]"});
    case ExprKind::RecordField:
      return suffixed(e, "." + e.args[0]->type.record->fields[e.index].name);
    case ExprKind::Libdevice:
      return call(std::string("@libdevice.") + libdevice_name(Libdevice(e.index)), e);
    case ExprKind::Bf16:
      return call(std::string("@bf16.") + bf16_name(Bf16Fn(e.index)), e);
    case ExprKind::Fp8:
      return call(std::string("@fp8.") + fp8_info(Fp8Fn(e.index)).name, e);
    case ExprKind::Fp8Value: // @fp8.fp8_e4m3(x) constructs, @fp8.fp8_e4m3->float32(v) converts
      return call(std::string("@fp8.") + fp8_type_info(Fp8Type(e.index)).name +
                      (e.type.is_storage() ? "" : "->" + e.type.str()),
                  e);
    }
    return {{nullptr, "?"}};
  }

  const Module &module_;
  const Function *function_ = nullptr;
  std::ostringstream out_;
};

} // namespace

std::string dump(const Module &module) { return Dumper(module).run(); }

} // namespace simt::ir
