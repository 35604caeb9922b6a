// ir::dump: one line per statement, nested bodies indented, each line led by its source line.
#include "frontend/ir.h"

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
           << "\n";
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
           << shape_str(fn.local_arrays[i].shape) << "\n";
    block(fn.body, 1);
  }

  void block(const std::vector<Stmt> &body, int depth) {
    for (const Stmt &s : body)
      stmt(s, depth);
  }

  void line(const Stmt &s, int depth, const std::string &text) {
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "%4d:", s.loc.line);
    out_ << prefix << std::string(depth * 2, ' ') << text << "\n";
  }

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
      block(s.body, depth + 1);
      if (!s.orelse.empty()) {
        line(s, depth, "else:");
        block(s.orelse, depth + 1);
      }
      return;
    case StmtKind::While:
      line(s, depth, "while " + expr(*s.exprs[0]) + ":");
      block(s.body, depth + 1);
      loop_else(s, depth);
      return;
    case StmtKind::ForRange:
      line(s, depth,
           "for " + function_->slots[s.slot].name + " in range(" + expr(*s.exprs[0]) + ", " +
               expr(*s.exprs[1]) + ", " + expr(*s.exprs[2]) + "):");
      block(s.body, depth + 1);
      loop_else(s, depth);
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

  void loop_else(const Stmt &s, int depth) {
    if (s.orelse.empty())
      return;
    line(s, depth, "else:");
    block(s.orelse, depth + 1);
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

  std::string expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Const:
      return constant(e);
    case ExprKind::String:
      return quoted(e.name);
    case ExprKind::Local:
      return function_->slots[e.index].name;
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Compare:
      return std::string(op_name(e.op)) + args(e.args, 0);
    case ExprKind::And:
      return "and" + args(e.args, 0);
    case ExprKind::Or:
      return "or" + args(e.args, 0);
    case ExprKind::Select:
      return "select" + args(e.args, 0);
    case ExprKind::Cast:
      return e.type.str() + "(" + expr(*e.args[0]) + ")";
    case ExprKind::Special: {
      std::string name = op_name(e.op);
      if (e.op == Op::LaneId || e.op == Op::WarpSize)
        return name;
      return name + "." + std::string(1, "xyz"[e.index]);
    }
    case ExprKind::ArrayLoad: {
      std::string out = expr(*e.args[0]) + "[";
      for (size_t i = 1; i < e.args.size(); ++i)
        out += (i > 1 ? ", " : "") + expr(*e.args[i]);
      return out + "]";
    }
    case ExprKind::ArrayShape:
      return expr(*e.args[0]) + ".shape[" + std::to_string(e.index) + "]";
    case ExprKind::ArrayStride:
      return expr(*e.args[0]) + ".strides[" + std::to_string(e.index) + "]";
    case ExprKind::ArraySize:
      return expr(*e.args[0]) + ".size";
    case ExprKind::TupleMake:
      return "tuple" + args(e.args, 0);
    case ExprKind::TupleGet:
      return expr(*e.args[0]) + "[" + std::to_string(e.index) + "]";
    case ExprKind::Call:
      return "call " + module_.functions[e.index].name + args(e.args, 0);
    case ExprKind::ExternCall:
      return "extern " + module_.externs[e.index].name + args(e.args, 0);
    case ExprKind::Intrinsic:
      return std::string("@") + intrinsic_name(e.intrinsic) + args(e.args, 0);
    case ExprKind::SharedArray:
      return "shared[" + std::to_string(e.index) + "]";
    case ExprKind::LocalArray:
      return "local[" + std::to_string(e.index) + "]";
    case ExprKind::ConstArray:
      return "const[" + std::to_string(e.index) + "]";
    case ExprKind::Atomic:
      return std::string(op_name(e.op)) + args(e.args, 0);
    case ExprKind::ArrayView: {
      std::string out = expr(*e.args[0]) + "[";
      for (size_t i = 1; i < e.args.size(); ++i)
        out += (i > 1 ? ", " : "") + expr(*e.args[i]);
      return out + "]";
    }
    case ExprKind::DtypeView:
      return expr(*e.args[0]) + ".view(" + e.type.str() + ", axis " + expr(*e.args[1]) +
             ": extent " + expr(*e.args[2]) + ", stride " + expr(*e.args[3]) + ")";
    case ExprKind::FieldView:
      return expr(*e.args[0]) + ".field(" + e.type.str() + ", +" + std::to_string(e.index) + ")";
    case ExprKind::Slice:
      return expr(*e.args[0]) + ":" + expr(*e.args[1]) + ":" + expr(*e.args[2]);
    case ExprKind::TupleIndex:
      return expr(*e.args[0]) + "[" + expr(*e.args[1]) + "]";
    case ExprKind::RecordField:
      return field(*e.args[0], e.index);
    case ExprKind::Libdevice:
      return std::string("@libdevice.") + libdevice_name(Libdevice(e.index)) + args(e.args, 0);
    case ExprKind::Bf16:
      return std::string("@bf16.") + bf16_name(Bf16Fn(e.index)) + args(e.args, 0);
    }
    return "?";
  }

  const Module &module_;
  const Function *function_ = nullptr;
  std::ostringstream out_;
};

} // namespace

std::string dump(const Module &module) { return Dumper(module).run(); }

} // namespace simt::ir
