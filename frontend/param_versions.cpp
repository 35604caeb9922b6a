#include "frontend/param_versions.h"

namespace simt {

namespace {

bool mentions(const ast::Expr *e, const std::string &name) {
  if (!e)
    return false;
  if (e->kind == ast::ExprKind::Name && e->id == name)
    return true;
  for (const auto &elt : e->elts)
    if (mentions(elt.get(), name))
      return true;
  for (const auto &k : e->keywords)
    if (mentions(k.value.get(), name))
      return true;
  return false;
}

bool mentions(const ast::Stmt &s, const std::string &name) {
  for (const auto &t : s.targets)
    if (mentions(t.get(), name))
      return true;
  for (const ast::Expr *e :
       {s.target.get(), s.value.get(), s.test.get(), s.iter.get(), s.msg.get(), s.annotation.get()})
    if (mentions(e, name))
      return true;
  for (const auto &b : s.body)
    if (mentions(*b, name))
      return true;
  for (const auto &b : s.orelse)
    if (mentions(*b, name))
      return true;
  for (const auto &n : s.names)
    if (n == name)
      return true;
  return false;
}

void rename_reads(ast::Expr *e, const std::string &from, const std::string &to) {
  if (!e)
    return;
  if (e->kind == ast::ExprKind::Name && e->id == from)
    e->id = to;
  for (auto &elt : e->elts)
    rename_reads(elt.get(), from, to);
  for (auto &k : e->keywords)
    rename_reads(k.value.get(), from, to);
}

bool assigns_only(const ast::Stmt &s, const std::string &name) {
  return s.kind == ast::StmtKind::Assign && s.targets.size() == 1 &&
         s.targets[0]->kind == ast::ExprKind::Name && s.targets[0]->id == name;
}

} // namespace

void split_redefined_parameters(ast::FunctionDef &def) {
  for (ast::Param &param : def.params) {
    for (auto &s : def.body) {
      if (!mentions(*s, param.name))
        continue;
      if (assigns_only(*s, param.name)) {
        rename_reads(s->value.get(), param.name, "$" + param.name);
        param.name = "$" + param.name;
      }
      break;
    }
  }
}

} // namespace simt
