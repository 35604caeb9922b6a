// Array subscripts with an Ellipsis (a[..., 0], a[1, ...] = x): the Ellipsis stands for as many
// full slices as the array has dimensions left, and the view's layout follows Numba's rules for it
// (numba/core/typing/arraydecl.py, get_array_index_type).
#include "frontend/typer.h"

namespace simt {

namespace {

ast::ExprPtr clone_ast(const ast::Expr *e) {
  if (!e)
    return nullptr;
  auto copy = std::make_unique<ast::Expr>();
  copy->kind = e->kind;
  copy->loc = e->loc;
  copy->id = e->id;
  copy->op = e->op;
  copy->ops = e->ops;
  copy->int_value = e->int_value;
  copy->int_overflow = e->int_overflow;
  copy->int_uint64 = e->int_uint64;
  copy->float_value = e->float_value;
  copy->imaginary = e->imaginary;
  copy->text = e->text;
  for (const ast::ExprPtr &elt : e->elts)
    copy->elts.push_back(clone_ast(elt.get()));
  for (const ast::Keyword &k : e->keywords)
    copy->keywords.push_back(ast::Keyword{k.name, clone_ast(k.value.get()), k.loc});
  return copy;
}

// Whether indices (outer to inner in memory order) keep an array contiguous: integers and the
// Ellipsis anywhere, an unstepped slice only innermost (Numba's check_contiguity).
bool keeps_contiguity(const std::vector<const ast::Expr *> &outer_to_inner) {
  for (size_t i = 0; i < outer_to_inner.size(); ++i) {
    const ast::Expr &index = *outer_to_inner[i];
    bool innermost = i + 1 == outer_to_inner.size();
    if (index.kind == ast::ExprKind::Slice && !(innermost && !index.elts[2]))
      return false;
  }
  return true;
}

} // namespace

ir::ExprPtr FunctionTyper::ellipsis_subscript(ir::ExprPtr array, const ast::Expr &index,
                                              ir::Loc loc) {
  std::vector<const ast::Expr *> items;
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &elt : index.elts)
      items.push_back(elt.get());
  else
    items.push_back(&index);
  std::vector<const ast::Expr *> left, right;
  bool met = false;
  for (const ast::Expr *item : items) {
    if (item->kind == ast::ExprKind::Ellipsis) {
      if (met)
        error(item->loc, "only one ellipsis allowed in array index");
      met = true;
      continue;
    }
    (met ? right : left).push_back(item);
  }
  const Type type = array->type;
  int given = static_cast<int>(left.size() + right.size());
  if (given > type.ndim)
    error(loc, "cannot index " + type.str() + " with " + std::to_string(given) + " indices");
  // The index with the Ellipsis spelt out as full slices.
  ast::Expr expanded;
  expanded.kind = ast::ExprKind::Tuple;
  expanded.loc = index.loc;
  for (const ast::Expr *item : left)
    expanded.elts.push_back(clone_ast(item));
  for (int k = given; k < type.ndim; ++k) {
    auto full = std::make_unique<ast::Expr>();
    full->kind = ast::ExprKind::Slice;
    full->loc = index.loc;
    full->elts.resize(3);
    expanded.elts.push_back(std::move(full));
  }
  for (const ast::Expr *item : right)
    expanded.elts.push_back(clone_ast(item));
  ir::ExprPtr result = array_subscript(std::move(array), expanded, loc);
  if (result->kind != ir::ExprKind::ArrayView || given == type.ndim)
    return result; // every dimension indexed: the Ellipsis changes nothing
  char layout = 'A';
  if (type.layout == 'C' && right.empty() && keeps_contiguity(left))
    layout = 'C';
  else if (type.layout == 'F' && left.empty() &&
           keeps_contiguity(std::vector<const ast::Expr *>(right.rbegin(), right.rend())))
    layout = 'F';
  result->type.layout = layout;
  return result;
}

void FunctionTyper::reject_view_aug_assign(const ast::Expr &index, ir::Loc loc) {
  auto is_view_index = [](const ast::Expr &x) {
    return x.kind == ast::ExprKind::Slice || x.kind == ast::ExprKind::Ellipsis;
  };
  bool view = is_view_index(index);
  if (index.kind == ast::ExprKind::Tuple)
    for (const auto &elt : index.elts)
      view |= is_view_index(*elt);
  if (view)
    error(loc, "simt: augmented assignment to an array slice (a[i:j] += x) is not supported, as "
               "in Numba's CUDA target (no in-place array operators); update the elements in a "
               "loop");
}

} // namespace simt
