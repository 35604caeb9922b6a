// ir::clone: a deep copy of a typed IR module (its expressions are owned through unique_ptr).
#include "frontend/ir.h"

namespace simt::ir {
namespace {

ExprPtr clone(const Expr &e) {
  auto copy = std::make_unique<Expr>();
  copy->kind = e.kind;
  copy->type = e.type;
  copy->loc = e.loc;
  copy->op = e.op;
  copy->int_value = e.int_value;
  copy->float_value = e.float_value;
  copy->imag_value = e.imag_value;
  copy->index = e.index;
  copy->intrinsic = e.intrinsic;
  copy->name = e.name;
  copy->no_wrap = e.no_wrap;
  copy->args.reserve(e.args.size());
  for (const ExprPtr &arg : e.args)
    copy->args.push_back(clone(*arg));
  return copy;
}

std::vector<Stmt> clone(const std::vector<Stmt> &list) {
  std::vector<Stmt> copies(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Stmt &s = list[i];
    Stmt &copy = copies[i];
    copy.kind = s.kind;
    copy.loc = s.loc;
    copy.slot = s.slot;
    copy.exprs.reserve(s.exprs.size());
    for (const ExprPtr &e : s.exprs)
      copy.exprs.push_back(clone(*e));
    copy.body = clone(s.body);
    copy.orelse = clone(s.orelse);
    copy.exc = s.exc;
    copy.message = s.message;
    copy.field = s.field;
  }
  return copies;
}

} // namespace

Module clone(const Module &module) {
  Module copy;
  copy.functions.resize(module.functions.size());
  for (size_t i = 0; i < module.functions.size(); ++i) {
    const Function &f = module.functions[i];
    Function &g = copy.functions[i];
    g.name = f.name;
    g.python_name = f.python_name;
    g.file = f.file;
    g.first_line = f.first_line;
    g.slots = f.slots;
    g.num_params = f.num_params;
    g.return_type = f.return_type;
    g.body = clone(f.body);
    g.local_arrays = f.local_arrays;
    g.recursive = f.recursive;
    g.is_kernel = f.is_kernel;
    g.props = f.props;
  }
  copy.externs = module.externs;
  copy.shared_arrays = module.shared_arrays;
  copy.const_arrays = module.const_arrays;
  copy.static_shared_bytes = module.static_shared_bytes;
  copy.props = module.props;
  copy.options = module.options;
  return copy;
}

} // namespace simt::ir
