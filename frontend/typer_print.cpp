// print() in kernels (Numba's CUDA print lowering): scalars, strings, tuples (nested, printed as
// Python writes them: "(1, (2.0, 3), (4,))") and the dim3 values cuda.threadIdx, cuda.blockIdx,
// cuda.blockDim and cuda.gridDim (printed as the tuple (x, y, z)).
#include "frontend/ir_build.h"
#include "frontend/typer.h"
#include "frontend/typer_calls.h"

namespace simt {

namespace {

// Text of a print(): `glue` bits of ir::kPrintGlue* say which sides have no separating space.
ir::ExprPtr print_text(const std::string &text, int64_t glue, ir::Loc loc) {
  auto s = make_expr(ir::ExprKind::String, Type::none(), loc);
  s->name = text;
  s->int_value = glue;
  return s;
}

bool is_dim3(const std::string &path) {
  return path == "cuda.threadIdx" || path == "cuda.blockIdx" || path == "cuda.blockDim" ||
         path == "cuda.gridDim";
}

} // namespace

// The items of a tuple: "(", its elements separated by ", ", ")" (a 1-tuple: "(x,)").
void FunctionTyper::print_tuple(std::vector<Value> elements, ir::Loc loc,
                                std::vector<ir::ExprPtr> &items) {
  items.push_back(print_text("(", ir::kPrintGlueAfter, loc));
  for (size_t i = 0; i < elements.size(); ++i) {
    print_item(std::move(elements[i]), loc, items);
    if (i + 1 < elements.size() || elements.size() == 1)
      items.push_back(print_text(",", ir::kPrintGlueBefore, loc));
  }
  items.push_back(print_text(")", ir::kPrintGlueBefore, loc));
}

void FunctionTyper::print_item(Value v, ir::Loc loc, std::vector<ir::ExprPtr> &items) {
  if (v.kind == Value::Kind::Path && is_dim3(v.path)) {
    std::vector<Value> xyz;
    for (const char *axis : {".x", ".y", ".z"})
      xyz.push_back(path_attribute(v.path + axis, loc));
    print_tuple(std::move(xyz), loc, items);
    return;
  }
  if (v.kind != Value::Kind::Expr)
    error(loc, "simt: print() of this value is not supported yet");
  ir::ExprPtr e = std::move(v.expr);
  if (e->kind == ir::ExprKind::String) {
    items.push_back(std::move(e));
    return;
  }
  if (e->type.is_tuple() && !e->type.is_optional() && !e->type.nominal) {
    e = stable(std::move(e));
    std::vector<Value> elements;
    for (size_t i = 0; i < e->type.elems.size(); ++i)
      elements.push_back(expr_value(tuple_item(clone(*e), static_cast<int>(i), loc)));
    print_tuple(std::move(elements), loc, items);
    return;
  }
  if (!e->type.is_scalar())
    error(loc, "simt: print() of a value of type " + e->type.str() + " is not supported yet");
  if (is_complex(e->type.scalar))
    error(loc, "simt: print() of complex numbers is not supported (Numba's CUDA target cannot "
               "print them)");
  items.push_back(std::move(e));
}

CallFamily FunctionTyper::print_calls() {
  return {"print",
          {{"builtins.print", [](FunctionTyper &t, const std::string &, const ast::Expr &e) {
              return t.call_print(e);
            }}}};
}

Value FunctionTyper::call_print(const ast::Expr &e) {
  if (!e.keywords.empty())
    error(e.loc, "simt: print() keyword arguments are not supported yet");
  ir::Stmt s;
  s.kind = ir::StmtKind::Print;
  s.loc = e.loc;
  for (size_t i = 1; i < e.elts.size(); ++i)
    print_item(value(*e.elts[i]), e.elts[i]->loc, s.exprs);
  emit(std::move(s));
  return Value{};
}

} // namespace simt
